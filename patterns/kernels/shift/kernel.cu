// Family 9: exclusive via up-by-1 and adjacent difference via down-by-1 (C11, F8, O2).
#include <cuda_runtime.h>
extern "C" __global__ void exclusive_and_diff(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int prev = __shfl_up_sync(0xffffffff, v, 1);     // lane 0 keeps its own value
  int next = __shfl_down_sync(0xffffffff, v, 1);   // lane 31 keeps its own value
  out[i] = prev * 3 + next;
}
