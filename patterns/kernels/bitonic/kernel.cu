// Family 16: bitonic compare-exchange on 32 keys (C15, FA3, FA4): first stage xor 2L-1, then xors.
#include <cuda_runtime.h>
extern "C" __global__ void bitonic32(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int k = in[i];
  for (int size = 2; size <= 32; size <<= 1) {
    int o = __shfl_xor_sync(0xffffffff, k, size - 1);       // mirror stage
    k = ((lane & (size / 2)) != 0) ? max(k, o) : min(k, o);
    for (int s = size / 4; s > 0; s >>= 1) {
      int p = __shfl_xor_sync(0xffffffff, k, s);
      k = ((lane & s) != 0) ? max(k, p) : min(k, p);
    }
  }
  out[i] = k;
}
