// Shared by reduce.hip and scan.hip (not by transpose.cu or main.cpp): touching it must rebuild
// exactly those two objects.
#pragma once
#include <hip/hip_runtime.h>

// HIP's __shfl_* are wave-wide: width defaults to warpSize (64 on gfx90a, 32 on gfx1030).
__device__ inline int quad_sum(int v) {
  v += __shfl_xor(v, 1);
  v += __shfl_xor(v, 2);
  return v;
}
