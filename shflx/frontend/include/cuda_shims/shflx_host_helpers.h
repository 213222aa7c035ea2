/* Force-included after clang's CUDA wrapper for sm_NN device compiles (frontend/clang.py).

   nvcc's host pass sees CUDA's host versions of min/max/umin/umax/llmin/llmax/ullmin/ullmax
   (crt/math_functions.hpp, the block under `#if !defined(__CUDA_ARCH__)`), so host code such as
   `blocks = min(maxBlocks, blocks);` compiles. clang parses host functions in its device pass
   too, with __CUDA_ARCH__ defined: that block is skipped, only the __device__ versions of
   __clang_cuda_math.h remain, and the host call is an error. These __host__ overloads stand in
   for the skipped block in the device pass; they are never emitted to the device. */
#pragma once
/* nvcc's crt/math_functions.h includes <math.h> and <stdlib.h> into every .cu (crt/common_functions.h
   <string.h> and <time.h>): with libstdc++ that
   makes std::isfinite, std::isnan, ... also ::isfinite, ..., which host code calls unqualified
   (llm.c's validate_result). clang's CUDA wrapper includes <cmath> only. */
#if defined(__cplusplus)
#include <math.h>
#include <stdlib.h>
#include <string.h>     /* crt/common_functions.h: host code calls memcpy, strlen, clock() */
#include <time.h>
#endif
#if defined(__CUDA_ARCH__) && defined(__cplusplus)
static inline __host__ int min(const int a, const int b) { return a < b ? a : b; }
static inline __host__ unsigned int umin(const unsigned int a, const unsigned int b) { return a < b ? a : b; }
static inline __host__ long long int llmin(const long long int a, const long long int b) { return a < b ? a : b; }
static inline __host__ unsigned long long int ullmin(const unsigned long long int a, const unsigned long long int b) {
  return a < b ? a : b;
}
static inline __host__ int max(const int a, const int b) { return a > b ? a : b; }
static inline __host__ unsigned int umax(const unsigned int a, const unsigned int b) { return a > b ? a : b; }
static inline __host__ long long int llmax(const long long int a, const long long int b) { return a > b ? a : b; }
static inline __host__ unsigned long long int ullmax(const unsigned long long int a, const unsigned long long int b) {
  return a > b ? a : b;
}
#endif

/* The cache-hinted loads and stores CUDA documents for every type (sm_32_intrinsics.h: __ldca,
   __ldlu, __stcg, __stcs, __stwb for char ... double4, and __ldcg/__ldcs/__ldcv/__stwt beyond the
   types clang's __clang_cuda_intrinsics.h writes in PTX). clang provides only __ldcg, __ldcs,
   __ldcv and __stwt for its list of types; these templates give the others as plain accesses (the
   value loaded or stored is the same; the cache hint is not passed on), and lose to clang's
   non-template overloads wherever those exist. */
#if defined(__CUDA_ARCH__) && defined(__cplusplus)
#define __SHFLX_PLAIN_LOAD(NAME) template <class T> __device__ inline T NAME(const T *__p) { return *__p; }
#define __SHFLX_PLAIN_STORE(NAME) template <class T> __device__ inline void NAME(T *__p, T __v) { *__p = __v; }
__SHFLX_PLAIN_LOAD(__ldca) __SHFLX_PLAIN_LOAD(__ldlu) __SHFLX_PLAIN_LOAD(__ldcg) __SHFLX_PLAIN_LOAD(__ldcs)
__SHFLX_PLAIN_LOAD(__ldcv)
__SHFLX_PLAIN_STORE(__stcg) __SHFLX_PLAIN_STORE(__stcs) __SHFLX_PLAIN_STORE(__stwb) __SHFLX_PLAIN_STORE(__stwt)
#undef __SHFLX_PLAIN_LOAD
#undef __SHFLX_PLAIN_STORE
#endif
