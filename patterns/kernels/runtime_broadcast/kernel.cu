// Family 11: broadcast from a runtime-uniform lane (F9, D4, D5, C20): the lane is a kernel argument.
#include <cuda_runtime.h>
extern "C" __global__ void runtime_broadcast(const int *in, int *out, int src) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = __shfl_sync(0xffffffff, in[i], src);
}
