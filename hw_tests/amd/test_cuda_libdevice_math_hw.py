"""NVIDIA's libdevice math on each AMD device (the GPU, else the emulator of shared/amdemu), as
shflx retargets it (codegen/libdevice.py): the double-precision functions, and the single-precision
ones the CUDA layer does not write itself (asinf, atan2f, erfcf, normcdff, tgammaf, ...), over inputs
per function (Payne-Hanek arguments of sin/cos/tan up to 1e300 included), against numpy / Python
double precision in ULPs of the result's type, within the CUDA C Programming Guide's bound
("Mathematical Functions": "Double-Precision" and "Single-Precision Floating-Point Functions") plus 1
for the reference's own rounding.

  pytest hw_tests/amd/test_cuda_libdevice_math_hw.py"""
from __future__ import annotations

import math

import numpy as np
import pytest

from hw_devices import code_object, device_params, require

SOURCE = r"""
#include <cmath>
extern "C" __global__ void dmath(const double *x, const double *y, double *out, int fn) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double a = x[i], b = y[i], r = 0, s, c;
  switch (fn) {
    case 0: r = exp(a); break;     case 1: r = log(a); break;     case 2: r = sin(a); break;
    case 3: r = cos(a); break;     case 4: r = tan(a); break;     case 5: r = pow(a, b); break;
    case 6: r = tanh(a); break;    case 7: r = erf(a); break;     case 8: r = atan2(a, b); break;
    case 9: r = expm1(a); break;   case 10: r = log1p(a); break;  case 11: r = cbrt(a); break;
    case 12: sincos(a, &s, &c); r = s; break;    case 18: sincos(a, &s, &c); r = c; break;
    case 13: r = std::sinh(a); break; case 14: r = std::asin(a); break; case 15: r = exp2(a); break;
    case 16: r = log10(a); break;  case 17: r = hypot(a, b); break;
    case 19: sincospi(a, &s, &c); r = s; break;  case 20: sincospi(a, &s, &c); r = c; break;
  }
  out[i] = r;
}
extern "C" __global__ void fmath(const float *x, const float *y, float *out, int fn) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = x[i], b = y[i], r = 0;
  switch (fn) {
    case 0: r = asinf(a); break;    case 1: r = acosf(a); break;     case 2: r = atanf(a); break;
    case 3: r = atan2f(a, b); break; case 4: r = hypotf(a, b); break; case 5: r = erfcf(a); break;
    case 6: r = erfinvf(a); break;  case 7: r = normcdff(a); break;  case 8: r = sinpif(a); break;
    case 9: r = cospif(a); break;   case 10: r = rcbrtf(a); break;   case 11: r = tgammaf(a); break;
    case 12: r = lgammaf(a); break; case 13: r = normcdfinvf(a); break;
    case 14: { float s, c; sincospif(a, &s, &c); r = s; break; }
    case 15: { float s, c; sincospi(a, &s, &c); r = c; break; }
  }
  out[i] = r;
}
"""
N = 256
U = np.random.default_rng
_PI_L = np.arctan(np.longdouble(1)) * 4          # pi to x86 extended precision (64-bit mantissa)


def _sinpi(v: np.ndarray, cos: bool) -> np.ndarray:
    """sin(pi v) or cos(pi v) = sin(pi (1/2 - |r|)), r = v - 2 round(v / 2) (exact), the argument of
    sin folded into [-1/2, 1/2] exactly in extended precision, so the result is good to far below an
    ulp even next to a zero."""
    r = (v - 2 * np.round(v / 2)).astype(np.longdouble)
    t = 0.5 - np.abs(r) if cos else np.where(np.abs(r) > 0.5, np.sign(r) * (1 - np.abs(r)), r)
    return np.sin(_PI_L * t).astype(np.float64)
