// shflx launch: the host pass of a CUDA (.cu) file built by a HIP compiler. shflx compiles the
// device code itself (CUDA semantics, 32-lane warps); the HIP compiler only parses the kernels
// for their launch stubs, so CUDA's warp intrinsics need declarations here, never bodies.
// HIP 6.2 and later declare the *_sync functions themselves. The CUDA runtime API comes first, as
// nvcc includes cuda_runtime.h in every .cu (cuda_on_hip/: CUDA's names on the HIP runtime).
#pragma once
#include <hip/hip_runtime.h>
#include "cuda_on_hip/cuda_runtime.h"
// the compiler macros the device pass has (shflx_cuda.h), as nvcc defines them in both passes: a
// project's `#ifdef __CUDACC__` takes the same branch in the host and the device half
#define __CUDACC__ 1
#define __NVCC__ 1
// nvcc's declaration annotations (CUDA toolkit crt/host_defines.h) that HIP's headers lack, with their
// host meaning on Linux: nothing, or an alignment (ccminer declares `extern __device__
// __device_builtin__ void __syncthreads(void);`)
#ifndef __device_builtin__
#define __device_builtin__
#endif
#ifndef __cudart_builtin__
#define __cudart_builtin__
#endif
#ifndef __device_builtin_texture_type__
#define __device_builtin_texture_type__
#endif
#ifndef __device_builtin_surface_type__
#define __device_builtin_surface_type__
#endif
#ifndef __builtin_align__
#define __builtin_align__(a) __attribute__((aligned(a)))
#endif
#ifndef __grid_constant__
#define __grid_constant__
#endif
#ifndef CUDARTAPI
#define CUDARTAPI
#endif
#ifndef CUDART_CB
#define CUDART_CB
#endif
#if !defined(HIP_VERSION) || HIP_VERSION < 60200000
template <class T> __device__ T __shfl_sync(unsigned mask, T var, int src, int width = 32);
template <class T> __device__ T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32);
__device__ unsigned __activemask();
__device__ unsigned __ballot_sync(unsigned mask, int predicate);
__device__ int __all_sync(unsigned mask, int predicate);
__device__ int __any_sync(unsigned mask, int predicate);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
template <class T> __device__ T __reduce_add_sync(unsigned mask, T value);
template <class T> __device__ T __reduce_min_sync(unsigned mask, T value);
template <class T> __device__ T __reduce_max_sync(unsigned mask, T value);
template <class T> __device__ T __reduce_and_sync(unsigned mask, T value);
template <class T> __device__ T __reduce_or_sync(unsigned mask, T value);
template <class T> __device__ T __reduce_xor_sync(unsigned mask, T value);
#if !defined(__trap)            // CUDA's trap instruction (HIP 5.2's headers lack it; its kernels call __builtin_trap)
__device__ void __trap();
#endif
#endif
// The program's own code takes its CUDA branches in this half as in the device half, which
// shflx's CUDA front end compiles without HIP's platform macros: a project with a HIP port in the
// same files (`#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)`, bitsandbytes) would
// otherwise build its HIP host code around CUDA kernels. HIP's headers that cuda_on_hip/ includes
// later define them again around their #include (shflx_hip_platform_begin.h / _end.h).
#pragma push_macro("__HIPCC__")
#pragma push_macro("__HIP_PLATFORM_AMD__")
#pragma push_macro("__HIP_PLATFORM_HCC__")
#undef __HIPCC__
#undef __HIP_PLATFORM_AMD__
#undef __HIP_PLATFORM_HCC__
