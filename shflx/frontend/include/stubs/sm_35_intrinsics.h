// shflx: sm_35_intrinsics.h, which real code includes by name (cudahandbook's SMs/testFunnelShift.cu).
// NVIDIA's own declares nothing since CUDA 9 (its sm_32_intrinsics.h took __ldg and the funnel shifts,
// which are the CUDA layer's here: stubs/sm_32_intrinsics.h); nvidia-cuda-runtime-cu12's include/sm_35_intrinsics.h
// is its include guard only.
#pragma once
