// Family 5: down-tree to lane 0, then broadcast (S6, S7, PT2, A3, AM1, BB2).
#include <cuda_runtime.h>
extern "C" __global__ void downtree_sum_bcast(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  out[i] = __shfl_sync(0xffffffff, v, 0);
}
extern "C" __global__ void downtree_asc_raw(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int o = 1; o < 32; o <<= 1) v += __shfl_down_sync(0xffffffff, v, o);
  out[i] = v;                                      // every lane's partial, exactly as CUDA
}
