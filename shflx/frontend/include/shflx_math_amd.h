// shflx: CUDA's single-precision math library on AMD targets, with no device library to link
// (no pip wheel ships ROCm's ocml). Where LLVM's AMDGPU backend expands an intrinsic to an
// accurate sequence (exp, exp2, exp10, log10, sqrt, ldexp, rint, fma) the function is
// that intrinsic; the rest are short functions here, written to meet the ULP bounds of the CUDA C
// Programming Guide ("Mathematical Functions"); docs/cuda-layer.md states each bound and the
// error measured on the emulator. Double-precision transcendentals are not provided (the
// declarations at the end name them). fp contraction is off inside: the algorithms below place
// their fmas themselves.
#pragma once
#pragma clang fp contract(off)

// ------------------------------------------------------------------ internal double helpers
// exp(t) and log(x) in double to about 2^-47 relative: the working precision of the float
// functions below (their results round to float, 24 bits).
__device__ __forceinline__ double __shflx_exp_d(double t) {
  if (t > 709.0) return __builtin_inf();
  if (t < -745.0) return 0.0;
  double n = __builtin_rint(t * 1.4426950408889634);
  double r = __builtin_fma(n, -6.93147180369123816490e-01, t);   // ln2 in two parts (fdlibm)
  r = __builtin_fma(n, -1.90821492927058770002e-10, r);            // |r| <= 0.35
  double p = 1.0 / 479001600.0;                                      // Taylor to r^12 / 12!
  p = __builtin_fma(p, r, 1.0 / 39916800.0);
  p = __builtin_fma(p, r, 1.0 / 3628800.0);
  p = __builtin_fma(p, r, 1.0 / 362880.0);
  p = __builtin_fma(p, r, 1.0 / 40320.0);
  p = __builtin_fma(p, r, 1.0 / 5040.0);
  p = __builtin_fma(p, r, 1.0 / 720.0);
  p = __builtin_fma(p, r, 1.0 / 120.0);
  p = __builtin_fma(p, r, 1.0 / 24.0);
  p = __builtin_fma(p, r, 1.0 / 6.0);
  p = __builtin_fma(p, r, 0.5);
  p = __builtin_fma(p, r, 1.0);
  p = __builtin_fma(p, r, 1.0);
  return __builtin_ldexp(p, (int)n);
}
// log(x) for finite x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s),
// s = (m - 1) / (m + 1), |s| <= 0.1716, the odd series to s^19.
__device__ __forceinline__ double __shflx_log_d(double x) {
  int e;
  double m = __builtin_frexp(x, &e);           // [0.5, 1)
  if (m < 0.70710678118654752) { m *= 2.0; e -= 1; }
  double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  double p = 1.0 / 19;
  p = __builtin_fma(p, s2, 1.0 / 17);
  p = __builtin_fma(p, s2, 1.0 / 15);
  p = __builtin_fma(p, s2, 1.0 / 13);
  p = __builtin_fma(p, s2, 1.0 / 11);
  p = __builtin_fma(p, s2, 1.0 / 9);
  p = __builtin_fma(p, s2, 1.0 / 7);
  p = __builtin_fma(p, s2, 1.0 / 5);
  p = __builtin_fma(p, s2, 1.0 / 3);
  double lm = 2.0 * s + 2.0 * s * s2 * p;
  return __builtin_fma((double)e, 6.93147180369123816490e-01, __builtin_fma((double)e, 1.90821492927058770002e-10, lm));
}

// ------------------------------------------------------------------ exp / log (intrinsics)
__device__ __forceinline__ float expf(float x) { return __builtin_expf(x); }
__device__ __forceinline__ float exp2f(float x) { return __builtin_exp2f(x); }
__device__ __forceinline__ float exp10f(float x) { return __builtin_exp10f(x); }
// logf/log2f: CUDA's bound is 1 ulp, which LLVM's expansion over v_log_f32 misses (1.6 ulp
// measured); the double helper rounds once.
__device__ __forceinline__ float __shflx_log_special(float x) {
  return x == 0.0f ? -__builtin_inff() : (x < 0.0f || x != x) ? __builtin_nanf("") : x;   // x: +inf
}
__device__ __forceinline__ float logf(float x) {
  if (!(x > 0.0f) || __builtin_isinf(x)) return __shflx_log_special(x);
  return (float)__shflx_log_d((double)x);
}
__device__ __forceinline__ float log2f(float x) {
  if (!(x > 0.0f) || __builtin_isinf(x)) return __shflx_log_special(x);
  return (float)(__shflx_log_d((double)x) * 1.4426950408889634);
}
__device__ __forceinline__ float log10f(float x) { return __builtin_log10f(x); }
__device__ __forceinline__ float __expf(float x) { return __builtin_expf(x); }
__device__ __forceinline__ float __exp10f(float x) { return __builtin_exp10f(x); }
__device__ __forceinline__ float __logf(float x) { return __builtin_logf(x); }
__device__ __forceinline__ float __log2f(float x) { return __builtin_log2f(x); }
__device__ __forceinline__ float __log10f(float x) { return __builtin_log10f(x); }
__device__ __forceinline__ float expm1f(float x) {
  if (__builtin_fabsf(x) < 0x1p-10f) { double d = x; return (float)(d + d * d * (0.5 + d / 6.0)); }
  if (x > 89.0f) return __builtin_inff();
  return (float)(__shflx_exp_d((double)x) - 1.0);
}
__device__ __forceinline__ float log1pf(float x) {
  if (__builtin_fabsf(x) < 0x1p-10f) { double d = x; return (float)(d - d * d * (0.5 - d * (1.0 / 3 - d * 0.25))); }
  if (!(x > -1.0f) || __builtin_isinf(x)) return x == -1.0f ? -__builtin_inff() : (x > 0 ? x : __builtin_nanf(""));
  return (float)__shflx_log_d(1.0 + (double)x);
}

