// sincos_k (KernelGen "sincos"; "sincos" itself clashes with the libm overload): elementwise sin/cos; one load per array, no opportunity (control).
extern "C" __global__ void sincos_k(const float* __restrict__ x, const float* __restrict__ y,
                                  float* xy, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) xy[i] = sinf(x[i]) + cosf(y[i]);
}
