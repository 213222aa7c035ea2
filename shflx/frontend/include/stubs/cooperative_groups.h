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
  __device__ static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ static dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ static dim3 dim_threads() { return group_dim(); }
};
__device__ inline thread_block this_thread_block() { return thread_block(); }
// The scratch CUDA's tiles of more than 32 threads communicate through (before sm_80): the layer's
// tiles are warp tiles, which need none, so it is accepted and unused.
template <unsigned MaxBlockSize = 1024> struct __align__(8) block_tile_memory { char __scratch[8]; };
template <unsigned MaxBlockSize> __device__ inline thread_block this_thread_block(block_tile_memory<MaxBlockSize> &) {
  return thread_block(); }

// A group shuffle of any trivially copyable type (CUDA's tile shuffles take one: a user struct, a
// double2, ...): the type's own __shfl_*_sync where the layer has one, else one 32-bit shuffle per
// word of its bytes, each with the same lanes, which is the same as moving the whole value.
template <class A, class B> struct __shflx_same { static constexpr bool value = false; };
template <class A> struct __shflx_same<A, A> { static constexpr bool value = true; };
template <class T, class = void> struct __shflx_has_shfl { static constexpr bool value = false; };
template <class T> struct __shflx_has_shfl<T, decltype((void)__shfl_sync(0u, *(T *)nullptr, 0, 32))> {
  static constexpr bool value = __shflx_same<decltype(__shfl_sync(0u, *(T *)nullptr, 0, 32)), T>::value; };
#define __SHFLX_CG_SHUFFLE(NAME, SHFL, B)                                                        \
  template <class T> __device__ __forceinline__ T NAME(unsigned mask, T v, B b, int w) {          \
    if constexpr (__shflx_has_shfl<T>::value) {                                                 \
      return SHFL(mask, v, b, w);                                                                \
    } else {                                                                                     \
      static_assert(__is_trivially_copyable(T), "a group shuffle needs a trivially copyable type"); \
      int words[(sizeof(T) + 3) / 4] = {};                                                       \
      __builtin_memcpy(words, &v, sizeof(T));                                                    \
      for (unsigned k = 0; k < (sizeof(T) + 3) / 4; ++k) words[k] = SHFL(mask, words[k], b, w);  \
      T r;                                                                                       \
      __builtin_memcpy(&r, words, sizeof(T));                                                    \
      return r;                                                                                  \
    }                                                                                            \
  }
__SHFLX_CG_SHUFFLE(__shflx_cg_shfl, __shfl_sync, int)
__SHFLX_CG_SHUFFLE(__shflx_cg_shfl_up, __shfl_up_sync, unsigned)
__SHFLX_CG_SHUFFLE(__shflx_cg_shfl_down, __shfl_down_sync, unsigned)
__SHFLX_CG_SHUFFLE(__shflx_cg_shfl_xor, __shfl_xor_sync, int)
#undef __SHFLX_CG_SHUFFLE

// A tile's rank is the linear thread id mod N, which is the hardware lane mod N: a wave holds
// consecutive linear thread ids from a multiple of its size (PTX ISA "%laneid"; on AMD, ROCm/clr
// amd_hip_cooperative_groups.h builds a tile's lane mask from the linear rank the same way). Read
// off the lane, it costs no blockDim loads, and `tile.thread_rank() == 0` is a lane condition.
template <unsigned N>
struct thread_block_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tile size must be a power of two <= 32");
  __device__ unsigned thread_rank() const { return __shflx_lane() & (N - 1); }
  __device__ static constexpr unsigned size() { return N; }
  __device__ static constexpr unsigned num_threads() { return N; }
  __device__ unsigned meta_group_rank() const { return __shflx_linear_tid() / N; }
  __device__ unsigned meta_group_size() const { return (blockDim.x * blockDim.y * blockDim.z + N - 1) / N; }
  static constexpr unsigned __bits = (unsigned)((1ull << N) - 1u);     // N low bits (no 1u << 32)
  __device__ unsigned mask() const { return __bits << ((__shflx_linear_tid() & 31) & ~(N - 1)); }
  __device__ void sync() const { __syncwarp(mask()); }
  template <class T> __device__ T shfl(T v, int src) const { return __shflx_cg_shfl(mask(), v, src, N); }
  template <class T> __device__ T shfl_up(T v, unsigned d) const { return __shflx_cg_shfl_up(mask(), v, d, N); }
  template <class T> __device__ T shfl_down(T v, unsigned d) const { return __shflx_cg_shfl_down(mask(), v, d, N); }
  template <class T> __device__ T shfl_xor(T v, unsigned m) const { return __shflx_cg_shfl_xor(mask(), v, (int)m, N); }
  __device__ unsigned ballot(int p) const { return (__ballot_sync(mask(), p) >> ((__shflx_linear_tid() & 31) & ~(N - 1))) & __bits; }
  __device__ int any(int p) const { return ballot(p) != 0; }
  __device__ int all(int p) const { return ballot(!p) == 0; }
};
template <unsigned N>
__device__ inline thread_block_tile<N> tiled_partition(const thread_block &) { return thread_block_tile<N>(); }

