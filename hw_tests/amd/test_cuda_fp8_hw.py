"""CUDA's 8-, 6- and 4-bit floats (NVIDIA's cuda_fp8.h, cuda_fp6.h, cuda_fp4.h over the shflx CUDA layer) on each AMD device (the GPU,
else the emulator of shared/amdemu), bit for bit against a reference written here from the formats'
definitions (OCP 8-bit floating point: E4M3 with bias 7, no infinity, 0x7f NaN, largest 448; E5M2
with bias 15, IEEE-like) and the CUDA Math API's saturation rule: round to nearest even on the
exact value, then __NV_SATFINITE clamps a finite overflow or an infinity to the largest finite value
and __NV_NOSAT gives NaN (E4M3) or infinity (E5M2). The 6-bit (E2M3, E3M2) and 4-bit (E2M1)
formats have no infinity or NaN: every code is finite, an overflow or infinity saturates, NaN is
the positive largest value, and cudaRoundZero truncates (CUDA Math API, "FP6/FP4 Intrinsics"). A NaN input must give a NaN code; its sign and
payload are not tested (NVIDIA's C++ path keeps them, sm_89's conversion instruction does not). Inputs are normal floats (the emulator flushes float denormals).

  pytest hw_tests/amd/test_cuda_fp8_hw.py"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from hw_devices import code_object, assert_bit_exact, device_params, require

SOURCE = r"""
#include <cuda_fp4.h>
extern "C" __global__ void fp8_ops(const float *f, const unsigned short *h, unsigned *out, int op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = f[i]; __half hx = __ushort_as_half(h[i]); unsigned r = 0;
  switch (op) {
    case 0: r = __nv_fp8_e4m3(x).__x; break;
    case 1: r = __nv_fp8_e5m2(x).__x; break;
    case 2: r = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3); break;
    case 3: r = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2); break;
    case 4: r = __nv_fp8_e4m3(hx).__x; break;
    case 5: r = __nv_fp8_e5m2(hx).__x; break;
    case 6: r = __float_as_uint(float(*reinterpret_cast<const __nv_fp8_e4m3 *>(&h[i]))); break;
    case 7: r = __float_as_uint(float(*reinterpret_cast<const __nv_fp8_e5m2 *>(&h[i]))); break;
    case 8: r = __nv_fp8x2_e4m3(make_float2(x, -x)).__x; break;
    case 9: r = __nv_fp6_e2m3(x).__x; break;
    case 10: r = __nv_fp6_e3m2(x).__x; break;
    case 11: r = __nv_fp4_e2m1(x).__x; break;
    case 12: r = __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundZero); break;
    case 13: r = __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundZero); break;
    case 14: r = __float_as_uint(float(*reinterpret_cast<const __nv_fp6_e3m2 *>(&h[i]))); break;
    case 15: r = __float_as_uint(float(*reinterpret_cast<const __nv_fp4_e2m1 *>(&h[i]))); break;
  }
  out[i] = r;
}
"""
N = 512
E4M3, E5M2 = (4, 3, 7), (5, 2, 15)        # exponent bits, mantissa bits, bias
E2M3, E3M2, E2M1 = (2, 3, 1), (3, 2, 3), (2, 1, 1)     # 6- and 4-bit: every code finite
FINITE = (E2M3, E3M2, E2M1)
NAN = 1 << 31                              # the reference's "some NaN code"


def _decode(code: int, fmt) -> float:
    """The value of an 8-bit code (NaN as math.nan, E5M2 infinities as +-inf)."""
    e_bits, m_bits, bias = fmt
    sign = -1.0 if code >> (e_bits + m_bits) & 1 else 1.0
    e, m = (code >> m_bits) & ((1 << e_bits) - 1), code & ((1 << m_bits) - 1)
    if fmt == E4M3 and e == 15 and m == 7 or fmt == E5M2 and e == 31 and m:
        return math.nan
    if fmt == E5M2 and e == 31:
        return sign * math.inf
    if e == 0:
        return sign * math.ldexp(m, 1 - bias - m_bits)
    return sign * math.ldexp((1 << m_bits) | m, e - bias - m_bits)


def _finite_codes(fmt):
    """(value, code) of every finite non-negative code, ascending."""
    half = 1 << (fmt[0] + fmt[1])
    return sorted((Fraction(_decode(c, fmt)), c) for c in range(half) if math.isfinite(_decode(c, fmt)))


def _encode(x: float, fmt, saturate: bool, toward_zero: bool = False) -> int:
    sign = 1 << (fmt[0] + fmt[1]) if math.copysign(1.0, x) < 0 else 0
    grid = _finite_codes(fmt)
    top, top_code = grid[-1]
    if math.isnan(x):
        return top_code if fmt in FINITE else NAN
    overflow = top_code if fmt in FINITE else 0x7F if fmt == E4M3 else 0x7C
    if math.isinf(x):
        return sign | (top_code if saturate else overflow)
    a = Fraction(abs(x))
    ulp_top = top - grid[-2][0]
    if a > top + ulp_top / 2 or a == top + ulp_top / 2 and top_code & 1:   # nearest even beyond the top
        return sign | (top_code if saturate else overflow)
    lo = max((v, c) for v, c in grid if v <= a)
    if toward_zero:
        return sign | lo[1]
    hi = min(((v, c) for v, c in grid if v >= a), default=(top, top_code))
    if a - lo[0] < hi[0] - a or a - lo[0] == hi[0] - a and lo[1] % 2 == 0:
        return sign | lo[1]
    return sign | hi[1]


def _inputs(rng):
    f = np.concatenate([rng.uniform(-600, 600, N // 4), rng.uniform(-70000, 70000, N // 4),
                        np.ldexp(rng.uniform(-1, 1, N // 4), rng.integers(-18, 2, N // 4)),
                        rng.uniform(-2, 2, N // 4)]).astype(np.float32)
    edges = [0.0, -0.0, np.nan, 1.0, np.inf, -np.inf, 448, -448, 464, 463.99, 464.01, 480, 57344, 61440,
             61439.9, 65536, 2 ** -9, 2 ** -10, 3 * 2 ** -11, 2 ** -16, 2 ** -17, 3 * 2 ** -18, 0.3125, 0.34375]
    f[:len(edges)] = edges
    codes = np.arange(N, dtype=np.uint16) & 0xFF      # every 8-bit code, twice
    with np.errstate(over="ignore"):
        halves = f.astype(np.float16)
    halves[np.abs(halves.astype(np.float32)) < 2 ** -14] = 0         # keep half inputs normal
    return f, halves.view(np.uint16), codes


def _half_bits_as_float(h):
    return float(np.uint16(h).view(np.float16))


CASES = {   # op: (name, reference of (float, half bits, code) -> 32-bit result)
    0: ("__nv_fp8_e4m3(float)", lambda x, h, c: _encode(x, E4M3, True)),
    1: ("__nv_fp8_e5m2(float)", lambda x, h, c: _encode(x, E5M2, True)),
    2: ("__nv_cvt_float_to_fp8 NOSAT E4M3", lambda x, h, c: _encode(x, E4M3, False)),
    3: ("__nv_cvt_float_to_fp8 NOSAT E5M2", lambda x, h, c: _encode(x, E5M2, False)),
    4: ("__nv_fp8_e4m3(__half)", lambda x, h, c: _encode(_half_bits_as_float(h), E4M3, True)),
    5: ("__nv_fp8_e5m2(__half)", lambda x, h, c: _encode(_half_bits_as_float(h), E5M2, True)),
    6: ("float(__nv_fp8_e4m3)", lambda x, h, c: int(np.float32(_decode(c, E4M3)).view(np.uint32))),
    7: ("float(__nv_fp8_e5m2)", lambda x, h, c: int(np.float32(_decode(c, E5M2)).view(np.uint32))),
    8: ("__nv_fp8x2_e4m3(float2)", lambda x, h, c: NAN if math.isnan(x) else
        _encode(x, E4M3, True) | _encode(-x, E4M3, True) << 8),
    9: ("__nv_fp6_e2m3(float)", lambda x, h, c: _encode(x, E2M3, True)),
    10: ("__nv_fp6_e3m2(float)", lambda x, h, c: _encode(x, E3M2, True)),
    11: ("__nv_fp4_e2m1(float)", lambda x, h, c: _encode(x, E2M1, True)),
    12: ("__nv_cvt_float_to_fp6 E2M3 toward zero", lambda x, h, c: _encode(x, E2M3, True, toward_zero=True)),
    13: ("__nv_cvt_float_to_fp4 E2M1 toward zero", lambda x, h, c: _encode(x, E2M1, True, toward_zero=True)),
    14: ("float(__nv_fp6_e3m2)", lambda x, h, c: int(np.float32(_decode(c & 0x3F, E3M2)).view(np.uint32))),
    15: ("float(__nv_fp4_e2m1)", lambda x, h, c: int(np.float32(_decode(c & 0xF, E2M1)).view(np.uint32))),
}


DECODES = (6, 7, 14, 15)


def _cases(device):
    for op in sorted(CASES):
        yield CASES[op][0], op, ()


@pytest.mark.parametrize("device,op", device_params(_cases))
def test_fp8_bit_exact(device, op, tmp_path_factory):
    require(device)
    name, ref = CASES[op]
    f, h, codes = _inputs(np.random.default_rng(op))
    hw_in = np.where(op in DECODES, codes, h).astype(np.uint16)
    hsaco = code_object(SOURCE, "cuda_fp8.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    got = np.asarray(device.run_kernel(hsaco, "fp8_ops", [f, hw_in], N, np.uint32, block=(64, 1, 1),
                                       grid=(N // 64, 1, 1), scalars=[op]))
    want = np.array([ref(float(x), int(b), int(b)) for x, b in zip(f, hw_in)], dtype=np.int64)
    nan = want == NAN
    if op in DECODES:       # a NaN code decodes to a float NaN
        nan = np.isnan(want.astype(np.uint32).view(np.float32))
        assert np.isnan(got[nan].view(np.float32)).all(), name
    else:
        e4m3 = op in (0, 2, 4, 8)
        for byte in range(2 if op == 8 else 1):
            code = (got[nan] >> (8 * byte)) & 0x7F
            assert (code == 0x7F if e4m3 else (code & 0x7C) == 0x7C).all() and (e4m3 or (code & 3).all()), name
    got, want = got[~nan], want[~nan].astype(np.uint32)
    assert_bit_exact(got, want, f"{name} ({device.arch})")
