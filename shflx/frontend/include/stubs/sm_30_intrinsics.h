// shflx: sm_30_intrinsics.h, which real code includes by name (cudahandbook's reductionWarpShuffle.cuh
// includes sm_30_intrinsics.h). Everything NVIDIA's declares is the CUDA layer's, force-included into
// every .cu (shflx_cuda.h), or named as unsupported where device code calls it, as nvcc's
// cuda_runtime.h includes it into every .cu (tests/test_cuda_device_api.py checks each function).
#pragma once
