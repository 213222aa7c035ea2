// Integer warp reductions as users write them, for the redux.sync rewrite (hw_tests/nvidia/test_redux_hw.py).
// Each kernel reads in[i] (the identity past n, so the last warp may be incomplete without exited
// lanes) and writes out[i] for i < n. Kernels named *_keep must NOT be rewritten (their live lanes
// hold partial values, or the chain is not a whole-warp integer reduction).
#include <climits>

#define FULL 0xffffffffu
__device__ __forceinline__ int addf(int a, int b) { return a + b; }
__device__ __forceinline__ unsigned addu(unsigned a, unsigned b) { return a + b; }
__device__ __forceinline__ int mins(int a, int b) { return min(a, b); }
__device__ __forceinline__ int maxs(int a, int b) { return max(a, b); }
__device__ __forceinline__ unsigned minu(unsigned a, unsigned b) { return min(a, b); }
__device__ __forceinline__ unsigned maxu(unsigned a, unsigned b) { return max(a, b); }
__device__ __forceinline__ unsigned andu(unsigned a, unsigned b) { return a & b; }
__device__ __forceinline__ unsigned oru(unsigned a, unsigned b) { return a | b; }
__device__ __forceinline__ unsigned xoru(unsigned a, unsigned b) { return a ^ b; }

// butterfly, descending / ascending / scrambled bit order: every lane holds the total
#define BFLY(NAME, T, F, ID, ...)                                                        \
  extern "C" __global__ void NAME(const T *in, T *out, int n) {                          \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                       \
    T v = i < n ? in[i] : (T)(ID);                                                       \
    const int order[5] = {__VA_ARGS__};                                                  \
    _Pragma("unroll") for (int k = 0; k < 5; k++) v = F(v, __shfl_xor_sync(FULL, v, order[k])); \
    if (i < n) out[i] = v;                                                               \
  }
// down-tree read by lane 0 only, through a broadcast
#define DOWN_BCAST(NAME, T, F, ID)                                                       \
  extern "C" __global__ void NAME(const T *in, T *out, int n) {                          \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                       \
    T v = i < n ? in[i] : (T)(ID);                                                       \
    _Pragma("unroll") for (int o = 16; o > 0; o >>= 1) v = F(v, __shfl_down_sync(FULL, v, o)); \
    v = __shfl_sync(FULL, v, 0);                                                         \
    if (i < n) out[i] = v;                                                               \
  }
// down-tree (ascending offsets) whose result only lane 0 stores
#define DOWN_LANE0(NAME, T, F, ID)                                                       \
  extern "C" __global__ void NAME(const T *in, T *out, int n) {                          \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                       \
    T v = i < n ? in[i] : (T)(ID);                                                       \
    _Pragma("unroll") for (int o = 1; o < 32; o <<= 1) v = F(v, __shfl_down_sync(FULL, v, o)); \
    if ((threadIdx.x & 31) == 0 && i < n) out[i] = v;                                    \
  }

BFLY(bfly_add_s32_r, int, addf, 0, 16, 8, 4, 2, 1)
BFLY(bfly_add_u32_r, unsigned, addu, 0, 1, 2, 4, 8, 16)
BFLY(bfly_min_s32_r, int, mins, INT_MAX, 4, 16, 1, 8, 2)
BFLY(bfly_max_s32_r, int, maxs, INT_MIN, 16, 8, 4, 2, 1)
BFLY(bfly_min_u32_r, unsigned, minu, UINT_MAX, 2, 8, 16, 1, 4)
BFLY(bfly_max_u32_r, unsigned, maxu, 0, 16, 8, 4, 2, 1)
BFLY(bfly_and_b32_r, unsigned, andu, UINT_MAX, 16, 8, 4, 2, 1)
BFLY(bfly_or_b32_r, unsigned, oru, 0, 1, 2, 4, 8, 16)
BFLY(bfly_xor_b32_r, unsigned, xoru, 0, 8, 1, 16, 2, 4)
DOWN_BCAST(down_add_s32_r, int, addf, 0)
DOWN_BCAST(down_max_u32_r, unsigned, maxu, 0)
DOWN_BCAST(down_xor_b32_r, unsigned, xoru, 0)
DOWN_LANE0(down0_add_s32_r, int, addf, 0)
DOWN_LANE0(down0_min_s32_r, int, mins, INT_MAX)
DOWN_LANE0(down0_or_b32_r, unsigned, oru, 0)

// the same, for 2-D blocks (i covers threadIdx.y): lane == threadIdx.x % 32 only when blockDim.x % 32
// == 0 or the block is 1-D, so the rewrite must keep the chain for the other shapes (a run-time guard)
#define DOWN_LANE0_2D(NAME, T, F, ID)                                                    \
  extern "C" __global__ void NAME(const T *in, T *out, int n) {                          \
    int i = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;          \
    T v = i < n ? in[i] : (T)(ID);                                                       \
    _Pragma("unroll") for (int o = 1; o < 32; o <<= 1) v = F(v, __shfl_down_sync(FULL, v, o)); \
    if ((threadIdx.x % 32) == 0 && i < n) out[i] = v;                                    \
  }
DOWN_LANE0_2D(down0_add_s32_2d_r, int, addf, 0)
DOWN_LANE0_2D(down0_max_u32_2d_r, unsigned, maxu, 0)

// every lane stores its own partial down-tree value: must stay
extern "C" __global__ void down_all_add_keep(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
  if (i < n) out[i] = v;
}
// width-16 butterfly: two half-warp totals, not one warp total: must stay
extern "C" __global__ void bfly16_add_keep(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o, 16);
  if (i < n) out[i] = v;
}
// an intermediate value is stored: must stay
extern "C" __global__ void bfly_mid_use_keep(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  v += __shfl_xor_sync(FULL, v, 16);
  v += __shfl_xor_sync(FULL, v, 8);
  int mid = v;
  v += __shfl_xor_sync(FULL, v, 4);
  v += __shfl_xor_sync(FULL, v, 2);
  v += __shfl_xor_sync(FULL, v, 1);
  if (i < n) out[i] = v ^ (mid << 1);
}

// timing: ITERS dependent reductions per warp (latency-bound), original vs redux.sync
extern "C" __global__ void time_bfly_add(const int *in, int *out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i % n];
#pragma unroll 1
  for (int k = 0; k < iters; k++) {
    _Pragma("unroll") for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
    v ^= k;
  }
  out[i] = v;
}
extern "C" __global__ void time_down_max(const unsigned *in, unsigned *out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i % n];
#pragma unroll 1
  for (int k = 0; k < iters; k++) {
    _Pragma("unroll") for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_down_sync(FULL, v, o));
    v = __shfl_sync(FULL, v, 0) + (unsigned)k;
  }
  out[i] = v;
}
