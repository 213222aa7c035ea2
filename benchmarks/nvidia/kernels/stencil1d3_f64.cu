// 1-D 3-point stencil in double precision: the 64-bit case (a shuffle pair per replaced load).
extern "C" __global__ void stencil1d3_f64(const double* __restrict__ in, double* out, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < nx - 1)
        out[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
}
