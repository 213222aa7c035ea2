// Family 15: exchange / 4x4 transpose with xor 1, 2, 3 and lane-bit selects (S4, U1, C14).
#include <cuda_runtime.h>
extern "C" __global__ void transpose4(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 3;
  int a = in[4 * i + 0], b = in[4 * i + 1], c = in[4 * i + 2], d = in[4 * i + 3];
  int x1 = __shfl_xor_sync(0xffffffff, (lane & 1) ? a : b, 1);
  int x2 = __shfl_xor_sync(0xffffffff, (lane & 2) ? a : c, 2);
  int x3 = __shfl_xor_sync(0xffffffff, (lane == 0 || lane == 3) ? d : a, 3);
  out[i] = x1 + 7 * x2 + 13 * x3;
}
