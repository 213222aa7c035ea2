// tricubic (KernelGen "tricubic"): tricubic interpolation on a 4x4x4 neighbourhood at i-1..i+2;
// the weights come from per-point fractional offsets (loaded, so lane-dependent).
__device__ __forceinline__ void cubic_weights(float t, float w[4])
{
    float t2 = t * t, t3 = t2 * t;
    w[0] = -0.5f * t3 + t2 - 0.5f * t;
    w[1] = 1.5f * t3 - 2.5f * t2 + 1.0f;
    w[2] = -1.5f * t3 + 2.0f * t2 + 0.5f * t;
    w[3] = 0.5f * t3 - 0.5f * t2;
}

extern "C" __global__ void tricubic(const float* __restrict__ u, const float* __restrict__ a,
                                    const float* __restrict__ b, const float* __restrict__ c,
                                    float* out, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < 1 || i >= nx - 2 || j < 1 || j >= ny - 2 || k < 1 || k >= nz - 2) return;
    int p = (k * ny + j) * nx + i;
    float wx[4], wy[4], wz[4];
    cubic_weights(a[p], wx);
    cubic_weights(b[p], wy);
    cubic_weights(c[p], wz);
    float s = 0.0f;
#pragma unroll
    for (int dk = 0; dk < 4; dk++)
#pragma unroll
        for (int dj = 0; dj < 4; dj++)
#pragma unroll
            for (int di = 0; di < 4; di++)
                s += wz[dk] * wy[dj] * wx[di] * u[((k + dk - 1) * ny + (j + dj - 1)) * nx + (i + di - 1)];
    out[p] = s;
}
