// Family: source lanes read from small constant tables indexed by lane bits, or computed with
// shifts of a constant (real_world_patterns.md F5): each is a constant map. A __constant__ table
// is not one: the host may rewrite it (cudaMemcpyToSymbol), so that shuffle stays dynamic (no
// reference: it reads a global the emulator does not load; tests/test_lane_operands.py checks it).
#include <cuda_runtime.h>

extern "C" __global__ void table_quad(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int perm[4] = {2, 0, 3, 1};
  out[i] = __shfl_sync(0xffffffff, in[i], perm[threadIdx.x & 3], 4);
}

extern "C" __global__ void table_bitrev16(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  static const unsigned char rev[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
  out[i] = __shfl_sync(0xffffffff, in[i], rev[threadIdx.x % 16], 16);
}

__constant__ int reverse8[8] = {7, 6, 5, 4, 3, 2, 1, 0};
extern "C" __global__ void table_constant_memory(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = __shfl_sync(0xffffffff, in[i], (threadIdx.x & ~7) + reverse8[threadIdx.x & 7]);
}

extern "C" __global__ void shifted_constant(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int src = (0x4E >> (2 * (threadIdx.x & 3))) & 3;          // {2, 3, 0, 1}
  out[i] = __shfl_sync(0xffffffff, in[i], src, 4);
}
