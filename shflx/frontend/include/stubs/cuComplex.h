// shflx: cuComplex.h, CUDA's header-only complex arithmetic (cuFloatComplex = float2, cuCaddf,
// cuCmulf, cuCdivf, cuCabsf, ...): NVIDIA's own header from the CUDA runtime wheel (shflx[cuda]),
// read beneath the CUDA layer (it needs only vector_types.h and math). Without the wheel it is named
// unsupported: its division and modulus algorithms are NVIDIA's, and shflx does not copy them.
#pragma once
#if defined(__SHFLX_REAL_CUCOMPLEX_H)
#include __SHFLX_REAL_CUCOMPLEX_H
#else
#error "shflx does not support 'cuComplex.h' on AMD targets (NVIDIA's header-only cuComplex.h is read from the CUDA runtime wheel, which is not installed: pip install '.[cuda]' in the shflx checkout)"
#endif
