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

// A table picks the 8-lane group, the lane bits the lane in it (a rotation of the groups).
extern "C" __global__ void table_group_rotate(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int base[4] = {16, 0, 24, 8};
  out[i] = __shfl_sync(0xffffffff, in[i], base[(threadIdx.x >> 3) & 3] + (threadIdx.x & 7));
}

// flash-attention's permute (spec F5): table[lane % 4] and table[lane % 4] ^ 1, width 4.
extern "C" __global__ void table_xor_pair(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int perm[4] = {0, 3, 1, 2};
  int lane = threadIdx.x % 4;
  out[i] = __shfl_sync(0xffffffff, in[i], perm[lane], 4) - __shfl_sync(0xffffffff, in[i], perm[lane] ^ 1, 4);
}

// A switch on lane bits (LLVM keeps it as a switch and a phi of constants).
extern "C" __global__ void table_switch(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int src;
  switch (threadIdx.x & 3) {
    case 0: src = 2; break;
    case 1: src = 0; break;
    case 2: src = 3; break;
    default: src = 1;
  }
  out[i] = __shfl_sync(0xffffffff, in[i], src, 4);
}

// A table inside a struct, and a 2-D table indexed by two lane fields.
struct QuadMap { int src[4]; };
extern "C" __global__ void table_struct_2d(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  QuadMap m = {{1, 0, 3, 2}};
  int perm[2][4] = {{1, 0, 3, 2}, {2, 3, 0, 1}};
  int a = __shfl_sync(0xffffffff, in[i], m.src[threadIdx.x & 3], 4);
  int b = __shfl_sync(0xffffffff, in[i], perm[(threadIdx.x >> 2) & 1][threadIdx.x & 3], 8);
  out[i] = a ^ (b << 1);
}
