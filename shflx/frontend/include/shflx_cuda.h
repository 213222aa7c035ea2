// shflx CUDA device prelude: force-included into every .cu compiled by `shflx compile`.
//
// It maps the CUDA device API onto clang's AMDGPU builtins (or, for --offload-arch sm_NN, the NVVM
// builtins: __NVPTX__) so ordinary kernels compile unchanged. A CUDA warp is 32 lanes on every
// target (DESIGN decision 2): on wave64 one wave holds two CUDA warps, and ballot/activemask give
// each 32-lane half its own 32 bits. Every warp shuffle becomes an opaque marker,
// __shflx_shfl_sync(mode, mask, value, b, c), carrying the PTX operands; the shflx recognizer
// replaces every marker with a proven lowering (on NVIDIA: one shfl.sync, its operands
// re-synthesized where a cheaper form is proven), and compilation fails if one is left. APIs
// shflx does not support are declared `unavailable`, so clang names them with their line instead
// of producing a wrong kernel.
#pragma once
#ifndef __SHFLX_WAVE__
#define __SHFLX_WAVE__ 64
#endif

#define __CUDACC__ 1
#define __NVCC__ 1
#ifndef __CUDA_ARCH__          // clang defines it for NVPTX device code from -target-cpu
#define __CUDA_ARCH__ 800
#endif
#ifndef __CUDA_ARCH_LIST__     // nvcc's list of the compiled architectures (CUDA 11.5+): this one
#define __CUDA_ARCH_LIST__ __CUDA_ARCH__
#endif
#define __SHFLX__ 1
// The annotations (__global__, __device__, __align__, ...) are NVIDIA's crt/host_defines.h, read
// with cuda_runtime.h below (shflx_cuda_runtime.h). __noinline__ is no macro: clang (15 and later,
// https://reviews.llvm.org/D124866) reads it as a keyword in CUDA/HIP, so that libstdc++'s
// `__attribute__((__noinline__))` still parses.
#if defined(__NVPTX__)
#define __shflx_unsupported(name) __attribute__((unavailable("shflx does not support '" name "' on NVIDIA targets")))
#else
#define __shflx_unsupported(name) __attribute__((unavailable("shflx does not support '" name "' on AMD targets")))
#endif

#include "shflx_stdint.h"

// ------------------------------------------------------------------------ thread geometry
#include "shflx_cuda_runtime.h"    // NVIDIA's cuda_runtime.h: dim3, uint3, float4, make_float4, the host API
#define __SHFLX_XYZ(NAME, FX, FY, FZ)                                                      \
  struct __shflx_##NAME##_t {                                                              \
    __device__ unsigned __get_x() const { return FX; }                                     \
    __device__ unsigned __get_y() const { return FY; }                                     \
    __device__ unsigned __get_z() const { return FZ; }                                     \
    __declspec(property(get = __get_x)) unsigned x;                                        \
    __declspec(property(get = __get_y)) unsigned y;                                        \
    __declspec(property(get = __get_z)) unsigned z;                                        \
    __device__ operator dim3() const { return dim3(FX, FY, FZ); }                          \
    __device__ operator uint3() const { return uint3{FX, FY, FZ}; }                        \
  };                                                                                       \
  extern const __device__ __attribute__((weak)) __shflx_##NAME##_t NAME;
#if defined(__NVPTX__)
__SHFLX_XYZ(threadIdx, __nvvm_read_ptx_sreg_tid_x(), __nvvm_read_ptx_sreg_tid_y(), __nvvm_read_ptx_sreg_tid_z())
__SHFLX_XYZ(blockIdx, __nvvm_read_ptx_sreg_ctaid_x(), __nvvm_read_ptx_sreg_ctaid_y(), __nvvm_read_ptx_sreg_ctaid_z())
__SHFLX_XYZ(blockDim, __nvvm_read_ptx_sreg_ntid_x(), __nvvm_read_ptx_sreg_ntid_y(), __nvvm_read_ptx_sreg_ntid_z())
__SHFLX_XYZ(gridDim, __nvvm_read_ptx_sreg_nctaid_x(), __nvvm_read_ptx_sreg_nctaid_y(),
            __nvvm_read_ptx_sreg_nctaid_z())
#else
__SHFLX_XYZ(threadIdx, __builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(),
            __builtin_amdgcn_workitem_id_z())
__SHFLX_XYZ(blockIdx, __builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(),
            __builtin_amdgcn_workgroup_id_z())
__SHFLX_XYZ(blockDim, __builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(),
            __builtin_amdgcn_workgroup_size_z())
__SHFLX_XYZ(gridDim, __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(),
            __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y(),
            __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z())
#endif
static constexpr int warpSize = 32;

__device__ __forceinline__ unsigned __shflx_lane() {   // lane in the hardware wave
#if defined(__NVPTX__)
  return __nvvm_read_ptx_sreg_laneid();
#elif __SHFLX_WAVE__ == 64
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#else
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#endif
}

