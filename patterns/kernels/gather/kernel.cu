// Family 14: data-dependent gather (BB1, C23): each lane reads the lane its data names.
#include <cuda_runtime.h>
extern "C" __global__ void lut_gather(const int *in, const int *idx, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = __shfl_sync(0xffffffff, in[i], idx[i] & 15);
}
