// Family 22: width-boundary corner cases measured on H100 (cuda_ptx_shfl.md §4): xor 16 width 8,
// srcLane -1, delta >= width, delta 33.
#include <cuda_runtime.h>
extern "C" __global__ void corner_cases(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  out[i] = __shfl_xor_sync(0xffffffff, v, 16, 8) + 3 * __shfl_sync(0xffffffff, v, -1) +
           5 * __shfl_down_sync(0xffffffff, v, 9, 8) + 7 * __shfl_down_sync(0xffffffff, v, 33);
}