// ------------------------------------------------------------------------ synchronization
#if defined(__NVPTX__)
// __syncthreads is a clang builtin for NVPTX (bar.sync 0)
__device__ __forceinline__ int __syncthreads_count(int p) { return __nvvm_bar0_popc(p); }
__device__ __forceinline__ int __syncthreads_and(int p) { return __nvvm_bar0_and(p); }
__device__ __forceinline__ int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }
__device__ __forceinline__ void __syncwarp(unsigned mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }
__device__ __forceinline__ void __threadfence() { __nvvm_membar_gl(); }
__device__ __forceinline__ void __threadfence_block() { __nvvm_membar_cta(); }
__device__ __forceinline__ void __threadfence_system() { __nvvm_membar_sys(); }
#else
__device__ __forceinline__ void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
// and a host overload, never compiled, as clang's NVPTX builtin of that name is host-callable: a host
// template that names it (NVIDIA warp's tile_matmul.h, never instantiated for the host) compiles,
// as with nvcc and on sm_NN, and a program's own `extern __device__ void __syncthreads(void);`
// (ccminer) still declares the device one
__host__ inline void __syncthreads() {}
__device__ __forceinline__ void __syncwarp(unsigned mask = 0xffffffffu) {
  (void)mask;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
__device__ __forceinline__ void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__device__ __forceinline__ void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__device__ __forceinline__ void __threadfence_system() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }
// bar.sync with a barrier id and no thread count (sm_30_intrinsics.h's __barrier_sync; NVIDIA's
// cooperative groups call it): all threads of the CTA take part (PTX ISA 8.7, "Parallel
// Synchronization and Communication Instructions: bar, barrier": without b, every thread of the
// CTA participates), so a program that completes on
// NVIDIA passes its barriers in one order, and AMD's one workgroup barrier serves every id.
__device__ __forceinline__ void __barrier_sync(unsigned id) { (void)id; __syncthreads(); }
#endif

// fns.b32 (PTX ISA 8.7, "Integer Arithmetic Instructions: fns"; sm_30_intrinsics.h's __fns;
// NVIDIA's coalesced-group shfl_up/down call it: hw_tests/amd/test_cuda_groups_hw.py): the position of the
// |offset|-th set bit of `mask` counted from bit `base` (itself included), upward for offset > 0,
// downward for offset < 0; for offset 0, `base` if its bit is set; 0xffffffff where there is none.
// base > 31 is undefined in PTX (here: no bit).
__device__ __forceinline__ unsigned __fns(unsigned mask, unsigned base, int offset) {
  if (base > 31u) return 0xffffffffu;
  if (offset == 0) return ((mask >> base) & 1u) ? base : 0xffffffffu;
  unsigned n = offset > 0 ? (unsigned)offset : 0u - (unsigned)offset;
  if (n > 32u) return 0xffffffffu;
  if (offset > 0) {
    unsigned m = mask & (~0u << base);
    for (unsigned k = 1; k < n && m; ++k) m &= m - 1u;           // drop the lowest set bits
    return m ? (unsigned)__builtin_ctz(m) : 0xffffffffu;
  }
  unsigned m = mask & (base == 31u ? ~0u : ((2u << base) - 1u));
  for (unsigned k = 1; k < n && m; ++k) m &= ~(0x80000000u >> __builtin_clz(m));   // drop the highest
  return m ? 31u - (unsigned)__builtin_clz(m) : 0xffffffffu;
}

// ------------------------------------------------------------------------ warp shuffles
// mode: 0 up, 1 down, 2 bfly (xor), 3 idx; c = ((32 - width) << 8) | clamp (cuda_ptx_shfl.md §1.2).
// B, the type of the lane operand, is sm_30_intrinsics.h's (unsigned delta, int laneMask / srcLane):
// overloads of other types (cuda_fp16.hpp's __half ones) resolve against these as with nvcc.
extern "C" __device__ int __shflx_shfl_sync(int mode, unsigned mask, int v, int b, int c)
    __attribute__((convergent, const, nothrow));
#define __SHFLX_C(width, clamp) ((((32 - (width)) << 8) | (clamp)))

