// gradient (KernelGen "gradient"): central differences of a 3-D field into three outputs.
extern "C" __global__ void gradient(const float* __restrict__ in, float* gx, float* gy, float* gz,
                                    int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1 || k < 1 || k >= nz - 1) return;
    int c = (k * ny + j) * nx + i;
    gx[c] = 0.5f * (in[c + 1] - in[c - 1]);
    gy[c] = 0.5f * (in[c + nx] - in[c - nx]);
    gz[c] = 0.5f * (in[c + nx * ny] - in[c - nx * ny]);
}
