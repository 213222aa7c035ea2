// Family 8: Hillis-Steele inclusive scan with a lane >= delta guard (S1-S3, L7, F3, D2, G5).
#include <cuda_runtime.h>
extern "C" __global__ void scan_add_w32(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[i];
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(0xffffffff, v, d);
    if (lane >= d) v += t;
  }
  out[i] = v;
}
extern "C" __global__ void scan_add_w8(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 7;
  int v = in[i];
  for (int d = 1; d <= 8; d <<= 1) {             // the last step has delta == width (S1, AM2)
    int t = __shfl_up_sync(0xffffffff, v, d, 8);
    if (lane >= d) v += t;
  }
  out[i] = v;
}
