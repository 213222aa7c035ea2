// Family 12: rotations and affine gathers (O1, A1, A7, R2, R3): lane+1 mod 32 on doubles, lane*5 mod 32.
#include <cuda_runtime.h>
extern "C" __global__ void rotate_f64(const double *in, double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  out[i] = __shfl_sync(0xffffffff, in[i], (lane + 1) & 31);
}
extern "C" __global__ void affine_gather(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  out[i] = __shfl_sync(0xffffffff, in[i], lane * 5 + 3);
}
