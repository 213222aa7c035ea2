// Family 19: hardware warp reduce (__reduce_*_sync; C6, L2, D3, U4).
#include <cuda_runtime.h>
extern "C" __global__ void reduce_sync_ops(const unsigned *in, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  out[i] = __reduce_add_sync(0xffffffff, v) ^ __reduce_max_sync(0xffffffff, v) ^
           __reduce_and_sync(0xffffffff, v | 0x80000000u) ^ __reduce_xor_sync(0xffffffff, v);
}
