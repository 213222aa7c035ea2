// 1-D 5-point stencil: five loads of one array at i-2..i+2, four of them a lane shift of another.
extern "C" __global__ void stencil1d5(const float* __restrict__ in, float* out, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 2 && i < nx - 2)
        out[i] = 0.1f * in[i - 2] + 0.2f * in[i - 1] + 0.4f * in[i] + 0.2f * in[i + 1] + 0.1f * in[i + 2];
}
