// shflx: CUDA's half precision type as cuda_fp16.h declares it: `__half` and `__half2` are
// classes (so `__half *` mangles as nvcc's `P6__half`), `half`/`half2` their typedefs, with the
// raw structs, conversions, arithmetic, comparisons and operators. Values are IEEE binary16 held
// as CUDA holds them (unsigned short bits); arithmetic rounds once to nearest even (see
// shflx_fp16_common.h). Included by the shflx prelude, as before, so `__half` needs no include.
#pragma once
#include "vector_types.h"
#include "vector_functions.h"

struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };

__host__ __device__ __forceinline__ unsigned short __shflx_h_from_f(float f) {
  return f != f ? (unsigned short)0x7fffu : __builtin_bit_cast(unsigned short, (_Float16)f);
}
__host__ __device__ __forceinline__ float __shflx_h_to_f(unsigned short h) {
  return (float)__builtin_bit_cast(_Float16, h);
}

struct __align__(2) __half {
 protected:
  unsigned short __x;

 public:
  __half() = default;
  __host__ __device__ constexpr __half(const __half_raw &r) : __x(r.x) {}
  __host__ __device__ __half &operator=(const __half_raw &r) { __x = r.x; return *this; }
  __host__ __device__ constexpr operator __half_raw() const { return __half_raw{__x}; }
  __host__ __device__ __half(float f) : __x(__shflx_h_from_f(f)) {}
  __host__ __device__ __half(double f);
  __host__ __device__ __half(short v) : __x(__shflx_h_from_f((float)v)) {}
  __host__ __device__ __half(unsigned short v) : __x(__shflx_h_from_f((float)v)) {}
  __host__ __device__ __half(int v);
  __host__ __device__ __half(unsigned int v);
  __host__ __device__ __half(long v) : __half((long long)v) {}
  __host__ __device__ __half(unsigned long v) : __half((unsigned long long)v) {}
  __host__ __device__ __half(long long v);
  __host__ __device__ __half(unsigned long long v);
  __host__ __device__ __half &operator=(float f) { __x = __shflx_h_from_f(f); return *this; }
  __host__ __device__ __half &operator=(double f) { return *this = __half(f); }
  // assignments from integers round as the converting constructors (cuda_fp16.hpp / cuda_bf16.hpp)
  __host__ __device__ __half &operator=(short v) { return *this = __half(v); }
  __host__ __device__ __half &operator=(unsigned short v) { return *this = __half(v); }
  __host__ __device__ __half &operator=(int v) { return *this = __half(v); }
  __host__ __device__ __half &operator=(unsigned int v) { return *this = __half(v); }
  __host__ __device__ __half &operator=(long long v) { return *this = __half(v); }
  __host__ __device__ __half &operator=(unsigned long long v) { return *this = __half(v); }
  __host__ __device__ operator float() const { return __shflx_h_to_f(__x); }
  __host__ __device__ operator bool() const { return (__x & 0x7fffu) != 0; }   // -0 is false too
  __host__ __device__ operator signed char() const { return (signed char)(short)*this; }
  __host__ __device__ operator unsigned char() const { return (unsigned char)(unsigned short)*this; }
  __host__ __device__ operator char() const { return (char)(short)*this; }
  __host__ __device__ operator long() const { return (long)(long long)*this; }
  __host__ __device__ operator unsigned long() const { return (unsigned long)(unsigned long long)*this; }
  __host__ __device__ operator short() const;
  __host__ __device__ operator unsigned short() const;
  __host__ __device__ operator int() const;
  __host__ __device__ operator unsigned int() const;
  __host__ __device__ operator long long() const;
  __host__ __device__ operator unsigned long long() const;
};
typedef __half half;

