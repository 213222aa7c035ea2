// CUDA source (32-lane warps, *_sync shuffles), compiled by the project as HIP.
#include "api.h"

__global__ void transpose_pairs(int *data) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = data[i];
  int swapped = __shfl_xor_sync(0xffffffffu, v, 16);
  int rotated = __shfl_sync(0xffffffffu, v, (threadIdx.x + 1) & 31);
  data[i] = swapped + rotated;
}

void run_transpose(int *data, int n) { transpose_pairs<<<n / 64, 64>>>(data); }
