// uxx1 (KernelGen "uxx1", from a seismic velocity-stress code): 4th-order differences of three
// stress arrays; xx is read at i-2..i+1. u1 is read and written (no __restrict__ on it).
extern "C" __global__ void uxx1(const float* __restrict__ d1, const float* __restrict__ xx,
                                const float* __restrict__ xy, const float* __restrict__ xz,
                                float* u1, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < 2 || i >= nx - 1 || j < 2 || j >= ny - 1 || k < 2 || k >= nz - 1) return;
    const float c1 = 1.125f, c2 = -0.0416667f, dth = 0.01f;
    int sy = nx, sz = nx * ny;
    int p = k * sz + j * sy + i;
    float d = 0.25f * (d1[p] + d1[p - sy] + d1[p - sz] + d1[p - sz - sy]);
    u1[p] = u1[p] + (dth / d) * (c1 * (xx[p] - xx[p - 1]) + c2 * (xx[p + 1] - xx[p - 2])
                               + c1 * (xy[p] - xy[p - sy]) + c2 * (xy[p + sy] - xy[p - 2 * sy])
                               + c1 * (xz[p] - xz[p - sz]) + c2 * (xz[p + sz] - xz[p - 2 * sz]));
}
