// shflx: the operations CUDA's cuda_fp16.h and cuda_bf16.h share, written once for a 16-bit float
// type T (and its pair T2) by __SHFLX_FP16_OPS. Every operation is the float operation rounded
// once to T, which is T's correctly rounded result: float's 24 bits are at least 2p+2 for half
// (p = 11) and bfloat16 (p = 8), so the two roundings never differ from one (Figueroa, "When is
// double rounding innocuous?", 1995). fma rounds once through an exact float product and a
// TwoSum (see __shflx_fma16). NaN results are quiet NaNs; their payload bits may differ from
// NVIDIA's canonical 0x7fff (conversions from float give 0x7fff, as CUDA's do).
// ARITH(T, a, b, OP) computes __hadd/__hsub/__hmul (and the operators and h2 forms built on
// them): a type whose CUDA operations nvcc may contract (a product feeding a sum becomes one fma)
// passes its native arithmetic, which clang marks contractable under -ffp-contract=fast(-honor-
// pragmas) as well; the _rn forms are the same arithmetic with contraction off, as CUDA documents.
#pragma once

// The neighbour of the 16-bit pattern h next toward +inf (up) or -inf (!up); h is not NaN.
__host__ __device__ __forceinline__ unsigned short __shflx_step16(unsigned short h, bool up) {
  if ((h & 0x7fffu) == 0) return up ? 0x0001u : 0x8001u;       // from +-0: the smallest subnormals
  bool neg = h >> 15;
  return (unsigned short)(neg == up ? h - 1 : h + 1);
}

// a OP b in float, rounded once to T: correctly rounded, and never contracted with a neighbour
#define __SHFLX_FLOAT_ARITH(T, a, b, OP) __shflx_t(__shflx_f(a) OP __shflx_f(b), (T *)0)

