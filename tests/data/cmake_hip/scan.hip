#include "common.h"
#include "api.h"

__global__ void scan_rows(int *data) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = data[i];
  for (int d = 1; d < 16; d *= 2) {
    int up = __shfl_up(v, d, 16);
    if ((threadIdx.x & 15) >= d) v += up;
  }
  data[i] = quad_sum(v);
}

void run_scan(int *data, int n) { hipLaunchKernelGGL(scan_rows, dim3(n / 64), dim3(64), 0, 0, data); }
