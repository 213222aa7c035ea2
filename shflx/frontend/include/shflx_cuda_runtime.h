// shflx: NVIDIA's own cuda_runtime.h, read beneath the CUDA layer as nvcc's implicit include reads
// it: the runtime's types and enums (builtin_types.h: driver_types.h, vector_types.h,
// surface_types.h, texture_types.h, ...), the host API (cuda_runtime_api.h) and its C++ templates
// (cuda_runtime.h: cudaMalloc(T **), cudaFuncGetAttributes(attr, kernel), cudaLaunchKernel(kernel,
// ...)), vector_functions.h's make_<type>N, and crt/host_defines.h's annotation macros. The headers
// come from NVIDIA's wheels (crt/ from the nvcc wheel), shown through the overlay of
// frontend/cuda_sdk.py (AMD_READS_AS_IS); this wrapper sets them up as clang's
// __clang_cuda_runtime_wrapper.h (llvm/llvm-project, clang/lib/Headers/) does for NVPTX. What they
// leave to the compiler (threadIdx, the device functions, math and atomics) stays the layer's:
// their headers are marked as read.
#pragma once
#if !__has_include(<crt/host_defines.h>) || !__has_include(<cuda_runtime.h>)
#error "shflx: NVIDIA's CUDA headers are not installed (nvidia-cuda-runtime-cu12 and nvidia-cuda-nvcc-cu12, dependencies of shflx): reinstall shflx (pip install . in the shflx checkout)"
#endif
// NVIDIA's headers warn when one of crt/ is included from elsewhere; they are included from here
#pragma push_macro("__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__")
#define __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__
// The device-function headers that cuda_runtime.h includes under __CUDACC__ (device_launch_parameters.h:
// threadIdx ...; crt/device_functions.h, crt/common_functions.h and crt/math_functions.h: the
// intrinsics, math and atomics): the layer provides what they declare, so their guards are set.
#define __DEVICE_LAUNCH_PARAMETERS_H__
#define __DEVICE_FUNCTIONS_H__
#define __MATH_FUNCTIONS_H__
#define __COMMON_FUNCTIONS_H__
#define __DEVICE_FUNCTIONS_DECLS_H__
// crt/host_defines.h refuses libc++ on x86 (nvcc's host compiler is GCC's); where the host has no
// libstdc++ the AMD pass reads the ziglang wheel's libc++, which declares the same host API.
#define _ALLOW_UNSUPPORTED_LIBCPP
#include <crt/host_defines.h>
// crt/host_config.h checks the host compiler's version for nvcc (clang < 20) under __CUDACC__ only;
// shflx is not nvcc's host compiler, so it is read without __CUDACC__ (as clang's wrapper reads it).
#pragma push_macro("__CUDACC__")
#undef __CUDACC__
#include <crt/host_config.h>
#pragma pop_macro("__CUDACC__")
// crt/math_functions.h declares the integer abs for the device before cuda_runtime.h brings
// <stdlib.h> (cuda_device_runtime_api.h includes it), so that <cstdlib>'s `using ::abs` puts them
// in std too (std::abs(int) in device code); the layer defines them (shflx_intrinsics.h).
__device__ int abs(int);
__device__ long labs(long);
__device__ long long llabs(long long);
__device__ long abs(long);
__device__ long long abs(long long);
__device__ float abs(float);
__device__ double abs(double);
#include <cuda_runtime.h>
#pragma pop_macro("__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__")

// crt/host_defines.h's annotations where the layer's differ (they describe NVIDIA's compiler):
// __noinline__ stays clang's keyword, so that libstdc++'s `__attribute__((__noinline__))` parses
// (clang 15 and later, https://reviews.llvm.org/D124866); launch bounds, register limits,
// grid_constant and nv_pure are NVIDIA's code generation hints, which change nothing computed (an
// AMDGPU kernel argument is read-only memory already).
#undef __noinline__
#undef __launch_bounds__
#define __launch_bounds__(...)
#undef __maxnreg__
#define __maxnreg__(n)
#undef __local_maxnreg__
#define __local_maxnreg__(n)
#undef __grid_constant__
#define __grid_constant__
#undef __nv_pure__
#define __nv_pure__
#undef __inline_hint__
#define __inline_hint__
