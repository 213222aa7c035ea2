"""NVIDIA's own cuda_fp16.h / cuda_bf16.h (read as they are on AMD targets, their inline PTX
translated by shflx) on each AMD device (the GPU, else the emulator of shared/amdemu): a broad set
of their functions, each case one of them, against references written here from CUDA's
definitions. Exact functions are compared bit for bit with the correctly rounded value (Fraction);
the math functions NVIDIA computes from `.approx` instructions within one unit in the last place.
Inputs are normal, nonzero and finite, and keep every result normal (the emulator flushes
subnormals).

  pytest hw_tests/amd/test_cuda_half_api_hw.py"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from hw_devices import code_object, device_params, require, selected

N = 256
SOURCE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define IN int i = blockIdx.x * blockDim.x + threadIdx.x
extern "C" __global__ void half_api(const unsigned short *pa, const unsigned short *pb, const unsigned short *pc,
                                    unsigned *out, int op) {
  IN;
  __half a = __ushort_as_half(pa[i]), b = __ushort_as_half(pb[i]), c = __ushort_as_half(pc[i]);
  __half2 a2 = __halves2half2(a, b), b2 = __halves2half2(b, c), c2 = __halves2half2(c, a);
  unsigned r = 0;
  auto h = [](__half x) { return (unsigned)__half_as_ushort(x); };
  auto h2 = [](__half2 x) { return (unsigned)__half_as_ushort(__low2half(x)) | ((unsigned)__half_as_ushort(__high2half(x)) << 16); };
  switch (op) {
    case 0: r = h(__hadd(a, b)); break;          case 1: r = h(__hsub(a, b)); break;
    case 2: r = h(__hmul(a, b)); break;          case 3: r = h(__hdiv(a, b)); break;
    case 4: r = h(__hfma(a, b, c)); break;       case 5: r = h(__hneg(a)); break;
    case 6: r = h(__habs(a)); break;             case 7: r = h(__hmax(a, b)); break;
    case 8: r = h(__hmin_nan(a, b)); break;      case 9: r = h(__hadd_sat(a, b)); break;
    case 10: r = h(__hfma_relu(a, b, c)); break; case 11: r = __hlt(a, b) | (__hgeu(a, b) << 1) | (__heq(a, b) << 2); break;
    case 12: r = h(__float2half_rz(__half2float(a) / 3.0f)); break;
    case 13: r = h(__float2half_ru(__half2float(a) / 3.0f)); break;
    case 14: r = h(__float2half_rd(__half2float(a) / 3.0f)); break;
    case 15: r = (unsigned)__half2int_rn(__hmul(a, b)); break;
    case 16: r = h(__int2half_rd((int)pa[i] * 7)); break;
    case 17: r = h2(__hfma2(a2, b2, c2)); break;
    case 18: r = h2(__hmul2(a2, b2)); break;
    case 19: r = h2(__hmax2(a2, b2)); break;
    case 20: r = h2(__lowhigh2highlow(a2)); break;
    case 21: r = h2(__float22half2_rn(make_float2(__half2float(a) * 1.5f, __half2float(b) * 0.25f))); break;
    case 22: r = __hlt2_mask(a2, b2); break;
    case 23: r = h2(__heq2(a2, __halves2half2(a, c))); break;
    case 24: r = h(__shfl_xor_sync(0xffffffffu, a, 5)); break;
    case 25: r = h2(__shfl_down_sync(0xffffffffu, a2, 3)); break;
    case 26: r = h(__ldg((const __half *)pa + i)); break;
    case 27: r = h2(__ldcs((const __half2 *)pa + (i >> 1))); break;
    case 28: r = h(hexp(__hmul(a, __float2half(0.125f)))); break;
    case 29: r = h(hsqrt(__habs(a))); break;
    case 30: r = h(hrcp(a)); break;
    case 31: r = h(htanh_approx(a)); break;
    case 32: r = h(hlog(__habs(a))); break;
    case 33: { __half2 *acc = (__half2 *)pc + 2 * blockIdx.x + (threadIdx.x & 1);   // zeros on entry
               atomicAdd(acc, __halves2half2(__float2half(1.0f), __float2half(0.5f)));
               __syncthreads(); r = h2(atomicAdd(acc, __float2half2_rn(0.0f))); break; }
    case 34: r = h(a + b * c); break;            case 35: r = h(-a); break;
  }
  out[i] = r;
}
extern "C" __global__ void bf16_api(const unsigned short *pa, const unsigned short *pb, const unsigned short *pc,
                                    unsigned *out, int op) {
  IN;
  __nv_bfloat16 a = __ushort_as_bfloat16(pa[i]), b = __ushort_as_bfloat16(pb[i]), c = __ushort_as_bfloat16(pc[i]);
  __nv_bfloat162 a2 = __halves2bfloat162(a, b), b2 = __halves2bfloat162(b, c), c2 = __halves2bfloat162(c, a);
  unsigned r = 0;
  auto h = [](__nv_bfloat16 x) { return (unsigned)__bfloat16_as_ushort(x); };
  auto h2 = [](__nv_bfloat162 x) { return (unsigned)__bfloat16_as_ushort(__low2bfloat16(x)) | ((unsigned)__bfloat16_as_ushort(__high2bfloat16(x)) << 16); };
  switch (op) {
    case 0: r = h(__hadd(a, b)); break;          case 1: r = h(__hsub(a, b)); break;
    case 2: r = h(__hmul(a, b)); break;          case 3: r = h(__hdiv(a, b)); break;
    case 4: r = h(__hfma(a, b, c)); break;       case 5: r = h(__hneg(a)); break;
    case 6: r = h(__habs(a)); break;             case 7: r = h(__hmax(a, b)); break;
    case 8: r = h(__hmin_nan(a, b)); break;      case 9: r = h(__hadd_sat(a, b)); break;
    case 10: r = h(__hfma_relu(a, b, c)); break; case 11: r = __hlt(a, b) | (__hgeu(a, b) << 1) | (__heq(a, b) << 2); break;
    case 12: r = h(__float2bfloat16_rz(__bfloat162float(a) / 3.0f)); break;
    case 13: r = h(__float2bfloat16_ru(__bfloat162float(a) / 3.0f)); break;
    case 14: r = h(__float2bfloat16_rd(__bfloat162float(a) / 3.0f)); break;
    case 15: r = (unsigned)__bfloat162int_rn(__hmul(a, b)); break;
    case 16: r = h(__int2bfloat16_rd((int)pa[i] * 7)); break;
    case 17: r = h2(__hfma2(a2, b2, c2)); break;
    case 18: r = h2(__hmul2(a2, b2)); break;
    case 19: r = h2(__hmax2(a2, b2)); break;
    case 20: r = h2(__lowhigh2highlow(a2)); break;
    case 21: r = h2(__float22bfloat162_rn(make_float2(__bfloat162float(a) * 1.5f, __bfloat162float(b) * 0.25f))); break;
    case 22: r = __hlt2_mask(a2, b2); break;
    case 23: r = h2(__heq2(a2, __halves2bfloat162(a, c))); break;
    case 24: r = h(__shfl_xor_sync(0xffffffffu, a, 5)); break;
    case 25: r = h2(__shfl_down_sync(0xffffffffu, a2, 3)); break;
    case 26: r = h(__ldg((const __nv_bfloat16 *)pa + i)); break;
    case 27: r = h2(__ldcs((const __nv_bfloat162 *)pa + (i >> 1))); break;
    case 28: r = h(hexp(__hmul(a, __float2bfloat16(0.125f)))); break;
    case 29: r = h(hsqrt(__habs(a))); break;
    case 30: r = h(hrcp(a)); break;
    case 31: r = h(htanh_approx(a)); break;
    case 32: r = h(hlog(__habs(a))); break;
    case 33: { __nv_bfloat162 *acc = (__nv_bfloat162 *)pc + 2 * blockIdx.x + (threadIdx.x & 1);   // zeros on entry
               atomicAdd(acc, __halves2bfloat162(__float2bfloat16(1.0f), __float2bfloat16(0.5f)));
               __syncthreads(); r = h2(atomicAdd(acc, __float2bfloat162_rn(0.0f))); break; }
    case 34: r = h(a + b * c); break;            case 35: r = h(-a); break;
  }
  out[i] = r;
}
"""
FORMATS = {"half": (10, 5), "bf16": (7, 8)}      # fraction bits, exponent bits
APPROX = {28, 29, 30, 31, 32}                     # within one ulp of the function


