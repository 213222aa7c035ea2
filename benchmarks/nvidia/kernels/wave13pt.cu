// wave13pt (KernelGen "wave13pt"): 3-D 13-point wave-equation step (radius 2 in each axis, two
// time levels).
extern "C" __global__ void wave13pt(const float* __restrict__ w0, const float* __restrict__ w1,
                                    float* w2, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < 2 || i >= nx - 2 || j < 2 || j >= ny - 2 || k < 2 || k >= nz - 2) return;
    const float m0 = 1.5f, m1 = 0.25f, m2 = -0.0625f;
    int sy = nx, sz = nx * ny;
    int c = k * sz + j * sy + i;
    w2[c] = m0 * w1[c] - w0[c]
          + m1 * (w1[c + 1] + w1[c - 1] + w1[c + sy] + w1[c - sy] + w1[c + sz] + w1[c - sz])
          + m2 * (w1[c + 2] + w1[c - 2] + w1[c + 2 * sy] + w1[c - 2 * sy] + w1[c + 2 * sz] + w1[c - 2 * sz]);
}
