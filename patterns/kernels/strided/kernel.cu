// Family 4: strided butterfly over the high lane bits (L10, L11, D1, TL1).
#include <cuda_runtime.h>
extern "C" __global__ void strided_sum(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int o = 16; o >= 4; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  out[i] = v;
}