struct __align__(4) __half2 {
  __half x, y;
  __half2() = default;
  __host__ __device__ constexpr __half2(const __half &a, const __half &b) : x(a), y(b) {}
  __host__ __device__ __half2(const __half2_raw &r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
  __host__ __device__ __half2 &operator=(const __half2_raw &r) { return *this = __half2(r); }
  __host__ __device__ operator __half2_raw() const {
    return __half2_raw{__half_raw(x).x, __half_raw(y).x}; }
};
typedef __half2 half2;

__host__ __device__ __forceinline__ unsigned short __shflx_raw(__half h) { return __half_raw(h).x; }
__host__ __device__ __forceinline__ __half __shflx_bits(unsigned short b, __half *) { return __half_raw{b}; }

// __hadd/__hsub/__hmul as native half arithmetic, which clang marks contractable (CUDA's default,
// -fmad=true): a product feeding a sum becomes one fma (v_fma_f16), as nvcc turns cuda_fp16.hpp's
// mul.f16x2 and add.f16x2 (no .rn: PTX ISA 8.x, "Half Precision Floating-Point Instructions: mul",
// "Rounding modifiers": without one the instruction may be optimized into fma) into fma.rn.f16x2.
// Each operation alone is still the correctly rounded IEEE binary16 result.
__host__ __device__ __forceinline__ _Float16 __shflx_h16(__half h) { return __builtin_bit_cast(_Float16, __shflx_raw(h)); }
__host__ __device__ __forceinline__ __half __shflx_from_h16(_Float16 v) {
  return __shflx_bits(__builtin_bit_cast(unsigned short, v), (__half *)0);
}
#define __SHFLX_HALF_ARITH(T, a, b, OP) __shflx_from_h16(__shflx_h16(a) OP __shflx_h16(b))

#include "../shflx_fp16_common.h"
__SHFLX_FP16_OPS(__half, __half2, __shflx_h_to_f, __shflx_h_from_f, __SHFLX_HALF_ARITH)

// ------------------------------------------------------------------------ conversions
__host__ __device__ __forceinline__ __half __float2half(float f) { return __half(f); }
__host__ __device__ __forceinline__ __half __float2half_rn(float f) { return __half(f); }
__host__ __device__ __forceinline__ __half __float2half_rz(float f) { return __shflx_from_float_dir(f, 0, (__half *)0); }
__host__ __device__ __forceinline__ __half __float2half_ru(float f) { return __shflx_from_float_dir(f, 1, (__half *)0); }
__host__ __device__ __forceinline__ __half __float2half_rd(float f) { return __shflx_from_float_dir(f, -1, (__half *)0); }
__host__ __device__ __forceinline__ float __half2float(__half h) { return __shflx_h_to_f(__shflx_raw(h)); }
__host__ __device__ __forceinline__ __half __double2half(double d) { return __shflx_from_double(d, (__half *)0); }
__host__ __device__ inline __half::__half(double f) : __x(__half_raw(__double2half(f)).x) {}
// integer -> half: through float, exact for |v| < 2^24 (every int that half can tell apart rounds
// the same way); wider values round to float first, which can differ only past half's range.
__host__ __device__ __forceinline__ __half __int2half_rn(int v) { return __half((float)v); }
__host__ __device__ __forceinline__ __half __uint2half_rn(unsigned v) { return __half((float)v); }
__host__ __device__ __forceinline__ __half __short2half_rn(short v) { return __half((float)v); }
__host__ __device__ __forceinline__ __half __ushort2half_rn(unsigned short v) { return __half((float)v); }
__host__ __device__ __forceinline__ __half __ll2half_rn(long long v) { return __half((float)v); }
__host__ __device__ __forceinline__ __half __ull2half_rn(unsigned long long v) { return __half((float)v); }
__host__ __device__ inline __half::__half(int v) : __x(__shflx_h_from_f((float)v)) {}
__host__ __device__ inline __half::__half(unsigned int v) : __x(__shflx_h_from_f((float)v)) {}
__host__ __device__ inline __half::__half(long long v) : __x(__shflx_h_from_f((float)v)) {}
__host__ __device__ inline __half::__half(unsigned long long v) : __x(__shflx_h_from_f((float)v)) {}
__SHFLX_FP16_TO_INT(__half, half)
__SHFLX_FP16_MATH(__half, __half2)
__host__ __device__ __forceinline__ short __half_as_short(__half h) { return (short)__shflx_raw(h); }
__host__ __device__ __forceinline__ unsigned short __half_as_ushort(__half h) { return __shflx_raw(h); }
__host__ __device__ __forceinline__ __half __short_as_half(short v) { return __half_raw{(unsigned short)v}; }
__host__ __device__ __forceinline__ __half __ushort_as_half(unsigned short v) { return __half_raw{v}; }

__host__ __device__ __forceinline__ __half2 make_half2(__half x, __half y) { return __half2(x, y); }
__host__ __device__ __forceinline__ __half2 __halves2half2(__half x, __half y) { return __half2(x, y); }
__host__ __device__ __forceinline__ __half2 __half2half2(__half h) { return __half2(h, h); }
__host__ __device__ __forceinline__ __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
__host__ __device__ __forceinline__ __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
__host__ __device__ __forceinline__ __half2 __float22half2_rn(float2 f) { return __half2(__half(f.x), __half(f.y)); }
__host__ __device__ __forceinline__ float2 __half22float2(__half2 h) { return __shflx_pair2float2(h); }
__host__ __device__ __forceinline__ __half __low2half(__half2 h) { return h.x; }
__host__ __device__ __forceinline__ __half __high2half(__half2 h) { return h.y; }
__host__ __device__ __forceinline__ __half2 __low2half2(__half2 h) { return __half2(h.x, h.x); }
__host__ __device__ __forceinline__ __half2 __high2half2(__half2 h) { return __half2(h.y, h.y); }
__host__ __device__ __forceinline__ __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__host__ __device__ __forceinline__ __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
__device__ __forceinline__ __half __ldg(const __half *p) { return *p; }
__device__ __forceinline__ __half2 __ldg(const __half2 *p) { return *p; }