// ------------------------------------------------------------------ powf
// C99 Annex F special cases, else exp(y log|x|) in double (|y log x| < 2^8 when finite, so the
// double product keeps 2^-44 relative), the sign from x < 0 with an odd integer y.
__device__ __forceinline__ float powf(float x, float y) {
  if (y == 0.0f || x == 1.0f) return 1.0f;
  if (x != x || y != y) return x + y;
  bool yint = __builtin_truncf(y) == y, yodd = yint && __builtin_fabsf(y) < 0x1p24f &&
              ((long long)y & 1);
  float ax = __builtin_fabsf(x);
  if (__builtin_isinf(y)) {
    if (ax == 1.0f) return 1.0f;
    return (ax > 1.0f) == (y > 0.0f) ? __builtin_inff() : 0.0f;
  }
  if (x == 0.0f || __builtin_isinf(x)) {
    bool big = (x == 0.0f) == (y < 0.0f);          // 0^-y and inf^+y are infinite
    float r = big ? __builtin_inff() : 0.0f;
    return yodd && __builtin_signbit(x) ? -r : r;
  }
  if (x < 0.0f && !yint) return __builtin_nanf("");
  float r = (float)__shflx_exp_d((double)y * __shflx_log_d((double)ax));
  return x < 0.0f && yodd ? -r : r;
}
__device__ __forceinline__ float __powf(float x, float y) { return powf(x, y); }

