// Family 7: segmented inclusive scan with a per-lane clamp (C5, C8): each 4-lane segment restarts,
// the clamp c = lane & ~3 is per lane and the predicate guards the add.
#include <cuda_runtime.h>
extern "C" __global__ void segmented_scan4(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int c = (int)(threadIdx.x & 28);           // segment head of this lane within its warp
  int v = in[i];
  for (int d = 1; d < 4; d <<= 1) {
    int r;
    asm volatile(
        "{"
        "  .reg .s32 r0;"
        "  .reg .pred p;"
        "  shfl.sync.up.b32 r0|p, %1, %2, %3, 0xffffffff;"
        "  @p add.s32 r0, r0, %1;"
        "  mov.s32 %0, r0;"
        "}"
        : "=r"(r) : "r"(v), "r"(d), "r"(c));
    v = r;
  }
  out[i] = v;
}
