"""CUDA's __half and __nv_bfloat16 (the shflx CUDA layer's classes) on each AMD device (the GPU,
else the emulator of shared/amdemu), bit for bit against a reference written here from the IEEE
definitions: the exact result as a Fraction, rounded to the format's grid (nearest even, or
toward zero / +inf / -inf), with no float arithmetic of the code under test. Inputs keep results
normal (the emulator flushes denormals).

  pytest hw_tests/amd/test_cuda_fp16_hw.py"""
from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np
import pytest

from hw_devices import assert_bit_exact, device_params, require

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
  }
  out[i] = __bfloat16_as_ushort(r);
}
"""
N = 512
OPS = {0: "add", 1: "sub", 2: "mul", 3: "div", 4: "fma", 5: "from_float_rn", 6: "from_float_rz",
       7: "from_float_ru", 8: "from_float_rd", 9: "max", 10: "fma2_low", 11: "shfl_xor", 12: "shfl_down_pair"}


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


@functools.lru_cache(maxsize=None)
def _code_object(arch: str, workdir: str) -> bytes:
    from pathlib import Path

    from shflx.driver.amd import compile_file
    src = Path(workdir) / "cuda_fp16.cu"
    src.write_text(SOURCE)
    return compile_file(src, arch).output


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_fp16_operation_bit_exact(device, case, tmp_path_factory):
    require(device)
    name, op = case
    f = fmt(name)
    a, b, c, fl = _inputs(f, op, np.random.default_rng(100 + op))
    hsaco = _code_object(device.arch, str(tmp_path_factory.getbasetemp()))
    kernel = "half_ops" if name == "half" else "bf16_ops"
    got = device.run_kernel(hsaco, kernel, [a, b, c, fl], N, np.uint16, block=(64, 1, 1), grid=(N // 64, 1, 1),
                            scalars=[op])
    assert_bit_exact(np.asarray(got), expected(f, op, a, b, c, fl), f"{name} {OPS[op]} ({device.arch})")