// ------------------------------------------------------------------ sin / cos / tan
// Reduction to r in [-pi/4, pi/4] and a quadrant: Cody-Waite with three parts of pi/2 for
// |x| <= 105615 (the first part has trailing zeros, so x - j c1 is exact), else Payne-Hanek
// over 2/pi's bits (a 96-bit window times the 24-bit significand, in integers).
__device__ __forceinline__ float __shflx_trig_reduce(float x, int *q) {
  if (__builtin_fabsf(x) <= 105615.0f) {
    float j = __builtin_rintf(x * 0.636619772f);
    float r = __builtin_fmaf(j, -1.57079601e+00f, x);
    r = __builtin_fmaf(j, -3.13916473e-07f, r);
    r = __builtin_fmaf(j, -5.39030295e-15f, r);
    *q = (int)j;
    return r;
  }
  // 2/pi = 0.a2f9836e 4e441529 fc2757d1 ... (hex fraction), 32 bits a word
  const unsigned W[8] = {0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u,
                         0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u};
  unsigned u = __builtin_bit_cast(unsigned, x) & 0x7fffffffu;
  int ex = (int)(u >> 23) - 150;                   // |x| = M 2^ex, ex >= -7 here
  unsigned long long M = (u & 0x7fffffu) | 0x800000u;
  int k0 = ex - 1 < 1 ? 1 : ex - 1;                // first bit of 2/pi that matters mod 4
  int w = (k0 - 1) >> 5, o = (k0 - 1) & 31;
  unsigned long long a = ((unsigned long long)W[w] << 32) | W[w + 1];
  unsigned long long b = ((unsigned long long)W[w + 2] << 32) | W[w + 3];
  unsigned long long top = o ? (a << o) | (b >> (64 - o)) : a;      // bits k0 .. k0+63
  unsigned long long c0 = (o ? (b << o) : b) >> 32;                  // bits k0+64 .. k0+95
  unsigned long long c2 = top >> 32, c1 = top & 0xffffffffu;
  // P = M * C (C = c2 c1 c0, 96 bits), 120 bits as (hi, lo)
  unsigned long long p0 = M * c0, p1 = M * c1, p2 = M * c2;
  unsigned long long lo = p0 + (p1 << 32);
  unsigned long long carry = lo < p0;
  unsigned long long hi = p2 + (p1 >> 32) + carry;
  int s = k0 + 95 - ex;                            // x * 2/pi = P / 2^s (mod 4)
  int t = s - 62;                                  // Q = P >> t: 2 integer bits, 62 fraction bits
  unsigned long long Q = (hi << (64 - t)) | (lo >> t);
  int quad = (int)(Q >> 62);
  long long f = (long long)(Q & 0x3fffffffffffffffull);
  if (f >= (1ll << 61)) { f -= (1ll << 62); quad += 1; }
  double r = (double)f * (1.5707963267948966 / 4611686018427387904.0);   // f 2^-62 pi/2
  if (x < 0.0f) { r = -r; quad = -quad; }
  *q = quad;
  return (float)r;
}
// Cephes sinf/cosf polynomials on [-pi/4, pi/4]
__device__ __forceinline__ float __shflx_sin_poly(float r) {
  float s = r * r, z = -1.95152959e-4f;
  z = __builtin_fmaf(z, s, 8.33216087e-3f);
  z = __builtin_fmaf(z, s, -1.66666546e-1f);
  return __builtin_fmaf(z * s, r, r);
}
__device__ __forceinline__ float __shflx_cos_poly(float r) {
  float s = r * r, z = 2.44331571e-5f;
  z = __builtin_fmaf(z, s, -1.38873163e-3f);
  z = __builtin_fmaf(z, s, 4.16666457e-2f);
  z = __builtin_fmaf(z, s, -0.5f);
  return __builtin_fmaf(z, s, 1.0f);
}
__device__ __forceinline__ void sincosf(float x, float *sp, float *cp) {
  if (__builtin_isinf(x) || x != x) { *sp = *cp = __builtin_nanf(""); return; }
  int q;
  float r = __shflx_trig_reduce(x, &q);
  float s = __shflx_sin_poly(r), c = __shflx_cos_poly(r);
  float sv = (q & 1) ? c : s, cv = (q & 1) ? s : c;
  *sp = (q & 2) ? -sv : sv;
  *cp = ((q + 1) & 2) ? -cv : cv;
  if (x == 0.0f) *sp = x;                       // sin(-0) = -0
}
__device__ __forceinline__ float sinf(float x) { float s, c; sincosf(x, &s, &c); return s; }
__device__ __forceinline__ float cosf(float x) { float s, c; sincosf(x, &s, &c); return c; }
__device__ __forceinline__ float tanf(float x) {        // sin / cos in double: one rounding at the end
  if (__builtin_isinf(x) || x != x) return __builtin_nanf("");
  int q;
  double r = __shflx_trig_reduce(x, &q);
  double s2 = r * r;                                  // tan on [-pi/4, pi/4] as sin / cos (Taylor, double)
  double sn = r * (1.0 + s2 * (-1.0 / 6 + s2 * (1.0 / 120 + s2 * (-1.0 / 5040 + s2 * (1.0 / 362880 + s2 * (-1.0 / 39916800))))));
  double cs = 1.0 + s2 * (-0.5 + s2 * (1.0 / 24 + s2 * (-1.0 / 720 + s2 * (1.0 / 40320 + s2 * (-1.0 / 3628800 + s2 / 479001600.0)))));
  float t = (float)((q & 1) ? -cs / sn : sn / cs);
  return x == 0.0f ? x : t;
}
__device__ __forceinline__ float __sinf(float x) { return sinf(x); }
__device__ __forceinline__ float __cosf(float x) { return cosf(x); }
__device__ __forceinline__ float __tanf(float x) { return tanf(x); }
__device__ __forceinline__ void __sincosf(float x, float *s, float *c) { sincosf(x, s, c); }

// ------------------------------------------------------------------ hyperbolic, erf
__device__ __forceinline__ float tanhf(float x) {
  double a = __builtin_fabs((double)x);
  if (x != x) return x;
  if (a > 9.1) return __builtin_copysignf(1.0f, x);
  double t;
  if (a < 0.0625) { double s = a * a; t = a + a * s * (-1.0 / 3 + s * (2.0 / 15 + s * (-17.0 / 315))); }
  else { double e = __shflx_exp_d(-2.0 * a); t = (1.0 - e) / (1.0 + e); }
  return __builtin_copysignf((float)t, x);
}
// __tanhf, CUDA's fast tanh (tanh.approx.f32, relative error 2^-10.987): tanhf, well within it
__device__ __forceinline__ float __tanhf(float x) { return tanhf(x); }
__device__ __forceinline__ float sinhf(float x) {
  double a = __builtin_fabs((double)x);
  if (x != x || __builtin_isinf(x)) return x;
  double t;
  if (a < 0.0625) { double s = a * a; t = a + a * s * (1.0 / 6 + s * (1.0 / 120 + s / 5040.0)); }
  else { double e = __shflx_exp_d(a); t = 0.5 * (e - 1.0 / e); }
  return __builtin_copysignf((float)t, x);
}
__device__ __forceinline__ float coshf(float x) {
  if (x != x) return x;
  double e = __shflx_exp_d(__builtin_fabs((double)x));
  return (float)(0.5 * (e + 1.0 / e));
}
// erf(x) = 2x/sqrt(pi) e^{-x^2} sum_n (2x^2)^n / (1 3 5 ... (2n+1)): positive terms, no
// cancellation; |x| >= 4 rounds to +-1 in float.
__device__ __forceinline__ float erff(float x) {
  if (x != x) return x;
  double a = __builtin_fabs((double)x);
  if (a >= 4.0) return __builtin_copysignf(1.0f, x);
  double a2 = 2.0 * a * a, term = 1.0, sum = 1.0;
  for (int n = 0; n < 120 && term > sum * 0x1p-56; ++n) {
    term *= a2 / (2 * n + 3);
    sum += term;
  }
  double r = 1.1283791670955126 * a * __shflx_exp_d(-a * a) * sum;
  return __builtin_copysignf((float)r, x);
}

