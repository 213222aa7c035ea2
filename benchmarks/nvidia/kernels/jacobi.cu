// jacobi (KernelGen "jacobi"): 2-D 9-point weighted Jacobi step; three loads per row of three.
extern "C" __global__ void jacobi(const float* __restrict__ in, float* out, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1) return;
    const float w0 = 0.5f, w1 = 0.1f, w2 = 0.025f;
    int c = j * nx + i;
    out[c] = w0 * in[c]
           + w1 * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx])
           + w2 * (in[c - nx - 1] + in[c - nx + 1] + in[c + nx - 1] + in[c + nx + 1]);
}
