// shflx: the CUDA runtime API on the HIP runtime, for the host half of a .cu file built for AMD
// (`shflx compile -c`, `shflx launch`). The device half is shflx's own CUDA layer; this pass only
// compiles host code (and parses the kernels for their launch stubs) with the user's HIP compiler.
// Every CUDA runtime name is renamed to HIPIFY's HIP equivalent (shflx_cuda_runtime_names.h,
// generated from HIPIFY's tables) or, where HIP has none, declared so that a use is one error:
// "shflx does not support 'cudaX' on AMD targets". Enumerator values are HIP's (cudaSuccess is 0;
// other error numbers differ from CUDA's); warpSize is CUDA's 32 (shflx_cuda_runtime_own.h).
#pragma once
#pragma clang system_header
#include <hip/hip_runtime.h>
// A use of a CUDA name HIP lacks (of the driver API too: cuda.h). A function: any arguments, a
// result that converts to anything, so the use is the only error. A name of the data-types section
// may be a type, an enumerator or a macro (HIPIFY's table does not say which): both a struct and an
// enumerator of that name.
struct __shflx_cuda_unsupported_result { template <class T> operator T() const; };
#define __SHFLX_NO_SUPPORT(name, why) __attribute__((unavailable("shflx does not support '" #name "' on AMD targets" why)))
#define __SHFLX_NO_FUNCTION(name, why) \
  template <class... A> __SHFLX_NO_SUPPORT(name, why) __shflx_cuda_unsupported_result name(A &&...);
#define __SHFLX_NO_NAME(name, why) \
  struct __SHFLX_NO_SUPPORT(name, why) name; enum { name __SHFLX_NO_SUPPORT(name, why) };
#include "shflx_cuda_runtime_own.h"
#include "shflx_cuda_runtime_names.h"