// ------------------------------------------------------------------ roots, divisions, rounding
__device__ __forceinline__ double rsqrt(double x) { return 1.0 / __builtin_sqrt(x); }
// __frsqrt_rn: 1/sqrt(x) correctly rounded. A candidate from double, then each neighbouring
// midpoint m is tested exactly: 1/sqrt(x) < m  <=>  x m^2 > 1, where m^2 is exact in double
// (25-bit m) and fma gives the sign of x m^2 - 1 with one rounding.
__device__ __forceinline__ float __frsqrt_rn(float x) {
  if (!(x > 0.0f) || __builtin_isinf(x)) {
    return x == 0.0f ? __builtin_copysignf(__builtin_inff(), x) : x != x || x < 0.0f ? __builtin_nanf("") : 0.0f;
  }
  float y = (float)(1.0 / __builtin_sqrt((double)x));
  float up = __builtin_bit_cast(float, __builtin_bit_cast(unsigned, y) + 1u);
  float dn = __builtin_bit_cast(float, __builtin_bit_cast(unsigned, y) - 1u);
  double mh = ((double)y + (double)up) * 0.5, ml = ((double)y + (double)dn) * 0.5;
  double xd = x;
  double eh = __builtin_fma(xd, mh * mh, -1.0), el = __builtin_fma(xd, ml * ml, -1.0);
  if (eh < 0.0 || (eh == 0.0 && (__builtin_bit_cast(unsigned, y) & 1u))) return up;    // value >= mh
  if (el > 0.0 || (el == 0.0 && (__builtin_bit_cast(unsigned, y) & 1u))) return dn;    // value <= ml
  return y;
}
__device__ __forceinline__ float __fsqrt_rn(float x) { return __builtin_sqrtf(x); }
__device__ __forceinline__ double __dsqrt_rn(double x) { return __builtin_sqrt(x); }
__device__ __forceinline__ float cbrtf(float x) {         // Newton in double from a float guess
  if (x == 0.0f || x != x || __builtin_isinf(x)) return x;
  double a = __builtin_fabs((double)x), y = (double)__builtin_exp2f(__builtin_log2f((float)a) / 3.0f);
  for (int i = 0; i < 3; ++i) y = y - (y * y * y - a) / (3.0 * y * y);
  return __builtin_copysignf((float)y, x);
}
__device__ __forceinline__ float __fdiv_rn(float a, float b) { return a / b; }
__device__ __forceinline__ double __drcp_rn(double a) { return 1.0 / a; }
__device__ __forceinline__ double __ddiv_rn(double a, double b) { return a / b; }
__device__ __forceinline__ float __fadd_rn(float a, float b) { return a + b; }
__device__ __forceinline__ float __fsub_rn(float a, float b) { return a - b; }
__device__ __forceinline__ float __fmul_rn(float a, float b) { return a * b; }
__device__ __forceinline__ float __fmaf_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__device__ __forceinline__ float __fmaf_ieee_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__device__ __forceinline__ double __dadd_rn(double a, double b) { return a + b; }
__device__ __forceinline__ double __dmul_rn(double a, double b) { return a * b; }
__device__ __forceinline__ double __fma_rn(double a, double b, double c) { return __builtin_fma(a, b, c); }
__device__ __forceinline__ double __dsub_rn(double a, double b) { return a - b; }
// The directed roundings (_rz, _ru, _rd): AMD's backend sets no rounding mode per instruction, so
// each is a function shflx defines in the module (shflx/ir/directed.py: the nearest result stepped
// by the sign of its exact error, bit-exact), the same that libdevice's and inline PTX's .rz/.rm/.rp
// forms call. CUDA's _ru is toward +inf (rp), _rd toward -inf (rm).
#define __SHFLX_DIRECTED(T, OP, SFX, ...)                                                        \
  extern "C" __device__ T __shflx_directed_##OP##_rz_##SFX(__VA_ARGS__);                         \
  extern "C" __device__ T __shflx_directed_##OP##_rp_##SFX(__VA_ARGS__);                         \
  extern "C" __device__ T __shflx_directed_##OP##_rm_##SFX(__VA_ARGS__);
