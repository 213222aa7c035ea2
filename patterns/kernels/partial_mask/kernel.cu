// Family 20: partial member masks: only the lower 16 lanes shuffle, inside a 16-lane segment (U3, SG1).
#include <cuda_runtime.h>
extern "C" __global__ void half_warp_sum(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[i];
  if (lane < 16)
    for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(0x0000ffff, v, o, 16);
  out[i] = v;
}