TRIG = lambda r: (np.concatenate([r.uniform(-10, 10, N // 2), r.uniform(-1e9, 1e9, N // 4),  # noqa: E731
                                  r.uniform(-1e300, 1e300, N // 4)]), None)
# fn: (name, numpy reference, CUDA's bound in ulp, inputs)
FUNCS = {
    0: ("exp", np.exp, 1, lambda r: (r.uniform(-700, 700, N), None)),
    1: ("log", np.log, 1, lambda r: (np.exp(r.uniform(-700, 700, N)), None)),
    2: ("sin", np.sin, 2, TRIG),
    3: ("cos", np.cos, 2, TRIG),
    4: ("tan", np.tan, 2, TRIG),
    5: ("pow", np.power, 2, lambda r: (np.exp(r.uniform(-5, 5, N)), r.uniform(-40, 40, N))),
    6: ("tanh", np.tanh, 2, lambda r: (r.uniform(-20, 20, N), None)),
    7: ("erf", np.vectorize(math.erf), 2, lambda r: (r.uniform(-6, 6, N), None)),
    8: ("atan2", np.arctan2, 2, lambda r: (r.uniform(-100, 100, N), r.uniform(-100, 100, N))),
    9: ("expm1", np.expm1, 1, lambda r: (np.concatenate([r.uniform(-1, 1, N // 2), r.uniform(-700, 700, N // 2)]), None)),
    10: ("log1p", np.log1p, 1, lambda r: (np.concatenate([r.uniform(-0.9, 1, N // 2), np.exp(r.uniform(-30, 700, N // 2))]), None)),
    11: ("cbrt", np.cbrt, 1, lambda r: (r.uniform(-1e30, 1e30, N), None)),
    12: ("sincos-sin", np.sin, 2, TRIG),
    18: ("sincos-cos", np.cos, 2, TRIG),
    13: ("sinh", np.sinh, 2, lambda r: (r.uniform(-700, 700, N), None)),
    14: ("asin", np.arcsin, 2, lambda r: (r.uniform(-1, 1, N), None)),
    15: ("exp2", np.exp2, 1, lambda r: (r.uniform(-1000, 1000, N), None)),
    16: ("log10", np.log10, 1, lambda r: (np.exp(r.uniform(-700, 700, N)), None)),
    17: ("hypot", np.hypot, 2, lambda r: (r.uniform(-1e200, 1e200, N), r.uniform(-1e200, 1e200, N))),
    # sincospi (NVIDIA's curand_normal.h calls it): sin(pi x), cos(pi x) in x86 extended precision
    19: ("sincospi-sin", lambda v: _sinpi(v, False), 2, lambda r: (r.uniform(-10, 10, N), None)),
    20: ("sincospi-cos", lambda v: _sinpi(v, True), 2, lambda r: (r.uniform(-10, 10, N), None)),
}


_NORMAL = __import__("statistics").NormalDist()
# fn: (name, reference over float64, CUDA's single-precision bound in ulp, inputs)
FLOAT_FUNCS = {
    0: ("asinf", np.arcsin, 2, lambda r: (r.uniform(-1, 1, N), None)),
    1: ("acosf", np.arccos, 2, lambda r: (r.uniform(-1, 1, N), None)),
    2: ("atanf", np.arctan, 2, lambda r: (np.concatenate([r.uniform(-3, 3, N // 2), r.uniform(-1e6, 1e6, N // 2)]), None)),
    3: ("atan2f", np.arctan2, 3, lambda r: (r.uniform(-100, 100, N), r.uniform(-100, 100, N))),
    4: ("hypotf", np.hypot, 3, lambda r: (r.uniform(-1e18, 1e18, N), r.uniform(-1e18, 1e18, N))),
    5: ("erfcf", np.vectorize(math.erfc), 4, lambda r: (r.uniform(-3, 9, N), None)),
    6: ("erfinvf", np.vectorize(lambda v: _NORMAL.inv_cdf((v + 1) / 2) / math.sqrt(2)), 2,
        lambda r: (r.uniform(-0.999, 0.999, N), None)),
    7: ("normcdff", np.vectorize(lambda v: 0.5 * math.erfc(-v / math.sqrt(2))), 5, lambda r: (r.uniform(-12, 8, N), None)),
    8: ("sinpif", lambda v: np.sin(np.pi * v), 1, lambda r: (r.uniform(-0.49, 0.49, N), None)),
    9: ("cospif", lambda v: np.cos(np.pi * v), 1, lambda r: (r.uniform(-0.49, 0.49, N), None)),
    10: ("rcbrtf", lambda v: 1 / np.cbrt(v), 1, lambda r: (r.uniform(1e-30, 1e30, N), None)),
    11: ("tgammaf", np.vectorize(math.gamma), 5, lambda r: (r.uniform(0.1, 30, N), None)),
    12: ("lgammaf", np.vectorize(math.lgamma), 6, lambda r: (r.uniform(3, 1e4, N), None)),
    13: ("normcdfinvf", np.vectorize(_NORMAL.inv_cdf), 5, lambda r: (r.uniform(0.001, 0.999, N), None)),
    14: ("sincospif-sin", lambda v: np.sin(np.pi * v), 1, lambda r: (r.uniform(-0.49, 0.49, N), None)),
    15: ("sincospi(float)-cos", lambda v: np.cos(np.pi * v), 1, lambda r: (r.uniform(-0.49, 0.49, N), None)),
}


def ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in units of the last place at the reference."""
    return np.abs(got - want) / np.spacing(np.abs(want))


def _cases(device):
    for fn, (name, *_rest) in FUNCS.items():
        yield name, fn, ()
    for fn, (name, *_rest) in FLOAT_FUNCS.items():
        yield name, -1 - fn, ()


@pytest.mark.parametrize("device,fn", device_params(_cases))
def test_libdevice_math_within_cudas_bound(device, fn, tmp_path_factory):
    require(device)
    from shflx.frontend.cuda_sdk import libdevice_path
    if libdevice_path() is None:
        pytest.skip("NVIDIA's libdevice is not installed (the nvcc wheel of shflx's cuda extra)")
    single = fn < 0
    name, ref, bound, make = FLOAT_FUNCS[-1 - fn] if single else FUNCS[fn]
    x, y = make(U(100 + fn))
    y = np.ones(N) if y is None else y
    dtype = np.float32 if single else np.float64
    x, y = x.astype(dtype), y.astype(dtype)
    hsaco = code_object(SOURCE, "libdevice_math.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    got = np.asarray(device.run_kernel(hsaco, "fmath" if single else "dmath", [x, y], N, dtype, block=(64, 1, 1),
                                       grid=(N // 64, 1, 1), scalars=[-1 - fn if single else fn]))
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    want = ref(x64, y64) if name in ("pow", "atan2", "hypot", "atan2f", "hypotf") else ref(x64)
    assert np.array_equal(np.isnan(got), np.isnan(want)), f"{name}: NaN where the reference has none ({device.arch})"
    err = ulps(got.astype(np.float64), want.astype(np.float64)) if not single else \
        np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    assert np.nanmax(err) <= bound + 1, (f"{name} on {device.arch}: {np.nanmax(err):.2f} ulp at "
                                         f"x={x[np.nanargmax(err)]!r}, CUDA's bound {bound}")
