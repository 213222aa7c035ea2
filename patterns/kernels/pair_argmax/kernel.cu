// Family 3: pair combine via two shuffles: argmax with lower-index tie-break (L8, V5, FI3).
#include <cuda_runtime.h>
extern "C" __global__ void argmax_pair(const float *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  int idx = threadIdx.x & 31;
  for (int o = 16; o > 0; o >>= 1) {
    float ov = __shfl_xor_sync(0xffffffff, v, o);
    int oi = __shfl_xor_sync(0xffffffff, idx, o);
    if (ov > v || (ov == v && oi < idx)) { v = ov; idx = oi; }
  }
  out[i] = idx;
}
