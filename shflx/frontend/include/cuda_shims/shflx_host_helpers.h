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

/* The shuffles without _sync (__shfl, __shfl_up, __shfl_down, __shfl_xor): NVIDIA's sm_30_intrinsics.h
   declares them only below sm_70 (`#if ... __CUDA_ARCH__ < 700`), so nvcc rejects them there; clang's
   wrapper defines them for every sm_NN and LLVM then stops with "Cannot select: intrinsic
   llvm.nvvm.shfl.*". A call is a one-line error at the user's line instead. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700 && defined(__cplusplus)
#define __SHFLX_NO_NOSYNC(name)                                                                    \
  template <class... __A> __device__ int __shflx_nosync_##name(__A...)                          \
      __attribute__((unavailable("shflx does not support '" #name "' on sm_70 and later (nor does nvcc: " \
                                 "NVIDIA's headers declare it only below sm_70; use " #name "_sync)")));
__SHFLX_NO_NOSYNC(__shfl)
__SHFLX_NO_NOSYNC(__shfl_up)
__SHFLX_NO_NOSYNC(__shfl_down)
__SHFLX_NO_NOSYNC(__shfl_xor)
#undef __SHFLX_NO_NOSYNC
#define __shfl(...) __shflx_nosync___shfl(__VA_ARGS__)
#define __shfl_up(...) __shflx_nosync___shfl_up(__VA_ARGS__)
#define __shfl_down(...) __shflx_nosync___shfl_down(__VA_ARGS__)
#define __shfl_xor(...) __shflx_nosync___shfl_xor(__VA_ARGS__)
#endif

/* Device functions NVIDIA's crt/ headers declare and clang's wrapper lacks: __tanhf (CUDA 12's fast
   tanh: tanh.approx.f32, PTX ISA "tanh", sm_75 and later; the precise tanhf below) and glibc's
   __signbit(double), which crt/math_functions.h declares for device code on Linux. */
#if defined(__CUDA_ARCH__) && defined(__cplusplus)
static __device__ __forceinline__ float __tanhf(float __x) {
#if __CUDA_ARCH__ >= 750
  float __r;
  asm("tanh.approx.f32 %0, %1;" : "=f"(__r) : "f"(__x));
  return __r;
#else
  return tanhf(__x);
#endif
}
static __device__ __forceinline__ int __signbit(double __x) { return __builtin_signbit(__x); }
#endif

/* The cache-hinted loads and stores clang's wrapper lacks, as NVIDIA's sm_32_intrinsics.hpp writes them */
#include "shflx_cache_hints.h"
