// shflx: sm_32_atomic_functions.h, which real code includes by name. Everything it declares
// (64-bit atomicMin/Max/And/Or/Xor (sm_32_atomic_functions.h)) is the CUDA layer's, force-included into every .cu (shflx_cuda.h),
// as nvcc's cuda_runtime.h includes it into every .cu.
#pragma once
