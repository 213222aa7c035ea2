// shflx: CUDA's integer and conversion intrinsics, mixed-sign min/max, cache-hinted loads and
// stores, and device memcpy/memset, as plain C++ (the same on every target): CUDA Math API,
// "Integer Intrinsics", "Type Casting Intrinsics"; math_functions.hpp for min/max.
#pragma once

// ------------------------------------------------------------------ integer intrinsics
__device__ __forceinline__ unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
__device__ __forceinline__ int __mul24(int a, int b) {           // low 32 bits of the 24-bit signed product
  return (int)((unsigned)((a << 8) >> 8) * (unsigned)((b << 8) >> 8)); }
__device__ __forceinline__ unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
__device__ __forceinline__ int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
__device__ __forceinline__ unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
__device__ __forceinline__ long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
__device__ __forceinline__ int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
__device__ __forceinline__ int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
__device__ __forceinline__ unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
__device__ __forceinline__ unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
__device__ __forceinline__ unsigned __sad(int a, int b, unsigned c) { return c + (unsigned)(a > b ? (long long)a - b : (long long)b - a); }
__device__ __forceinline__ unsigned __usad(unsigned a, unsigned b, unsigned c) { return c + (a > b ? a - b : b - a); }
__device__ __forceinline__ unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {   // PRMT default mode
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}

// ------------------------------------------------------------------ dot products (sm_61)
// CUDA Math API "Integer Intrinsics" __dp4a/__dp2a_lo/__dp2a_hi; PTX ISA "dp4a", "dp2a": four
// byte products (dp2a: two 16-bit x byte products, bytes 0-1 of b for _lo, 2-3 for _hi) added to c,
// signed for int operands, unsigned for unsigned ones, the sum wrapping mod 2^32.
template <bool SIGNED>
__device__ __forceinline__ unsigned __shflx_dp4a(unsigned a, unsigned b, unsigned c) {
  for (int k = 0; k < 32; k += 8) {
    unsigned x = (a >> k) & 0xffu, y = (b >> k) & 0xffu;
    c += SIGNED ? (unsigned)((int)(signed char)x * (int)(signed char)y) : x * y;
  }
  return c;
}
template <bool SIGNED>
__device__ __forceinline__ unsigned __shflx_dp2a(unsigned a, unsigned b, unsigned c, int byte0) {
  for (int k = 0; k < 2; ++k) {
    unsigned x = (a >> (16 * k)) & 0xffffu, y = (b >> (8 * (byte0 + k))) & 0xffu;
    c += SIGNED ? (unsigned)((int)(short)x * (int)(signed char)y) : x * y;
  }
  return c;
}
__device__ __forceinline__ int __dp4a(int a, int b, int c) { return (int)__shflx_dp4a<true>(a, b, c); }
__device__ __forceinline__ unsigned __dp4a(unsigned a, unsigned b, unsigned c) { return __shflx_dp4a<false>(a, b, c); }
__device__ __forceinline__ int __dp4a(char4 a, char4 b, int c) {
  return __dp4a(*reinterpret_cast<const int *>(&a), *reinterpret_cast<const int *>(&b), c); }
__device__ __forceinline__ unsigned __dp4a(uchar4 a, uchar4 b, unsigned c) {
  return __dp4a(*reinterpret_cast<const unsigned *>(&a), *reinterpret_cast<const unsigned *>(&b), c); }
__device__ __forceinline__ int __dp2a_lo(int a, int b, int c) { return (int)__shflx_dp2a<true>(a, b, c, 0); }
__device__ __forceinline__ unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c) { return __shflx_dp2a<false>(a, b, c, 0); }
__device__ __forceinline__ int __dp2a_hi(int a, int b, int c) { return (int)__shflx_dp2a<true>(a, b, c, 2); }
__device__ __forceinline__ unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c) { return __shflx_dp2a<false>(a, b, c, 2); }
__device__ __forceinline__ int __dp2a_lo(short2 a, char4 b, int c) {
  return __dp2a_lo(*reinterpret_cast<const int *>(&a), *reinterpret_cast<const int *>(&b), c); }
__device__ __forceinline__ unsigned __dp2a_lo(ushort2 a, uchar4 b, unsigned c) {
  return __dp2a_lo(*reinterpret_cast<const unsigned *>(&a), *reinterpret_cast<const unsigned *>(&b), c); }
__device__ __forceinline__ int __dp2a_hi(short2 a, char4 b, int c) {
  return __dp2a_hi(*reinterpret_cast<const int *>(&a), *reinterpret_cast<const int *>(&b), c); }
__device__ __forceinline__ unsigned __dp2a_hi(ushort2 a, uchar4 b, unsigned c) {
  return __dp2a_hi(*reinterpret_cast<const unsigned *>(&a), *reinterpret_cast<const unsigned *>(&b), c); }

// ------------------------------------------------------------------ SIMD intrinsics
// CUDA Math API "SIMD Intrinsics": each 16-bit half (…2) or byte (…4) of the words on its own,
// signed (s) or unsigned (u); add/sub wrap within the lane.
template <int BITS, bool SIGNED, class F>
__device__ __forceinline__ unsigned __shflx_simd(unsigned a, unsigned b, F op) {
  unsigned r = 0, lane_mask = (1u << BITS) - 1u;
  for (int k = 0; k < 32; k += BITS) {
    unsigned x = (a >> k) & lane_mask, y = (b >> k) & lane_mask;
    int sx = (int)(x << (32 - BITS)) >> (32 - BITS), sy = (int)(y << (32 - BITS)) >> (32 - BITS);
    r |= ((unsigned)(SIGNED ? op(sx, sy) : op((int)x, (int)y)) & lane_mask) << k;
  }
  return r;
}
#define __SHFLX_SIMD(NAME, BITS, SIGNED, EXPR)                                                    \
  __device__ __forceinline__ unsigned NAME(unsigned a, unsigned b) {                             \
    return __shflx_simd<BITS, SIGNED>(a, b, [](int x, int y) { return EXPR; }); }
