#include <cstdio>
#include <hip/hip_runtime_api.h>
#include "api.h"

int main() {
  const int n = 256;
  int *data = nullptr;
  if (hipMalloc(&data, n * sizeof(int)) != hipSuccess) {
    std::puts("no HIP device");
    return 0;
  }
  run_reduce(data, n);
  run_scan(data, n);
  run_transpose(data, n);
  hipFree(data);
  return run_cuda_runtime(n);
}
