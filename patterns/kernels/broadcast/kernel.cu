// Family 10: broadcast from constant lanes (C18, C19, F4, U2, D8, F6): lane 0, lane 31, lane 3 of
// each 8-lane group, and a 64-bit pointer-sized value.
#include <cuda_runtime.h>
extern "C" __global__ void broadcast_lanes(const unsigned *in, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  out[i] = __shfl_sync(0xffffffff, v, 0) + 3u * __shfl_sync(0xffffffff, v, 31) + 7u * __shfl_sync(0xffffffff, v, 3, 8);
}
extern "C" __global__ void broadcast_u64(const unsigned long long *in, unsigned long long *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = __shfl_sync(0xffffffff, in[i], 5);
}
