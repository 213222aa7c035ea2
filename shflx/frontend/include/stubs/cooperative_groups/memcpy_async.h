// shflx: cooperative_groups::memcpy_async / wait / wait_prior (<cooperative_groups/memcpy_async.h>).
// The group's threads copy the bytes together at the call, each thread every size()-th byte from its
// rank; wait(group) is the group's barrier. CUDA lets the copy complete at any time before wait
// returns and makes it visible to the whole group then (Programming Guide, "memcpy_async"); a copy
// done at the call is one of those schedules.
#pragma once
#include "../cooperative_groups.h"
namespace cooperative_groups {
template <class Group>
__device__ void __shflx_group_copy(const Group &g, void *dst, const void *src, unsigned long long bytes) {
  char *d = (char *)dst;
  const char *s = (const char *)src;
  for (unsigned long long i = g.thread_rank(); i < bytes; i += g.size()) d[i] = s[i];
}
template <class Group, class T, class Size>
__device__ void memcpy_async(const Group &g, T *dst, const T *src, const Size &bytes) {
  __shflx_group_copy(g, (void *)dst, (const void *)src, (unsigned long long)bytes);
}
// The form with element counts: min(dst_count, src_count) elements of T.
template <class Group, class T>
__device__ void memcpy_async(const Group &g, T *dst, __SIZE_TYPE__ dst_count, const T *src, __SIZE_TYPE__ src_count) {
  __shflx_group_copy(g, (void *)dst, (const void *)src,
                     (unsigned long long)(dst_count < src_count ? dst_count : src_count) * sizeof(T));
}
template <class Group> __device__ void wait(const Group &g) { g.sync(); }
template <unsigned Stage, class Group> __device__ void wait_prior(const Group &g) { g.sync(); }
}  // namespace cooperative_groups
