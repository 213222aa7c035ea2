"""The CUDA layer's single-precision math on each AMD device (the GPU, else the emulator of
shared/amdemu): one kernel evaluates every function over inputs chosen per function, compared
with numpy's / Python's double-precision functions rounded to float, in float ULPs, against the
bounds docs/cuda-layer.md states (the CUDA C Programming Guide's). The emulator runs with
denormals flushed, so inputs keep results normal.

  pytest hw_tests/amd/test_cuda_math_hw.py"""
from __future__ import annotations

import math

import numpy as np
import pytest

from hw_devices import code_object, device_params, require

SOURCE = r"""
extern "C" __global__ void math1(const float *x, const float *y, float *out, int fn) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = x[i], b = y[i], r = 0.0f, s, c;
  switch (fn) {
    case 0: r = expf(a); break;        case 1: r = exp2f(a); break;      case 2: r = exp10f(a); break;
    case 3: r = expm1f(a); break;      case 4: r = logf(a); break;       case 5: r = log2f(a); break;
    case 6: r = log10f(a); break;      case 7: r = log1pf(a); break;     case 8: r = powf(a, b); break;
    case 9: r = sinf(a); break;        case 10: r = cosf(a); break;      case 11: r = tanf(a); break;
    case 12: sincosf(a, &s, &c); r = s - c; break;
    case 13: r = tanhf(a); break;      case 14: r = sinhf(a); break;     case 15: r = coshf(a); break;
    case 16: r = erff(a); break;       case 17: r = sqrtf(a); break;     case 18: r = rsqrtf(a); break;
    case 19: r = cbrtf(a); break;      case 20: r = exp(a); break;       case 21: r = pow(a, b); break;    case 22: r = __frsqrt_rn(a); break;
  }
  out[i] = r;
}
"""
N = 1024
# function: (numpy reference over float64, bound in ULPs, input generator (rng) -> (x, y))
LOG_U = lambda r: (np.exp(r.uniform(-80, 80, N)), None)  # noqa: E731
TRIG = lambda r: (np.concatenate([r.uniform(-10, 10, N // 2), r.uniform(-105615, 105615, N // 4),  # noqa: E731
                                  np.exp(r.uniform(11.6, 88, N // 4)) * r.choice([-1, 1], N // 4)]), None)
FUNCS = {
    0: ("expf", np.exp, 2, lambda r: (r.uniform(-87, 88, N), None)),
    1: ("exp2f", np.exp2, 2, lambda r: (r.uniform(-125, 127, N), None)),
    2: ("exp10f", lambda v: 10.0 ** v, 2, lambda r: (r.uniform(-37, 38, N), None)),
    3: ("expm1f", np.expm1, 1, lambda r: (np.concatenate([r.uniform(-1, 1, N // 2), r.uniform(-80, 88, N // 4),
                                                           r.uniform(-1e-3, 1e-3, N // 4)]), None)),
    4: ("logf", np.log, 1, LOG_U),
    5: ("log2f", np.log2, 1, LOG_U),
    6: ("log10f", np.log10, 2, LOG_U),
    7: ("log1pf", np.log1p, 1, lambda r: (np.concatenate([r.uniform(-0.999, 1, N // 2), np.exp(r.uniform(-20, 80, N // 4)),
                                                           r.uniform(-1e-4, 1e-4, N // 4)]), None)),
    8: ("powf", np.power, 4, lambda r: (np.exp(r.uniform(-5, 5, N)), r.uniform(-15, 15, N))),
    9: ("sinf", np.sin, 2, TRIG),
    10: ("cosf", np.cos, 2, TRIG),
    11: ("tanf", np.tan, 4, TRIG),
    13: ("tanhf", np.tanh, 2, lambda r: (np.concatenate([r.uniform(-10, 10, N // 2), r.uniform(-0.1, 0.1, N // 2)]), None)),
    14: ("sinhf", np.sinh, 3, lambda r: (r.uniform(-88, 88, N), None)),
    15: ("coshf", np.cosh, 2, lambda r: (r.uniform(-88, 88, N), None)),
    16: ("erff", np.vectorize(math.erf), 2, lambda r: (np.concatenate([r.uniform(-5, 5, N // 2), r.uniform(-0.01, 0.01, N // 2)]), None)),
    17: ("sqrtf", np.sqrt, 0, LOG_U),
    18: ("rsqrtf", lambda v: 1.0 / np.sqrt(v), 2, LOG_U),
    19: ("cbrtf", np.cbrt, 1, lambda r: (r.uniform(-1e6, 1e6, N), None)),
    20: ("exp(float)", np.exp, 2, lambda r: (r.uniform(-87, 88, N), None)),
    21: ("pow(float, float)", np.power, 4, lambda r: (np.exp(r.uniform(-5, 5, N)), r.uniform(-15, 15, N))),
    22: ("__frsqrt_rn", lambda v: 1.0 / np.sqrt(v), 0, LOG_U),       # correctly rounded: <= 0.5 ulp
}


def ulp_error(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in units of the float ULP at ref (ref in double)."""
    mag = np.maximum(np.abs(ref), np.finfo(np.float32).tiny)
    ulp = np.exp2(np.floor(np.log2(mag)) - 23)
    return np.abs(got.astype(np.float64) - ref) / ulp




def _cases(device):
    for fn in sorted(FUNCS):
        yield FUNCS[fn][0], fn, ()


@pytest.mark.parametrize("device,fn", device_params(_cases))
def test_math_function_within_cuda_ulp_bound(device, fn, tmp_path_factory):
    require(device)
    name, ref_fn, bound, make = FUNCS[fn]
    x, y = make(np.random.default_rng(fn))
    x = x.astype(np.float32)
    y = (y if y is not None else np.zeros(N)).astype(np.float32)
    hsaco = code_object(SOURCE, "cuda_math.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    got = np.asarray(device.run_kernel(hsaco, "math1", [x, y], N, np.float32, block=(64, 1, 1), grid=(N // 64, 1, 1),
                                       scalars=[fn]))
    with np.errstate(all="ignore"):
        ref = ref_fn(x.astype(np.float64), y.astype(np.float64)) if fn in (8, 21) else ref_fn(x.astype(np.float64))
    keep = np.isfinite(ref) & (np.abs(ref) < np.finfo(np.float32).max) & \
        ((np.abs(ref) >= np.finfo(np.float32).tiny) | (ref == 0))
    assert keep.sum() > N // 2, f"{name}: too few usable inputs"
    err = ulp_error(got[keep], ref[keep])
    worst = int(np.argmax(err))
    print(f"{device.arch} {name}: max {err.max():.3f} ulp, mean {err.mean():.4f} over {keep.sum()} inputs")
    assert err.max() <= max(bound, 0.5) + 1e-9, \
        f"{name}: {err.max():.2f} ulp > {bound} at x={x[keep][worst]!r} y={y[keep][worst]!r}: " \
        f"got {got[keep][worst]!r}, want {ref[keep][worst]!r}"
