// Family: reductions of 64-bit, double and half2 values (spec/real_world_patterns.md BF: f64 and
// f16x2 butterflies; PT4's int64 fields). CUDA shuffles a 64-bit value as two 32-bit halves with
// one lane map; half2 travels packed in 32 bits. Lane 0's result is read under `if (threadIdx.x %
// 32 == 0)` or through a broadcast; indices are linear thread ids.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__device__ __forceinline__ int linear_id() {
  return (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

// Double sum, a down-tree read at lane 0 (CUDA samples' and PyTorch's WarpReduceSum shape).
extern "C" __global__ void dsum_down_lane0(const double *in, double *out) {
  int i = linear_id();
  double v = in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  out[i] = (threadIdx.x % 32 == 0) ? v : 0.0;
}

// int64 max butterfly, every lane keeps the result.
extern "C" __global__ void i64_max_xor(const long long *in, long long *out) {
  int i = linear_id();
  long long v = in[i];
  for (int o = 1; o < 32; o <<= 1) v = max(v, __shfl_xor_sync(0xffffffff, v, o));
  out[i] = v;
}

// uint64 sum, a down-tree whose lane 0 is broadcast.
extern "C" __global__ void u64_sum_down_bcast(const unsigned long long *in, unsigned long long *out) {
  int i = linear_id();
  unsigned long long v = in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  out[i] = __shfl_sync(0xffffffff, v, 0);
}

// Double max butterfly over half-warps (width 16).
extern "C" __global__ void dmax_xor_w16(const double *in, double *out) {
  int i = linear_id();
  double v = in[i];
  for (int o = 8; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffff, v, o, 16));
  out[i] = v;
}

// half2 sum, a down-tree read at lane 0.
extern "C" __global__ void half2_sum_down_lane0(const __half2 *in, __half2 *out) {
  int i = linear_id();
  __half2 v = in[i];
  for (int o = 16; o > 0; o >>= 1) v = __hadd2(v, __shfl_down_sync(0xffffffff, v, o));
  out[i] = (threadIdx.x % 32 == 0) ? v : __float2half2_rn(0.0f);
}

// half2 max butterfly, every lane keeps the result.
extern "C" __global__ void half2_max_xor(const __half2 *in, __half2 *out) {
  int i = linear_id();
  __half2 v = in[i];
  for (int o = 16; o > 0; o >>= 1) v = __hmax2(v, __shfl_xor_sync(0xffffffff, v, o));
  out[i] = v;
}
