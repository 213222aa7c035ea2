"""CUDA's __half and __nv_bfloat16 (the shflx CUDA layer's classes) on each AMD device (the GPU,
else the emulator of shared/amdemu), bit for bit against a reference written here from the IEEE
definitions: the exact result as a Fraction, rounded to the format's grid (nearest even, or
toward zero / +inf / -inf), with no float arithmetic of the code under test. Inputs keep results
normal (the emulator flushes denormals).

  pytest hw_tests/amd/test_cuda_fp16_hw.py"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
import pytest

from hw_devices import code_object, assert_bit_exact, device_params, require

SOURCE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void half_ops(const unsigned short *a, const unsigned short *b, const unsigned short *c,
                                    const float *f, unsigned short *out, int op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]), z = __ushort_as_half(c[i]), r;
  switch (op) {
    case 0: r = __hadd(x, y); break;   case 1: r = x - y; break;          case 2: r = x * y; break;
    case 3: r = __hdiv(x, y); break;   case 4: r = __hfma(x, y, z); break; case 5: r = __float2half(f[i]); break;
    case 6: r = __float2half_rz(f[i]); break; case 7: r = __float2half_ru(f[i]); break;
    case 8: r = __float2half_rd(f[i]); break; case 9: r = __hmax(x, y); break;
    case 10: r = __low2half(__hfma2(__halves2half2(x, y), __halves2half2(y, x), __halves2half2(z, z))); break;
    case 11: r = __shfl_xor_sync(0xffffffffu, x, 5); break;
    case 12: { __half2 p = __shfl_down_sync(0xffffffffu, __halves2half2(x, y), 3); r = __high2half(p); break; }
    case 13: r = x * y + z; break;     case 14: r = __hadd(__hmul_rn(x, y), z); break;
  }
  out[i] = __half_as_ushort(r);
}
extern "C" __global__ void bf16_ops(const unsigned short *a, const unsigned short *b, const unsigned short *c,
                                    const float *f, unsigned short *out, int op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __nv_bfloat16 x = __ushort_as_bfloat16(a[i]), y = __ushort_as_bfloat16(b[i]), z = __ushort_as_bfloat16(c[i]), r;
  switch (op) {
    case 0: r = __hadd(x, y); break;   case 1: r = x - y; break;          case 2: r = x * y; break;
    case 3: r = __hdiv(x, y); break;   case 4: r = __hfma(x, y, z); break; case 5: r = __float2bfloat16(f[i]); break;
    case 6: r = __float2bfloat16_rz(f[i]); break; case 7: r = __float2bfloat16_ru(f[i]); break;
    case 8: r = __float2bfloat16_rd(f[i]); break; case 9: r = __hmax(x, y); break;
    case 10: r = __low2bfloat16(__hfma2(__halves2bfloat162(x, y), __halves2bfloat162(y, x), __halves2bfloat162(z, z))); break;
    case 11: r = __shfl_xor_sync(0xffffffffu, x, 5); break;
    case 12: { __nv_bfloat162 p = __shfl_down_sync(0xffffffffu, __halves2bfloat162(x, y), 3); r = __high2bfloat16(p); break; }
    case 13: r = x * y + z; break;     case 14: r = __hadd(__hmul_rn(x, y), z); break;
  }
  out[i] = __bfloat16_as_ushort(r);
}
"""
N = 512
OPS = {0: "add", 1: "sub", 2: "mul", 3: "div", 4: "fma", 5: "from_float_rn", 6: "from_float_rz",
       7: "from_float_ru", 8: "from_float_rd", 9: "max", 10: "fma2_low", 11: "shfl_xor", 12: "shfl_down_pair",
       13: "mul_then_add", 14: "mul_rn_then_add"}


