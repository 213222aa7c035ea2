// Family 17: multi-value transpose-reduce (GROMACS GR1-GR4 style): two values per lane, a parity
// select decides which one travels, so after xor 1 even lanes hold the a-sum and odd lanes the
// b-sum of each pair; a butterfly over xor 2..16 finishes both reductions at once.
#include <cuda_runtime.h>
extern "C" __global__ void transpose_reduce2(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  float a = in[2 * i], b = in[2 * i + 1];
  bool odd = lane & 1;
  float send = odd ? a : b, keep = odd ? b : a;
  keep += __shfl_xor_sync(0xffffffff, send, 1);
  for (int o = 2; o < 32; o <<= 1) keep += __shfl_xor_sync(0xffffffff, keep, o);
  out[i] = keep;                        // even lanes: sum of all a; odd lanes: sum of all b
}
