// shflx: cooperative_groups::memcpy_async / wait / wait_prior (CUDA C++ Programming Guide,
// "Cooperative Groups", memcpy_async). The copy is synchronous: the group's threads copy `count`
// bytes together (thread k of the group copies elements k, k + size, ...; 16-byte elements where
// both pointers and the count allow, else 4-byte, else bytes), and wait(group) / wait_prior<N>(group)
// synchronize the group, so every byte is visible to every thread of the group after the wait, as
// CUDA guarantees. `count` may be a size_t or libcu++'s cuda::aligned_size_t (it converts to size_t).
#pragma once
#include "../cooperative_groups.h"
namespace cooperative_groups {
template <class Group, class Elem, class Count>
__device__ inline void memcpy_async(const Group &group, Elem *__restrict__ dst, const Elem *__restrict__ src,
                                    const Count &count) {
  unsigned long long bytes = (unsigned long long)count, rank = group.thread_rank(), size = group.size();
  unsigned long long both = (unsigned long long)dst | (unsigned long long)src | bytes;
  if (both % 16 == 0) {
    for (unsigned long long i = rank; i < bytes / 16; i += size) ((uint4 *)dst)[i] = ((const uint4 *)src)[i];
  } else if (both % 4 == 0) {
    for (unsigned long long i = rank; i < bytes / 4; i += size) ((unsigned *)dst)[i] = ((const unsigned *)src)[i];
  } else {
    for (unsigned long long i = rank; i < bytes; i += size) ((char *)dst)[i] = ((const char *)src)[i];
  }
}
// The form with element counts: min(dst_count, src_count) elements of T.
template <class Group, class Elem>
__device__ inline void memcpy_async(const Group &group, Elem *__restrict__ dst, __SIZE_TYPE__ dst_count,
                                    const Elem *__restrict__ src, __SIZE_TYPE__ src_count) {
  memcpy_async(group, dst, src, (unsigned long long)(dst_count < src_count ? dst_count : src_count) * sizeof(Elem));
}
template <class Group> __device__ inline void wait(const Group &group) { group.sync(); }
template <unsigned N, class Group> __device__ inline void wait_prior(const Group &group) { group.sync(); }
}  // namespace cooperative_groups