def value(bits: int, fmt: str):
    m, e = FORMATS[fmt]
    sign, ex, fr = bits >> 15 & 1, bits >> m & ((1 << e) - 1), bits & ((1 << m) - 1)
    if ex == (1 << e) - 1:
        return float("nan") if fr else (-1) ** sign * float("inf")
    bias = (1 << (e - 1)) - 1
    v = (Fraction(fr, 1 << m) * Fraction(2) ** (1 - bias)) if ex == 0 else \
        ((1 + Fraction(fr, 1 << m)) * Fraction(2) ** (ex - bias))
    return -v if sign else v


def bits_of(x, fmt: str, mode: str = "rn") -> int:
    """x (Fraction, or float inf/nan) rounded to the format: rn (nearest even), rz, ru, rd."""
    m, e = FORMATS[fmt]
    inf = ((1 << e) - 1) << m
    if isinstance(x, float):
        return (inf | (1 << (m - 1))) if x != x else inf | (0x8000 if x < 0 else 0)
    if x == 0:
        return 0
    sign = 0x8000 if x < 0 else 0
    a, bias = abs(x), (1 << (e - 1)) - 1
    ex = 1 - bias
    while Fraction(2) ** (ex + 1) <= a:
        ex += 1
    q = a / Fraction(2) ** (ex - m)
    n, rest = q.numerator // q.denominator, q - q.numerator // q.denominator
    up = {"rn": rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n & 1), "rz": False,
          "ru": rest > 0 and not sign, "rd": rest > 0 and bool(sign)}[mode]
    n += up
    if n == 1 << (m + 1):
        n, ex = 1 << m, ex + 1
    if ex > bias:
        over = mode == "rn" or (mode == "ru" and not sign) or (mode == "rd" and sign)
        return sign | (inf if over else inf - 1)
    return sign | (n if n < 1 << m else ((ex + bias) << m) | (n - (1 << m)))


