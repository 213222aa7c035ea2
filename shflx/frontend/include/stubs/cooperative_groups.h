// shflx: the part of cooperative_groups that warp-level code uses (thread_block, tiled_partition<N>
// of a block, tile shuffles/votes, cg::reduce). A tile shuffle passes CUDA's own member mask,
// tileMask << (lane & ~(N-1)) (cuda_ptx_shfl.md §2.4), so a tile never relies on lanes outside it.
#pragma once
namespace cooperative_groups {
// The linear thread id: CUDA numbers the lanes of a warp, and the threads of a tile, by it
// (CUDA Programming Guide, "Thread Hierarchy"), also in 2-D and 3-D blocks.
__device__ inline unsigned __shflx_linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
struct thread_block {
  __device__ unsigned thread_rank() const { return __shflx_linear_tid(); }
  __device__ unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ unsigned num_threads() const { return size(); }
  __device__ void sync() const { __syncthreads(); }
};
__device__ inline thread_block this_thread_block() { return thread_block(); }

template <unsigned N>
struct thread_block_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tile size must be a power of two <= 32");
  __device__ unsigned thread_rank() const { return __shflx_linear_tid() & (N - 1); }
  __device__ static constexpr unsigned size() { return N; }
  __device__ static constexpr unsigned num_threads() { return N; }
  __device__ unsigned meta_group_rank() const { return __shflx_linear_tid() / N; }
  __device__ unsigned meta_group_size() const { return (blockDim.x * blockDim.y * blockDim.z + N - 1) / N; }
  __device__ unsigned mask() const {
    unsigned tile = N == 32 ? 0xffffffffu : ((1u << N) - 1u);
    return tile << ((__shflx_linear_tid() & 31) & ~(N - 1));
  }
  __device__ void sync() const { __syncwarp(mask()); }
  template <class T> __device__ T shfl(T v, int src) const { return __shfl_sync(mask(), v, src, N); }
  template <class T> __device__ T shfl_up(T v, unsigned d) const { return __shfl_up_sync(mask(), v, d, N); }
  template <class T> __device__ T shfl_down(T v, unsigned d) const { return __shfl_down_sync(mask(), v, d, N); }
  template <class T> __device__ T shfl_xor(T v, unsigned m) const { return __shfl_xor_sync(mask(), v, m, N); }
  __device__ unsigned ballot(int p) const { return (__ballot_sync(mask(), p) >> ((__shflx_linear_tid() & 31) & ~(N - 1))) & (N == 32 ? 0xffffffffu : ((1u << N) - 1u)); }
  __device__ int any(int p) const { return ballot(p) != 0; }
  __device__ int all(int p) const { return ballot(!p) == 0; }
};
template <unsigned N>
__device__ inline thread_block_tile<N> tiled_partition(const thread_block &) { return thread_block_tile<N>(); }

// Any group: what code written against cg::thread_group reads (rank, size, sync).
struct thread_group {
  unsigned __rank, __size;
  __device__ thread_group(const thread_block &b) : __rank(b.thread_rank()), __size(b.size()) {}
  template <unsigned N> __device__ thread_group(const thread_block_tile<N> &t) : __rank(t.thread_rank()), __size(N) {}
  __device__ unsigned thread_rank() const { return __rank; }
  __device__ unsigned size() const { return __size; }
  __device__ unsigned num_threads() const { return __size; }
  __device__ void sync() const { __syncthreads(); }
};
template <class G> __device__ inline void sync(const G &g) { g.sync(); }
// The whole grid: ranks and sizes work; a grid-wide barrier needs a cooperative launch and a
// grid barrier in the runtime, which shflx does not provide on AMD.
struct grid_group {
  __device__ unsigned long long thread_rank() const {
    return (unsigned long long)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)) *
           (blockDim.x * blockDim.y * blockDim.z) + __shflx_linear_tid(); }
  __device__ unsigned long long size() const {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z; }
  __device__ unsigned long long num_threads() const { return size(); }
  __device__ bool is_valid() const { return true; }
  __device__ void sync() const __shflx_unsupported("cooperative_groups::grid_group::sync (a grid-wide barrier)");
};
__device__ inline grid_group this_grid() { return grid_group(); }

template <class T> struct plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(T a, T b) const { return a < b ? a : b; } };
template <class T> struct greater { __device__ T operator()(T a, T b) const { return a > b ? a : b; } };
template <class T> struct bit_and { __device__ T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(T a, T b) const { return a ^ b; } };

template <unsigned N, class T, class Op>
__device__ T reduce(const thread_block_tile<N> &g, T v, Op op) {     // a butterfly, as nvcc's fallback
  for (unsigned o = N / 2; o > 0; o >>= 1) v = op(v, g.shfl_xor(v, o));
  return v;
}
template <unsigned N, class T, class Op>
__device__ T inclusive_scan(const thread_block_tile<N> &g, T v, Op op) {
  for (unsigned d = 1; d < N; d <<= 1) {
    T t = g.shfl_up(v, d);
    if (g.thread_rank() >= d) v = op(v, t);
  }
  return v;
}
}  // namespace cooperative_groups
