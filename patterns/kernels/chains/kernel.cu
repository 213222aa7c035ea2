// Family: reduction and scan chains in the shapes issue 5 recognizes (spec/real_world_patterns.md
// butterflies, down-trees, up-scans): each is re-synthesized as a whole where that is allowed.
#include <cuda_runtime.h>

// Exclusive scan: an inclusive up-scan, then an extra up-1 whose lane 0 takes the identity.
extern "C" __global__ void excl_scan_add(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[i];
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(0xffffffff, v, d);
    if (lane >= d) v += t;
  }
  int e = __shfl_up_sync(0xffffffff, v, 1);
  out[i] = lane == 0 ? 0 : e;
}

// Down-tree max whose result only lane 0 keeps: the other lanes' partial maxima are dead.
extern "C" __global__ void lane0_max(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[i];
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_down_sync(0xffffffff, v, o));
  out[i] = lane == 0 ? v : 0;
}

// Unsigned min scan over 16-lane segments (identity 0xffffffff, not 0).
extern "C" __global__ void scan_umin_w16(const unsigned *in, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 15;
  unsigned v = in[i];
  for (int d = 1; d < 16; d <<= 1) {
    unsigned t = __shfl_up_sync(0xffffffff, v, d, 16);
    if (lane >= d) v = min(v, t);
  }
  out[i] = v;
}

// Float max butterfly, ascending order: re-associated freely (max is exact in any order).
extern "C" __global__ void fmax_butterfly(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int o = 1; o < 32; o <<= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
  out[i] = v;
}

// Float sum where the source allows re-association (the IR carries `reassoc`).
extern "C" __global__ void fsum_reassoc(const float *in, float *out) {
#pragma clang fp reassociate(on)
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  out[i] = v;
}