class Fmt:
    """A 16-bit binary format: value of a bit pattern, and every finite pattern's value sorted."""

    def __init__(self, name: str, exp_bits: int, man_bits: int):
        self.name, self.e, self.m = name, exp_bits, man_bits
        bias = (1 << (exp_bits - 1)) - 1
        vals = []
        for bits in range(1 << 15):                      # non-negative patterns
            ex, man = bits >> man_bits, bits & ((1 << man_bits) - 1)
            if ex == (1 << exp_bits) - 1:
                continue
            v = Fraction(man, 1 << man_bits) * Fraction(2) ** (1 - bias) if ex == 0 else \
                (1 + Fraction(man, 1 << man_bits)) * Fraction(2) ** (ex - bias)
            vals.append((v, bits))
        self.pos = vals                                  # increasing with bits
        self.inf = ((1 << exp_bits) - 1) << man_bits
        self.max = vals[-1][0]
        self.ulp_max = vals[-1][0] - vals[-2][0]

    def value(self, bits: int) -> Fraction:
        sign = -1 if bits >> 15 else 1
        b = bits & 0x7FFF
        return sign * self.pos[b][0]

    def round(self, v: Fraction, mode: str = "rn") -> int:
        """The pattern of v rounded (rn: nearest even; rz, ru, rd), IEEE overflow rules."""
        neg = v < 0
        a = -v if neg else v
        lo = _floor_index(self.pos, a)                   # largest finite <= a
        if lo == len(self.pos) - 1 and a > self.max:
            over = a >= self.max + self.ulp_max / 2
            if mode == "rn":
                up = over
            else:
                up = (mode == "ru" and not neg) or (mode == "rd" and neg)
            return (0x8000 if neg else 0) | (self.inf if up else self.pos[-1][1])
        lv, lb = self.pos[lo]
        if lv == a:
            return (0x8000 if neg else 0) | lb
        hv, hb = self.pos[lo + 1]
        if mode == "rz":
            pick = lb
        elif mode in ("ru", "rd"):
            pick = hb if (mode == "ru") != neg else lb
        else:
            d1, d2 = a - lv, hv - a
            pick = lb if d1 < d2 or (d1 == d2 and lb % 2 == 0) else hb
        return (0x8000 if neg else 0) | pick


def _floor_index(pos, a):
    lo, hi = 0, len(pos) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if pos[mid][0] <= a:
            lo = mid
        else:
            hi = mid - 1
    return lo


@functools.lru_cache(maxsize=None)
def fmt(name: str) -> Fmt:
    return Fmt(name, 5, 10) if name == "half" else Fmt(name, 8, 7)


def _shfl_src(mode: str, k: int) -> np.ndarray:
    lane = np.arange(N) % 32
    j = lane ^ k if mode == "xor" else lane + k
    src = np.where((j <= 31) & (j >= 0), j, lane)
    return np.arange(N) - lane + src


def expected(f: Fmt, op: int, a, b, c, fl) -> np.ndarray:
    out = []
    for i in range(N):
        x, y, z = f.value(int(a[i])), f.value(int(b[i])), f.value(int(c[i]))
        if op in (0, 1, 2, 3, 4, 10):
            v = {0: x + y, 1: x - y, 2: x * y, 3: x / y, 4: x * y + z, 10: x * y + z}[op]
            out.append(f.round(v))
        elif op in (5, 6, 7, 8):
            out.append(f.round(Fraction(float(fl[i])), {5: "rn", 6: "rz", 7: "ru", 8: "rd"}[op]))
        elif op == 9:
            out.append(int(a[i]) if x > y or (x == y and not int(a[i]) >> 15) else int(b[i]))
        elif op == 13:
            # nvcc contracts __half's mul.f16x2 + add.f16x2 (no .rn) into one fma (-fmad=true), and
            # so does shflx (native half arithmetic, -ffp-contract=fast-honor-pragmas); bf16's
            # operations are computed in float and rounded each time, never contracted
            out.append(f.round(x * y + z) if f.name == "half" else f.round(f.value(f.round(x * y)) + z))
        elif op == 14:                                    # _rn: never contracted (CUDA documents it)
            out.append(f.round(f.value(f.round(x * y)) + z))
        elif op == 11:
            out.append(int(a[_shfl_src("xor", 5)[i]]))
        else:
            out.append(int(b[_shfl_src("down", 3)[i]]))
    return np.array(out, dtype=np.uint16)


def _inputs(f: Fmt, op: int, rng):
    """Finite, normal operands whose results stay normal: magnitudes 2^-6 .. 2^6 (half) or
    2^-30 .. 2^30 (bf16), and a few exact ties for the conversions."""
    span = 6 if f.name == "half" else 30

    def vals(n):
        mag = np.exp2(rng.uniform(-span, span, n)) * rng.choice([-1.0, 1.0], n)
        return np.array([f.round(Fraction(float(m))) for m in mag], dtype=np.uint16)
    a, b, c = vals(N), vals(N), vals(N)
    fl = (np.exp2(rng.uniform(-span, span, N)) * rng.choice([-1.0, 1.0], N)).astype(np.float32)
    # exact ties between neighbours of the format (nearest-even must decide), and exact values
    for i in range(0, N, 8):
        lo = f.value(int(a[i]) & 0x7FFF)
        hi = f.value((int(a[i]) & 0x7FFF) + 1)
        fl[i] = np.float32(float((lo + hi) / 2))
        fl[i + 1] = np.float32(float(lo))
    return a, b, c, fl


