// Family 13: quad permutation table src = table[lane % 4] with width 4 (F5).
#include <cuda_runtime.h>
extern "C" __global__ void quad_table(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 3;
  int src = (0x1B >> (2 * lane)) & 3;          // {3, 2, 1, 0}
  out[i] = __shfl_sync(0xffffffff, in[i], src, 4);
}
