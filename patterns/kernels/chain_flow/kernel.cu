// Family: reductions whose result reaches its one use through control flow, as real code writes
// them (CUDA samples' reduce kernels, PyTorch-style block reductions): merged by a phi after an
// `if (warp == 0)`, accumulated in a loop, reduced again by the first warp. Only lane 0 uses the
// result, so each chain is a lane-0 reduction. The last kernel's result is used by every lane.
#include <cuda_runtime.h>

__device__ __forceinline__ int warp_reduce_sum(int v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}

// The sum is made in warp 0 only and merged with the input by a phi; thread 0 stores it.
extern "C" __global__ void phi_lane0_sum(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int s = v;
  if ((threadIdx.x >> 5) == 0) s = warp_reduce_sum(v);
  if (threadIdx.x == 0) out[i] = s;
  else out[i] = v;
}

// A loop accumulates one warp sum per round; lane 0 keeps the total.
extern "C" __global__ void loop_acc_lane0(const int *in, int *out, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (int r = 0; r < rounds; ++r) acc += warp_reduce_sum(in[i] * (r + 1));
  if ((threadIdx.x & 31) == 0) out[i] = acc;
  else out[i] = 0;
}

// Two levels: every warp's sum through shared memory, then warp 0 sums those; thread 0 stores.
extern "C" __global__ void block_reduce_two_level(const int *in, int *out) {
  __shared__ int partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int v = warp_reduce_sum(in[i]);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = (threadIdx.x < blockDim.x / 32) ? partial[lane] : 0;
  if (warp == 0) v = warp_reduce_sum(v);
  if (threadIdx.x == 0) out[i] = v;
  else out[i] = in[i];
}

// Not a reduction: the merged value is stored by every lane, so the other lanes' partial sums
// are live and the chain must stay as written.
extern "C" __global__ void phi_every_lane(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int s = in[i];
  if ((threadIdx.x >> 5) == 0) s = warp_reduce_sum(s);
  out[i] = s;
}