__SHFLX_DIRECTED(float, add, f32, float, float) __SHFLX_DIRECTED(float, sub, f32, float, float)
__SHFLX_DIRECTED(float, mul, f32, float, float) __SHFLX_DIRECTED(float, div, f32, float, float)
__SHFLX_DIRECTED(float, fma, f32, float, float, float) __SHFLX_DIRECTED(float, rcp, f32, float)
__SHFLX_DIRECTED(float, sqrt, f32, float)
__SHFLX_DIRECTED(double, add, f64, double, double) __SHFLX_DIRECTED(double, sub, f64, double, double)
__SHFLX_DIRECTED(double, mul, f64, double, double) __SHFLX_DIRECTED(double, div, f64, double, double)
__SHFLX_DIRECTED(double, rcp, f64, double) __SHFLX_DIRECTED(double, sqrt, f64, double)
__SHFLX_DIRECTED(double, fma, f64, double, double, double)
__SHFLX_DIRECTED(float, d2f, f32, double)
#undef __SHFLX_DIRECTED
#define __SHFLX_DIRECTED_FNS(M, CM)                                                              \
  __device__ __forceinline__ float __fadd_##CM(float a, float b) { return __shflx_directed_add_##M##_f32(a, b); } \
  __device__ __forceinline__ float __fsub_##CM(float a, float b) { return __shflx_directed_sub_##M##_f32(a, b); } \
  __device__ __forceinline__ float __fmul_##CM(float a, float b) { return __shflx_directed_mul_##M##_f32(a, b); } \
  __device__ __forceinline__ float __fdiv_##CM(float a, float b) { return __shflx_directed_div_##M##_f32(a, b); } \
  __device__ __forceinline__ float __fmaf_##CM(float a, float b, float c) { return __shflx_directed_fma_##M##_f32(a, b, c); } \
  __device__ __forceinline__ float __fmaf_ieee_##CM(float a, float b, float c) { return __shflx_directed_fma_##M##_f32(a, b, c); } \
  __device__ __forceinline__ float __frcp_##CM(float a) { return __shflx_directed_rcp_##M##_f32(a); } \
  __device__ __forceinline__ float __fsqrt_##CM(float a) { return __shflx_directed_sqrt_##M##_f32(a); } \
  __device__ __forceinline__ double __dadd_##CM(double a, double b) { return __shflx_directed_add_##M##_f64(a, b); } \
  __device__ __forceinline__ double __dsub_##CM(double a, double b) { return __shflx_directed_sub_##M##_f64(a, b); } \
  __device__ __forceinline__ double __dmul_##CM(double a, double b) { return __shflx_directed_mul_##M##_f64(a, b); } \
  __device__ __forceinline__ double __ddiv_##CM(double a, double b) { return __shflx_directed_div_##M##_f64(a, b); } \
  __device__ __forceinline__ double __drcp_##CM(double a) { return __shflx_directed_rcp_##M##_f64(a); } \
  __device__ __forceinline__ double __dsqrt_##CM(double a) { return __shflx_directed_sqrt_##M##_f64(a); } \
  __device__ __forceinline__ float __double2float_##CM(double a) { return __shflx_directed_d2f_##M##_f32(a); } \
  __device__ __forceinline__ double __fma_##CM(double a, double b, double c) { return __shflx_directed_fma_##M##_f64(a, b, c); }
__SHFLX_DIRECTED_FNS(rz, rz) __SHFLX_DIRECTED_FNS(rp, ru) __SHFLX_DIRECTED_FNS(rm, rd)
#undef __SHFLX_DIRECTED_FNS
__device__ __forceinline__ float ldexpf(float x, int e) { return __builtin_ldexpf(x, e); }
__device__ __forceinline__ float frexpf(float x, int *e) { return __builtin_frexpf(x, e); }
__device__ __forceinline__ float rintf(float x) { return __builtin_rintf(x); }
__device__ __forceinline__ float nearbyintf(float x) { return __builtin_rintf(x); }
__device__ __forceinline__ float copysignf(float a, float b) { return __builtin_copysignf(a, b); }
__device__ __forceinline__ float fmodf(float a, float b) { return __builtin_fmodf(a, b); }
__device__ __forceinline__ float fdimf(float a, float b) { return a > b ? a - b : (a != a || b != b) ? a + b : 0.0f; }
__device__ __forceinline__ double floor(double x) { return __builtin_floor(x); }
__device__ __forceinline__ double ceil(double x) { return __builtin_ceil(x); }
__device__ __forceinline__ double trunc(double x) { return __builtin_trunc(x); }
__device__ __forceinline__ double round(double x) { return __builtin_round(x); }
__device__ __forceinline__ double rint(double x) { return __builtin_rint(x); }
__device__ __forceinline__ double ldexp(double x, int e) { return __builtin_ldexp(x, e); }
__device__ __forceinline__ double copysign(double a, double b) { return __builtin_copysign(a, b); }

