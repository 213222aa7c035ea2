// Family 11: broadcast from a runtime-uniform lane (F9, D4, D5, C20): the lane is a kernel argument,
// or a lane every lane of the warp computes alike (a leader elected with a ballot, a broadcast value).
#include <cuda_runtime.h>
extern "C" __global__ void runtime_broadcast(const int *in, int *out, int src) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = __shfl_sync(0xffffffff, in[i], src);
}
extern "C" __global__ void leader_broadcast(const int *in, int *out, int threshold) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int leader = __ffs(__ballot_sync(0xffffffff, v > threshold)) - 1;
  int base = __shfl_sync(0xffffffff, v * 3, leader);
  out[i] = __shfl_sync(0xffffffff, v, base & 31) + base;
}