template <int M, int CL>
__device__ __forceinline__ int __shflx_i32(unsigned mask, int v, int b, int width) {
  return __shflx_shfl_sync(M, mask, v, b, __SHFLX_C(width, CL));
}
#define __SHFLX_SHUFFLES(NAME, M, CL, B)                                                          \
  __device__ __forceinline__ int NAME(unsigned m, int v, B b, int w = 32) { return __shflx_i32<M, CL>(m, v, b, w); } \
  __device__ __forceinline__ unsigned NAME(unsigned m, unsigned v, B b, int w = 32) {        \
    return (unsigned)__shflx_i32<M, CL>(m, (int)v, b, w); }                                     \
  __device__ __forceinline__ float NAME(unsigned m, float v, B b, int w = 32) {               \
    return __builtin_bit_cast(float, __shflx_i32<M, CL>(m, __builtin_bit_cast(int, v), b, w)); } \
  __device__ __forceinline__ long long NAME(unsigned m, long long v, B b, int w = 32) {       \
    int lo = __shflx_i32<M, CL>(m, (int)(unsigned long long)v, b, w);                            \
    int hi = __shflx_i32<M, CL>(m, (int)((unsigned long long)v >> 32), b, w);                    \
    return (long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo); }               \
  __device__ __forceinline__ unsigned long long NAME(unsigned m, unsigned long long v, B b, int w = 32) { \
    return (unsigned long long)NAME(m, (long long)v, b, w); }                                    \
  __device__ __forceinline__ long NAME(unsigned m, long v, B b, int w = 32) {                 \
    return (long)NAME(m, (long long)v, b, w); }                                                  \
  __device__ __forceinline__ unsigned long NAME(unsigned m, unsigned long v, B b, int w = 32) { \
    return (unsigned long)NAME(m, (long long)v, b, w); }                                         \
  __device__ __forceinline__ double NAME(unsigned m, double v, B b, int w = 32) {             \
    return __builtin_bit_cast(double, NAME(m, __builtin_bit_cast(long long, v), b, w)); }
__SHFLX_SHUFFLES(__shfl_up_sync, 0, 0, unsigned)
__SHFLX_SHUFFLES(__shfl_down_sync, 1, 31, unsigned)
__SHFLX_SHUFFLES(__shfl_xor_sync, 2, 31, int)
__SHFLX_SHUFFLES(__shfl_sync, 3, 31, int)
// legacy non-sync forms (full warp)
template <class T> __device__ __forceinline__ T __shfl(T v, int l, int w = 32) { return __shfl_sync(0xffffffffu, v, l, w); }
template <class T> __device__ __forceinline__ T __shfl_up(T v, unsigned d, int w = 32) { return __shfl_up_sync(0xffffffffu, v, d, w); }
template <class T> __device__ __forceinline__ T __shfl_down(T v, unsigned d, int w = 32) { return __shfl_down_sync(0xffffffffu, v, d, w); }
template <class T> __device__ __forceinline__ T __shfl_xor(T v, int m, int w = 32) { return __shfl_xor_sync(0xffffffffu, v, m, w); }

// ------------------------------------------------------------------------ votes (32 bits per CUDA warp)
#if defined(__NVPTX__)
__device__ __forceinline__ unsigned __activemask() { return __nvvm_activemask(); }
__device__ __forceinline__ unsigned __ballot_sync(unsigned mask, int p) { return __nvvm_vote_ballot_sync(mask, p != 0); }
__device__ __forceinline__ int __any_sync(unsigned mask, int p) { return __nvvm_vote_any_sync(mask, p != 0); }
__device__ __forceinline__ int __all_sync(unsigned mask, int p) { return __nvvm_vote_all_sync(mask, p != 0); }
__device__ __forceinline__ unsigned __ballot(int p) { return __ballot_sync(__activemask(), p); }
__device__ __forceinline__ int __any(int p) { return __any_sync(__activemask(), p); }
__device__ __forceinline__ int __all(int p) { return __all_sync(__activemask(), p); }
#else
__device__ __forceinline__ unsigned __shflx_ballot(bool p) {
#if __SHFLX_WAVE__ == 64
  return (unsigned)(__builtin_amdgcn_ballot_w64(p) >> (__shflx_lane() & 32));
#else
  return __builtin_amdgcn_ballot_w32(p);
#endif
}
__device__ __forceinline__ unsigned __activemask() { return __shflx_ballot(true); }
__device__ __forceinline__ unsigned __ballot_sync(unsigned mask, int p) { return __shflx_ballot(p != 0) & mask; }
__device__ __forceinline__ int __any_sync(unsigned mask, int p) { return (__shflx_ballot(p != 0) & mask) != 0; }
__device__ __forceinline__ int __all_sync(unsigned mask, int p) { return (__shflx_ballot(p == 0) & mask) == 0; }
__device__ __forceinline__ unsigned __ballot(int p) { return __shflx_ballot(p != 0); }
__device__ __forceinline__ int __any(int p) { return __shflx_ballot(p != 0) != 0; }
__device__ __forceinline__ int __all(int p) { return __shflx_ballot(p == 0) == 0; }
#endif
// vote.uni: whether the predicate is the same in every thread of the mask
__device__ __forceinline__ int __uni_sync(unsigned mask, int p) { return __all_sync(mask, p) || !__any_sync(mask, p); }

// ------------------------------------------------------------------------ bit tricks
__device__ __forceinline__ int __popc(unsigned x) { return __builtin_popcount(x); }
__device__ __forceinline__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__device__ __forceinline__ int __ffs(int x) { return x ? __builtin_ctz((unsigned)x) + 1 : 0; }
__device__ __forceinline__ int __ffsll(long long x) { return x ? __builtin_ctzll((unsigned long long)x) + 1 : 0; }
__device__ __forceinline__ int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
__device__ __forceinline__ int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
__device__ __forceinline__ unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
__device__ __forceinline__ unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
__device__ __forceinline__ unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) << (s & 31) >> 32); }
__device__ __forceinline__ unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31)); }
// the clamped forms (shf.l/r.clamp): a shift of 32 or more is 32
__device__ __forceinline__ unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) << (s < 32u ? s : 32u) >> 32); }
__device__ __forceinline__ unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s < 32u ? s : 32u)); }

