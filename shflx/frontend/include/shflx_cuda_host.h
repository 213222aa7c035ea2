// shflx: what the host side of a .cu sees beyond NVIDIA's cuda_runtime.h (read by
// shflx_cuda_runtime.h, whose runtime API is NVIDIA's): the C library nvcc's device-function headers
// bring, placement new for the device, clang's kernel-launch ABI, and the texture and surface reads,
// named as unsupported. shflx compiles device code: host functions are parsed, never emitted.
#pragma once
// nvcc's cuda_runtime.h brings the C library into every .cu (crt/common_functions.h includes
// string.h, time.h; math_functions.h math.h, stdlib.h): real files use EXIT_FAILURE, exit, memcpy,
// strlen without an include. Only where the host's C headers are usable (they need the
// compiler's stddef.h).
// math_functions.h also brings <math.h>, <cmath> and <cstdlib> (C++): host functions call expf,
// fabs, isfinite, abs as CUDA's __host__ __device__ math functions, and std::abs, std::exp reach
// the device overloads the layer declared above (the C++ headers' `using ::abs` takes in every
// declaration of the name made before them).
#if __has_include(<stddef.h>) && __has_include(<stdlib.h>)
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#if __has_include(<cmath>)
#include <cmath>
#include <cstdlib>
#endif
#endif
// crt/common_functions.h also brings <new>: device code constructs objects in place (CUB's
// block_load.cuh does), for which CUDA declares placement new for the device too.
#if __has_include(<new>)
#include <new>
#endif
__device__ inline void *operator new(__SIZE_TYPE__, void *p) noexcept { return p; }
__device__ inline void *operator new[](__SIZE_TYPE__, void *p) noexcept { return p; }
__device__ inline void operator delete(void *, void *) noexcept {}
__device__ inline void operator delete[](void *, void *) noexcept {}
// `kernel<<<grid, block, shmem, stream>>>(...)` calls one of these (clang's launch ABI: HIP mode for
// AMD targets, CUDA mode for NVIDIA ones)
extern "C" __host__ int hipConfigureCall(dim3 gridDim, dim3 blockDim, __SIZE_TYPE__ sharedMem = 0,
                                          cudaStream_t stream = 0);
extern "C" __host__ unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, __SIZE_TYPE__ sharedMem = 0,
                                                         cudaStream_t stream = 0);
extern "C" __host__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, __SIZE_TYPE__ sharedMem = 0,
                                                  cudaStream_t stream = 0);

// Every texture and surface function of texture_indirect_functions.h / surface_indirect_functions.h
// (the value-returning and the pointer forms, any coordinates): a call in code that is compiled is
// named at its line (each calls its own undefined marker, which frontend.clang.device_gap names);
// code no kernel runs, such as a library header's texture helpers, compiles, as with nvcc.
#define __SHFLX_TEX(NAME)                                                                          \
  extern "C" __device__ void __shflx_texture_##NAME();                                             \
  template <class T, class... A> __device__ T NAME(cudaTextureObject_t, A...) {                    \
    __shflx_texture_##NAME();                                                                      \
    return T();                                                                                    \
  }                                                                                                \
  template <class T, class... A> __device__ void NAME(T *, cudaTextureObject_t, A...) {            \
    __shflx_texture_##NAME();                                                                      \
  }
__SHFLX_TEX(tex1Dfetch) __SHFLX_TEX(tex1D) __SHFLX_TEX(tex2D) __SHFLX_TEX(tex3D) __SHFLX_TEX(tex1DLayered)
__SHFLX_TEX(tex2DLayered) __SHFLX_TEX(texCubemap) __SHFLX_TEX(texCubemapLayered) __SHFLX_TEX(tex2Dgather)
__SHFLX_TEX(tex1DLod) __SHFLX_TEX(tex2DLod) __SHFLX_TEX(tex3DLod) __SHFLX_TEX(tex1DLayeredLod)
__SHFLX_TEX(tex2DLayeredLod) __SHFLX_TEX(texCubemapLod) __SHFLX_TEX(texCubemapLayeredLod) __SHFLX_TEX(tex1DGrad)
__SHFLX_TEX(tex2DGrad) __SHFLX_TEX(tex3DGrad) __SHFLX_TEX(tex1DLayeredGrad) __SHFLX_TEX(tex2DLayeredGrad)
__SHFLX_TEX(texCubemapGrad) __SHFLX_TEX(texCubemapLayeredGrad)
#undef __SHFLX_TEX
#define __SHFLX_SURF(NAME)                                                                         \
  extern "C" __device__ void __shflx_surface_##NAME##write();                                      \
  extern "C" __device__ void __shflx_surface_##NAME##read();                                       \
  template <class T, class... A> __device__ void NAME##write(T, cudaSurfaceObject_t, A...) {       \
    __shflx_surface_##NAME##write();                                                               \
  }                                                                                                \
  template <class T, class... A> __device__ T NAME##read(cudaSurfaceObject_t, A...) {              \
    __shflx_surface_##NAME##read();                                                                \
    return T();                                                                                    \
  }                                                                                                \
  template <class T, class... A> __device__ void NAME##read(T *, cudaSurfaceObject_t, A...) {      \
    __shflx_surface_##NAME##read();                                                                \
  }
__SHFLX_SURF(surf1D) __SHFLX_SURF(surf2D) __SHFLX_SURF(surf3D) __SHFLX_SURF(surf1DLayered) __SHFLX_SURF(surf2DLayered)
__SHFLX_SURF(surfCubemap) __SHFLX_SURF(surfCubemapLayered)
#undef __SHFLX_SURF
