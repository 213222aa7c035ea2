// A whole CUDA program (our own): a two-stage pipeline on two streams. Stage 1 squares each
// element on stream a; stage 2, on stream b after an event recorded on a, takes each 32-element
// warp's maximum by shuffles. An error path on the way: a device that does not exist is refused
// (cudaSetDevice), reported, and the program goes on. Built for AMD by `shflx compile -c` and a
// link against the HIP runtime; tests/test_cuda_on_hip.py builds and runs it.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t err = (call);                                                             \
    if (err != cudaSuccess) {                                                             \
      std::fprintf(stderr, "pipeline: %s failed: %s\n", #call, cudaGetErrorString(err));  \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

__global__ void square(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * in[i];
}

__global__ void warp_max(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int offset = 16; offset > 0; offset >>= 1)
    v = max(v, __shfl_down_sync(0xffffffffu, v, offset));
  if ((threadIdx.x & 31) == 0)
    out[i / 32] = v;
}

int main() {
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  cudaError_t refused = cudaSetDevice(devices);          // one past the last device
  std::printf("device %d: %s\n", devices, cudaGetErrorString(refused));
  if (refused == cudaSuccess)
    return 1;
  cudaGetLastError();                                    // the refusal is not the kernels' error
  CHECK(cudaSetDevice(0));
  const int n = 1 << 14, threads = 128;
  int *host = new int[n], *maxima_host = new int[n / 32], *in = nullptr, *squares = nullptr, *maxima = nullptr;
  for (int i = 0; i < n; ++i)
    host[i] = i % 13 - 6;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&squares, n * sizeof(int)));
  CHECK(cudaMalloc(&maxima, n / 32 * sizeof(int)));
  cudaStream_t a, b;
  cudaEvent_t squared;
  CHECK(cudaStreamCreate(&a));
  CHECK(cudaStreamCreate(&b));
  CHECK(cudaEventCreateWithFlags(&squared, cudaEventDisableTiming));
  CHECK(cudaMemcpyAsync(in, host, n * sizeof(int), cudaMemcpyHostToDevice, a));
  square<<<n / threads, threads, 0, a>>>(in, squares);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(squared, a));
  CHECK(cudaStreamWaitEvent(b, squared, 0));
  warp_max<<<n / threads, threads, 0, b>>>(squares, maxima);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(maxima_host, maxima, n / 32 * sizeof(int), cudaMemcpyDeviceToHost, b));
  CHECK(cudaStreamSynchronize(b));
  int bad = 0;
  for (int w = 0; w < n / 32; ++w) {
    int want = 0;
    for (int i = 32 * w; i < 32 * w + 32; ++i)
      want = host[i] * host[i] > want ? host[i] * host[i] : want;
    bad += maxima_host[w] != want;
  }
  std::printf("%d wrong of %d\n", bad, n / 32);
  CHECK(cudaEventDestroy(squared));
  CHECK(cudaStreamDestroy(a));
  CHECK(cudaStreamDestroy(b));
  cudaFree(in);
  cudaFree(squares);
  cudaFree(maxima);
  delete[] host;
  delete[] maxima_host;
  return bad != 0;
}