// ------------------------------------------------------------------------ warp reduce / match
#if defined(__NVPTX__) && __CUDA_ARCH__ >= 800    // redux.sync, as nvcc compiles these
__device__ __forceinline__ unsigned __reduce_add_sync(unsigned m, unsigned v) { return (unsigned)__nvvm_redux_sync_add((int)v, m); }
__device__ __forceinline__ int __reduce_add_sync(unsigned m, int v) { return __nvvm_redux_sync_add(v, m); }
__device__ __forceinline__ unsigned __reduce_min_sync(unsigned m, unsigned v) { return __nvvm_redux_sync_umin(v, m); }
__device__ __forceinline__ int __reduce_min_sync(unsigned m, int v) { return __nvvm_redux_sync_min(v, m); }
__device__ __forceinline__ unsigned __reduce_max_sync(unsigned m, unsigned v) { return __nvvm_redux_sync_umax(v, m); }
__device__ __forceinline__ int __reduce_max_sync(unsigned m, int v) { return __nvvm_redux_sync_max(v, m); }
__device__ __forceinline__ unsigned __reduce_and_sync(unsigned m, unsigned v) { return (unsigned)__nvvm_redux_sync_and((int)v, m); }
__device__ __forceinline__ unsigned __reduce_or_sync(unsigned m, unsigned v) { return (unsigned)__nvvm_redux_sync_or((int)v, m); }
__device__ __forceinline__ unsigned __reduce_xor_sync(unsigned m, unsigned v) { return (unsigned)__nvvm_redux_sync_xor((int)v, m); }
#else
template <class T, class F>
__device__ __forceinline__ T __shflx_reduce(unsigned mask, T v, F op) {
  if (mask == 0xffffffffu) {
    for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(mask, v, o));
    return v;
  }
  T acc = v;
  bool first = true;
  for (int k = 0; k < 32; ++k)
    if ((mask >> k) & 1) { T o = __shfl_sync(mask, v, k); acc = first ? o : op(acc, o); first = false; }
  return acc;
}
__device__ __forceinline__ unsigned __reduce_add_sync(unsigned m, unsigned v) { return __shflx_reduce(m, v, [](unsigned a, unsigned b) { return a + b; }); }
__device__ __forceinline__ int __reduce_add_sync(unsigned m, int v) { return __shflx_reduce(m, v, [](int a, int b) { return (int)((unsigned)a + (unsigned)b); }); }
__device__ __forceinline__ unsigned __reduce_min_sync(unsigned m, unsigned v) { return __shflx_reduce(m, v, [](unsigned a, unsigned b) { return a < b ? a : b; }); }
__device__ __forceinline__ int __reduce_min_sync(unsigned m, int v) { return __shflx_reduce(m, v, [](int a, int b) { return a < b ? a : b; }); }
__device__ __forceinline__ unsigned __reduce_max_sync(unsigned m, unsigned v) { return __shflx_reduce(m, v, [](unsigned a, unsigned b) { return a > b ? a : b; }); }
__device__ __forceinline__ int __reduce_max_sync(unsigned m, int v) { return __shflx_reduce(m, v, [](int a, int b) { return a > b ? a : b; }); }
__device__ __forceinline__ unsigned __reduce_and_sync(unsigned m, unsigned v) { return __shflx_reduce(m, v, [](unsigned a, unsigned b) { return a & b; }); }
__device__ __forceinline__ unsigned __reduce_or_sync(unsigned m, unsigned v) { return __shflx_reduce(m, v, [](unsigned a, unsigned b) { return a | b; }); }
__device__ __forceinline__ unsigned __reduce_xor_sync(unsigned m, unsigned v) { return __shflx_reduce(m, v, [](unsigned a, unsigned b) { return a ^ b; }); }
#endif
#if defined(__NVPTX__)
__device__ __forceinline__ unsigned __match_any_sync(unsigned mask, int v) { return __nvvm_match_any_sync_i32(mask, v); }
__device__ __forceinline__ unsigned __match_any_sync(unsigned mask, unsigned v) { return __nvvm_match_any_sync_i32(mask, (int)v); }
__device__ __forceinline__ unsigned __match_any_sync(unsigned mask, long long v) { return __nvvm_match_any_sync_i64(mask, v); }
__device__ __forceinline__ unsigned __match_any_sync(unsigned mask, unsigned long long v) { return __nvvm_match_any_sync_i64(mask, (long long)v); }
__device__ __forceinline__ unsigned __match_any_sync(unsigned mask, float v) { return __nvvm_match_any_sync_i32(mask, __builtin_bit_cast(int, v)); }
__device__ __forceinline__ unsigned __match_all_sync(unsigned mask, int v, int *pred) { return __nvvm_match_all_sync_i32p(mask, v, pred); }
__device__ __forceinline__ unsigned __match_all_sync(unsigned mask, unsigned v, int *pred) { return __nvvm_match_all_sync_i32p(mask, (int)v, pred); }
#else
template <class T>
__device__ __forceinline__ unsigned __match_any_sync(unsigned mask, T v) {
  unsigned r = 0;
  for (int k = 0; k < 32; ++k)
    if (((mask >> k) & 1) && __shfl_sync(mask, v, k) == v) r |= 1u << k;
  return r;
}
template <class T>
__device__ __forceinline__ unsigned __match_all_sync(unsigned mask, T v, int *pred) {
  unsigned same = __match_any_sync(mask, v) & mask;
  *pred = same == (mask & __activemask());
  return *pred ? mask : 0;
}
#endif

