// matvec (KernelGen "matvec"): y = A x, one row per thread, a loop over the columns. The loads of
// A are a row stride apart between lanes and x[j] is the same address in every lane: no constant
// lane delta, so no opportunity.
extern "C" __global__ void matvec(const float* __restrict__ A, const float* __restrict__ x, float* y,
                                  int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ny) return;
    float s = 0.0f;
    for (int j = 0; j < nx; j++) s += A[(size_t)i * nx + j] * x[j];
    y[i] = s;
}
