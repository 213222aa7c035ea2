// life (KernelGen "gameoflife"): one Game of Life step on an int grid; 3x3 neighbourhood, integer
// loads (the .s32/.u32 case).
extern "C" __global__ void life(const int* __restrict__ in, int* out, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1) return;
    int c = j * nx + i;
    int n = in[c - nx - 1] + in[c - nx] + in[c - nx + 1] + in[c - 1] + in[c + 1]
          + in[c + nx - 1] + in[c + nx] + in[c + nx + 1];
    int alive = in[c];
    out[c] = (n == 3 || (alive && n == 2)) ? 1 : 0;
}