#define __SHFLX_FP16_OPS(T, T2, TOF, FROMF, ARITH)                                                 \
  /* s + e (exact, |e| <= ulp(s)/2) rounded once to T: a tie of s's rounding goes e's way */      \
  __host__ __device__ __forceinline__ T __shflx_round_sticky(float s, float e, T *) {             \
    _Pragma("clang fp contract(off)")                                                              \
    unsigned short h = FROMF(s);                                                                   \
    float hf = TOF(h);                                                                             \
    if (e == 0.0f || hf != hf || __builtin_isinf(s)) return __shflx_bits(h, (T *)0);              \
    if (hf == s) return __shflx_bits(h, (T *)0);   /* s exact in T: |e| < ulp(T)/2 keeps it */  \
    unsigned short other = __shflx_step16(h, s > hf);   /* the other neighbour of s */           \
    float of = TOF(other);                                                                         \
    if (of - s == s - hf) return __shflx_bits(((e > 0.0f) == (of > hf)) ? other : h, (T *)0);    \
    /* s is not a tie; s + e can still be one exactly (|e| <= ulp(s)/2): then ties-to-even */     \
    unsigned short n = __shflx_step16(h, e > 0.0f);                                                \
    float nf = TOF(n);                                                                             \
    if ((hf + (nf - hf) * 0.5f) - s == e) return __shflx_bits((h & 1) ? n : h, (T *)0);            \
    return __shflx_bits(h, (T *)0);                                                                \
  }                                                                                                \
  __host__ __device__ __forceinline__ T __shflx_fma16(T a, T b, T c) {                            \
    _Pragma("clang fp contract(off)")                                                              \
    float p = TOF(__shflx_raw(a)) * TOF(__shflx_raw(b));   /* exact: 2p <= 24 bits */             \
    float q = TOF(__shflx_raw(c));                                                                 \
    float s = p + q, bb = s - p, e = (p - (s - bb)) + (q - bb);  /* TwoSum: s + e == p + q */    \
    if (__builtin_isinf(s) || s != s) return __shflx_bits(FROMF(s), (T *)0);                     \
    return __shflx_round_sticky(s, e, (T *)0);                                                     \
  }                                                                                                \
  __host__ __device__ __forceinline__ float __shflx_f(T a) { return TOF(__shflx_raw(a)); }        \
  /* float -> T in the IEEE directions: the nearest, then one step where it went the wrong way */ \
  __host__ __device__ __forceinline__ T __shflx_from_float_dir(float f, int dir, T *) { /* 0 rz, 1 ru, -1 rd */ \
    unsigned short h = FROMF(f);                                                                   \
    float hf = TOF(h);                                                                             \
    if (f != f || hf == f) return __shflx_bits(h, (T *)0);                                         \
    bool too_big = hf > f;                           /* also when f overflowed to inf */           \
    if (dir == 1 ? !too_big : dir == -1 ? too_big : (__builtin_fabsf(hf) > __builtin_fabsf(f)))   \
      h = __shflx_step16(h, dir == 1 ? true : dir == -1 ? false : (hf < 0));                       \
    return __shflx_bits(h, (T *)0);                                                                \
  }                                                                                                \
  /* double -> T with one rounding: rounding to float first to odd keeps a sticky bit, so the  */  \
  /* second rounding cannot see a false tie (float's 24 bits >= p + 2)                          */  \
  __host__ __device__ __forceinline__ T __shflx_from_double(double d, T *) {                       \
    float f = (float)d;                                                                            \
    if (f == f && f != 0.0f && !__builtin_isinf(f) && (double)f != d) {                            \
      unsigned u = __builtin_bit_cast(unsigned, f);                                                \
      if (!(u & 1u)) f = __builtin_bit_cast(float, (((double)f < d) == (f > 0.0f)) ? u + 1u : u - 1u); \
    }                                                                                              \
    return __shflx_bits(FROMF(f), (T *)0);                                                         \
  }                                                                                                \
  __host__ __device__ __forceinline__ T __shflx_t(float f, T *) { return __shflx_bits(FROMF(f), (T *)0); } \
  __host__ __device__ __forceinline__ T __hadd(T a, T b) { return ARITH(T, a, b, +); }          \
  __host__ __device__ __forceinline__ T __hsub(T a, T b) { return ARITH(T, a, b, -); }          \
  __host__ __device__ __forceinline__ T __hmul(T a, T b) { return ARITH(T, a, b, *); }          \
  __host__ __device__ __forceinline__ T __hdiv(T a, T b) { return __SHFLX_FLOAT_ARITH(T, a, b, /); } \
  __host__ __device__ __forceinline__ T __hadd_rn(T a, T b) { _Pragma("clang fp contract(off)") return ARITH(T, a, b, +); } \
  __host__ __device__ __forceinline__ T __hsub_rn(T a, T b) { _Pragma("clang fp contract(off)") return ARITH(T, a, b, -); } \
  __host__ __device__ __forceinline__ T __hmul_rn(T a, T b) { _Pragma("clang fp contract(off)") return ARITH(T, a, b, *); } \
  __host__ __device__ __forceinline__ T __hfma(T a, T b, T c) { return __shflx_fma16(a, b, c); } \
  __host__ __device__ __forceinline__ T __hneg(T a) { return __shflx_bits(__shflx_raw(a) ^ 0x8000u, (T *)0); } \
  __host__ __device__ __forceinline__ T __habs(T a) { return __shflx_bits(__shflx_raw(a) & 0x7fffu, (T *)0); } \
  __host__ __device__ __forceinline__ bool __hisnan(T a) { return __shflx_f(a) != __shflx_f(a); } \
  __host__ __device__ __forceinline__ int __hisinf(T a) {                                          \
    float f = __shflx_f(a); return __builtin_isinf(f) ? (f > 0 ? 1 : -1) : 0; }                   \
  __host__ __device__ __forceinline__ T __hsat01(T a) {    /* CUDA: NaN -> +0 */                 \
    float f = __shflx_f(a); return __shflx_t(f > 0.0f ? (f < 1.0f ? f : 1.0f) : 0.0f, (T *)0); } \
  __host__ __device__ __forceinline__ T __hadd_sat(T a, T b) { return __hsat01(__hadd(a, b)); }   \
  __host__ __device__ __forceinline__ T __hmul_sat(T a, T b) { return __hsat01(__hmul(a, b)); }   \
  __host__ __device__ __forceinline__ T __hfma_sat(T a, T b, T c) { return __hsat01(__hfma(a, b, c)); } \
  /* max/min: one NaN operand -> the other; both NaN -> NaN; -0 < +0 (CUDA __hmax/__hmin) */     \
  __host__ __device__ __forceinline__ T __hmax(T a, T b) {                                         \
    float x = __shflx_f(a), y = __shflx_f(b);                                                      \
    if (x != x) return b; if (y != y) return a;                                                    \
    if (x == y) return (__shflx_raw(a) & 0x8000u) ? b : a;                                         \
    return x > y ? a : b; }                                                                        \
  __host__ __device__ __forceinline__ T __hmin(T a, T b) {                                         \
    float x = __shflx_f(a), y = __shflx_f(b);                                                      \
    if (x != x) return b; if (y != y) return a;                                                    \
    if (x == y) return (__shflx_raw(a) & 0x8000u) ? a : b;                                         \
    return x < y ? a : b; }                                                                        \
  __host__ __device__ __forceinline__ T __hmax_nan(T a, T b) { return __hisnan(a) ? a : __hisnan(b) ? b : __hmax(a, b); } \
  __host__ __device__ __forceinline__ T __hmin_nan(T a, T b) { return __hisnan(a) ? a : __hisnan(b) ? b : __hmin(a, b); } \
  __host__ __device__ __forceinline__ bool __heq(T a, T b) { return __shflx_f(a) == __shflx_f(b); } \
  __host__ __device__ __forceinline__ bool __hne(T a, T b) { float x = __shflx_f(a), y = __shflx_f(b); return x < y || x > y; } \
  __host__ __device__ __forceinline__ bool __hlt(T a, T b) { return __shflx_f(a) < __shflx_f(b); } \
  __host__ __device__ __forceinline__ bool __hle(T a, T b) { return __shflx_f(a) <= __shflx_f(b); } \
  __host__ __device__ __forceinline__ bool __hgt(T a, T b) { return __shflx_f(a) > __shflx_f(b); } \
  __host__ __device__ __forceinline__ bool __hge(T a, T b) { return __shflx_f(a) >= __shflx_f(b); } \
  __host__ __device__ __forceinline__ bool __hequ(T a, T b) { return !__hne(a, b); }               \
  __host__ __device__ __forceinline__ bool __hneu(T a, T b) { return !__heq(a, b); }               \
  __host__ __device__ __forceinline__ bool __hltu(T a, T b) { return !__hge(a, b); }               \
  __host__ __device__ __forceinline__ bool __hleu(T a, T b) { return !__hgt(a, b); }               \
  __host__ __device__ __forceinline__ bool __hgtu(T a, T b) { return !__hle(a, b); }               \
  __host__ __device__ __forceinline__ bool __hgeu(T a, T b) { return !__hlt(a, b); }               \
  __host__ __device__ __forceinline__ T operator+(const T &a, const T &b) { return __hadd(a, b); } \
  __host__ __device__ __forceinline__ T operator-(const T &a, const T &b) { return __hsub(a, b); } \
  __host__ __device__ __forceinline__ T operator*(const T &a, const T &b) { return __hmul(a, b); } \
  __host__ __device__ __forceinline__ T operator/(const T &a, const T &b) { return __hdiv(a, b); } \
  __host__ __device__ __forceinline__ T &operator+=(T &a, const T &b) { return a = __hadd(a, b); } \
  __host__ __device__ __forceinline__ T &operator-=(T &a, const T &b) { return a = __hsub(a, b); } \
  __host__ __device__ __forceinline__ T &operator*=(T &a, const T &b) { return a = __hmul(a, b); } \
  __host__ __device__ __forceinline__ T &operator/=(T &a, const T &b) { return a = __hdiv(a, b); } \
  __host__ __device__ __forceinline__ T operator+(const T &a) { return a; }                        \
  __host__ __device__ __forceinline__ T operator-(const T &a) { return __hneg(a); }                \
  __host__ __device__ __forceinline__ T &operator++(T &a) { return a = __hadd(a, __shflx_t(1.0f, (T *)0)); } \
  __host__ __device__ __forceinline__ T &operator--(T &a) { return a = __hsub(a, __shflx_t(1.0f, (T *)0)); } \
  __host__ __device__ __forceinline__ T operator++(T &a, int) { T r = a; ++a; return r; }         \
  __host__ __device__ __forceinline__ T operator--(T &a, int) { T r = a; --a; return r; }         \
  __host__ __device__ __forceinline__ bool operator==(const T &a, const T &b) { return __heq(a, b); } \
  __host__ __device__ __forceinline__ bool operator!=(const T &a, const T &b) { return __hneu(a, b); } \
  __host__ __device__ __forceinline__ bool operator<(const T &a, const T &b) { return __hlt(a, b); } \
  __host__ __device__ __forceinline__ bool operator<=(const T &a, const T &b) { return __hle(a, b); } \
  __host__ __device__ __forceinline__ bool operator>(const T &a, const T &b) { return __hgt(a, b); } \
  __host__ __device__ __forceinline__ bool operator>=(const T &a, const T &b) { return __hge(a, b); } \
  /* pairs: each half on its own (CUDA's h2 operations) */                                         \
  __host__ __device__ __forceinline__ T2 __shflx_pair(T a, T b, T2 *) { T2 r; r.x = a; r.y = b; return r; } \
  __host__ __device__ __forceinline__ T2 __hadd2(T2 a, T2 b) { return __shflx_pair(__hadd(a.x, b.x), __hadd(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hsub2(T2 a, T2 b) { return __shflx_pair(__hsub(a.x, b.x), __hsub(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hmul2(T2 a, T2 b) { return __shflx_pair(__hmul(a.x, b.x), __hmul(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __h2div(T2 a, T2 b) { return __shflx_pair(__hdiv(a.x, b.x), __hdiv(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hadd2_rn(T2 a, T2 b) { return __shflx_pair(__hadd_rn(a.x, b.x), __hadd_rn(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hsub2_rn(T2 a, T2 b) { return __shflx_pair(__hsub_rn(a.x, b.x), __hsub_rn(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hmul2_rn(T2 a, T2 b) { return __shflx_pair(__hmul_rn(a.x, b.x), __hmul_rn(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hfma2(T2 a, T2 b, T2 c) { return __shflx_pair(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hadd2_sat(T2 a, T2 b) { return __shflx_pair(__hadd_sat(a.x, b.x), __hadd_sat(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hmul2_sat(T2 a, T2 b) { return __shflx_pair(__hmul_sat(a.x, b.x), __hmul_sat(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hfma2_sat(T2 a, T2 b, T2 c) { return __shflx_pair(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hneg2(T2 a) { return __shflx_pair(__hneg(a.x), __hneg(a.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __habs2(T2 a) { return __shflx_pair(__habs(a.x), __habs(a.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hmax2(T2 a, T2 b) { return __shflx_pair(__hmax(a.x, b.x), __hmax(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hmin2(T2 a, T2 b) { return __shflx_pair(__hmin(a.x, b.x), __hmin(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hmax2_nan(T2 a, T2 b) { return __shflx_pair(__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hmin2_nan(T2 a, T2 b) { return __shflx_pair(__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y), (T2 *)0); } \
  __host__ __device__ __forceinline__ T2 __hisnan2(T2 a) {                                         \
    return __shflx_pair(__shflx_t(__hisnan(a.x) ? 1.0f : 0.0f, (T *)0), __shflx_t(__hisnan(a.y) ? 1.0f : 0.0f, (T *)0), (T2 *)0); } \
  /* h2 comparisons: 1.0 / 0.0 per half (__heq2), all-true tests (__hbeq2), masks (__heq2_mask) */ \
  __SHFLX_FP16_CMP2(T, T2, eq) __SHFLX_FP16_CMP2(T, T2, ne) __SHFLX_FP16_CMP2(T, T2, lt)           \
  __SHFLX_FP16_CMP2(T, T2, le) __SHFLX_FP16_CMP2(T, T2, gt) __SHFLX_FP16_CMP2(T, T2, ge)           \
  __SHFLX_FP16_CMP2(T, T2, equ) __SHFLX_FP16_CMP2(T, T2, neu) __SHFLX_FP16_CMP2(T, T2, ltu)        \
  __SHFLX_FP16_CMP2(T, T2, leu) __SHFLX_FP16_CMP2(T, T2, gtu) __SHFLX_FP16_CMP2(T, T2, geu)        \
  __host__ __device__ __forceinline__ T2 operator+(const T2 &a, const T2 &b) { return __hadd2(a, b); } \
  __host__ __device__ __forceinline__ T2 operator-(const T2 &a, const T2 &b) { return __hsub2(a, b); } \
  __host__ __device__ __forceinline__ T2 operator*(const T2 &a, const T2 &b) { return __hmul2(a, b); } \
  __host__ __device__ __forceinline__ T2 operator/(const T2 &a, const T2 &b) { return __h2div(a, b); } \
  __host__ __device__ __forceinline__ T2 &operator+=(T2 &a, const T2 &b) { return a = __hadd2(a, b); } \
  __host__ __device__ __forceinline__ T2 &operator-=(T2 &a, const T2 &b) { return a = __hsub2(a, b); } \
  __host__ __device__ __forceinline__ T2 &operator*=(T2 &a, const T2 &b) { return a = __hmul2(a, b); } \
  __host__ __device__ __forceinline__ T2 &operator/=(T2 &a, const T2 &b) { return a = __h2div(a, b); } \
  __host__ __device__ __forceinline__ T2 operator+(const T2 &a) { return a; }                      \
  __host__ __device__ __forceinline__ T2 operator-(const T2 &a) { return __hneg2(a); }             \
  __host__ __device__ __forceinline__ bool operator==(const T2 &a, const T2 &b) { return __hbeq2(a, b); } \
  __host__ __device__ __forceinline__ bool operator!=(const T2 &a, const T2 &b) { return __hbneu2(a, b); } \
  __host__ __device__ __forceinline__ bool operator<(const T2 &a, const T2 &b) { return __hblt2(a, b); } \
  __host__ __device__ __forceinline__ bool operator<=(const T2 &a, const T2 &b) { return __hble2(a, b); } \
  __host__ __device__ __forceinline__ bool operator>(const T2 &a, const T2 &b) { return __hbgt2(a, b); } \
  __host__ __device__ __forceinline__ bool operator>=(const T2 &a, const T2 &b) { return __hbge2(a, b); } \
  __host__ __device__ __forceinline__ float __low2float(T2 a) { return __shflx_f(a.x); }          \
  __host__ __device__ __forceinline__ float __high2float(T2 a) { return __shflx_f(a.y); }         \
  __host__ __device__ __forceinline__ float2 __shflx_pair2float2(T2 a) { return make_float2(__shflx_f(a.x), __shflx_f(a.y)); } \
  __host__ __device__ __forceinline__ T2 __lowhigh2highlow(T2 a) { return __shflx_pair(a.y, a.x, (T2 *)0); } \
  /* warp shuffles: the 16 or 32 bits travel as one 32-bit shuffle (cuda_ptx_shfl.md §3.1) */    \
  __SHFLX_FP16_SHUFFLE(T, T2, __shfl_sync) __SHFLX_FP16_SHUFFLE(T, T2, __shfl_up_sync)              \
  __SHFLX_FP16_SHUFFLE(T, T2, __shfl_down_sync) __SHFLX_FP16_SHUFFLE(T, T2, __shfl_xor_sync)

// T -> integer (CUDA's __half2int_rz ... __bfloat162ull_ru, and the class conversions; N is the
// name stem, half or bfloat16). Toward zero: NaN -> 0, saturated at the integer type's range (PTX
// cvt.rzi.sat). The other directions round in float first (exact for 16-bit values), then the
// saturating rz. Expanded after __SHFLX_FP16_OPS(T, ...), which defines __shflx_f.
template <class I, class T> __host__ __device__ __forceinline__ I __shflx_to_int_rz(T h, I lo, I hi) {
  float f = __shflx_f(h);
  if (f != f) return 0;
  f = __builtin_truncf(f);
  return f <= (float)lo ? lo : f >= (float)hi ? hi : (I)f;
}
#define __SHFLX_FP16_TO_ONE_INT(T, N, I, NAME, LO, HI)                                             \
  __host__ __device__ __forceinline__ I __##N##2##NAME##_rz(T h) { return __shflx_to_int_rz<I>(h, LO, HI); } \
  __host__ __device__ __forceinline__ I __##N##2##NAME##_rn(T h) {                                 \
    return __##N##2##NAME##_rz(T(__builtin_rintf(__shflx_f(h)))); }                               \
  __host__ __device__ __forceinline__ I __##N##2##NAME##_rd(T h) {                                 \
    return __##N##2##NAME##_rz(T(__builtin_floorf(__shflx_f(h)))); }                              \
  __host__ __device__ __forceinline__ I __##N##2##NAME##_ru(T h) {                                 \
    return __##N##2##NAME##_rz(T(__builtin_ceilf(__shflx_f(h)))); }
#define __SHFLX_FP16_TO_INT(T, N)                                                                  \
  __SHFLX_FP16_TO_ONE_INT(T, N, int, int, -2147483647 - 1, 2147483647)                             \
  __SHFLX_FP16_TO_ONE_INT(T, N, unsigned, uint, 0u, 0xffffffffu)                                   \
  __SHFLX_FP16_TO_ONE_INT(T, N, short, short, (short)-32768, (short)32767)                         \
  __SHFLX_FP16_TO_ONE_INT(T, N, unsigned short, ushort, (unsigned short)0, (unsigned short)65535)  \
  __SHFLX_FP16_TO_ONE_INT(T, N, long long, ll, -9223372036854775807ll - 1, 9223372036854775807ll)  \
  __SHFLX_FP16_TO_ONE_INT(T, N, unsigned long long, ull, 0ull, 0xffffffffffffffffull)             \
  __host__ __device__ inline T::operator short() const { return __##N##2short_rz(*this); }         \
  __host__ __device__ inline T::operator unsigned short() const { return __##N##2ushort_rz(*this); } \
  __host__ __device__ inline T::operator int() const { return __##N##2int_rz(*this); }             \
  __host__ __device__ inline T::operator unsigned int() const { return __##N##2uint_rz(*this); }   \
  __host__ __device__ inline T::operator long long() const { return __##N##2ll_rz(*this); }        \
  __host__ __device__ inline T::operator unsigned long long() const { return __##N##2ull_rz(*this); }

#define __SHFLX_FP16_CMP2(T, T2, OP)                                                               \
  __host__ __device__ __forceinline__ T2 __h##OP##2(T2 a, T2 b) {                                  \
    return __shflx_pair(__shflx_t(__h##OP(a.x, b.x) ? 1.0f : 0.0f, (T *)0),                         \
                        __shflx_t(__h##OP(a.y, b.y) ? 1.0f : 0.0f, (T *)0), (T2 *)0); }             \
  __host__ __device__ __forceinline__ bool __hb##OP##2(T2 a, T2 b) { return __h##OP(a.x, b.x) && __h##OP(a.y, b.y); } \
  __host__ __device__ __forceinline__ unsigned __h##OP##2_mask(T2 a, T2 b) {                       \
    return (__h##OP(a.x, b.x) ? 0xffffu : 0u) | (__h##OP(a.y, b.y) ? 0xffff0000u : 0u); }

#define __SHFLX_FP16_SHUFFLE(T, T2, NAME)                                                          \
  __device__ __forceinline__ T NAME(unsigned m, T v, int b, int w = 32) {                          \
    return __shflx_bits((unsigned short)NAME(m, (unsigned)__shflx_raw(v), b, w), (T *)0); }        \
  __device__ __forceinline__ T2 NAME(unsigned m, T2 v, int b, int w = 32) {                        \
    return __builtin_bit_cast(T2, NAME(m, __builtin_bit_cast(unsigned, v), b, w)); }

// Half math (cuda_fp16.h / cuda_bf16.h "Math Functions", device only as in CUDA): the float function
// of the value, rounded once to T. ceil/floor/rint/trunc are exact, sqrt correctly rounded (24 >= 2p+2
// bits, as above); the transcendental ones carry the float function's error (docs/cuda-layer.md) and
// one rounding. Not on NVPTX, where the prelude has no precise float math (NVIDIA's headers serve).
#if !defined(__NVPTX__)
#define __SHFLX_FP16_MATH1(T, T2, N, F)                                                            \
  __device__ __forceinline__ T h##N(const T a) { return __shflx_t(F(__shflx_f(a)), (T *)0); }     \
  __device__ __forceinline__ T2 h2##N(const T2 a) { return __shflx_pair(h##N(a.x), h##N(a.y), (T2 *)0); }
#define __SHFLX_FP16_MATH(T, T2)                                                                   \
  __SHFLX_FP16_MATH1(T, T2, ceil, __builtin_ceilf) __SHFLX_FP16_MATH1(T, T2, floor, __builtin_floorf) \
  __SHFLX_FP16_MATH1(T, T2, rint, __builtin_rintf) __SHFLX_FP16_MATH1(T, T2, trunc, __builtin_truncf) \
  __SHFLX_FP16_MATH1(T, T2, sqrt, __builtin_sqrtf) __SHFLX_FP16_MATH1(T, T2, rsqrt, rsqrtf)        \
  __SHFLX_FP16_MATH1(T, T2, rcp, __frcp_rn) __SHFLX_FP16_MATH1(T, T2, exp, expf)                   \
  __SHFLX_FP16_MATH1(T, T2, exp2, exp2f) __SHFLX_FP16_MATH1(T, T2, exp10, exp10f)                  \
  __SHFLX_FP16_MATH1(T, T2, log, logf) __SHFLX_FP16_MATH1(T, T2, log2, log2f)                      \
  __SHFLX_FP16_MATH1(T, T2, log10, log10f) __SHFLX_FP16_MATH1(T, T2, sin, sinf)                    \
  __SHFLX_FP16_MATH1(T, T2, cos, cosf) __SHFLX_FP16_MATH1(T, T2, tanh, tanhf)
#else
#define __SHFLX_FP16_MATH(T, T2)
#endif
