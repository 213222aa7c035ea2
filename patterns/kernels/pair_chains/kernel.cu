// Family: chains that shuffle several values per step with one lane map (pairs and structs), as
// real code writes them (spec/real_world_patterns.md: L8 ggml argmax, PT4 PyTorch arg ops, A4 apex
// Welford, K5 llm.c online softmax, FI3 flashinfer argmin on a 64-bit {cost, index}). The combine
// is the code's own (compares, branches, divisions, exp2f) and is kept exactly as written; only
// lane 0 needs the result, read under `if (threadIdx.x % 32 == 0)` or through a `__shfl_sync(v, 0)`
// broadcast. Indices are linear thread ids, so 2-D blocks give the same warps.
#include <cuda_runtime.h>

__device__ __forceinline__ int linear_id() {
  return (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

// PyTorch-style ArgMax on (value, index): a down-tree; ties go to the lower index.
extern "C" __global__ void argmax_down_pair(const float *in, int *out) {
  int i = linear_id();
  float v = in[i];
  int idx = i;
  for (int o = 16; o > 0; o >>= 1) {
    float ov = __shfl_down_sync(0xffffffff, v, o);
    int oi = __shfl_down_sync(0xffffffff, idx, o);
    if (ov > v || (ov == v && oi < idx)) { v = ov; idx = oi; }
  }
  out[i] = (threadIdx.x % 32 == 0) ? idx : -1;
}

// ggml's argmax: a butterfly keeping the first maximum it sees; lane 0's (index, value) broadcast.
extern "C" __global__ void argmax_xor_bcast(const float *in, int *out) {
  int i = linear_id();
  float maxval = in[i];
  int argmax = i;
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float val = __shfl_xor_sync(0xffffffff, maxval, offset);
    const int col = __shfl_xor_sync(0xffffffff, argmax, offset);
    if (val > maxval) { maxval = val; argmax = col; }
  }
  out[i] = __shfl_sync(0xffffffff, argmax, 0) * 16 + (int)__shfl_sync(0xffffffff, maxval, 0);
}

// apex's Welford merge of (count, mean, m2n), a down-tree; lane 0 stores mean and m2n.
extern "C" __global__ void welford_down(const float *in, float *out) {
#pragma clang fp contract(off)
  int i = linear_id();
  float mean = in[i], m2n = 0.0f;
  int num = 1;
  for (int o = 16; o > 0; o >>= 1) {
    int num_new = __shfl_down_sync(0xffffffff, num, o);
    float mean_new = __shfl_down_sync(0xffffffff, mean, o);
    float m2n_new = __shfl_down_sync(0xffffffff, m2n, o);
    float factor = 1.0f / (float)max(1, num + num_new);
    float delta0 = mean - mean_new;
    mean = (mean_new * num_new + mean * num) * factor;
    m2n += m2n_new + delta0 * delta0 * num_new * num * factor;
    num += num_new;
  }
  int lane = threadIdx.x % 32;
  if (lane == 0) {
    out[i] = mean;
    out[i + 1] = m2n;
  } else if (lane != 1) {
    out[i] = 0.0f;
  }
}

// llm.c's online softmax: (running max, rescaled sum) down-tree, lane 0's pair broadcast.
extern "C" __global__ void softmax_online_bcast(const float *in, float *out) {
  int i = linear_id();
  float maxval = in[i], sumval = 1.0f;
  for (int offset = 16; offset > 0; offset >>= 1) {
    float offsetMaxval = __shfl_down_sync(0xffffffff, maxval, offset);
    float offsetSumval = __shfl_down_sync(0xffffffff, sumval, offset);
    if (offsetMaxval > maxval) {
      sumval *= exp2f(maxval - offsetMaxval);
      maxval = offsetMaxval;
    } else {
      offsetSumval *= exp2f(offsetMaxval - maxval);
    }
    sumval += offsetSumval;
  }
  float m = __shfl_sync(0xffffffff, maxval, 0), s = __shfl_sync(0xffffffff, sumval, 0);
  out[i] = (i & 1) ? m : s;
}

// flashinfer's argmin on a 64-bit {index, cost} word shuffled whole; every lane uses the result.
extern "C" __global__ void argmin_u64_xor(const float *in, int *out) {
  int i = linear_id();
  float cost = in[i];
  int bucket = i;
  for (int o = 16; o > 0; o >>= 1) {
    unsigned long long packed = ((unsigned long long)__float_as_uint(cost) << 32) | (unsigned)bucket;
    unsigned long long other = __shfl_xor_sync(0xffffffff, packed, o);
    float ocost = __uint_as_float((unsigned)(other >> 32));
    int obucket = (int)(unsigned)other;
    if (ocost < cost || (ocost == cost && obucket < bucket)) { cost = ocost; bucket = obucket; }
  }
  out[i] = bucket;
}