// ------------------------------------------------------------------------ atomics
// CUDA's atomicXxx (device scope), atomicXxx_block (the block) and atomicXxx_system (the device and
// the host / peer devices), all relaxed. The scope suffix S is empty, _block or _system.
#if defined(__NVPTX__)      // scoped builtins, clang 18+
#define __SHFLX_SCOPE_ __MEMORY_SCOPE_DEVICE
#define __SHFLX_SCOPE__block __MEMORY_SCOPE_WRKGRP
#define __SHFLX_SCOPE__system __MEMORY_SCOPE_SYSTEM
#define __SHFLX_ATOMIC_OP(OP, p, v, S) __scoped_atomic_##OP(p, v, __ATOMIC_RELAXED, __SHFLX_SCOPE_##S)
#define __scoped_atomic_exchange(p, v, o, s) __scoped_atomic_exchange_n(p, v, o, s)
#define __SHFLX_CAS_OP(p, cmp, v, S) __scoped_atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED, \
                                                                       __ATOMIC_RELAXED, __SHFLX_SCOPE_##S)
#else
#define __SHFLX_SCOPE_ __HIP_MEMORY_SCOPE_AGENT
#define __SHFLX_SCOPE__block __HIP_MEMORY_SCOPE_WORKGROUP
#define __SHFLX_SCOPE__system __HIP_MEMORY_SCOPE_SYSTEM
#define __SHFLX_ATOMIC_OP(OP, p, v, S) __hip_atomic_##OP(p, v, __ATOMIC_RELAXED, __SHFLX_SCOPE_##S)
#define __SHFLX_CAS_OP(p, cmp, v, S) __hip_atomic_compare_exchange_strong(p, &cmp, v, __ATOMIC_RELAXED, \
                                                                          __ATOMIC_RELAXED, __SHFLX_SCOPE_##S)
#endif
#define __SHFLX_ATOMIC_S(NAME, OP, T, S)                                                   \
  __device__ __forceinline__ T NAME##S(T *p, T v) { return __SHFLX_ATOMIC_OP(OP, p, v, S); }
#define __SHFLX_ATOMIC(NAME, OP, T) \
  __SHFLX_ATOMIC_S(NAME, OP, T, ) __SHFLX_ATOMIC_S(NAME, OP, T, _block) __SHFLX_ATOMIC_S(NAME, OP, T, _system)
// Each function's overloads are NVIDIA's, no more (device_atomic_functions.h, sm_20/sm_32/sm_60_
// atomic_functions.h of CUDA 12.9): atomicSub takes int and unsigned only, atomicAdd and atomicExch
// no long long. A program may define the others for itself (stdgpu's atomicSub(unsigned long long *)),
// as it does with nvcc.
#define __SHFLX_ATOMIC_INTS32(NAME, OP) __SHFLX_ATOMIC(NAME, OP, int) __SHFLX_ATOMIC(NAME, OP, unsigned)
#define __SHFLX_ATOMIC_INTS(NAME, OP) \
  __SHFLX_ATOMIC_INTS32(NAME, OP) __SHFLX_ATOMIC(NAME, OP, unsigned long long) __SHFLX_ATOMIC(NAME, OP, long long)