def _cases(device):
    for name in ("half", "bf16"):
        for op in sorted(OPS):
            yield f"{name}-{OPS[op]}", (name, op), ()




@pytest.mark.parametrize("device,case", device_params(_cases))
def test_fp16_operation_bit_exact(device, case, tmp_path_factory):
    require(device)
    name, op = case
    f = fmt(name)
    a, b, c, fl = _inputs(f, op, np.random.default_rng(100 + op))
    hsaco = code_object(SOURCE, "cuda_fp16.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    kernel = "half_ops" if name == "half" else "bf16_ops"
    got = device.run_kernel(hsaco, kernel, [a, b, c, fl], N, np.uint16, block=(64, 1, 1), grid=(N // 64, 1, 1),
                            scalars=[op])
    assert_bit_exact(np.asarray(got), expected(f, op, a, b, c, fl), f"{name} {OPS[op]} ({device.arch})")



@pytest.mark.parametrize("device,name", device_params(lambda device: ((n, n, ()) for n in ("half", "bf16"))))
def test_fp16_zero_products_keep_their_sign(device, name, tmp_path_factory):
    """(+-1) x (+-0) and (+-0) x (+-1) are -0 exactly when the signs differ, for x * y and for
    __hmul_rn (op 14, plus -0, which keeps any zero's sign): LLVM folds a product computed in float
    and rounded to half into v_fma_mix(lo) a, b, +0, which turns -0 into +0."""
    require(device)
    one, zero = (0x3C00, 0x0000) if name == "half" else (0x3F80, 0x0000)
    pairs = [(s1 | m1, s2 | m2) for m1, m2 in ((one, zero), (zero, one), (zero, zero))
             for s1 in (0, 0x8000) for s2 in (0, 0x8000)]
    a = np.array([p[0] for p in pairs] * (64 // len(pairs) + 1), np.uint16)[:64]
    b = np.array([p[1] for p in pairs] * (64 // len(pairs) + 1), np.uint16)[:64]
    c = np.full(64, 0x8000, np.uint16)
    want = ((a ^ b) & 0x8000).astype(np.uint16)
    hsaco = code_object(SOURCE, "cuda_fp16.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    kernel = "half_ops" if name == "half" else "bf16_ops"
    for op in (2, 14):
        got = device.run_kernel(hsaco, kernel, [a, b, c, np.zeros(64, np.float32)], 64, np.uint16,
                                block=(64, 1, 1), grid=(1, 1, 1), scalars=[op])
        assert_bit_exact(np.asarray(got), want, f"{name} {OPS[op]} of signed zeros ({device.arch})")

# ------------------------------------------------------------------ to integers
# CUDA's __half2int_rz ... __bfloat162ull_ru and the class conversions: NaN -> 0 (to 64 bits: the
# sign bit, as an H200 gives it), saturated at the integer type's range (PTX cvt.rzi.sat), rounded
# as named. The reference rounds the exact value
# (a Fraction) and clamps; no float arithmetic of the code under test.
TO_INT_SOURCE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define TO_INT_KERNEL(NAME, T, FROM_BITS, N)                                                       \
extern "C" __global__ void NAME(const unsigned short *a, long long *out, int op) {                 \
  int i = blockIdx.x * blockDim.x + threadIdx.x;                                                  \
  T x = FROM_BITS(a[i]); long long r = 0;                                                         \
  switch (op) {                                                                                   \
    case 0: r = __##N##2int_rz(x); break;  case 1: r = __##N##2int_rn(x); break;                 \
    case 2: r = __##N##2int_rd(x); break;  case 3: r = __##N##2int_ru(x); break;                 \
    case 4: r = __##N##2uint_rz(x); break; case 5: r = __##N##2short_rn(x); break;               \
    case 6: r = __##N##2ushort_rd(x); break; case 7: r = __##N##2ll_ru(x); break;                \
    case 8: r = (long long)__##N##2ull_rz(x); break; case 9: r = (int)x; break;                  \
    case 10: r = (unsigned short)x; break;                                                        \
  }                                                                                               \
  out[i] = r;                                                                                     \
}
TO_INT_KERNEL(half_to_int, __half, __ushort_as_half, half)
TO_INT_KERNEL(bf16_to_int, __nv_bfloat16, __ushort_as_bfloat16, bfloat16)
"""
# op -> (rounding, lowest, highest) of the integer type
TO_INT = {0: ("rz", -(1 << 31), (1 << 31) - 1), 1: ("rn", -(1 << 31), (1 << 31) - 1),
          2: ("rd", -(1 << 31), (1 << 31) - 1), 3: ("ru", -(1 << 31), (1 << 31) - 1),
          4: ("rz", 0, (1 << 32) - 1), 5: ("rn", -(1 << 15), (1 << 15) - 1), 6: ("rd", 0, (1 << 16) - 1),
          7: ("ru", -(1 << 63), (1 << 63) - 1), 8: ("rz", 0, (1 << 64) - 1),
          9: ("rz", -(1 << 31), (1 << 31) - 1), 10: ("rz", 0, (1 << 16) - 1)}
N_INT = 2048


def _to_int_patterns(f: Fmt) -> np.ndarray:
    """Every 32nd bit pattern with a random low part (all exponents, both signs, inf and NaN),
    without subnormals (the emulator flushes them; a flushed -tiny would round down to 0, not -1)."""
    rng = np.random.default_rng(7)
    bits = np.arange(N_INT, dtype=np.int64) * 32 + rng.integers(0, 32, N_INT)
    exp = (bits >> f.m) & ((1 << f.e) - 1)
    bits = np.where((exp == 0) & ((bits & ((1 << f.m) - 1)) != 0), bits & 0x8000, bits)
    return bits.astype(np.uint16)


def _int_of(f: Fmt, bits: int, op: int) -> int:
    mode, lo, hi = TO_INT[op]
    if (bits >> f.m) & ((1 << f.e) - 1) == (1 << f.e) - 1:        # inf or NaN
        if bits & ((1 << f.m) - 1):
            # NaN: the sign bit to 64 bits, 0 to 32 bits and less, as an H200 gives it
            # (hw_tests/nvidia/nan_conversions.cu: __half2ll_rz, __half2ull_rz, __bfloat162ull_rz, ...)
            return -(1 << 63) if op in (7, 8) else 0
        v = hi if not bits >> 15 else lo
    else:
        x = f.value(bits)
        n = {"rz": int(x), "rd": x.__floor__(), "ru": x.__ceil__(), "rn": round(x)}[mode]   # round(): half-even
        v = min(max(n, lo), hi)
    return v - (1 << 64) if v >= 1 << 63 else v                  # as the kernel's long long holds it


def _to_int_cases(device):
    for name in ("half", "bf16"):
        for op in sorted(TO_INT):
            yield f"{name}-to-int-{op}", (name, op), ()




@pytest.mark.parametrize("device,case", device_params(_to_int_cases))
def test_fp16_to_integer_bit_exact(device, case, tmp_path_factory):
    require(device)
    name, op = case
    f = fmt(name)
    a = _to_int_patterns(f)
    hsaco = code_object(TO_INT_SOURCE, "cuda_fp16_to_int.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    got = device.run_kernel(hsaco, "half_to_int" if name == "half" else "bf16_to_int", [a], N_INT, np.int64,
                            block=(64, 1, 1), grid=(N_INT // 64, 1, 1), scalars=[op])
    want = np.array([_int_of(f, int(b), op) for b in a], dtype=np.int64)
    assert_bit_exact(np.asarray(got), want, f"{name} to integer, op {op} ({device.arch})")


# ------------------------------------------------------------------ math functions
# hceil ... h2cos (cuda_fp16.h / cuda_bf16.h "Math Functions"), which libcu++'s cuda::std math
# calls for __half and __nv_bfloat16: rounding ones and hsqrt are exact (the value's exact result
# rounded to nearest even); the transcendental ones are the float function rounded once, so they
# may land one pattern away from the correctly rounded result, never further.
MATH_SOURCE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define MATH_KERNEL(NAME, T, T2, FROM_BITS, TO_BITS, PAIR, LOW)                                   \
extern "C" __global__ void NAME(const unsigned short *a, unsigned short *out, int op) {          \
  int i = blockIdx.x * blockDim.x + threadIdx.x;                                                  \
  T x = FROM_BITS(a[i]), r = x;                                                                   \
  switch (op) {                                                                                   \
    case 0: r = hceil(x); break;  case 1: r = hfloor(x); break;  case 2: r = hrint(x); break;     \
    case 3: r = htrunc(x); break; case 4: r = hsqrt(x); break;   case 5: r = hexp(x); break;      \
    case 6: r = hexp2(x); break;  case 7: r = hlog(x); break;    case 8: r = hlog2(x); break;     \
    case 9: r = hlog10(x); break; case 10: r = hsin(x); break;   case 11: r = hcos(x); break;     \
    case 12: r = LOW(h2floor(PAIR(x, x))); break;                                                 \
  }                                                                                               \
  out[i] = TO_BITS(r);                                                                            \
}
MATH_KERNEL(half_math, __half, __half2, __ushort_as_half, __half_as_ushort, __halves2half2, __low2half)
MATH_KERNEL(bf16_math, __nv_bfloat16, __nv_bfloat162, __ushort_as_bfloat16, __bfloat16_as_ushort,
            __halves2bfloat162, __low2bfloat16)
"""
MATH = {0: ("hceil", math.ceil, True), 1: ("hfloor", math.floor, True), 2: ("hrint", round, True),
        3: ("htrunc", math.trunc, True), 4: ("hsqrt", math.sqrt, True), 5: ("hexp", math.exp, False),
        6: ("hexp2", lambda v: 2.0 ** v, False), 7: ("hlog", math.log, False), 8: ("hlog2", math.log2, False),
        9: ("hlog10", math.log10, False), 10: ("hsin", math.sin, False), 11: ("hcos", math.cos, False),
        12: ("h2floor", math.floor, True)}


def _math_inputs(f: Fmt, op: int, rng):
    """Values where the function is finite and its result normal in the format: positive for the
    roots and logarithms, |x| < 8 for exp, |x| < 4 for sin/cos (no argument-reduction corner)."""
    if op in (4, 7, 8, 9):
        mag = np.exp2(rng.uniform(-6, 6, N))
    elif op in (5, 6):
        mag = rng.uniform(-8, 8, N)
    elif op in (10, 11):
        mag = rng.uniform(-4, 4, N)
    else:
        span = 300 if f.name == "bf16" else 2000
        mag = rng.uniform(-span, span, N)
        mag[: N // 4] = np.round(mag[: N // 4] * 2) / 2       # exact halves: rint's ties to even
    return np.array([f.round(Fraction(float(m))) for m in mag], dtype=np.uint16)


def _math_cases(device):
    for name in ("half", "bf16"):
        for op in sorted(MATH):
            yield f"{name}-{MATH[op][0]}", (name, op), ()


@pytest.mark.parametrize("device,case", device_params(_math_cases))
def test_fp16_math_function(device, case, tmp_path_factory):
    require(device)
    name, op = case
    f = fmt(name)
    fname, fn, exact = MATH[op]
    a = _math_inputs(f, op, np.random.default_rng(300 + op))
    hsaco = code_object(MATH_SOURCE, "cuda_fp16_math.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    got = np.asarray(device.run_kernel(hsaco, f"{name}_math", [a], N, np.uint16, block=(64, 1, 1),
                                       grid=(N // 64, 1, 1), scalars=[op]))
    # the exact result rounded once: math's double functions are within an ulp of double, which
    # is far below the format's half-ulp, so rounding them is the correctly rounded result except
    # at a tie the double cannot tell apart (none among these inputs: checked by `exact` cases)
    def rounded(bits: int) -> int:
        x = f.value(bits)
        r = f.round(Fraction(float(fn(float(x)))))
        return 0x8000 if r == 0 and x < 0 else r          # ceil/rint/trunc of (-1, 0) is -0 (IEEE)
    want = np.array([rounded(int(v)) for v in a], dtype=np.uint16)
    if exact:
        assert_bit_exact(got, want, f"{name} {fname} ({device.arch})")
        return
    order = {bits: k for k, (_, bits) in enumerate(f.pos)}        # pattern -> position among values

    def pos(bits):
        return -order[bits & 0x7FFF] if bits >> 15 else order[bits & 0x7FFF]
    far = [(int(x), int(g), int(w)) for x, g, w in zip(a, got, want) if abs(pos(int(g)) - pos(int(w))) > 1]
    assert not far, f"{name} {fname} ({device.arch}): {len(far)} results more than one pattern from the " \
                    f"correctly rounded one, e.g. (input, got, want) {far[:4]}"