__SHFLX_SIMD(__vmaxs2, 16, true, x > y ? x : y) __SHFLX_SIMD(__vmaxu2, 16, false, x > y ? x : y)
__SHFLX_SIMD(__vmins2, 16, true, x < y ? x : y) __SHFLX_SIMD(__vminu2, 16, false, x < y ? x : y)
__SHFLX_SIMD(__vmaxs4, 8, true, x > y ? x : y) __SHFLX_SIMD(__vmaxu4, 8, false, x > y ? x : y)
__SHFLX_SIMD(__vmins4, 8, true, x < y ? x : y) __SHFLX_SIMD(__vminu4, 8, false, x < y ? x : y)
__SHFLX_SIMD(__vadd2, 16, false, x + y) __SHFLX_SIMD(__vsub2, 16, false, x - y)
__SHFLX_SIMD(__vadd4, 8, false, x + y) __SHFLX_SIMD(__vsub4, 8, false, x - y)
__SHFLX_SIMD(__vabsdiffs2, 16, true, x > y ? x - y : y - x) __SHFLX_SIMD(__vabsdiffu2, 16, false, x > y ? x - y : y - x)
__SHFLX_SIMD(__vabsdiffs4, 8, true, x > y ? x - y : y - x) __SHFLX_SIMD(__vabsdiffu4, 8, false, x > y ? x - y : y - x)
// saturating forms: the exact lane result clamped to the lane's signed (ss) or unsigned (us) range
#define __SHFLX_SAT(v, BITS, SIGNED) (SIGNED ? ((v) > (1 << ((BITS) - 1)) - 1 ? (1 << ((BITS) - 1)) - 1      \
    : (v) < -(1 << ((BITS) - 1)) ? -(1 << ((BITS) - 1)) : (v)) : ((v) < 0 ? 0 : (v) > (1 << (BITS)) - 1 ? (1 << (BITS)) - 1 : (v)))
