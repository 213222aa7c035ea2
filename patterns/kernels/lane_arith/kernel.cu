// Family 24: source lanes computed from the lane id that one uniform shfl.sync also realizes
// (pair partner, swap of warp halves, a broadcast inside 8-lane groups, a half-segment rotation),
// from %laneid (cub::LaneId()) and from threadIdx.x. nvcc keeps the lane arithmetic and a register
// b; shflx gives the %laneid ones immediate operands (the threadIdx.x ones too on AMD, where the
// CUDA lane is threadIdx.x % 32 by assumption).
#include <cuda_runtime.h>
__device__ __forceinline__ unsigned lane_id() {
  unsigned r;
  asm("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
extern "C" __global__ void lane_arith(const unsigned *in, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  out[i] = __shfl_sync(0xffffffff, v, lane_id() ^ 1) + 3u * __shfl_sync(0xffffffff, v, threadIdx.x + 16) +
           5u * __shfl_sync(0xffffffff, v, (lane_id() & ~7) | 2) + 7u * __shfl_sync(0xffffffff, v, (threadIdx.x & 31) + 4, 8);
}