__SHFLX_ATOMIC_INTS32(atomicAdd, fetch_add)
__SHFLX_ATOMIC(atomicAdd, fetch_add, unsigned long long)
__SHFLX_ATOMIC(atomicAdd, fetch_add, float)
__SHFLX_ATOMIC(atomicAdd, fetch_add, double)
__SHFLX_ATOMIC_INTS32(atomicSub, fetch_sub)
__SHFLX_ATOMIC_INTS(atomicMin, fetch_min)
__SHFLX_ATOMIC_INTS(atomicMax, fetch_max)
__SHFLX_ATOMIC_INTS(atomicAnd, fetch_and)
__SHFLX_ATOMIC_INTS(atomicOr, fetch_or)
__SHFLX_ATOMIC_INTS(atomicXor, fetch_xor)
__SHFLX_ATOMIC_INTS32(atomicExch, exchange)
__SHFLX_ATOMIC(atomicExch, exchange, unsigned long long)
#if defined(__NVPTX__)      // the scoped exchange builtin takes integers only
#define __SHFLX_EXCH_F(S) __device__ __forceinline__ float atomicExch##S(float *p, float v) { \
  return __builtin_bit_cast(float, atomicExch##S((unsigned *)p, __builtin_bit_cast(unsigned, v))); }
__SHFLX_EXCH_F() __SHFLX_EXCH_F(_block) __SHFLX_EXCH_F(_system)
#else
__SHFLX_ATOMIC(atomicExch, exchange, float)
#endif
#define __SHFLX_CAS_S(T, S)                                                                \
  __device__ __forceinline__ T atomicCAS##S(T *p, T cmp, T v) {                           \
    __SHFLX_CAS_OP(p, cmp, v, S);                                                          \
    return cmp; }
#define __SHFLX_CAS(T) __SHFLX_CAS_S(T, ) __SHFLX_CAS_S(T, _block) __SHFLX_CAS_S(T, _system)
__SHFLX_CAS(int) __SHFLX_CAS(unsigned) __SHFLX_CAS(unsigned long long)
// the 16-bit atomicCAS of compute capability 7.x (CUDA Programming Guide, "atomicCAS()"): LLVM's
// cmpxchg i16, which AMDGPU expands into a CAS loop on the aligned 32-bit word holding it
__SHFLX_CAS(unsigned short)
// atomicInc: old >= v ? 0 : old + 1; atomicDec: old == 0 || old > v ? v : old - 1 (CUDA), which are
// LLVM's atomicrmw uinc_wrap / udec_wrap (AMDGPU: global_atomic_inc/dec)
#if defined(__NVPTX__)
#define __SHFLX_INC_DEC(S, SCOPE)                                                                  \
  __device__ __forceinline__ unsigned atomicInc##S(unsigned *p, unsigned v) { return __nvvm_atom##SCOPE##inc_gen_ui(p, v); } \
  __device__ __forceinline__ unsigned atomicDec##S(unsigned *p, unsigned v) { return __nvvm_atom##SCOPE##dec_gen_ui(p, v); }
__SHFLX_INC_DEC(, _) __SHFLX_INC_DEC(_block, _cta_) __SHFLX_INC_DEC(_system, _sys_)
#else                       // LLVM's sync scopes: agent (the device), workgroup (the block), "" (system)
#define __SHFLX_INC_DEC(S, SCOPE)                                                                  \
  __device__ __forceinline__ unsigned atomicInc##S(unsigned *p, unsigned v) {                     \
    return __builtin_amdgcn_atomic_inc32(p, v, __ATOMIC_RELAXED, SCOPE); }                        \
  __device__ __forceinline__ unsigned atomicDec##S(unsigned *p, unsigned v) {                     \
    return __builtin_amdgcn_atomic_dec32(p, v, __ATOMIC_RELAXED, SCOPE); }
__SHFLX_INC_DEC(, "agent") __SHFLX_INC_DEC(_block, "workgroup") __SHFLX_INC_DEC(_system, "")
#endif
#undef __SHFLX_INC_DEC