__SHFLX_SIMD(__vaddss2, 16, true, __SHFLX_SAT(x + y, 16, true)) __SHFLX_SIMD(__vsubss2, 16, true, __SHFLX_SAT(x - y, 16, true))
__SHFLX_SIMD(__vaddss4, 8, true, __SHFLX_SAT(x + y, 8, true)) __SHFLX_SIMD(__vsubss4, 8, true, __SHFLX_SAT(x - y, 8, true))
__SHFLX_SIMD(__vaddus2, 16, false, __SHFLX_SAT(x + y, 16, false)) __SHFLX_SIMD(__vsubus2, 16, false, __SHFLX_SAT(x - y, 16, false))
__SHFLX_SIMD(__vaddus4, 8, false, __SHFLX_SAT(x + y, 8, false)) __SHFLX_SIMD(__vsubus4, 8, false, __SHFLX_SAT(x - y, 8, false))
// averages of unsigned lanes: rounded up (__vavgu, PTX vavrg) or down (__vhaddu)
__SHFLX_SIMD(__vavgu2, 16, false, (x + y + 1) >> 1) __SHFLX_SIMD(__vavgu4, 8, false, (x + y + 1) >> 1)
__SHFLX_SIMD(__vhaddu2, 16, false, (x + y) >> 1) __SHFLX_SIMD(__vhaddu4, 8, false, (x + y) >> 1)
// comparisons: all ones in a lane where it holds, else zero
#define __SHFLX_SIMD_CMP(OP, S, U, EXPR)                                                           \
  __SHFLX_SIMD(__vcmp##OP##S##2, 16, true, (EXPR) ? -1 : 0) __SHFLX_SIMD(__vcmp##OP##S##4, 8, true, (EXPR) ? -1 : 0) \
  __SHFLX_SIMD(__vcmp##OP##U##2, 16, false, (EXPR) ? -1 : 0) __SHFLX_SIMD(__vcmp##OP##U##4, 8, false, (EXPR) ? -1 : 0)
__SHFLX_SIMD_CMP(ge, s, u, x >= y) __SHFLX_SIMD_CMP(gt, s, u, x > y)
__SHFLX_SIMD_CMP(le, s, u, x <= y) __SHFLX_SIMD_CMP(lt, s, u, x < y)
__SHFLX_SIMD(__vcmpeq2, 16, false, x == y ? -1 : 0) __SHFLX_SIMD(__vcmpeq4, 8, false, x == y ? -1 : 0)
__SHFLX_SIMD(__vcmpne2, 16, false, x != y ? -1 : 0) __SHFLX_SIMD(__vcmpne4, 8, false, x != y ? -1 : 0)
// __vset*: 1 in a lane where the comparison holds, else 0
#define __SHFLX_SIMD_SET(OP, EXPR)                                                                    \
  __SHFLX_SIMD(__vset##OP##s2, 16, true, (EXPR) ? 1 : 0) __SHFLX_SIMD(__vset##OP##s4, 8, true, (EXPR) ? 1 : 0) \
  __SHFLX_SIMD(__vset##OP##u2, 16, false, (EXPR) ? 1 : 0) __SHFLX_SIMD(__vset##OP##u4, 8, false, (EXPR) ? 1 : 0)
__SHFLX_SIMD_SET(ge, x >= y) __SHFLX_SIMD_SET(gt, x > y) __SHFLX_SIMD_SET(le, x <= y) __SHFLX_SIMD_SET(lt, x < y)
#undef __SHFLX_SIMD_SET
__SHFLX_SIMD(__vseteq2, 16, false, x == y ? 1 : 0) __SHFLX_SIMD(__vseteq4, 8, false, x == y ? 1 : 0)
__SHFLX_SIMD(__vsetne2, 16, false, x != y ? 1 : 0) __SHFLX_SIMD(__vsetne4, 8, false, x != y ? 1 : 0)
// averages of signed lanes, rounded half away from zero (PTX vavrg)
__SHFLX_SIMD(__vavgs2, 16, true, (x + y) < 0 ? (x + y) >> 1 : (x + y + 1) >> 1)
__SHFLX_SIMD(__vavgs4, 8, true, (x + y) < 0 ? (x + y) >> 1 : (x + y + 1) >> 1)
// sums of the lanes' absolute differences
template <int BITS, bool SIGNED>
__device__ __forceinline__ unsigned __shflx_simd_sad(unsigned a, unsigned b) {
  unsigned d = __shflx_simd<BITS, SIGNED>(a, b, [](int x, int y) { return x > y ? x - y : y - x; }), r = 0;
  for (int k = 0; k < 32; k += BITS) r += (d >> k) & ((1u << BITS) - 1u);
  return r;
}
__device__ __forceinline__ unsigned __vsads2(unsigned a, unsigned b) { return __shflx_simd_sad<16, true>(a, b); }
__device__ __forceinline__ unsigned __vsads4(unsigned a, unsigned b) { return __shflx_simd_sad<8, true>(a, b); }
__device__ __forceinline__ unsigned __vsadu2(unsigned a, unsigned b) { return __shflx_simd_sad<16, false>(a, b); }
__device__ __forceinline__ unsigned __vsadu4(unsigned a, unsigned b) { return __shflx_simd_sad<8, false>(a, b); }
// one-operand forms on signed lanes: negation and absolute value, wrapping or saturated (ss)
#define __SHFLX_SIMD1(NAME, BITS, EXPR) \
  __device__ __forceinline__ unsigned NAME(unsigned a) { return __shflx_simd<BITS, true>(a, 0u, [](int x, int) { return EXPR; }); }
__SHFLX_SIMD1(__vneg2, 16, -x) __SHFLX_SIMD1(__vneg4, 8, -x)
__SHFLX_SIMD1(__vnegss2, 16, __SHFLX_SAT(-x, 16, true)) __SHFLX_SIMD1(__vnegss4, 8, __SHFLX_SAT(-x, 8, true))
__SHFLX_SIMD1(__vabs2, 16, x < 0 ? -x : x) __SHFLX_SIMD1(__vabs4, 8, x < 0 ? -x : x)
__SHFLX_SIMD1(__vabsss2, 16, __SHFLX_SAT(x < 0 ? -x : x, 16, true)) __SHFLX_SIMD1(__vabsss4, 8, __SHFLX_SAT(x < 0 ? -x : x, 8, true))
#undef __SHFLX_SIMD1
#undef __SHFLX_SIMD_CMP
#undef __SHFLX_SAT
#undef __SHFLX_SIMD

// ------------------------------------------------------------------ type casting
__device__ __forceinline__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__device__ __forceinline__ unsigned __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
__device__ __forceinline__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__device__ __forceinline__ float __uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }
__device__ __forceinline__ long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__device__ __forceinline__ double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__device__ __forceinline__ int __double2hiint(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 32); }
__device__ __forceinline__ int __double2loint(double x) { return (int)__builtin_bit_cast(unsigned long long, x); }
__device__ __forceinline__ double __hiloint2double(int hi, int lo) {
  return __builtin_bit_cast(double, ((unsigned long long)(unsigned)hi << 32) | (unsigned)lo); }
// Conversions in the default rounding mode (nearest even) are the C++ casts; float -> int are
// PTX's cvt.rni/rzi/rmi/rpi (saturating). NaN gives what an H200 gives (nvcc 13.0): 0 from float
// to 32 bits, the sign bit from double to 32 bits and to 64 bits from either.
template <class I> __device__ __forceinline__ I __shflx_f2i(double f, I lo, I hi, I nan) {
  return f != f ? nan : f <= (double)lo ? lo : f >= (double)hi ? hi : (I)f; }
#define __SHFLX_F2I(NAME, I, LO, HI)                                                              \
  __device__ __forceinline__ I NAME##_rn(float x) { return __shflx_f2i<I>(__builtin_rintf(x), LO, HI, 0); } \
  __device__ __forceinline__ I NAME##_rz(float x) { return __shflx_f2i<I>(__builtin_truncf(x), LO, HI, 0); } \
  __device__ __forceinline__ I NAME##_rd(float x) { return __shflx_f2i<I>(__builtin_floorf(x), LO, HI, 0); } \
  __device__ __forceinline__ I NAME##_ru(float x) { return __shflx_f2i<I>(__builtin_ceilf(x), LO, HI, 0); }
__SHFLX_F2I(__float2int, int, -2147483647 - 1, 2147483647)
__SHFLX_F2I(__float2uint, unsigned, 0u, 0xffffffffu)
#undef __SHFLX_F2I
__device__ __forceinline__ long long __float2ll_rn(float x) {
  float r = __builtin_rintf(x);
  return r != r ? (long long)0x8000000000000000ull : r >= 0x1p63f ? 0x7fffffffffffffffll : r < -0x1p63f ? (long long)0x8000000000000000ull : (long long)r; }
__device__ __forceinline__ long long __float2ll_rz(float x) {
  float r = __builtin_truncf(x);
  return r != r ? (long long)0x8000000000000000ull : r >= 0x1p63f ? 0x7fffffffffffffffll : r < -0x1p63f ? (long long)0x8000000000000000ull : (long long)r; }
// double -> integer in the four directions (cvt.rni/rzi/rmi/rpi, saturating; NaN: the sign bit,
// 0x80000000 or 0x8000000000000000, as an H200 gives it)
#define __SHFLX_D2I(NAME, I, LO, HI)                                                              \
  __device__ __forceinline__ I NAME##_rn(double x) { return __shflx_f2i<I>(__builtin_rint(x), LO, HI, (I)0x80000000u); } \
  __device__ __forceinline__ I NAME##_rz(double x) { return __shflx_f2i<I>(__builtin_trunc(x), LO, HI, (I)0x80000000u); } \
  __device__ __forceinline__ I NAME##_rd(double x) { return __shflx_f2i<I>(__builtin_floor(x), LO, HI, (I)0x80000000u); } \
  __device__ __forceinline__ I NAME##_ru(double x) { return __shflx_f2i<I>(__builtin_ceil(x), LO, HI, (I)0x80000000u); }
__SHFLX_D2I(__double2int, int, -2147483647 - 1, 2147483647)
__SHFLX_D2I(__double2uint, unsigned, 0u, 0xffffffffu)
#undef __SHFLX_D2I
template <class I> __device__ __forceinline__ I __shflx_d2ll(double r, bool is_signed) {
  if (r != r) return (I)0x8000000000000000ull;
  if (is_signed) return r >= 0x1p63 ? (I)0x7fffffffffffffffll : r < -0x1p63 ? (I)0x8000000000000000ull : (I)(long long)r;
  return r >= 0x1p64 ? (I)0xffffffffffffffffull : r <= 0.0 ? (I)0 : (I)(unsigned long long)r;
}
#define __SHFLX_D2LL(NAME, I, S)                                                                  \
  __device__ __forceinline__ I NAME##_rn(double x) { return __shflx_d2ll<I>(__builtin_rint(x), S); } \
  __device__ __forceinline__ I NAME##_rz(double x) { return __shflx_d2ll<I>(__builtin_trunc(x), S); } \
  __device__ __forceinline__ I NAME##_rd(double x) { return __shflx_d2ll<I>(__builtin_floor(x), S); } \
  __device__ __forceinline__ I NAME##_ru(double x) { return __shflx_d2ll<I>(__builtin_ceil(x), S); }
__SHFLX_D2LL(__double2ll, long long, true)
__SHFLX_D2LL(__double2ull, unsigned long long, false)
#undef __SHFLX_D2LL
__device__ __forceinline__ long long __float2ll_rd(float x) { return __double2ll_rd((double)x); }
__device__ __forceinline__ long long __float2ll_ru(float x) { return __double2ll_ru((double)x); }
__device__ __forceinline__ unsigned long long __float2ull_rn(float x) { return __double2ull_rn((double)x); }
__device__ __forceinline__ unsigned long long __float2ull_rz(float x) { return __double2ull_rz((double)x); }
__device__ __forceinline__ unsigned long long __float2ull_rd(float x) { return __double2ull_rd((double)x); }
__device__ __forceinline__ unsigned long long __float2ull_ru(float x) { return __double2ull_ru((double)x); }
__device__ __forceinline__ float __int2float_rn(int x) { return (float)x; }
__device__ __forceinline__ float __uint2float_rn(unsigned x) { return (float)x; }
__device__ __forceinline__ float __ll2float_rn(long long x) { return (float)x; }
__device__ __forceinline__ float __ull2float_rn(unsigned long long x) { return (float)x; }
// toward zero / +inf / -inf: the nearest value, one step back where it lies beyond x on the wrong
// side (CUDA's __int2float_rz/_ru/_rd ..., which cuda_bf16.hpp rounds with, and __ll2double_rz ...;
// the float arithmetic's directed forms are shflx_math_amd.h's). `cmp` is the sign of nearest - x;
// stepping the bit pattern moves one ulp (across binades and zero; FLT_MAX is inf's pattern less one).
template <class F, class B> __device__ __forceinline__ F __shflx_round_step(F nearest, int cmp, int dir) {  // 0 rz, 1 ru, -1 rd
  bool neg = __builtin_signbit(nearest);
  bool back = dir == 1 ? cmp < 0 : dir == -1 ? cmp > 0 : (neg ? cmp < 0 : cmp > 0);
  if (!back) return nearest;
  B step = (dir == 0 || (dir == 1) == neg) ? (B)-1 : (B)1;   // toward zero shrinks the magnitude
  return __builtin_bit_cast(F, (B)(__builtin_bit_cast(B, nearest) + step));
}
template <class F, class B, class I> __device__ __forceinline__ F __shflx_i2f(I x, int dir) {
  F f = (F)x;                                   // integral where inexact
  const F above = (F)__builtin_ldexp(1.0, 8 * (int)sizeof(I) - (I(-1) < 0));   // past I's largest value
  return __shflx_round_step<F, B>(f, f >= above ? 1 : (I)f > x ? 1 : (I)f < x ? -1 : 0, dir);
}
#define __SHFLX_I2F(NAME, F, B, I) \
  __device__ __forceinline__ F NAME##_rz(I x) { return __shflx_i2f<F, B>(x, 0); } \
  __device__ __forceinline__ F NAME##_ru(I x) { return __shflx_i2f<F, B>(x, 1); } \
  __device__ __forceinline__ F NAME##_rd(I x) { return __shflx_i2f<F, B>(x, -1); }
__SHFLX_I2F(__int2float, float, unsigned, int)
__SHFLX_I2F(__uint2float, float, unsigned, unsigned)
__SHFLX_I2F(__ll2float, float, unsigned, long long)
__SHFLX_I2F(__ull2float, float, unsigned, unsigned long long)
__SHFLX_I2F(__ll2double, double, unsigned long long, long long)
__SHFLX_I2F(__ull2double, double, unsigned long long, unsigned long long)
#undef __SHFLX_I2F
__device__ __forceinline__ double __int2double_rn(int x) { return (double)x; }
__device__ __forceinline__ double __uint2double_rn(unsigned x) { return (double)x; }
__device__ __forceinline__ double __ll2double_rn(long long x) { return (double)x; }
__device__ __forceinline__ double __ull2double_rn(unsigned long long x) { return (double)x; }
__device__ __forceinline__ float __double2float_rn(double x) { return (float)x; }

// ------------------------------------------------------------------ classification
// CUDA declares these for device code in the global namespace (math_functions.hpp)
// Integer absolute values (CUDA's math_functions.h declares abs/labs/llabs for the device too;
// the C library's are host functions). CUDA's abs(INT_MIN) is INT_MIN (two's complement wrap).
__device__ __forceinline__ int abs(int x) { return x < 0 ? (int)(0u - (unsigned)x) : x; }
__device__ __forceinline__ long labs(long x) { return x < 0 ? (long)(0ul - (unsigned long)x) : x; }
__device__ __forceinline__ long long llabs(long long x) { return x < 0 ? (long long)(0ull - (unsigned long long)x) : x; }
__device__ __forceinline__ long abs(long x) { return labs(x); }
__device__ __forceinline__ long long abs(long long x) { return llabs(x); }
__device__ __forceinline__ float abs(float x) { return __builtin_fabsf(x); }
__device__ __forceinline__ double abs(double x) { return __builtin_fabs(x); }
__device__ __forceinline__ bool isnan(float x) { return __builtin_isnan(x); }
__device__ __forceinline__ bool isnan(double x) { return __builtin_isnan(x); }
__device__ __forceinline__ bool isinf(float x) { return __builtin_isinf(x); }
__device__ __forceinline__ bool isinf(double x) { return __builtin_isinf(x); }
__device__ __forceinline__ bool isfinite(float x) { return __builtin_isfinite(x); }
__device__ __forceinline__ bool isfinite(double x) { return __builtin_isfinite(x); }
__device__ __forceinline__ bool signbit(float x) { return __builtin_signbit(x); }
__device__ __forceinline__ bool signbit(double x) { return __builtin_signbit(x); }
// glibc's classification names, which CUDA's crt/math_functions.h also declares for device code
// (on Linux: __isnan, __isnanf, __isinf, __isinff, __finite, __finitef, __signbit, __signbitf)
__device__ __forceinline__ int __isnanf(float x) { return __builtin_isnan(x); }
__device__ __forceinline__ int __isnan(double x) { return __builtin_isnan(x); }
__device__ __forceinline__ int __isinff(float x) { return __builtin_isinf(x); }
__device__ __forceinline__ int __isinf(double x) { return __builtin_isinf(x); }
__device__ __forceinline__ int __finitef(float x) { return __builtin_isfinite(x); }
__device__ __forceinline__ int __finite(double x) { return __builtin_isfinite(x); }
__device__ __forceinline__ int __signbitf(float x) { return __builtin_signbit(x); }
__device__ __forceinline__ int __signbit(double x) { return __builtin_signbit(x); }

// ------------------------------------------------------------------ address spaces
// __cvta_generic_to_shared: the LDS (shared) address of a generic pointer to shared memory
#if !defined(__NVPTX__)
__device__ __forceinline__ __SIZE_TYPE__ __cvta_generic_to_shared(const void *p) {
  return (__SIZE_TYPE__)(unsigned)(__SIZE_TYPE__)(const __attribute__((address_space(3))) char *)p; }
__device__ __forceinline__ void *__cvta_shared_to_generic(__SIZE_TYPE__ a) {
  return (void *)(__attribute__((address_space(3))) char *)(unsigned)a; }
// A global (addrspace 1) address is its flat address on AMDGPU (AMDGPU backend docs, "Address
// Spaces": the global aperture is the identity), as it is on NVIDIA for cvta.global.
// NVVM's builtin for cvta.to.shared.u32, which NVIDIA's cuda_pipeline_helpers.h and
// cuda_awbarrier_helpers.h declare and call for the shared address of an asm operand
extern "C" __device__ __forceinline__ unsigned __nvvm_get_smem_pointer(void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ __SIZE_TYPE__ __cvta_generic_to_global(const void *p) { return (__SIZE_TYPE__)p; }
__device__ __forceinline__ void *__cvta_global_to_generic(__SIZE_TYPE__ a) { return (void *)a; }
__device__ __forceinline__ __SIZE_TYPE__ __cvta_generic_to_local(const void *p) {
  return (__SIZE_TYPE__)(unsigned)(__SIZE_TYPE__)(const __attribute__((address_space(5))) char *)p; }
__device__ __forceinline__ void *__cvta_local_to_generic(__SIZE_TYPE__ a) {
  return (void *)(__attribute__((address_space(5))) char *)(unsigned)a; }
__device__ __forceinline__ __SIZE_TYPE__ __cvta_generic_to_constant(const void *p) { return (__SIZE_TYPE__)p; }
__device__ __forceinline__ void *__cvta_constant_to_generic(__SIZE_TYPE__ a) { return (void *)a; }
__device__ __forceinline__ unsigned __isShared(const void *p) { return __builtin_amdgcn_is_shared(p); }
__device__ __forceinline__ unsigned __isGlobal(const void *p) {
  return !__builtin_amdgcn_is_shared(p) && !__builtin_amdgcn_is_private(p); }
__device__ __forceinline__ unsigned __isLocal(const void *p) { return __builtin_amdgcn_is_private(p); }
// A flat address does not say whether it points into constant memory or a kernel parameter.
__device__ unsigned __isConstant(const void *) __shflx_unsupported("__isConstant");
__device__ unsigned __isGridConstant(const void *) __shflx_unsupported("__isGridConstant");
__device__ __SIZE_TYPE__ __cvta_generic_to_grid_constant(const void *) __shflx_unsupported("__cvta_generic_to_grid_constant");
__device__ void *__cvta_grid_constant_to_generic(__SIZE_TYPE__) __shflx_unsupported("__cvta_grid_constant_to_generic");
#endif

// ------------------------------------------------------------------ min / max (math_functions.hpp)
// Mixed signedness compares as unsigned, as CUDA's overloads do (min(int, unsigned) -> umin);
// host and device, as in CUDA (host code calls min/max too).
__host__ __device__ __forceinline__ unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
__host__ __device__ __forceinline__ long long llmin(long long a, long long b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ long long llmax(long long a, long long b) { return a > b ? a : b; }
__host__ __device__ __forceinline__ unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
__host__ __device__ __forceinline__ unsigned min(int a, unsigned b) { return umin((unsigned)a, b); }
__host__ __device__ __forceinline__ unsigned min(unsigned a, int b) { return umin(a, (unsigned)b); }
__host__ __device__ __forceinline__ unsigned max(int a, unsigned b) { return umax((unsigned)a, b); }
__host__ __device__ __forceinline__ unsigned max(unsigned a, int b) { return umax(a, (unsigned)b); }
__host__ __device__ __forceinline__ long min(long a, long b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ long max(long a, long b) { return a > b ? a : b; }
__host__ __device__ __forceinline__ unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
__host__ __device__ __forceinline__ unsigned long min(long a, unsigned long b) { return min((unsigned long)a, b); }
__host__ __device__ __forceinline__ unsigned long min(unsigned long a, long b) { return min(a, (unsigned long)b); }
__host__ __device__ __forceinline__ unsigned long max(long a, unsigned long b) { return max((unsigned long)a, b); }
__host__ __device__ __forceinline__ unsigned long max(unsigned long a, long b) { return max(a, (unsigned long)b); }
__host__ __device__ __forceinline__ long long min(long long a, long long b) { return llmin(a, b); }
__host__ __device__ __forceinline__ long long max(long long a, long long b) { return llmax(a, b); }
__host__ __device__ __forceinline__ unsigned long long min(unsigned long long a, unsigned long long b) { return ullmin(a, b); }
__host__ __device__ __forceinline__ unsigned long long max(unsigned long long a, unsigned long long b) { return ullmax(a, b); }
__host__ __device__ __forceinline__ unsigned long long min(long long a, unsigned long long b) { return ullmin((unsigned long long)a, b); }
__host__ __device__ __forceinline__ unsigned long long min(unsigned long long a, long long b) { return ullmin(a, (unsigned long long)b); }
__host__ __device__ __forceinline__ unsigned long long max(long long a, unsigned long long b) { return ullmax((unsigned long long)a, b); }
__host__ __device__ __forceinline__ unsigned long long max(unsigned long long a, long long b) { return ullmax(a, (unsigned long long)b); }
__host__ __device__ __forceinline__ double min(double a, double b) { return __builtin_fmin(a, b); }
__host__ __device__ __forceinline__ double max(double a, double b) { return __builtin_fmax(a, b); }
__host__ __device__ __forceinline__ double min(float a, double b) { return __builtin_fmin((double)a, b); }
__host__ __device__ __forceinline__ double min(double a, float b) { return __builtin_fmin(a, (double)b); }
__host__ __device__ __forceinline__ double max(float a, double b) { return __builtin_fmax((double)a, b); }
__host__ __device__ __forceinline__ double max(double a, float b) { return __builtin_fmax(a, (double)b); }

// ------------------------------------------------------------------ cache-hinted loads / stores
// The hints (streaming, L2-only, last use, write-back, write-through) change caching, not values
// (CUDA C++ Programming Guide, "Load/Store Functions Using Cache Hints"): plain loads and stores,
// for every type CUDA documents (char ... double2, __half, __half2, __nv_bfloat16[2]). The
// streaming and last-use forms of arithmetic types are nontemporal accesses, which LLVM's AMDGPU
// backend gives the target's streaming cache policy (SIMemoryLegalizer.cpp,
// enableVolatileAndOrNonTemporal: nt on gfx940+, slc/glc on gfx90a and gfx11). __ldcv ("fetch
// again") is a volatile load of the whole value. A store's value is not deduced, so it converts to
// the pointer's type as with CUDA's overloads (`__stcs(float_ptr, 0)`).
template <class T> struct __shflx_same { typedef T type; };
template <unsigned N> struct __shflx_word;           // an N-byte word: the sizes of CUDA's types
template <> struct __shflx_word<1> { typedef unsigned char type; };
template <> struct __shflx_word<2> { typedef unsigned short type; };
template <> struct __shflx_word<4> { typedef unsigned int type; };
template <> struct __shflx_word<8> { typedef unsigned long long type; };
template <> struct __shflx_word<16> { typedef unsigned int __attribute__((ext_vector_type(4))) type; };
template <class T> __device__ __forceinline__ T __shflx_load_nt(const T *p) {
  if constexpr (__is_arithmetic(T)) return __builtin_nontemporal_load(p);
  else return *p;
}
template <class T> __device__ __forceinline__ void __shflx_store_nt(T *p, T v) {
  if constexpr (__is_arithmetic(T)) __builtin_nontemporal_store(v, p);
  else *p = v;
}
template <class T> __device__ __forceinline__ T __ldcg(const T *p) { return *p; }
template <class T> __device__ __forceinline__ T __ldca(const T *p) { return *p; }
template <class T> __device__ __forceinline__ T __ldcs(const T *p) { return __shflx_load_nt(p); }
template <class T> __device__ __forceinline__ T __ldlu(const T *p) { return __shflx_load_nt(p); }
template <class T> __device__ __forceinline__ T __ldcv(const T *p) {   // the word has T's alignment; it is
  typedef typename __shflx_word<sizeof(T)>::type __attribute__((aligned(alignof(T)))) W;   // read first: a
  W w = *(const volatile W *)p;                             // bit_cast of the volatile lvalue loses volatile
  return __builtin_bit_cast(T, w); }
template <class T> __device__ __forceinline__ void __stwb(T *p, typename __shflx_same<T>::type v) { *p = v; }
template <class T> __device__ __forceinline__ void __stcg(T *p, typename __shflx_same<T>::type v) { *p = v; }
template <class T> __device__ __forceinline__ void __stcs(T *p, typename __shflx_same<T>::type v) { __shflx_store_nt(p, v); }
template <class T> __device__ __forceinline__ void __stwt(T *p, typename __shflx_same<T>::type v) { *p = v; }

// ------------------------------------------------------------------ memcpy / memset in device code
// Device overloads of the C library names; LLVM expands the intrinsics inline (loops for
// non-constant sizes).
__device__ __forceinline__ void *memcpy(void *d, const void *s, __SIZE_TYPE__ n) { return __builtin_memcpy(d, s, n); }
__device__ __forceinline__ void *memset(void *d, int c, __SIZE_TYPE__ n) { return __builtin_memset(d, c, n); }
__device__ __forceinline__ void *memmove(void *d, const void *s, __SIZE_TYPE__ n) { return __builtin_memmove(d, s, n); }

// ------------------------------------------------------------------------ DPX (sm_90)
// The dynamic-programming intrinsics of CUDA 12 (__vimax3_s32, __viaddmax_s16x2, __vibmin_u32, ...),
// which NVIDIA's crt/device_functions.hpp computes for architectures without DPX (and the host)
// from their definitions: per 32-bit word or per 16-bit half, additions wrap, `relu` clamps the
// result below at 0, and __vib* also say whether the first operand won (a >= b for max, a <= b
// for min; per half for the x2 forms).
template <bool S> __host__ __device__ __forceinline__ int __shflx_half(unsigned x, int k) {
  return S ? (int)(short)(unsigned short)(x >> (16 * k)) : (int)((x >> (16 * k)) & 0xffffu); }
template <bool S> __host__ __device__ __forceinline__ int __shflx_wrap16(int v) {
  return S ? (int)(short)(unsigned short)(unsigned)v : (int)((unsigned)v & 0xffffu); }
__host__ __device__ __forceinline__ int __shflx_imax(int a, int b) { return a > b ? a : b; }
__host__ __device__ __forceinline__ int __shflx_imin(int a, int b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ unsigned __shflx_umax(unsigned a, unsigned b) { return a > b ? a : b; }
__host__ __device__ __forceinline__ unsigned __shflx_umin(unsigned a, unsigned b) { return a < b ? a : b; }
#define __SHFLX_DPX_X2(NAME, S, EXPR)                                                            \
  __host__ __device__ __forceinline__ unsigned NAME(unsigned a, unsigned b, unsigned c) {         \
    unsigned r = 0;                                                                              \
    for (int k = 0; k < 2; ++k) {                                                                \
      int x = __shflx_half<S>(a, k), y = __shflx_half<S>(b, k), z = __shflx_half<S>(c, k);        \
      (void)z;                                                                                   \
      r |= ((unsigned)(EXPR) & 0xffffu) << (16 * k);                                             \
    }                                                                                            \
    return r; }
#define __SHFLX_ADD16(S) __shflx_wrap16<S>(x + y)
__SHFLX_DPX_X2(__vimax3_s16x2, true, __shflx_imax(__shflx_imax(x, y), z))
__SHFLX_DPX_X2(__vimax3_u16x2, false, __shflx_imax(__shflx_imax(x, y), z))
__SHFLX_DPX_X2(__vimin3_s16x2, true, __shflx_imin(__shflx_imin(x, y), z))
__SHFLX_DPX_X2(__vimin3_u16x2, false, __shflx_imin(__shflx_imin(x, y), z))
__SHFLX_DPX_X2(__vimax3_s16x2_relu, true, __shflx_imax(__shflx_imax(__shflx_imax(x, y), z), 0))
__SHFLX_DPX_X2(__vimin3_s16x2_relu, true, __shflx_imax(__shflx_imin(__shflx_imin(x, y), z), 0))
__SHFLX_DPX_X2(__viaddmax_s16x2, true, __shflx_imax(__SHFLX_ADD16(true), z))
__SHFLX_DPX_X2(__viaddmax_u16x2, false, __shflx_imax(__SHFLX_ADD16(false), z))
__SHFLX_DPX_X2(__viaddmin_s16x2, true, __shflx_imin(__SHFLX_ADD16(true), z))
__SHFLX_DPX_X2(__viaddmin_u16x2, false, __shflx_imin(__SHFLX_ADD16(false), z))
__SHFLX_DPX_X2(__viaddmax_s16x2_relu, true, __shflx_imax(__shflx_imax(__SHFLX_ADD16(true), z), 0))
__SHFLX_DPX_X2(__viaddmin_s16x2_relu, true, __shflx_imax(__shflx_imin(__SHFLX_ADD16(true), z), 0))
#undef __SHFLX_ADD16
#undef __SHFLX_DPX_X2
__host__ __device__ __forceinline__ unsigned __vimax_s16x2_relu(unsigned a, unsigned b) { return __vimax3_s16x2_relu(a, b, b); }
__host__ __device__ __forceinline__ unsigned __vimin_s16x2_relu(unsigned a, unsigned b) { return __vimin3_s16x2_relu(a, b, b); }
__host__ __device__ __forceinline__ int __vimax_s32_relu(int a, int b) { return __shflx_imax(__shflx_imax(a, b), 0); }
__host__ __device__ __forceinline__ int __vimin_s32_relu(int a, int b) { return __shflx_imax(__shflx_imin(a, b), 0); }
__host__ __device__ __forceinline__ int __vimax3_s32(int a, int b, int c) { return __shflx_imax(__shflx_imax(a, b), c); }
__host__ __device__ __forceinline__ int __vimin3_s32(int a, int b, int c) { return __shflx_imin(__shflx_imin(a, b), c); }
__host__ __device__ __forceinline__ unsigned __vimax3_u32(unsigned a, unsigned b, unsigned c) { return __shflx_umax(__shflx_umax(a, b), c); }
__host__ __device__ __forceinline__ unsigned __vimin3_u32(unsigned a, unsigned b, unsigned c) { return __shflx_umin(__shflx_umin(a, b), c); }
__host__ __device__ __forceinline__ int __vimax3_s32_relu(int a, int b, int c) { return __shflx_imax(__vimax3_s32(a, b, c), 0); }
__host__ __device__ __forceinline__ int __vimin3_s32_relu(int a, int b, int c) { return __shflx_imax(__vimin3_s32(a, b, c), 0); }
__host__ __device__ __forceinline__ int __shflx_add32(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__host__ __device__ __forceinline__ int __viaddmax_s32(int a, int b, int c) { return __shflx_imax(__shflx_add32(a, b), c); }
__host__ __device__ __forceinline__ int __viaddmin_s32(int a, int b, int c) { return __shflx_imin(__shflx_add32(a, b), c); }
__host__ __device__ __forceinline__ unsigned __viaddmax_u32(unsigned a, unsigned b, unsigned c) { return __shflx_umax(a + b, c); }
__host__ __device__ __forceinline__ unsigned __viaddmin_u32(unsigned a, unsigned b, unsigned c) { return __shflx_umin(a + b, c); }
__host__ __device__ __forceinline__ int __viaddmax_s32_relu(int a, int b, int c) { return __shflx_imax(__viaddmax_s32(a, b, c), 0); }
__host__ __device__ __forceinline__ int __viaddmin_s32_relu(int a, int b, int c) { return __shflx_imax(__viaddmin_s32(a, b, c), 0); }
__host__ __device__ __forceinline__ int __vibmax_s32(int a, int b, bool *const pred) { *pred = a >= b; return __shflx_imax(a, b); }
__host__ __device__ __forceinline__ int __vibmin_s32(int a, int b, bool *const pred) { *pred = a <= b; return __shflx_imin(a, b); }
__host__ __device__ __forceinline__ unsigned __vibmax_u32(unsigned a, unsigned b, bool *const pred) { *pred = a >= b; return __shflx_umax(a, b); }
__host__ __device__ __forceinline__ unsigned __vibmin_u32(unsigned a, unsigned b, bool *const pred) { *pred = a <= b; return __shflx_umin(a, b); }
#define __SHFLX_DPX_B2(NAME, S, MAX)                                                             \
  __host__ __device__ __forceinline__ unsigned NAME(unsigned a, unsigned b, bool *const pred_hi, bool *const pred_lo) { \
    unsigned r = 0;                                                                              \
    for (int k = 0; k < 2; ++k) {                                                                \
      int x = __shflx_half<S>(a, k), y = __shflx_half<S>(b, k);                                  \
      bool first = MAX ? x >= y : x <= y;                                                        \
      *(k ? pred_hi : pred_lo) = first;                                                          \
      r |= ((unsigned)(first ? x : y) & 0xffffu) << (16 * k);                                    \
    }                                                                                            \
    return r; }
__SHFLX_DPX_B2(__vibmax_s16x2, true, true) __SHFLX_DPX_B2(__vibmax_u16x2, false, true)
__SHFLX_DPX_B2(__vibmin_s16x2, true, false) __SHFLX_DPX_B2(__vibmin_u16x2, false, false)
#undef __SHFLX_DPX_B2
