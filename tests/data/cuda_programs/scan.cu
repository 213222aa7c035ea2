// A whole CUDA program (our own): inclusive prefix sums of 32-element segments (one per warp) by
// shuffles, timed with events on a stream. Built for AMD by `shflx compile -c` and a link against
// the HIP runtime; tests/test_cuda_on_hip.py builds and runs it.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t err = (call);                                                             \
    if (err != cudaSuccess) {                                                             \
      std::fprintf(stderr, "scan: %s failed: %s\n", #call, cudaGetErrorString(err));      \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

// n is a multiple of the block size
__global__ void warp_scan(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[i];
  for (int offset = 1; offset < 32; offset <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, v, offset);
    if (lane >= offset)
      v += up;
  }
  out[i] = v;
}

int main() {
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int n = 1 << 16, threads = 4 * prop.warpSize;      // warpSize is 32, as in the kernel
  int *host = new int[n], *in = nullptr, *out = nullptr;
  for (int i = 0; i < n; ++i)
    host[i] = i % 7;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  cudaStream_t stream;
  cudaEvent_t start, stop;
  CHECK(cudaStreamCreate(&stream));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaMemcpyAsync(in, host, n * sizeof(int), cudaMemcpyHostToDevice, stream));
  CHECK(cudaEventRecord(start, stream));
  warp_scan<<<n / threads, threads, 0, stream>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaMemcpyAsync(host, out, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  int bad = 0;
  for (int i = 0, run = 0; i < n; ++i) {
    run = (i % 32 == 0 ? 0 : run) + i % 7;
    bad += host[i] != run;
  }
  std::printf("%d wrong of %d, %.3f ms\n", bad, n, ms);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  cudaFree(in);
  cudaFree(out);
  delete[] host;
  return bad == 0 ? 0 : 1;
}
