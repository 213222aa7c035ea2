// CUDA source with CUDA runtime host code, compiled by the project as HIP: shflx compiles the
// kernel (32-lane warps), the HIP compiler the host code against the HIP runtime.
#include <cstdio>
#include <cuda_runtime.h>
#include "api.h"

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err = (call);                                                    \
    if (err != cudaSuccess) {                                                    \
      std::printf("%s: %s\n", #call, cudaGetErrorString(err));                  \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

// one sum per 32-lane warp, added into *total
__global__ void warp_sums(const int *in, int *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(total, v);
}

int run_cuda_runtime(int n) {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.warpSize != 32)
    return 1;
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, warp_sums));
  int threads = 256, resident = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, warp_sums, threads, 0));
  int *in = nullptr, *total = nullptr, sum = 0;
  int *host = new int[n];
  for (int i = 0; i < n; ++i)
    host[i] = i;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc((void **)&total, sizeof(int)));
  cudaStream_t stream;
  cudaEvent_t start, stop;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaMemcpyAsync(in, host, n * sizeof(int), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(total, 0, sizeof(int), stream));
  CHECK(cudaEventRecord(start, stream));
  warp_sums<<<(n + threads - 1) / threads, threads, 0, stream>>>(in, total, n);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaMemcpyAsync(&sum, total, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  std::printf("warp_sums: %d (expected %d) in %.3f ms\n", sum, n * (n - 1) / 2, ms);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  cudaFree(in);
  cudaFree(total);
  delete[] host;
  return sum == n * (n - 1) / 2 ? 0 : 1;
}
