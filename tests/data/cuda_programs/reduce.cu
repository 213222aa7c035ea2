// A whole CUDA program (our own): the sum of 1 << 20 integers, one warp sum per 32 lanes by
// shuffles, then one atomic per warp. Built for AMD by `shflx compile -c` and a link against the
// HIP runtime (docs/porting.md, "CUDA programs"); tests/test_cuda_on_hip.py builds and runs it.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t err = (call);                                                             \
    if (err != cudaSuccess) {                                                             \
      std::fprintf(stderr, "reduce: %s failed: %s\n", #call, cudaGetErrorString(err));    \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

__global__ void block_sums(const int *in, unsigned long long *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  long long v = i < n ? in[i] : 0;
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & (warpSize - 1)) == 0)
    atomicAdd(total, (unsigned long long)v);
}

int main() {
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  const int n = 1 << 20, threads = 256;
  int *host = new int[n], *in = nullptr;
  unsigned long long *total = nullptr, sum = 0;
  for (int i = 0; i < n; ++i)
    host[i] = i % 1000;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&total, sizeof(*total)));
  CHECK(cudaMemcpy(in, host, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(total, 0, sizeof(*total)));
  block_sums<<<(n + threads - 1) / threads, threads>>>(in, total, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(&sum, total, sizeof(sum), cudaMemcpyDeviceToHost));
  unsigned long long want = 0;
  for (int i = 0; i < n; ++i)
    want += host[i];
  std::printf("sum %llu, expected %llu\n", sum, want);
  cudaFree(in);
  cudaFree(total);
  delete[] host;
  return sum == want ? 0 : 1;
}