def inputs(fmt: str, seed: int) -> list[np.ndarray]:
    """Magnitudes in [1/8, 64) with both signs (every product, quotient and sum stays normal) and
    some equal pairs."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(3):
        v = rng.uniform(0.125, 64, N) * rng.choice([-1, 1], N)
        bits = np.array([bits_of(Fraction(float(x)), fmt) for x in v], dtype=np.uint16)
        out.append(bits)
    out[1][::7] = out[0][::7]                        # equal operands: comparisons and max of equals
    return out


def _f(x) -> float:
    return float(x)


def expected(fmt: str, op: int, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> list:
    """Per thread: the exact result bits, or ('nan',) for any NaN, or ('ulp', float) for APPROX."""
    lane = np.arange(N)
    one = bits_of(Fraction(1), fmt)
    out = []
    for i in range(N):
        x, y, z = value(int(a[i]), fmt), value(int(b[i]), fmt), value(int(c[i]), fmt)
        r = lambda v, mode="rn": bits_of(v, fmt, mode)  # noqa: E731
        if op in (0, 1, 2, 3, 4, 34):
            v = {0: lambda: x + y, 1: lambda: x - y, 2: lambda: x * y, 3: lambda: x / y,
                 4: lambda: x * y + z, 34: lambda: x + y * z}[op]()
            if op != 34:
                out.append(r(v))                   # an exact zero (x - x) is +0
            elif fmt == "half":                    # native half arithmetic: one fma or two roundings
                out.append(("fma_or_two", x, y, z))
            else:                                  # bfloat16's __hmul/__hadd are fma.rn.bf16 each: two
                out.append(r(x + value(r(y * z), fmt)))
        elif op in (5, 35):
            out.append(int(a[i]) ^ 0x8000)
        elif op == 6:
            out.append(int(a[i]) & 0x7FFF)
        elif op in (7, 8):
            if x == y:
                out.append(int(a[i]) if (op == 7) != bool(a[i] >> 15) else int(b[i]))
            else:
                out.append(int(a[i]) if (x > y) == (op == 7) else int(b[i]))
        elif op == 9:
            v = x + y
            out.append(0 if v <= 0 else one if v >= 1 else r(v))
        elif op == 10:
            v = x * y + z
            out.append(0 if v <= 0 else r(v))
        elif op == 11:
            out.append(int(x < y) | (int(not x < y) << 1) | (int(x == y) << 2))
        elif op in (12, 13, 14):
            q = float(np.float32(np.float32(_f(x)) / np.float32(3.0)))
            out.append(r(Fraction(q), {12: "rz", 13: "ru", 14: "rd"}[op]))
        elif op == 15:
            p = value(r(x * y), fmt)
            n = round(p)                             # half to even
            out.append(n & 0xFFFFFFFF)
        elif op == 16:
            out.append(r(Fraction(int(a[i]) * 7), "rd"))
        elif op in (17, 18, 19):
            pairs = [(x, y, z), (y, z, x)]
            words = []
            for (u, v, w), (bu, bv) in zip(pairs, [(int(a[i]), int(b[i])), (int(b[i]), int(c[i]))]):
                if op == 17:
                    words.append(r(u * v + w))
                elif op == 18:
                    words.append(r(u * v))
                else:
                    words.append(bu if (u > v or (u == v and not bu >> 15)) else bv)
            out.append(words[0] | words[1] << 16)
        elif op == 20:
            out.append(int(b[i]) | int(a[i]) << 16)
        elif op == 21:
            lo = r(Fraction(float(np.float32(_f(x)) * np.float32(1.5))))
            hi = r(Fraction(float(np.float32(_f(y)) * np.float32(0.25))))
            out.append(lo | hi << 16)
        elif op == 22:
            out.append((0xFFFF if x < y else 0) | ((0xFFFF if y < z else 0) << 16))
        elif op == 23:
            out.append(one | ((one if y == z else 0) << 16))
        elif op == 24:
            src = (lane[i] & ~31) | ((lane[i] & 31) ^ 5)
            out.append(int(a[src]))
        elif op == 25:
            j = lane[i] % 32 + 3
            src = i + 3 if j < 32 else i
            out.append(int(a[src]) | int(b[src]) << 16)
        elif op == 26:
            out.append(int(a[i]))
        elif op == 27:
            k = 2 * (i >> 1)
            out.append(int(a[k]) | int(a[k + 1]) << 16)
        elif op in APPROX:
            fx = _f(x)
            ref = {28: lambda: np.exp(_f(value(r(x * Fraction(1, 8)), fmt))), 29: lambda: np.sqrt(abs(fx)),
                   30: lambda: 1.0 / fx, 31: lambda: np.tanh(fx), 32: lambda: np.log(abs(fx))}[op]()
            out.append(("ulp", float(ref)))
        elif op == 33:
            out.append(r(Fraction(32)) | r(Fraction(16)) << 16)    # 32 threads of a block add (1, 0.5)
    return out


OPS = range(36)


def _cases(device):
    # shared/amdemu has no global_atomic_pk_add_f16, which atomicAdd(__half2 *) is on gfx942 (gfx90a: a CAS loop).
    # Strict: a fixed emulator makes it pass, and a GPU must.
    no_pk_add = pytest.mark.xfail(strict=True, reason="amdemu does not implement global_atomic_pk_add_f16")
    emulated = selected().kind == "emulator" and device.arch == "gfx942"
    for fmt in FORMATS:
        for op in OPS:
            yield f"{fmt}-{op}", (fmt, op), ((no_pk_add,) if emulated and fmt == "half" and op == 33 else ())


def _ulp(v: float, fmt: str) -> float:
    m, e = FORMATS[fmt]
    ex = max(int(np.floor(np.log2(abs(v)))) if v else 1 - ((1 << (e - 1)) - 1), 1 - ((1 << (e - 1)) - 1))
    return 2.0 ** (ex - m)


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_nvidia_half_function_matches_its_definition(device, case, tmp_path_factory):
    require(device)
    fmt, op = case
    hsaco = code_object(SOURCE, "half_api.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    a, b, c = inputs(fmt, 11 + op)
    if op == 33:                                  # the atomics' words (4 bytes a thread pair) start at 0
        c[:] = 0
    got = np.asarray(device.run_kernel(hsaco, f"{fmt}_api", [a, b, c], N, np.uint32, block=(64, 1, 1),
                                       grid=(N // 64, 1, 1), scalars=[op])).astype(np.int64)
    bad = []
    for i, want in enumerate(expected(fmt, op, a, b, c)):
        g = int(got[i])
        if isinstance(want, tuple) and want[0] == "ulp":
            ok = g < 0x10000 and abs(float(value(g, fmt)) - want[1]) <= _ulp(want[1], fmt)
        elif isinstance(want, tuple):       # x + y * z: one fma or two roundings (contraction allowed)
            _, x, y, z = want
            ok = g in (bits_of(x + y * z, fmt), bits_of(x + value(bits_of(y * z, fmt), fmt), fmt))
        else:
            ok = g == want
        if not ok:
            bad.append((i, hex(int(a[i])), hex(int(b[i])), hex(int(c[i])), hex(g), want if isinstance(want, tuple) else hex(want)))
    assert not bad, f"{fmt} op {op} on {device.arch}: {len(bad)} of {N} differ, e.g. {bad[:6]}"
