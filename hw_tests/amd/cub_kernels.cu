// CUB's warp and block primitives for hw_tests/amd/test_cub_hw.py: each kernel takes (in, out, op, ...),
// op choosing the primitive; out holds what CUB defines (a reduction at lane/thread 0 of its warp/block).
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cuda/functional>

// Warp reductions on blocks of 64 threads: out[t] is the result of lane 0 of each logical warp of W
// (CUB defines it there only), 0 elsewhere. op 0: Sum, 1: max, 2: Sum of the first `valid` lanes.
template <class T, int W>
__device__ void warp_reduce(const T *in, T *out, int op, int valid) {
  using WR = cub::WarpReduce<T, W>;
  __shared__ typename WR::TempStorage tmp[64 / W];
  int t = blockIdx.x * blockDim.x + threadIdx.x, w = threadIdx.x / W;
  T v = in[t], r;
  if (op == 0) r = WR(tmp[w]).Sum(v);
  else if (op == 1) r = WR(tmp[w]).Reduce(v, cuda::maximum<>{});
  else r = WR(tmp[w]).Sum(v, valid);
  out[t] = threadIdx.x % W == 0 ? r : T(0);
}
#define WARP_REDUCE(T, W, NAME) \
  extern "C" __global__ void NAME(const T *in, T *out, int op, int valid) { warp_reduce<T, W>(in, out, op, valid); }
WARP_REDUCE(float, 32, warp_reduce_f32_w32)
WARP_REDUCE(float, 16, warp_reduce_f32_w16)
WARP_REDUCE(int, 32, warp_reduce_i32_w32)
WARP_REDUCE(int, 8, warp_reduce_i32_w8)

// Warp scans: op 0 InclusiveSum, 1 ExclusiveSum, 2 inclusive max.
template <class T, int W>
__device__ void warp_scan(const T *in, T *out, int op) {
  using WS = cub::WarpScan<T, W>;
  __shared__ typename WS::TempStorage tmp[64 / W];
  int t = blockIdx.x * blockDim.x + threadIdx.x, w = threadIdx.x / W;
  T v = in[t], r;
  if (op == 0) WS(tmp[w]).InclusiveSum(v, r);
  else if (op == 1) WS(tmp[w]).ExclusiveSum(v, r);
  else WS(tmp[w]).InclusiveScan(v, r, cuda::maximum<>{});
  out[t] = r;
}
extern "C" __global__ void warp_scan_i32_w32(const int *in, int *out, int op) { warp_scan<int, 32>(in, out, op); }
extern "C" __global__ void warp_scan_i32_w8(const int *in, int *out, int op) { warp_scan<int, 8>(in, out, op); }
extern "C" __global__ void warp_scan_f32_w32(const float *in, float *out, int op) { warp_scan<float, 32>(in, out, op); }

// Block reductions: out[first thread of the block] = the block's result, 0 elsewhere.
template <int B, cub::BlockReduceAlgorithm A>
__device__ void block_reduce(const int *in, int *out, int op, int valid) {
  using BR = cub::BlockReduce<int, B, A>;
  __shared__ typename BR::TempStorage tmp;
  int t = blockIdx.x * B + threadIdx.x, v = in[t], r;
  if (op == 0) r = BR(tmp).Sum(v);
  else if (op == 1) r = BR(tmp).Reduce(v, cuda::maximum<>{});
  else r = BR(tmp).Sum(v, valid);
  out[t] = threadIdx.x == 0 ? r : 0;
}
#define BLOCK_REDUCE(B, A, NAME) \
  extern "C" __global__ void NAME(const int *in, int *out, int op, int valid) { block_reduce<B, cub::A>(in, out, op, valid); }
BLOCK_REDUCE(128, BLOCK_REDUCE_RAKING, block_reduce_raking_128)
BLOCK_REDUCE(96, BLOCK_REDUCE_RAKING, block_reduce_raking_96)
BLOCK_REDUCE(128, BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, block_reduce_commutative_128)
BLOCK_REDUCE(128, BLOCK_REDUCE_WARP_REDUCTIONS, block_reduce_warp_reductions_128)
BLOCK_REDUCE(96, BLOCK_REDUCE_WARP_REDUCTIONS, block_reduce_warp_reductions_96)

// Block scans of 4 items per thread (blocked): op 0 ExclusiveSum, 1 InclusiveSum, 2 inclusive max.
template <int B, cub::BlockScanAlgorithm A>
__device__ void block_scan(const int *in, int *out, int op) {
  using BS = cub::BlockScan<int, B, A>;
  __shared__ typename BS::TempStorage tmp;
  int base = (blockIdx.x * B + threadIdx.x) * 4, items[4];
  for (int k = 0; k < 4; ++k) items[k] = in[base + k];
  if (op == 0) BS(tmp).ExclusiveSum(items, items);
  else if (op == 1) BS(tmp).InclusiveSum(items, items);
  else BS(tmp).InclusiveScan(items, items, cuda::maximum<>{});
  for (int k = 0; k < 4; ++k) out[base + k] = items[k];
}
#define BLOCK_SCAN(B, A, NAME) \
  extern "C" __global__ void NAME(const int *in, int *out, int op) { block_scan<B, cub::A>(in, out, op); }
BLOCK_SCAN(128, BLOCK_SCAN_RAKING, block_scan_raking_128)
BLOCK_SCAN(128, BLOCK_SCAN_WARP_SCANS, block_scan_warp_scans_128)
BLOCK_SCAN(96, BLOCK_SCAN_WARP_SCANS, block_scan_warp_scans_96)

// Block radix sort of 4 keys per thread (blocked in and out): op 0 ascending, 1 descending.
template <class K>
__device__ void radix_sort(const K *in, K *out, int op) {
  using RS = cub::BlockRadixSort<K, 128, 4>;
  __shared__ typename RS::TempStorage tmp;
  int base = (blockIdx.x * 128 + threadIdx.x) * 4;
  K keys[4];
  for (int k = 0; k < 4; ++k) keys[k] = in[base + k];
  if (op == 0) RS(tmp).Sort(keys);
  else RS(tmp).SortDescending(keys);
  for (int k = 0; k < 4; ++k) out[base + k] = keys[k];
}
extern "C" __global__ void radix_sort_i32(const int *in, int *out, int op) { radix_sort<int>(in, out, op); }
extern "C" __global__ void radix_sort_f32(const float *in, float *out, int op) { radix_sort<float>(in, out, op); }
