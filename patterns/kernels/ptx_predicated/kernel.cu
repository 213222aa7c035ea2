// Family 6: CUB WarpReduceShfl::ReduceStep style inline PTX (C1, C2, C7, MG1): shfl.sync.down with
// a predicate output and a predicated add; the clamp is last_lane (31, or valid_items - 1).
#include <cuda_runtime.h>
__device__ __forceinline__ unsigned reduce_step(unsigned input, int offset, int last_lane) {
  unsigned output;
  asm volatile(
      "{"
      "  .reg .u32 r0;"
      "  .reg .pred p;"
      "  shfl.sync.down.b32 r0|p, %1, %2, %3, %4;"
      "  @p add.u32 r0, r0, %1;"
      "  mov.u32 %0, r0;"
      "}"
      : "=r"(output) : "r"(input), "r"(offset), "r"(last_lane), "r"(0xffffffff));
  return output;
}
extern "C" __global__ void cub_reduce_full(const unsigned *in, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  for (int s = 0; s < 5; ++s) v = reduce_step(v, 1 << s, 31);
  out[i] = v;
}
extern "C" __global__ void cub_reduce_partial(const unsigned *in, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  for (int s = 0; s < 5; ++s) v = reduce_step(v, 1 << s, 20);    // valid_items = 21
  out[i] = v;
}
