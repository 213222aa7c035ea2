// laplacian (KernelGen "laplacian"): 3-D 7-point Laplacian.
extern "C" __global__ void laplacian(const float* __restrict__ in, float* out, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1 || k < 1 || k >= nz - 1) return;
    int sx = 1, sy = nx, sz = nx * ny;
    int c = k * sz + j * sy + i;
    out[c] = -6.0f * in[c] + in[c - sx] + in[c + sx] + in[c - sy] + in[c + sy] + in[c - sz] + in[c + sz];
}
