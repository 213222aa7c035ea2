"""CUDA's directed-rounding intrinsics (__fadd_rz, __fmul_ru, __fdiv_rd, __fmaf_rz, __frcp_rz,
__fsqrt_ru, __dadd_rd, __ddiv_rz, __drcp_ru, __dsqrt_rz, ...), the same forms as inline PTX
(add.rz.f32, div.rm.f64, ...) and libdevice's __nv_ functions, on each AMD device (the GPU, else
the emulator), bit for bit against the exact reference (tests/reference/directed_ref.py: Fraction,
IEEE 754 directed rounding), over edge values (zeros, subnormals, the extremes, inf, NaN) and
random operands with close exponents.

  pytest hw_tests/amd/test_cuda_directed_rounding_hw.py"""
from __future__ import annotations

import numpy as np
import pytest

from hw_devices import code_object, device_params, require
from reference import directed_ref as R

MODES = (("rz", "rz"), ("ru", "rp"), ("rd", "rm"))          # CUDA's suffix, the IEEE direction
# (type, CUDA prefix, arity, operation)
LAYER = [("f32", "__fadd", 2, "add"), ("f32", "__fsub", 2, "sub"), ("f32", "__fmul", 2, "mul"),
         ("f32", "__fdiv", 2, "div"), ("f32", "__fmaf", 3, "fma"), ("f32", "__frcp", 1, "rcp"),
         ("f32", "__fsqrt", 1, "sqrt"), ("f64", "__dadd", 2, "add"), ("f64", "__dsub", 2, "sub"),
         ("f64", "__dmul", 2, "mul"), ("f64", "__ddiv", 2, "div"), ("f64", "__drcp", 1, "rcp"),
         ("f64", "__dsqrt", 1, "sqrt"), ("f64", "__fma", 3, "fma"), ("f64", "__double2float", 1, "d2f")]
PTX = [("f32", "add.rz.f32", "add", "rz", 2), ("f32", "mul.rp.f32", "mul", "rp", 2),
       ("f32", "fma.rm.f32", "fma", "rm", 3), ("f32", "rcp.rz.f32", "rcp", "rz", 1),
       ("f64", "div.rm.f64", "div", "rm", 2), ("f64", "sqrt.rp.f64", "sqrt", "rp", 1),
       ("f64", "sub.rz.f64", "sub", "rz", 2), ("f64", "cvt.rm.f32.f64", "d2f", "rm", 1),
       ("f64", "fma.rp.f64", "fma", "rp", 3)]
# the round-to-nearest quotients the directed ones start from: where the device gets these wrong
# (amdemu's V_DIV_SCALE / V_DIV_FIXUP with subnormal or extreme operands: its V_LDEXP computes
# S0 * 2^S1 rounded in the format) a directed quotient cannot be right, so on the emulator those
# inputs are left out of the div/rcp columns (counted; a GPU must get them all)
NEAREST = [("f32", "__fdiv_rn", 2, "div"), ("f32", "__frcp_rn", 1, "rcp"), ("f64", "__ddiv_rn", 2, "div"),
           ("f64", "__drcp_rn", 1, "rcp")]
LIBDEVICE = [("f32", "__nv_fadd_rd", "add", "rm", 2), ("f32", "__nv_frcp_rz", "rcp", "rz", 1),
             ("f64", "__nv_dmul_ru", "mul", "rp", 2), ("f64", "__nv_dsqrt_rd", "sqrt", "rm", 1),
             ("f64", "__nv_double2float_rz", "d2f", "rz", 1), ("f64", "__nv_fma_rd", "fma", "rm", 3)]
C = {"f32": ("float", "unsigned", "__uint_as_float", "__float_as_uint", "f", np.uint32),
     "f64": ("double", "unsigned long long", "__longlong_as_double", "__double_as_longlong", "d", np.uint64)}


def _columns(ty: str, libdevice: list) -> list[tuple[str, str, int, str]]:
    """The results one thread writes: (what, operation, arity, mode), in order; `libdevice`: the
    LIBDEVICE rows, where NVIDIA's libdevice is installed."""
    cols = [(f"{name}_{cuda}", op, n, mode) for t, name, n, op in LAYER if t == ty for cuda, mode in MODES]
    cols += [(form, op, n, mode) for t, form, op, mode, n in PTX if t == ty]
    cols += [(name, op, n, mode) for t, name, op, mode, n in libdevice if t == ty]
    cols += [(name, op, n, "rn") for t, name, n, op in NEAREST if t == ty]
    return cols


