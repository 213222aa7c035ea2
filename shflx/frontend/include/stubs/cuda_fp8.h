// shflx: cuda_fp8.h (__nv_fp8_e4m3, __nv_fp8_e5m2, their x2/x4 forms and __nv_cvt_* conversions),
// NVIDIA's own header from the CUDA runtime wheel (shflx[cuda]); without the wheel its #include is
// named. Below sm_89 NVIDIA's cuda_fp8.hpp converts in plain C++ (__nv_cvt_double_to_fp8), which
// is the code the layer's __CUDA_ARCH__ of 800 selects; its fp16/bf16 use is NVIDIA's cuda_fp16.h
// and cuda_bf16.h (read as they are), and device_types.h's one declaration it needs, cudaRoundMode,
// is here (that header's crt/host_defines.h is NVIDIA's compiler's, not the layer's).
#pragma once
#if defined(__SHFLX_REAL_CUDA_FP8_H)
#include "cuda_fp16.h"
#include "cuda_bf16.h"
#if !defined(__DEVICE_TYPES_H__)
#define __DEVICE_TYPES_H__
enum cudaRoundMode { cudaRoundNearest, cudaRoundZero, cudaRoundPosInf, cudaRoundMinInf };   // device_types.h
#endif
#include __SHFLX_REAL_CUDA_FP8_H
#else
#error "shflx does not support 'cuda_fp8.h' on AMD targets (NVIDIA's cuda_fp8.h is read from the CUDA runtime wheel, which is not installed: install shflx's cuda extra: pip install '.[cuda]' in the shflx checkout)"
#endif
