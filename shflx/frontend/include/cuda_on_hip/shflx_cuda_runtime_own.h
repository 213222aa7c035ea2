// shflx's own definitions of the CUDA runtime names whose HIP counterpart does not give CUDA code
// what it expects (tools/cuda_on_hip.py's OWN table maps each name here). Written in HIP's names:
// included by cuda_runtime.h before the CUDA names are defined.
#pragma once
#pragma clang system_header

// warpSize: shflx compiles a .cu with CUDA's 32-lane warps on every AMD target (on wave64 targets
// one wave holds two CUDA warps), and device code sees warpSize == 32; the host reports the same,
// so launch shapes and per-warp buffers computed from it match the kernels. HIP reports the
// hardware wave (64 on GFX9/CDNA).
static inline hipError_t __shflx_cudaGetDeviceProperties(hipDeviceProp_t *prop, int device) {
  hipError_t err = hipGetDeviceProperties(prop, device);
  if (err == hipSuccess) prop->warpSize = 32;
  return err;
}
static inline hipError_t __shflx_cudaDeviceGetAttribute(int *value, hipDeviceAttribute_t attr, int device) {
  hipError_t err = hipDeviceGetAttribute(value, attr, device);
  if (err == hipSuccess && attr == hipDeviceAttributeWarpSize) *value = 32;
  return err;
}

// CUDA's C++ overloads for a kernel's own pointer type (cuda_runtime.h, "C++ API Routines"); the
// HIP functions take `const void *`, which a function pointer does not convert to implicitly.
static inline hipError_t __shflx_cudaFuncGetAttributes(hipFuncAttributes *attr, const void *func) {
  return hipFuncGetAttributes(attr, func);
}
template <class T> static inline hipError_t __shflx_cudaFuncGetAttributes(hipFuncAttributes *attr, T *func) {
  return hipFuncGetAttributes(attr, reinterpret_cast<const void *>(func));
}
static inline hipError_t __shflx_cudaFuncSetAttribute(const void *func, hipFuncAttribute attr, int value) {
  return hipFuncSetAttribute(func, attr, value);
}
template <class T> static inline hipError_t __shflx_cudaFuncSetAttribute(T *func, hipFuncAttribute attr, int value) {
  return hipFuncSetAttribute(reinterpret_cast<const void *>(func), attr, value);
}
static inline hipError_t __shflx_cudaFuncSetCacheConfig(const void *func, hipFuncCache_t config) {
  return hipFuncSetCacheConfig(func, config);
}
template <class T> static inline hipError_t __shflx_cudaFuncSetCacheConfig(T *func, hipFuncCache_t config) {
  return hipFuncSetCacheConfig(reinterpret_cast<const void *>(func), config);
}
static inline hipError_t __shflx_cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                                                  size_t shared = 0, hipStream_t stream = 0) {
  return hipLaunchKernel(func, grid, block, args, shared, stream);
}
template <class T>
static inline hipError_t __shflx_cudaLaunchKernel(T *func, dim3 grid, dim3 block, void **args, size_t shared = 0,
                                                  hipStream_t stream = 0) {
  return hipLaunchKernel(reinterpret_cast<const void *>(func), grid, block, args, shared, stream);
}

// The driver API's cuDeviceGetAttribute (cuda.h): CU_DEVICE_ATTRIBUTE_WARP_SIZE is 32, as above.
static inline hipError_t __shflx_cuDeviceGetAttribute(int *value, hipDeviceAttribute_t attr, hipDevice_t device) {
  return __shflx_cudaDeviceGetAttribute(value, attr, device);
}

// CUDA's C++ overloads for a typed pointer's address (cuda_runtime.h, "C++ API Routines"), and
// cudaEventCreate with flags; HIP 5.2's functions take `void **` (hipMalloc and hipHostMalloc have
// templates of their own).
static inline hipError_t __shflx_cudaHostAlloc(void **ptr, size_t size, unsigned flags) {
  return hipHostAlloc(ptr, size, flags);
}
template <class T> static inline hipError_t __shflx_cudaHostAlloc(T **ptr, size_t size, unsigned flags) {
  return hipHostAlloc(reinterpret_cast<void **>(ptr), size, flags);
}
static inline hipError_t __shflx_cudaHostGetDevicePointer(void **device, void *host, unsigned flags) {
  return hipHostGetDevicePointer(device, host, flags);
}
template <class T>
static inline hipError_t __shflx_cudaHostGetDevicePointer(T **device, void *host, unsigned flags) {
  return hipHostGetDevicePointer(reinterpret_cast<void **>(device), host, flags);
}
static inline hipError_t __shflx_cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height) {
  return hipMallocPitch(ptr, pitch, width, height);
}
template <class T>
static inline hipError_t __shflx_cudaMallocPitch(T **ptr, size_t *pitch, size_t width, size_t height) {
  return hipMallocPitch(reinterpret_cast<void **>(ptr), pitch, width, height);
}
static inline hipError_t __shflx_cudaEventCreate(hipEvent_t *event) { return hipEventCreate(event); }
static inline hipError_t __shflx_cudaEventCreate(hipEvent_t *event, unsigned flags) {
  return hipEventCreateWithFlags(event, flags);
}
