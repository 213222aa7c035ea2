// Family 1: xor butterfly all-reduce, descending (K1, L1-L6, T1-T3, V1-V4, PT5, M4).
#include <cuda_runtime.h>
extern "C" __global__ void butterfly_sum_f32(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  out[i] = v;
}
extern "C" __global__ void butterfly_max_i32_w16(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int o = 8; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffff, v, o, 16));
  out[i] = v;
}
extern "C" __global__ void butterfly_or_u32_w8(const unsigned *in, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  for (int o = 4; o > 0; o >>= 1) v |= __shfl_xor_sync(0xffffffff, v, o, 8);
  out[i] = v;
}
#include <cuda_fp16.h>
extern "C" __global__ void butterfly_half2(const __half2 *in, __half2 *out) {   // half2 (llama.cpp, vLLM)
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 v = in[i];
  for (int o = 16; o > 0; o >>= 1) v = __hadd2(v, __shfl_xor_sync(0xffffffff, v, o));
  out[i] = v;
}
