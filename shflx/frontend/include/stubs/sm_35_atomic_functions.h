// shflx: sm_35_atomic_functions.h, which real code includes by name. Everything it declares
// (the atomics of sm_35_atomic_functions.h) is the CUDA layer's, force-included into every .cu (shflx_cuda.h),
// as nvcc's cuda_runtime.h includes it into every .cu.
#pragma once
