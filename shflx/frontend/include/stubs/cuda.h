// shflx: cuda.h, the CUDA driver API (host declarations: CUdevice, cuModuleLoad, ...): NVIDIA's own
// header from the CUDA runtime wheel (shflx[cuda]) where it is installed; the CUDA device API comes
// from the force-included shflx_cuda.h.
#pragma once
#include "../shflx_stdint.h"
#if defined(__SHFLX_REAL_CUDA_H)
#pragma push_macro("CUDA_VERSION")
#undef CUDA_VERSION
#include __SHFLX_REAL_CUDA_H
#pragma pop_macro("CUDA_VERSION")
#endif