def _source(libdevice: list) -> str:
    out = []
    for ty in ("f32", "f64"):
        fty, uty, from_bits, to_bits, reg, _ = C[ty]
        out += [f'extern "C" __device__ {"float" if op == "d2f" else fty} {name}({", ".join([fty] * n)});'
                for t, name, op, _, n in libdevice if t == ty]
        body = ["  int i = blockIdx.x * blockDim.x + threadIdx.x;",
                f"  {fty} x = {from_bits}(a[i]), y = {from_bits}(b[i]), z = {from_bits}(c[i]), r;",
                f"  {uty} *o = out + i * {len(_columns(ty, libdevice))};"]
        for k, (what, op, n, mode) in enumerate(_columns(ty, libdevice)):
            args = ", ".join("xyz"[:n])
            if op == "d2f":         # a float result, its bits in the low half
                if "." in what:
                    body.append(f'  {{ float f; asm("{what} %0, %1;" : "=f"(f) : "d"(x)); o[{k}] = __float_as_uint(f); }}')
                else:
                    body.append(f"  o[{k}] = __float_as_uint({what}(x));")
            elif "." in what:
                ins = ", ".join(f'"{reg}"({v})' for v in "xyz"[:n])
                ops = ", ".join(f"%{j}" for j in range(n + 1))
                body.append(f'  asm("{what} {ops};" : "={reg}"(r) : {ins}); o[{k}] = {to_bits}(r);')
            else:
                body.append(f"  o[{k}] = {to_bits}({what}({args}));")
        out.append(f'extern "C" __global__ void k_{ty}(const {uty} *a, const {uty} *b, const {uty} *c, {uty} *out) {{\n'
                   + "\n".join(body) + "\n}")
    return "\n".join(out) + "\n"


def _inputs(ty: str, n: int) -> list[np.ndarray]:
    """Edge values paired with each other (shifted copies), then random operands whose exponents
    are within the precision of each other (cancellation, ties, exact results, underflow)."""
    p, emin, emax, w = R.FORMATS[ty]
    ut = C[ty][5]
    frac = p - 1
    one, inf = emax << frac, ((1 << (w - p)) - 1) << frac
    edges = [0, 1, 3, (1 << frac) - 1, 1 << frac, one, one + 1, one - 1, inf - 1, inf, inf | 1 << (frac - 1),
             (2 * emax - 1) << frac | 5, (emax - p) << frac | 99, 3 << (frac - 2) | one]
    edges += [e | 1 << (w - 1) for e in edges]
    rng = np.random.default_rng(2026)
    center = rng.integers(1, 2 * emax, n)
    cols = []
    for k in range(3):
        e = np.clip(center + rng.integers(-p, p + 1, n) * rng.integers(0, 2, n), 0, 2 * emax)
        m = rng.integers(0, 1 << frac, n, dtype=np.uint64)
        s = rng.integers(0, 2, n, dtype=np.uint64)
        col = (s << np.uint64(w - 1)) | (e.astype(np.uint64) << np.uint64(frac)) | m
        col[:len(edges)] = np.roll(np.array(edges, dtype=np.uint64), 5 * k)
        col[len(edges):2 * len(edges)] = np.roll(np.array(edges, dtype=np.uint64), 3 * k + 1)
        cols.append(col.astype(ut))
    return cols


def _cases(device):
    yield "f32", "f32", ()
    yield "f64", "f64", ()


@pytest.mark.parametrize("device,ty", device_params(_cases))
def test_directed_rounding_is_exact(device, ty, tmp_path_factory):
    require(device)
    from shflx.frontend.cuda_sdk import libdevice_path
    libdevice = LIBDEVICE if libdevice_path() is not None else []      # the cuda extra's nvcc wheel
    hsaco = code_object(_source(libdevice), "directed_rounding.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    n = 256
    cols = _inputs(ty, n)
    what = _columns(ty, libdevice)
    got = np.asarray(device.run_kernel(hsaco, f"k_{ty}", cols, n * len(what), C[ty][5], block=(64, 1, 1),
                                       grid=(n // 64, 1, 1))).reshape(n, len(what))
    results = {}
    for j, (name, op, arity, mode) in enumerate(what):
        for i in range(n):
            args = [int(cols[k][i]) for k in range(arity)]
            rty = "f32" if op == "d2f" else ty
            want = R.OPS[op](*args, rty, mode)
            g = int(got[i, j])
            shown = "NaN" if want is None else hex(want)
            results[name, i] = (R.value(g, rty) is None if want is None else g == want,
                                f"{name}{tuple(hex(a) for a in args)} = {g:#x}, want {shown}")
    gaps = {(op, i) for name, op, _, mode in what if mode == "rn" for i in range(n) if not results[name, i][0]}
    emulated = getattr(device, "kind", "") == "emulator"
    wrong = [text for (name, i), (ok, text) in results.items() if not ok and not (emulated and any(
        (op, i) in gaps for nm, op, _, _ in what if nm == name))]
    assert not wrong, f"{device.arch}: {len(wrong)} wrong: " + "; ".join(wrong[:10])
    assert len(gaps) < n // 4, f"{device.arch}: the device's own quotients are wrong for {len(gaps)} inputs"
