// divergence (KernelGen "divergence"): div of a 3-D vector field (ux, uy, uz), central differences.
extern "C" __global__ void divergence(const float* __restrict__ ux, const float* __restrict__ uy,
                                      const float* __restrict__ uz, float* div, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1 || k < 1 || k >= nz - 1) return;
    int c = (k * ny + j) * nx + i;
    div[c] = 0.5f * (ux[c + 1] - ux[c - 1]) + 0.5f * (uy[c + nx] - uy[c - nx])
           + 0.5f * (uz[c + nx * ny] - uz[c - nx * ny]) + ux[c] * uy[c];
}
