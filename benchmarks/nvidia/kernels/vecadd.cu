// vecadd (KernelGen "vecadd"): c = a + b. No neighbour loads: the control with no opportunity.
extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) c[i] = a[i] + b[i];
}
