// gaussblur (KernelGen "gaussblur"): 2-D 5x5 Gaussian blur; five loads per row at i-2..i+2.
extern "C" __global__ void gaussblur(const float* __restrict__ in, float* out, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 2 || i >= nx - 2 || j < 2 || j >= ny - 2) return;
    const float w[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};
    float s = 0.0f;
#pragma unroll
    for (int dj = -2; dj <= 2; dj++)
#pragma unroll
        for (int di = -2; di <= 2; di++)
            s += w[dj + 2] * w[di + 2] * in[(j + dj) * nx + i + di];
    out[j * nx + i] = s;
}