// ------------------------------------------------------------------------ loads, math
template <class T> __device__ __forceinline__ T __ldg(const T *p) { return *p; }
__device__ __forceinline__ float sqrtf(float x) { return __builtin_sqrtf(x); }
__device__ __forceinline__ double sqrt(double x) { return __builtin_sqrt(x); }
__device__ __forceinline__ float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
__device__ __forceinline__ float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
__device__ __forceinline__ float fminf(float a, float b) { return __builtin_fminf(a, b); }
__device__ __forceinline__ double fmax(double a, double b) { return __builtin_fmax(a, b); }
__device__ __forceinline__ double fmin(double a, double b) { return __builtin_fmin(a, b); }
__device__ __forceinline__ float fabsf(float x) { return __builtin_fabsf(x); }
__device__ __forceinline__ double fabs(double x) { return __builtin_fabs(x); }
__device__ __forceinline__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__device__ __forceinline__ double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
__device__ __forceinline__ float floorf(float x) { return __builtin_floorf(x); }
__device__ __forceinline__ float ceilf(float x) { return __builtin_ceilf(x); }
__device__ __forceinline__ float roundf(float x) { return __builtin_roundf(x); }
__device__ __forceinline__ float truncf(float x) { return __builtin_truncf(x); }
__device__ __forceinline__ float __fdividef(float a, float b) { return a / b; }
// fdividef: "the regular division operation" (crt/device_functions.h); fdivide, its double form
// (undeclared in the Programming Guide), divides as an H200 does (hw_tests/nvidia/device_api_values.cu)
__device__ __forceinline__ float fdividef(float a, float b) { return a / b; }
__device__ __forceinline__ double fdivide(double a, double b) { return a / b; }
__device__ __forceinline__ float __frcp_rn(float a) { return 1.0f / a; }
__device__ __forceinline__ float __saturatef(float x) { return __builtin_fminf(__builtin_fmaxf(x, 0.0f), 1.0f); }
#if defined(__NVPTX__)   // the fast forms, as nvcc's (ex2/lg2/sin/cos.approx); precise ones need libdevice
#define __SHFLX_LOG2E 1.4426950408889634f
#define __SHFLX_LN2 0.6931471805599453f
__device__ __forceinline__ float __expf(float x) { return __nvvm_ex2_approx_f(x * __SHFLX_LOG2E); }
__device__ __forceinline__ float __logf(float x) { return __nvvm_lg2_approx_f(x) * __SHFLX_LN2; }
__device__ __forceinline__ float __sinf(float x) { return __nvvm_sin_approx_f(x); }
__device__ __forceinline__ float __cosf(float x) { return __nvvm_cos_approx_f(x); }
__device__ __forceinline__ float __powf(float x, float y) { return __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)); }
__device__ float expf(float) __shflx_unsupported("expf (no libdevice; use __expf)");
__device__ float exp2f(float) __shflx_unsupported("exp2f (no libdevice)");
__device__ float logf(float) __shflx_unsupported("logf (no libdevice; use __logf)");
__device__ float log2f(float) __shflx_unsupported("log2f (no libdevice)");
__device__ float powf(float, float) __shflx_unsupported("powf (no libdevice; use __powf)");
// sinf, cosf, tanhf: declared only, as NVIDIA's cuda_fp16.hpp uses them in functions a file may
// never call; a call that reaches the PTX is named at its line (frontend.clang.DEVICE_GAPS)
extern "C" __device__ float sinf(float);
extern "C" __device__ float cosf(float);
extern "C" __device__ float tanhf(float);
// what NVIDIA's cuda_fp16.hpp / cuda_bf16.hpp call besides
__device__ __forceinline__ float __fmaf_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__device__ __forceinline__ float __fmaf_ieee_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__device__ __forceinline__ float __fsub_rn(float a, float b) {
  _Pragma("clang fp contract(off)") return a - b; }
__device__ float erff(float) __shflx_unsupported("erff (no libdevice)");
#else
#include "shflx_math_amd.h"     // precise math from LLVM intrinsics and short functions
#endif
__host__ __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }
__host__ __device__ __forceinline__ unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
__host__ __device__ __forceinline__ float min(float a, float b) { return __builtin_fminf(a, b); }
__host__ __device__ __forceinline__ float max(float a, float b) { return __builtin_fmaxf(a, b); }

#include "shflx_intrinsics.h"     // integer/cast intrinsics, mixed-sign min/max, __ldcs.., memcpy

#include "shflx_cuda_host.h"

// ------------------------------------------------------------------------ half precision
// NVIDIA's own cuda_fp16.h and cuda_bf16.h (the CUDA runtime wheel, read as they are: their device
// code is inline PTX, which ir.ptxfloat translates), included by the prelude after the
// C library their host code calls (memcpy), so `__half` needs no include. (Without the runtime
// wheel or CCCL, whose <nv/target> they include, a file's own #include of them names what is missing.)
#if __has_include(<cuda_fp16.h>) && __has_include(<nv/target>)
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#endif