// ------------------------------------------------------------------ float overloads (<cmath>)
// CUDA declares the float overloads of the C names for device code; libc++'s `using ::exp` in
// <cmath> brings them into std (this header comes first), so std::exp(float) works too.
#define __SHFLX_F1(NAME, F) __device__ __forceinline__ float NAME(float x) { return F(x); }
__SHFLX_F1(exp, expf) __SHFLX_F1(exp2, exp2f) __SHFLX_F1(exp10, exp10f) __SHFLX_F1(expm1, expm1f)
__SHFLX_F1(log, logf) __SHFLX_F1(log2, log2f) __SHFLX_F1(log10, log10f) __SHFLX_F1(log1p, log1pf)
__SHFLX_F1(sin, sinf) __SHFLX_F1(cos, cosf) __SHFLX_F1(tan, tanf) __SHFLX_F1(sinh, sinhf)
__SHFLX_F1(cosh, coshf) __SHFLX_F1(tanh, tanhf) __SHFLX_F1(erf, erff) __SHFLX_F1(sqrt, __builtin_sqrtf)
__SHFLX_F1(rsqrt, rsqrtf) __SHFLX_F1(cbrt, cbrtf) __SHFLX_F1(fabs, __builtin_fabsf) __SHFLX_F1(floor, __builtin_floorf)
__SHFLX_F1(ceil, __builtin_ceilf) __SHFLX_F1(trunc, __builtin_truncf) __SHFLX_F1(round, __builtin_roundf)
__SHFLX_F1(rint, __builtin_rintf)
#undef __SHFLX_F1
__device__ __forceinline__ float pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__device__ __forceinline__ float fmin(float a, float b) { return __builtin_fminf(a, b); }
__device__ __forceinline__ float fmax(float a, float b) { return __builtin_fmaxf(a, b); }
__device__ __forceinline__ float fmod(float a, float b) { return __builtin_fmodf(a, b); }
__device__ __forceinline__ float ldexp(float x, int e) { return __builtin_ldexpf(x, e); }
__device__ __forceinline__ float copysign(float a, float b) { return __builtin_copysignf(a, b); }
#if defined(__SHFLX_LIBDEVICE)
// Double precision: NVIDIA's own libdevice functions (__nv_*), retargeted to AMDGPU and linked
// into the module by shflx (codegen/libdevice.py), where the nvcc wheel or a toolkit has them.
#define __SHFLX_NV_D1(NAME) extern "C" __device__ double __nv_##NAME(double); \
  __device__ __forceinline__ double NAME(double x) { return __nv_##NAME(x); }
#define __SHFLX_NV_D2(NAME) extern "C" __device__ double __nv_##NAME(double, double); \
  __device__ __forceinline__ double NAME(double x, double y) { return __nv_##NAME(x, y); }
__SHFLX_NV_D1(exp) __SHFLX_NV_D1(exp2) __SHFLX_NV_D1(exp10) __SHFLX_NV_D1(expm1) __SHFLX_NV_D1(log)
__SHFLX_NV_D1(log2) __SHFLX_NV_D1(log10) __SHFLX_NV_D1(log1p) __SHFLX_NV_D1(sin) __SHFLX_NV_D1(cos)
__SHFLX_NV_D1(tan) __SHFLX_NV_D1(sinh) __SHFLX_NV_D1(cosh) __SHFLX_NV_D1(tanh) __SHFLX_NV_D1(asin)
__SHFLX_NV_D1(acos) __SHFLX_NV_D1(atan) __SHFLX_NV_D1(asinh) __SHFLX_NV_D1(acosh) __SHFLX_NV_D1(atanh)
__SHFLX_NV_D1(erf) __SHFLX_NV_D1(erfc) __SHFLX_NV_D1(erfinv) __SHFLX_NV_D1(erfcinv) __SHFLX_NV_D1(erfcx)
__SHFLX_NV_D1(cbrt) __SHFLX_NV_D1(rcbrt) __SHFLX_NV_D1(lgamma) __SHFLX_NV_D1(tgamma) __SHFLX_NV_D1(sinpi)
__SHFLX_NV_D1(cospi) __SHFLX_NV_D1(normcdf) __SHFLX_NV_D1(normcdfinv) __SHFLX_NV_D1(logb)
__SHFLX_NV_D2(pow) __SHFLX_NV_D2(atan2) __SHFLX_NV_D2(hypot) __SHFLX_NV_D2(fmod) __SHFLX_NV_D2(remainder)
__SHFLX_NV_D2(fdim)
extern "C" __device__ void __nv_sincos(double, double *, double *);
__device__ __forceinline__ void sincos(double x, double *s, double *c) { __nv_sincos(x, s, c); }
extern "C" __device__ void __nv_sincospi(double, double *, double *);
__device__ __forceinline__ void sincospi(double x, double *s, double *c) { __nv_sincospi(x, s, c); }
extern "C" __device__ void __nv_sincospif(float, float *, float *);
__device__ __forceinline__ void sincospif(float x, float *s, float *c) { __nv_sincospif(x, s, c); }
__device__ __forceinline__ void sincospi(float x, float *s, float *c) { __nv_sincospif(x, s, c); }
// single-precision functions the layer does not write itself, with their std:: float overloads
#define __SHFLX_NV_F1(NAME) extern "C" __device__ float __nv_##NAME##f(float); \
  __device__ __forceinline__ float NAME##f(float x) { return __nv_##NAME##f(x); } \
  __device__ __forceinline__ float NAME(float x) { return __nv_##NAME##f(x); }
#define __SHFLX_NV_F2(NAME) extern "C" __device__ float __nv_##NAME##f(float, float); \
  __device__ __forceinline__ float NAME##f(float x, float y) { return __nv_##NAME##f(x, y); } \
  __device__ __forceinline__ float NAME(float x, float y) { return __nv_##NAME##f(x, y); }
__SHFLX_NV_F1(asin) __SHFLX_NV_F1(acos) __SHFLX_NV_F1(atan) __SHFLX_NV_F1(erfc) __SHFLX_NV_F1(erfinv)
__SHFLX_NV_F1(erfcinv) __SHFLX_NV_F1(normcdf) __SHFLX_NV_F1(normcdfinv) __SHFLX_NV_F1(lgamma)
__SHFLX_NV_F1(tgamma) __SHFLX_NV_F1(sinpi) __SHFLX_NV_F1(cospi) __SHFLX_NV_F1(rcbrt) __SHFLX_NV_F1(logb)
__SHFLX_NV_F2(atan2) __SHFLX_NV_F2(hypot) __SHFLX_NV_F2(nextafter)
// the rest of CUDA's math API (crt/math_functions.h), each NVIDIA's libdevice function of its name;
// the C++ float overloads are those crt/math_functions.hpp gives
__SHFLX_NV_F1(acosh) __SHFLX_NV_F1(asinh) __SHFLX_NV_F1(atanh) __SHFLX_NV_F1(cyl_bessel_i0)
__SHFLX_NV_F1(cyl_bessel_i1) __SHFLX_NV_F1(erfcx) __SHFLX_NV_F1(j0) __SHFLX_NV_F1(j1) __SHFLX_NV_F1(y0)
__SHFLX_NV_F1(y1) __SHFLX_NV_F2(rhypot) __SHFLX_NV_F2(remainder)
__SHFLX_NV_D1(cyl_bessel_i0) __SHFLX_NV_D1(cyl_bessel_i1) __SHFLX_NV_D1(j0) __SHFLX_NV_D1(j1) __SHFLX_NV_D1(y0)
__SHFLX_NV_D1(y1) __SHFLX_NV_D1(nearbyint) __SHFLX_NV_D2(rhypot)
#define __SHFLX_NV(R, NAME, PARAMS, ARGS) extern "C" __device__ R __nv_##NAME PARAMS; \
  __device__ __forceinline__ R NAME PARAMS { return __nv_##NAME ARGS; }
#define __SHFLX_NV_OVERLOAD(R, NAME, NV, PARAMS, ARGS) __device__ __forceinline__ R NAME PARAMS { return __nv_##NV ARGS; }
__SHFLX_NV(double, jn, (int n, double x), (n, x)) __SHFLX_NV(double, yn, (int n, double x), (n, x))
__SHFLX_NV(float, jnf, (int n, float x), (n, x)) __SHFLX_NV(float, ynf, (int n, float x), (n, x))
__SHFLX_NV(int, ilogb, (double x), (x)) __SHFLX_NV(int, ilogbf, (float x), (x))
__SHFLX_NV_OVERLOAD(int, ilogb, ilogbf, (float x), (x))
__SHFLX_NV(long long, llrint, (double x), (x)) __SHFLX_NV(long long, llrintf, (float x), (x))
__SHFLX_NV(long long, llround, (double x), (x)) __SHFLX_NV(long long, llroundf, (float x), (x))
__SHFLX_NV_OVERLOAD(long long, llrint, llrintf, (float x), (x))
__SHFLX_NV_OVERLOAD(long long, llround, llroundf, (float x), (x))
// long is 64 bits on AMDGPU as on the host (LP64): lrint is llrint (NaN and out of range saturate
// as PTX's cvt does, where a C++ cast would be undefined)
__SHFLX_NV_OVERLOAD(long, lrint, llrint, (double x), (x)) __SHFLX_NV_OVERLOAD(long, lrintf, llrintf, (float x), (x))
__SHFLX_NV_OVERLOAD(long, lround, llround, (double x), (x)) __SHFLX_NV_OVERLOAD(long, lroundf, llroundf, (float x), (x))
__SHFLX_NV_OVERLOAD(long, lrint, llrintf, (float x), (x)) __SHFLX_NV_OVERLOAD(long, lround, llroundf, (float x), (x))
__SHFLX_NV(double, modf, (double x, double *i), (x, i)) __SHFLX_NV(float, modff, (float x, float *i), (x, i))
__SHFLX_NV_OVERLOAD(float, modf, modff, (float x, float *i), (x, i))
__SHFLX_NV(double, frexp, (double x, int *e), (x, e))
__device__ __forceinline__ float frexp(float x, int *e) { return frexpf(x, e); }
__device__ __forceinline__ float nearbyint(float x) { return nearbyintf(x); }
__SHFLX_NV(double, nan, (const char *tag), (tag)) __SHFLX_NV(float, nanf, (const char *tag), (tag))
__SHFLX_NV(double, norm3d, (double a, double b, double c), (a, b, c))
__SHFLX_NV(double, rnorm3d, (double a, double b, double c), (a, b, c))
__SHFLX_NV(float, norm3df, (float a, float b, float c), (a, b, c))
__SHFLX_NV(float, rnorm3df, (float a, float b, float c), (a, b, c))
__SHFLX_NV(double, norm4d, (double a, double b, double c, double d), (a, b, c, d))
__SHFLX_NV(double, rnorm4d, (double a, double b, double c, double d), (a, b, c, d))
__SHFLX_NV(float, norm4df, (float a, float b, float c, float d), (a, b, c, d))
__SHFLX_NV(float, rnorm4df, (float a, float b, float c, float d), (a, b, c, d))
__SHFLX_NV(double, norm, (int n, const double *t), (n, t)) __SHFLX_NV(double, rnorm, (int n, const double *t), (n, t))
__SHFLX_NV(float, normf, (int n, const float *t), (n, t)) __SHFLX_NV(float, rnormf, (int n, const float *t), (n, t))
__SHFLX_NV(double, remquo, (double x, double y, int *q), (x, y, q))
__SHFLX_NV(float, remquof, (float x, float y, int *q), (x, y, q))
__SHFLX_NV_OVERLOAD(float, remquo, remquof, (float x, float y, int *q), (x, y, q))
__SHFLX_NV(double, scalbn, (double x, int n), (x, n)) __SHFLX_NV(float, scalbnf, (float x, int n), (x, n))
__SHFLX_NV_OVERLOAD(float, scalbn, scalbnf, (float x, int n), (x, n))
// scalbln: an exponent beyond int's range over- or underflows as INT_MAX / INT_MIN does
__device__ __forceinline__ double scalbln(double x, long n) {
  return __nv_scalbn(x, n > 2147483647L ? 2147483647 : n < -2147483647L - 1 ? -2147483647 - 1 : (int)n); }
__device__ __forceinline__ float scalblnf(float x, long n) {
  return __nv_scalbnf(x, n > 2147483647L ? 2147483647 : n < -2147483647L - 1 ? -2147483647 - 1 : (int)n); }
__device__ __forceinline__ float scalbln(float x, long n) { return scalblnf(x, n); }
// Apple's names, which clang's CUDA headers give every sm_NN too
__SHFLX_NV(int, __isfinited, (double x), (x)) __SHFLX_NV(int, __signbitd, (double x), (x))
#undef __SHFLX_NV
#undef __SHFLX_NV_OVERLOAD
#undef __SHFLX_NV_F1
#undef __SHFLX_NV_F2
#undef __SHFLX_NV_D1
#undef __SHFLX_NV_D2
#else
// Double-precision transcendentals without NVIDIA's libdevice (the nvcc wheel of shflx's cuda
// extra): a call names itself.
#define __SHFLX_NO_D1(NAME) __device__ double NAME(double) __shflx_unsupported(#NAME "(double) without NVIDIA's libdevice (install shflx's cuda extra)");
__SHFLX_NO_D1(exp2) __SHFLX_NO_D1(exp10) __SHFLX_NO_D1(expm1) __SHFLX_NO_D1(log2) __SHFLX_NO_D1(log10)
__SHFLX_NO_D1(log1p) __SHFLX_NO_D1(sin) __SHFLX_NO_D1(cos) __SHFLX_NO_D1(tan) __SHFLX_NO_D1(sinh)
__SHFLX_NO_D1(cosh) __SHFLX_NO_D1(tanh) __SHFLX_NO_D1(erf) __SHFLX_NO_D1(cbrt) __SHFLX_NO_D1(exp) __SHFLX_NO_D1(log)
#undef __SHFLX_NO_D1
__device__ double pow(double, double) __shflx_unsupported("pow(double) without NVIDIA's libdevice (install shflx's cuda extra)");
#define __SHFLX_NO_LIBDEVICE(NAME) __shflx_unsupported(#NAME " without NVIDIA's libdevice (install shflx's cuda extra)")
__device__ long lrintf(float) __SHFLX_NO_LIBDEVICE(lrintf);
__device__ long lroundf(float) __SHFLX_NO_LIBDEVICE(lroundf);
#undef __SHFLX_NO_LIBDEVICE
#endif

// the mode the device code is compiled with again (clang's float_control pop does not restore it)
#if __SHFLX_FP_CONTRACT_MODE == 2
#pragma clang fp contract(fast)
#elif __SHFLX_FP_CONTRACT_MODE == 0
#pragma clang fp contract(off)
#else
#pragma clang fp contract(on)
#endif