// Any group: what code written against cg::thread_group reads (rank, size, sync).
struct thread_group {
  unsigned __rank, __size;
  bool __in_warp;                         // a tile of <= 32 threads: its sync is a warp sync
  __device__ thread_group(const thread_block &b) : __rank(b.thread_rank()), __size(b.size()), __in_warp(false) {}
  template <unsigned N> __device__ thread_group(const thread_block_tile<N> &t) : __rank(t.thread_rank()), __size(N), __in_warp(true) {}
  __device__ thread_group(unsigned rank, unsigned size, bool in_warp) : __rank(rank), __size(size), __in_warp(in_warp) {}
  __device__ unsigned thread_rank() const { return __rank; }
  __device__ unsigned size() const { return __size; }
  __device__ unsigned num_threads() const { return __size; }
  __device__ void sync() const { if (__in_warp) __syncwarp(); else __syncthreads(); }
};
// tiled_partition(parent, n) with a run-time size: CUDA allows a power of two n <= 32 dividing
// the parent; threads are numbered by the parent's rank.
__device__ inline thread_group tiled_partition(const thread_block &b, unsigned n) {
  return thread_group(b.thread_rank() % n, n, n <= 32);
}
__device__ inline thread_group tiled_partition(const thread_group &g, unsigned n) {
  return thread_group(g.thread_rank() % n, n, n <= 32);
}

