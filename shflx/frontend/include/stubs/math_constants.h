// shflx: math_constants.h (CUDART_PI_F, CUDART_INF, CUDART_NAN_F, ...: macros only), NVIDIA's own
// header from the CUDA runtime wheel (a dependency of shflx); without the wheel its #include is named.
#pragma once
#if defined(__SHFLX_REAL_MATH_CONSTANTS_H)
#include __SHFLX_REAL_MATH_CONSTANTS_H
#else
#error "shflx does not support 'math_constants.h' on AMD targets (NVIDIA's math_constants.h is read from the CUDA runtime wheel, which is not installed: reinstall shflx, pip install . in the shflx checkout, which depends on nvidia-cuda-runtime-cu12)"
#endif