// ------------------------------------------------------------------------ not supported
// Declared for the device, never defined: a call is an error only where device code that is
// actually compiled makes it (the code object may not call undefined functions), named by shflx
// with its line (driver/inputs.py); unused debug helpers compile as they do with nvcc.
extern "C" __device__ int printf(const char *, ...);
#if !defined(__NVPTX__) && defined(__SHFLX_PRINTF_BUFFER_SLOT)
// Device printf is ROCm's buffered printf: clang writes each call's record (a control word, the
// format string's hash, the arguments) where this reserves room, and the HIP runtime prints the
// buffer after the kernel, with the format strings of the code object's amdhsa.printf metadata.
// The buffer is the hidden printf-buffer kernel argument (AMDGPUUsage, "Code Object V5 Metadata":
// implicit argument 9, v4: 3), a 4-byte used count, its 4-byte size, then the records; where a
// launcher passes none (0), nothing is reserved and printf returns -1.
extern "C" __device__ __attribute__((used)) char __attribute__((address_space(1))) *__printf_alloc(unsigned bytes) {
  char *buf = ((char *const __attribute__((address_space(4))) *)__builtin_amdgcn_implicitarg_ptr())[__SHFLX_PRINTF_BUFFER_SLOT];
  if (buf == nullptr) return nullptr;
  unsigned size = ((unsigned *)buf)[1];
  unsigned used = __hip_atomic_load((unsigned *)buf, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  do {
    if (8ull + used + bytes > size) return nullptr;
  } while (!__hip_atomic_compare_exchange_strong((unsigned *)buf, &used, used + bytes, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT));
  return (char __attribute__((address_space(1))) *)(buf + 8 + used);
}
#endif
extern "C" __device__ void *malloc(__SIZE_TYPE__);
extern "C" __device__ void free(void *);
#if defined(__NVPTX__)
__device__ void __nanosleep(unsigned) __shflx_unsupported("__nanosleep");
#else
// Sleep for about ns nanoseconds, "guaranteed to be in the interval [0, 2*t]" (PTX ISA, nanosleep); s_sleep 1
// waits 64 clocks (AMD ISA, S_SLEEP), about 32-64 ns at 1-2 GHz, so ns / 64 of them stay inside it.
__device__ __forceinline__ void __nanosleep(unsigned ns) {
  for (unsigned k = 0; k < (ns >> 6); ++k) __builtin_amdgcn_s_sleep(1);
}
#endif
#if defined(__NVPTX__)
__device__ long long clock64() __shflx_unsupported("clock64");
__device__ long long clock() __shflx_unsupported("clock");
#else
// clock64: a per-CU counter of shader clock cycles, as CUDA's %clock64 counts SM cycles: s_memtime
// up to GFX10 and GFX12's 64-bit SHADER_CYCLES (both __builtin_readcyclecounter in LLVM's AMDGPU
// backend). GFX11 counts cycles only in 20 bits (HW_REG_SHADER_CYCLES), which wraps within a
// millisecond, so there clock64 is the 64-bit REALTIME counter (s_sendmsg_rtn MSG_RTN_GET_REALTIME:
// a constant 100 MHz, not cycles; RDNA3 ISA, S_SENDMSG_RTN_B64). clock() is its low 32 bits,
// sign-extended, as CUDA's clock() widens %clock.
__device__ __forceinline__ long long clock64() {
#if defined(__GFX11__)
  return (long long)__builtin_amdgcn_s_sendmsg_rtnl(0x83);
#else
  return (long long)__builtin_readcyclecounter();
#endif
}
__device__ __forceinline__ long long clock() { return (long long)(int)(unsigned)clock64(); }
#endif
__device__ __forceinline__ void __trap() { __builtin_trap(); }          // s_trap: the kernel aborts
// __prof_trigger(n) counts an event for NVIDIA's profiler (pmevent); no AMD profiler reads one
__device__ __forceinline__ void __prof_trigger(int) {}
__device__ __forceinline__ void __brkpt() { __builtin_debugtrap(); }
// assert(): a failing device assertion aborts the kernel (s_trap), without CUDA's message (no
// host-call printf); glibc's assert macro calls __assert_fail, which glibc declares for the host
// unless NDEBUG. Under NDEBUG, CCCL declares it __host__ __device__ noexcept for nvcc instead
// (cuda/std/__cccl/assert.h), so it is that here (only device code is compiled: the host side
// never uses the body).
#if defined(NDEBUG)
#define __SHFLX_ASSERT_FAIL __host__ __device__
#else
#define __SHFLX_ASSERT_FAIL __device__
#endif
extern "C" __SHFLX_ASSERT_FAIL __attribute__((noreturn)) inline void __assert_fail(const char *, const char *,
                                                                                   unsigned, const char *) noexcept {
  __builtin_trap();
}
#undef __SHFLX_ASSERT_FAIL
#if !defined(__NVPTX__)
// A barrier that also counts the threads whose predicate is non-zero: one LDS counter, reset
// before and read between barriers (the third barrier keeps the next call's reset after every read).
__device__ __forceinline__ int __syncthreads_count(int p) {
  __shared__ unsigned __shflx_count;
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) __shflx_count = 0;
  __syncthreads();
  if (p) __hip_atomic_fetch_add(&__shflx_count, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __syncthreads();
  int n = (int)__shflx_count;
  __syncthreads();
  return n;
}
__device__ __forceinline__ int __syncthreads_and(int p) {
  return __syncthreads_count(p) == (int)(blockDim.x * blockDim.y * blockDim.z); }
__device__ __forceinline__ int __syncthreads_or(int p) { return __syncthreads_count(p) != 0; }
#endif
// sm_20_intrinsics.hpp's bool forms
__device__ __forceinline__ int syncthreads_count(bool p) { return __syncthreads_count((int)p); }
__device__ __forceinline__ bool syncthreads_and(bool p) { return __syncthreads_and((int)p) != 0; }
__device__ __forceinline__ bool syncthreads_or(bool p) { return __syncthreads_or((int)p) != 0; }
// A barrier of `count` threads (bar.sync id, count) and the performance-monitor counters have no
// AMD counterpart: s_barrier waits for the whole workgroup.
__device__ void __barrier_sync_count(unsigned, unsigned) __shflx_unsupported("__barrier_sync_count");
__device__ unsigned __pm0() __shflx_unsupported("__pm0 (performance monitor counters)");
__device__ unsigned __pm1() __shflx_unsupported("__pm1 (performance monitor counters)");
__device__ unsigned __pm2() __shflx_unsupported("__pm2 (performance monitor counters)");
__device__ unsigned __pm3() __shflx_unsupported("__pm3 (performance monitor counters)");
