// shflx: NVIDIA's cuda_fp16.h for the host half of a .cu on HIP: HIP's __half, under CUDA's names.
#pragma once
#pragma clang system_header
#include "cuda_runtime.h"
#include "shflx_hip_platform_begin.h"
#include <hip/hip_fp16.h>
#include "shflx_hip_platform_end.h"
// CUDA's half-precision atomicAdd (sm_60/sm_70 and later; HIP 5.2's headers lack it), declared for
// the host parse of kernels that call it, as shflx_cuda_on_hip.h declares the warp intrinsics.
#if !defined(HIP_VERSION) || HIP_VERSION < 60200000
__device__ __half atomicAdd(__half *address, __half val);
__device__ __half2 atomicAdd(__half2 *address, __half2 val);
#endif
