// shflx: cuda_fp6.h, NVIDIA's own header from the CUDA runtime wheel (shflx[cuda]), over the
// layer's cuda_fp8.h (see there); without the wheel its #include is named.
#pragma once
#if defined(__SHFLX_REAL_CUDA_FP6_H)
#include "cuda_fp8.h"
#include __SHFLX_REAL_CUDA_FP6_H
#else
#error "shflx does not support 'cuda_fp6.h' on AMD targets (NVIDIA's cuda_fp6.h is read from the CUDA runtime wheel, which is not installed: install shflx's cuda extra: pip install '.[cuda]' in the shflx checkout)"
#endif
