#include "common.h"
#include "api.h"

__global__ void reduce_quads(int *data) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = quad_sum(data[i]) + __shfl_down(data[i], 4, 8);
}

void run_reduce(int *data, int n) { reduce_quads<<<n / 64, 64>>>(data); }

// HIP's wave-wide meaning: on a wave64 target lane i reads lane i ^ 32, across the 32-lane halves
// (a CUDA warp never does); on wave32 the source is out of range and each lane keeps its value.
__global__ void swap_halves(int *data) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = __shfl_xor(data[i], 32);
}

void run_swap_halves(int *data, int n) { swap_halves<<<n / 64, 64>>>(data); }