// coalesced_group: the lanes of one CUDA warp named by a 32-bit mask (coalesced_threads(),
// binary_partition, labeled_partition). Ranks count member lanes below (CUDA Programming Guide,
// "Coalesced Groups"); shuffles address ranks, so they read the rank-th member lane.
__device__ inline unsigned __shflx_warp_lane() { return __shflx_lane() & 31u; }
__device__ inline unsigned __shflx_nth_lane(unsigned mask, unsigned n) {   // the lane of the n-th set bit
  for (unsigned k = 0; k < n; ++k) mask &= mask - 1u;
  return mask ? (unsigned)__builtin_ctz(mask) : 32u;
}
struct coalesced_group {
  unsigned __mask;
  __device__ explicit coalesced_group(unsigned m) : __mask(m) {}
  __device__ unsigned thread_rank() const { return __popc(__mask & ((1u << __shflx_warp_lane()) - 1u)); }
  __device__ unsigned size() const { return __popc(__mask); }
  __device__ unsigned num_threads() const { return size(); }
  __device__ unsigned meta_group_rank() const { return 0; }
  __device__ unsigned meta_group_size() const { return 1; }
  __device__ unsigned mask() const { return __mask; }
  __device__ void sync() const { __syncwarp(__mask); }
  template <class T> __device__ T shfl(T v, unsigned src_rank) const {
    return __shflx_cg_shfl(__mask, v, (int)__shflx_nth_lane(__mask, src_rank % size()), 32); }
  template <class T> __device__ T shfl_down(T v, unsigned d) const {
    unsigned r = thread_rank() + d;
    return __shflx_cg_shfl(__mask, v, (int)(r < size() ? __shflx_nth_lane(__mask, r) : __shflx_warp_lane()), 32); }
  template <class T> __device__ T shfl_up(T v, unsigned d) const {
    unsigned r = thread_rank();
    return __shflx_cg_shfl(__mask, v, (int)(r >= d ? __shflx_nth_lane(__mask, r - d) : __shflx_warp_lane()), 32); }
  __device__ unsigned ballot(int p) const {            // bit k: the member of rank k
    unsigned b = __ballot_sync(__mask, p), r = 0;
    for (unsigned m = __mask, k = 0; m; m &= m - 1u, ++k) r |= ((b >> __builtin_ctz(m)) & 1u) << k;
    return r; }
  __device__ int any(int p) const { return (__ballot_sync(__mask, p) & __mask) != 0; }
  __device__ int all(int p) const { return (__ballot_sync(__mask, p) & __mask) == __mask; }
};
__device__ inline coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }
template <unsigned N> __device__ inline coalesced_group binary_partition(const thread_block_tile<N> &t, bool pred) {
  unsigned m = t.mask(), b = __ballot_sync(m, pred) & m;
  return coalesced_group(pred ? b : m & ~b);
}
__device__ inline coalesced_group binary_partition(const coalesced_group &g, bool pred) {
  unsigned b = __ballot_sync(g.__mask, pred) & g.__mask;
  return coalesced_group(pred ? b : g.__mask & ~b);
}
template <unsigned N> __device__ inline coalesced_group labeled_partition(const thread_block_tile<N> &t, int label) {
  return coalesced_group(__match_any_sync(t.mask(), label) & t.mask());
}
__device__ inline coalesced_group labeled_partition(const coalesced_group &g, int label) {
  return coalesced_group(__match_any_sync(g.__mask, label) & g.__mask);
}
template <class G> __device__ inline void sync(const G &g) { g.sync(); }
// The grid-wide barrier of grid_group::sync(). CUDA allows it only in a cooperative launch
// (cudaLaunchCooperativeKernel / hipLaunchCooperativeKernel), which guarantees that every block of
// the grid is resident at once; under that precondition this barrier completes. One arrive counter
// and one generation word live in the code object (zero when it is loaded, zero again after every
// barrier): the first thread of each block adds itself to the counter; the last block to arrive
// resets it and advances the generation, the others spin until the generation moves. Memory
// ordering: every thread releases its writes at device (AMD: agent) scope before the block's
// barrier and acquires after it, and the counter and generation are device-scope acq_rel/acquire
// atomics, so writes before sync() in any block are visible after sync() in every block.
// Limits: one cooperative grid per code object at a time (concurrent cooperative launches of
// kernels of the same code object would share the counter), and one device (no multi_grid_group).
struct __shflx_grid_barrier_words { unsigned arrived, generation; };
// an inline variable (linkonce_odr): one per code object, and none in one that never syncs the grid
__device__ __attribute__((visibility("hidden"))) inline __shflx_grid_barrier_words __shflx_grid_barrier;
__device__ inline void __shflx_grid_sync() {
  __scoped_atomic_thread_fence(__ATOMIC_RELEASE, __MEMORY_SCOPE_DEVICE);
  __syncthreads();
  if (__shflx_linear_tid() == 0) {
    unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
    // read before arriving (the release below keeps it there): the last block cannot advance
    // the generation before this block has arrived
    unsigned gen = __scoped_atomic_load_n(&__shflx_grid_barrier.generation, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
    if (__scoped_atomic_fetch_add(&__shflx_grid_barrier.arrived, 1u, __ATOMIC_ACQ_REL, __MEMORY_SCOPE_DEVICE) ==
        blocks - 1) {
      __scoped_atomic_store_n(&__shflx_grid_barrier.arrived, 0u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
      __scoped_atomic_fetch_add(&__shflx_grid_barrier.generation, 1u, __ATOMIC_RELEASE, __MEMORY_SCOPE_DEVICE);
    } else {
      while (__scoped_atomic_load_n(&__shflx_grid_barrier.generation, __ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE) == gen) {
#if !defined(__NVPTX__)
        __builtin_amdgcn_s_sleep(1);
#endif
      }
    }
  }
  __syncthreads();
  __scoped_atomic_thread_fence(__ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE);
}
// The whole grid: ranks, sizes, block indices, and sync() (above).
struct grid_group {
  __device__ unsigned long long block_rank() const {
    return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z); }
  __device__ unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
  __device__ unsigned long long thread_rank() const {
    return block_rank() * (blockDim.x * blockDim.y * blockDim.z) + __shflx_linear_tid(); }
  __device__ unsigned long long size() const { return num_blocks() * (blockDim.x * blockDim.y * blockDim.z); }
  __device__ unsigned long long num_threads() const { return size(); }
  __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ dim3 dim_blocks() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  __device__ dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ bool is_valid() const { return true; }   // a non-cooperative launch is not detected
  __device__ void sync() const { __shflx_grid_sync(); }
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
// A coalesced group's members are any lanes: fold them in rank order through shuffles (every
// member gets the same value; a full warp takes the butterfly).
template <class T, class Op>
__device__ T reduce(const coalesced_group &g, T v, Op op) {
  if (g.__mask == 0xffffffffu) {
    for (unsigned o = 16; o > 0; o >>= 1) v = op(v, __shflx_cg_shfl_xor(0xffffffffu, v, (int)o, 32));
    return v;
  }
  T acc = g.shfl(v, 0);
  for (unsigned r = 1; r < g.size(); ++r) acc = op(acc, g.shfl(v, r));
  return acc;
}
template <class T, class Op>
__device__ T inclusive_scan(const coalesced_group &g, T v, Op op) {
  for (unsigned d = 1; d < g.size(); d <<= 1) {
    T t = g.shfl_up(v, d);
    if (g.thread_rank() >= d) v = op(v, t);
  }
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
