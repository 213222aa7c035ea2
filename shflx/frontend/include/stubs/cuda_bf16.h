// shflx: CUDA's bfloat16 type as cuda_bf16.h declares it: `__nv_bfloat16` and `__nv_bfloat162`
// are classes (so `__nv_bfloat16 *` mangles as nvcc's `P13__nv_bfloat16`), `nv_bfloat16` /
// `nv_bfloat162` their typedefs, with the raw structs, conversions, arithmetic, comparisons and
// operators. Values are bfloat16 bits (the high half of a float); arithmetic rounds once to
// nearest even (see shflx_fp16_common.h). Included by the shflx prelude.
#pragma once
#include "vector_types.h"
#include "vector_functions.h"
#include "cuda_fp16.h"

struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat162_raw { unsigned short x, y; };

// float -> bfloat16, nearest even on the bits (cvt.rn.bf16.f32; NaN -> 0x7fff)
__host__ __device__ __forceinline__ unsigned short __shflx_b_from_f(float f) {
  unsigned u = __builtin_bit_cast(unsigned, f);
  return f != f ? (unsigned short)0x7fffu : (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
__host__ __device__ __forceinline__ float __shflx_b_to_f(unsigned short h) {
  return __builtin_bit_cast(float, (unsigned)h << 16);
}

struct __align__(2) __nv_bfloat16 {
 protected:
  unsigned short __x;

 public:
  __nv_bfloat16() = default;
  __host__ __device__ constexpr __nv_bfloat16(const __nv_bfloat16_raw &r) : __x(r.x) {}
  __host__ __device__ __nv_bfloat16 &operator=(const __nv_bfloat16_raw &r) { __x = r.x; return *this; }
  __host__ __device__ constexpr operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
  __host__ __device__ __nv_bfloat16(float f) : __x(__shflx_b_from_f(f)) {}
  __host__ __device__ __nv_bfloat16(double f);
  __host__ __device__ __nv_bfloat16(short v) : __x(__shflx_b_from_f((float)v)) {}   // exact in float
  __host__ __device__ __nv_bfloat16(unsigned short v) : __x(__shflx_b_from_f((float)v)) {}
  __host__ __device__ __nv_bfloat16(int v);
  __host__ __device__ __nv_bfloat16(unsigned int v);
  __host__ __device__ __nv_bfloat16(long v) : __nv_bfloat16((long long)v) {}
  __host__ __device__ __nv_bfloat16(unsigned long v) : __nv_bfloat16((unsigned long long)v) {}
  __host__ __device__ __nv_bfloat16(long long v);
  __host__ __device__ __nv_bfloat16(unsigned long long v);
  __host__ __device__ __nv_bfloat16 &operator=(float f) { __x = __shflx_b_from_f(f); return *this; }
  __host__ __device__ __nv_bfloat16 &operator=(double f) { return *this = __nv_bfloat16(f); }
  // assignments from integers round as the converting constructors (cuda_fp16.hpp / cuda_bf16.hpp)
  __host__ __device__ __nv_bfloat16 &operator=(short v) { return *this = __nv_bfloat16(v); }
  __host__ __device__ __nv_bfloat16 &operator=(unsigned short v) { return *this = __nv_bfloat16(v); }
  __host__ __device__ __nv_bfloat16 &operator=(int v) { return *this = __nv_bfloat16(v); }
  __host__ __device__ __nv_bfloat16 &operator=(unsigned int v) { return *this = __nv_bfloat16(v); }
  __host__ __device__ __nv_bfloat16 &operator=(long long v) { return *this = __nv_bfloat16(v); }
  __host__ __device__ __nv_bfloat16 &operator=(unsigned long long v) { return *this = __nv_bfloat16(v); }
  __host__ __device__ operator float() const { return __shflx_b_to_f(__x); }
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
typedef __nv_bfloat16 nv_bfloat16;

struct __align__(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __host__ __device__ constexpr __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b) : x(a), y(b) {}
  __host__ __device__ __nv_bfloat162(const __nv_bfloat162_raw &r) : x(__nv_bfloat16_raw{r.x}), y(__nv_bfloat16_raw{r.y}) {}
  __host__ __device__ __nv_bfloat162 &operator=(const __nv_bfloat162_raw &r) { return *this = __nv_bfloat162(r); }
  __host__ __device__ operator __nv_bfloat162_raw() const {
    return __nv_bfloat162_raw{__nv_bfloat16_raw(x).x, __nv_bfloat16_raw(y).x}; }
};
typedef __nv_bfloat162 nv_bfloat162;

__host__ __device__ __forceinline__ unsigned short __shflx_raw(__nv_bfloat16 h) { return __nv_bfloat16_raw(h).x; }
__host__ __device__ __forceinline__ __nv_bfloat16 __shflx_bits(unsigned short b, __nv_bfloat16 *) { return __nv_bfloat16_raw{b}; }

#include "../shflx_fp16_common.h"
__SHFLX_FP16_OPS(__nv_bfloat16, __nv_bfloat162, __shflx_b_to_f, __shflx_b_from_f, __SHFLX_FLOAT_ARITH)

// ------------------------------------------------------------------------ conversions
__host__ __device__ __forceinline__ __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
__host__ __device__ __forceinline__ __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
__host__ __device__ __forceinline__ __nv_bfloat16 __float2bfloat16_rz(float f) { return __shflx_from_float_dir(f, 0, (__nv_bfloat16 *)0); }
__host__ __device__ __forceinline__ __nv_bfloat16 __float2bfloat16_ru(float f) { return __shflx_from_float_dir(f, 1, (__nv_bfloat16 *)0); }
__host__ __device__ __forceinline__ __nv_bfloat16 __float2bfloat16_rd(float f) { return __shflx_from_float_dir(f, -1, (__nv_bfloat16 *)0); }
__host__ __device__ __forceinline__ float __bfloat162float(__nv_bfloat16 h) { return __shflx_b_to_f(__shflx_raw(h)); }
__host__ __device__ __forceinline__ __nv_bfloat16 __double2bfloat16(double d) { return __shflx_from_double(d, (__nv_bfloat16 *)0); }
__host__ __device__ inline __nv_bfloat16::__nv_bfloat16(double f) : __x(__nv_bfloat16_raw(__double2bfloat16(f)).x) {}
// integer -> bfloat16: through double (exact below 2^53) and one rounding (__shflx_from_double).
__host__ __device__ __forceinline__ __nv_bfloat16 __int2bfloat16_rn(int v) { return __shflx_from_double((double)v, (__nv_bfloat16 *)0); }
__host__ __device__ __forceinline__ __nv_bfloat16 __uint2bfloat16_rn(unsigned v) { return __shflx_from_double((double)v, (__nv_bfloat16 *)0); }
__host__ __device__ __forceinline__ __nv_bfloat16 __short2bfloat16_rn(short v) { return __shflx_from_double((double)v, (__nv_bfloat16 *)0); }
__host__ __device__ __forceinline__ __nv_bfloat16 __ushort2bfloat16_rn(unsigned short v) { return __shflx_from_double((double)v, (__nv_bfloat16 *)0); }
__host__ __device__ __forceinline__ __nv_bfloat16 __ll2bfloat16_rn(long long v) { return __shflx_from_double((double)v, (__nv_bfloat16 *)0); }
__host__ __device__ __forceinline__ __nv_bfloat16 __ull2bfloat16_rn(unsigned long long v) { return __shflx_from_double((double)v, (__nv_bfloat16 *)0); }
__host__ __device__ inline __nv_bfloat16::__nv_bfloat16(int v) : __x(__nv_bfloat16_raw(__shflx_from_double((double)v, (__nv_bfloat16 *)0)).x) {}
__host__ __device__ inline __nv_bfloat16::__nv_bfloat16(unsigned int v) : __x(__nv_bfloat16_raw(__shflx_from_double((double)v, (__nv_bfloat16 *)0)).x) {}
__host__ __device__ inline __nv_bfloat16::__nv_bfloat16(long long v) : __x(__nv_bfloat16_raw(__shflx_from_double((double)v, (__nv_bfloat16 *)0)).x) {}
__host__ __device__ inline __nv_bfloat16::__nv_bfloat16(unsigned long long v) : __x(__nv_bfloat16_raw(__shflx_from_double((double)v, (__nv_bfloat16 *)0)).x) {}
__SHFLX_FP16_TO_INT(__nv_bfloat16, bfloat16)
__SHFLX_FP16_MATH(__nv_bfloat16, __nv_bfloat162)
__host__ __device__ __forceinline__ short __bfloat16_as_short(__nv_bfloat16 h) { return (short)__shflx_raw(h); }
__host__ __device__ __forceinline__ unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return __shflx_raw(h); }
__host__ __device__ __forceinline__ __nv_bfloat16 __short_as_bfloat16(short v) { return __nv_bfloat16_raw{(unsigned short)v}; }
__host__ __device__ __forceinline__ __nv_bfloat16 __ushort_as_bfloat16(unsigned short v) { return __nv_bfloat16_raw{v}; }

__host__ __device__ __forceinline__ __nv_bfloat162 make_bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { return __nv_bfloat162(x, y); }
__host__ __device__ __forceinline__ __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { return __nv_bfloat162(x, y); }
__host__ __device__ __forceinline__ __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 h) { return __nv_bfloat162(h, h); }
__host__ __device__ __forceinline__ __nv_bfloat162 __float2bfloat162_rn(float f) { return __nv_bfloat162(__nv_bfloat16(f), __nv_bfloat16(f)); }
__host__ __device__ __forceinline__ __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162(__nv_bfloat16(a), __nv_bfloat16(b)); }
__host__ __device__ __forceinline__ __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __nv_bfloat162(__nv_bfloat16(f.x), __nv_bfloat16(f.y)); }
__host__ __device__ __forceinline__ float2 __bfloat1622float2(__nv_bfloat162 h) { return __shflx_pair2float2(h); }
__host__ __device__ __forceinline__ __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
__host__ __device__ __forceinline__ __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
__host__ __device__ __forceinline__ __nv_bfloat162 __low2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162(h.x, h.x); }
__host__ __device__ __forceinline__ __nv_bfloat162 __high2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162(h.y, h.y); }
__host__ __device__ __forceinline__ __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x, b.x); }
__host__ __device__ __forceinline__ __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.y, b.y); }
__device__ __forceinline__ __nv_bfloat16 __ldg(const __nv_bfloat16 *p) { return *p; }
__device__ __forceinline__ __nv_bfloat162 __ldg(const __nv_bfloat162 *p) { return *p; }
