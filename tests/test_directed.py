"""Directed-rounding arithmetic (shflx/ir/directed.py: .rz/.rm/.rp add, sub, mul, div, rcp, sqrt, fma
in f32 and f64, double -> float): the functions, compiled for this host by llvmlite's JIT, against the exact
reference of tests/reference/directed_ref.py (Fraction, IEEE 754 directed rounding), bit for bit
(any NaN for a NaN). Edge values (zeros, subnormals, the extremes, overflow, inf, NaN) in every
combination, structured random operands (close exponents: cancellation, ties, subnormal results)
and random bit patterns, strided sweeps of every f32 for rcp and sqrt checked by exact
characterization in float64; and the same functions reached through libdevice's NVVM intrinsics
and inline PTX."""
from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from reference import directed_ref as R
from shflx.ir import directed as D

NP = {"f32": (np.uint32, np.float32, 32), "f64": (np.uint64, np.float64, 64)}
KEYS = sorted(D.HELPERS)


def arg_type(key: str) -> str:
    """The operands' type: the result's but for d2f (double -> float)."""
    op, _, ty = key.split(".")
    return "f64" if op == "d2f" else ty


def _loops(keys: list[str]) -> str:
    """Each helper's definition and a loop over arrays of bit patterns: loop_<symbol>(a, b, c, out, n)."""
    out, decls = [], {}
    for key in keys:
        ty = key.rsplit(".", 1)[1]
        fty, ity = D.TYPES[ty][:2]
        aty, aity = D.TYPES[arg_type(key)][:2]
        out.append(D.definition(key))
        for line in D.HELPERS[key][3].splitlines():
            decls[line] = None
        n_args = len(D.HELPERS[key][1])
        loads = []
        for k in range(n_args):
            loads.append(f"  %p{k} = getelementptr {aity}, ptr %{'abc'[k]}, i64 %i\n  %w{k} = load {aity}, ptr %p{k}\n"
                         f"  %x{k} = bitcast {aity} %w{k} to {aty}")
        args = ", ".join(f"{aty} %x{k}" for k in range(n_args))
        out.append(f"define void @loop_{D.symbol(key)}(ptr %a, ptr %b, ptr %c, ptr %o, i64 %n) {{\nentry:\n"
                   f"  br label %head\nhead:\n  %i = phi i64 [0, %entry], [%i1, %body]\n"
                   f"  %done = icmp eq i64 %i, %n\n  br i1 %done, label %exit, label %body\nbody:\n"
                   + "\n".join(loads) + f"\n  %r = call {fty} @{D.symbol(key)}({args})\n"
                   f"  %rb = bitcast {fty} %r to {ity}\n  %po = getelementptr {ity}, ptr %o, i64 %i\n"
                   f"  store {ity} %rb, ptr %po\n  %i1 = add i64 %i, 1\n  br label %head\nexit:\n  ret void\n}}")
    return "\n".join(out + list(decls)) + "\n"


def _jit(text: str):
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(f'target triple = "{llvm.get_default_triple()}"\n' + text)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten())
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    return engine


class Runner:
    """Calls `fn_name`'s loop over numpy arrays of bits."""

    def __init__(self, engine, prefix: str = "loop_"):
        self.engine, self.prefix, self.fns = engine, prefix, {}

    def __call__(self, key: str, *cols) -> np.ndarray:
        ut, at = NP[key.rsplit(".", 1)[1]][0], NP[arg_type(key)][0]
        cols = [np.ascontiguousarray(c, dtype=at) for c in cols]
        n = len(cols[0])
        cols += [np.zeros(n, at)] * (3 - len(cols))
        out = np.zeros(n, ut)
        if key not in self.fns:
            addr = self.engine.get_function_address(f"{self.prefix}{D.symbol(key)}")
            self.fns[key] = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 4, ctypes.c_int64)(addr)
        self.fns[key](*(c.ctypes.data for c in cols), out.ctypes.data, n)
        return out


@pytest.fixture(scope="module")
def run():
    return Runner(_jit(_loops(KEYS)))


def _check(key: str, cols, got) -> None:
    """Every result against the reference; the first few mismatches named."""
    op, mode, ty = key.split(".")
    ref = R.OPS[op]
    bad = []
    for k, args in enumerate(zip(*cols)):
        want = ref(*(int(a) for a in args), ty, mode)
        g = int(got[k])
        ok = R.value(g, ty) is None if want is None else g == want
        if not ok:
            bad.append(f"{op}.{mode}.{ty}{tuple(hex(int(a)) for a in args)} = {g:#x}, want "
                       f"{'NaN' if want is None else hex(want)}")
    assert not bad, f"{len(bad)} of {len(got)} wrong:\n" + "\n".join(bad[:12])


def _edges(ty: str) -> list[int]:
    p, emin, emax, w = R.FORMATS[ty]
    frac, sign = p - 1, 1 << (w - 1)
    one = (emax) << frac
    inf = ((1 << (w - p)) - 1) << frac
    pos = [0, 1, 2, 3, (1 << frac) - 1, 1 << frac, (1 << frac) + 1, one, one + 1, one - 1, one + (1 << (frac - 1)),
           (emax + 1) << frac | 0x5555 & ((1 << frac) - 1), inf - 1, inf - 2, (2 * emax - 1) << frac, inf,
           inf | 1 << (frac - 1), (emax - 30) << frac | 12345, (emax + 30) << frac | 777, 3 << (frac - 2) | one]
    return pos + [x | sign for x in pos]


@pytest.mark.parametrize("key", KEYS)
def test_edge_values_in_every_combination(run, key):
    e = np.array(_edges(arg_type(key)), dtype=NP[arg_type(key)][0])
    arity = len(D.HELPERS[key][1])
    if arity == 3:
        e = e[::3]
    grids = np.meshgrid(*[e] * arity, indexing="ij")
    cols = [g.ravel() for g in grids]
    _check(key, cols, run(key, *cols))


def _structured(rng, ty: str, n: int, arity: int) -> list[np.ndarray]:
    """Operands with exponents near each other (cancellation, carries, ties, exact results),
    anywhere in the range (subnormal and overflowing results), a quarter of them raw bit patterns."""
    p, emin, emax, w = R.FORMATS[ty]
    ut = NP[ty][0]
    frac = p - 1
    center = rng.integers(0, 2 * emax + 1, n)
    cols = []
    for _ in range(arity):
        e = np.clip(center + rng.integers(-p - 2, p + 3, n) * rng.integers(0, 2, n), 0, 2 * emax)
        m = rng.integers(0, 1 << frac, n, dtype=np.uint64)
        short = rng.integers(0, 2, n).astype(bool)             # few significant bits: exact results, ties
        m = np.where(short, m & ~((np.uint64(1) << np.uint64(frac - 4)) - np.uint64(1)), m)
        s = rng.integers(0, 2, n, dtype=np.uint64)
        bits = (s << np.uint64(w - 1)) | (e.astype(np.uint64) << np.uint64(frac)) | m
        raw = rng.integers(0, 1 << w, n, dtype=np.uint64)
        bits = np.where(rng.random(n) < 0.25, raw, bits)
        cols.append(bits.astype(ut))
    return cols


@pytest.mark.parametrize("key", KEYS)
def test_random_operands(run, key):
    rng = np.random.default_rng(sum(map(ord, key)))
    cols = _structured(rng, arg_type(key), 3000, len(D.HELPERS[key][1]))
    _check(key, cols, run(key, *cols))


@settings(max_examples=2000, deadline=None)
@given(data=st.data())
def test_property_random_bit_patterns(run, data):
    key = data.draw(st.sampled_from(KEYS))
    ut, _, w = NP[arg_type(key)]
    bits = [data.draw(st.integers(0, (1 << w) - 1)) for _ in D.HELPERS[key][1]]
    _check(key, [np.array([b], dtype=ut) for b in bits], run(key, *[np.array([b], dtype=ut) for b in bits]))


def _next(y: np.ndarray, up: bool) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.nextafter(y, np.float32(np.inf if up else -np.inf))


def _characterized(y: np.ndarray, cmp, mode: str, positive: np.ndarray) -> np.ndarray:
    """Whether each y is the directed rounding of an exact value r, from cmp(v) = sign(v - r)
    (exact): rm is the largest float <= r, rp the smallest >= r, rz rm for r > 0 and rp for r < 0."""
    down = (cmp(y) <= 0) & (cmp(_next(y, True)) > 0)
    up = (cmp(y) >= 0) & (cmp(_next(y, False)) < 0)
    return {"rm": down, "rp": up, "rz": np.where(positive, down, up)}[mode]


@pytest.mark.parametrize("mode", D.MODES)
def test_rcp_f32_strided_sweep_of_every_float(run, mode):
    """Every 1021st bit pattern (both signs; finite nonzero), and every 61st one of [1, 4): y is the
    directed rounding of 1/x iff sign(y - 1/x) = sign(y x - 1) sign(x) (y x exact in double)."""
    x = np.concatenate([np.arange(1, 0x7F800000, 1021, dtype=np.uint32),
                        np.arange(0x3F800000, 0x40800000, 61, dtype=np.uint32)])
    x = np.concatenate([x, x | np.uint32(0x80000000)])
    y = run(f"rcp.{mode}.f32", x).view(np.float32)
    xf = x.view(np.float32).astype(np.float64)

    def cmp(v):
        return np.sign(v.astype(np.float64) * xf - 1.0) * np.sign(xf)
    ok = _characterized(y, cmp, mode, xf > 0)
    assert ok.all(), [(hex(int(a)), float(b)) for a, b in zip(x[~ok][:8], y[~ok][:8])]


@pytest.mark.parametrize("mode", D.MODES)
def test_sqrt_f32_strided_sweep_of_every_float(run, mode):
    """Every 257th positive finite float and every 61st of [1, 4) (both parities of the exponent):
    y is the directed rounding of sqrt(x) iff sign(y - sqrt x) = sign(y^2 - x) (exact in double);
    negative x give NaN, -0 gives -0."""
    x = np.concatenate([np.arange(1, 0x7F800000, 257, dtype=np.uint32),
                        np.arange(0x3F800000, 0x40800000, 61, dtype=np.uint32)])
    y = run(f"sqrt.{mode}.f32", x).view(np.float32)
    xf = x.view(np.float32).astype(np.float64)

    def cmp(v):
        v = v.astype(np.float64)
        return np.sign(np.where(v < 0, -1.0, v * v - xf))
    ok = _characterized(y, cmp, mode, np.ones(len(x), bool))
    assert ok.all(), [(hex(int(a)), float(b)) for a, b in zip(x[~ok][:8], y[~ok][:8])]
    neg = run(f"sqrt.{mode}.f32", x[::97] | np.uint32(0x80000000)).view(np.float32)
    assert np.isnan(neg).all()
    assert run(f"sqrt.{mode}.f32", np.array([0x80000000], np.uint32))[0] == 0x80000000


@pytest.mark.parametrize("mode", D.MODES)
@pytest.mark.parametrize("op", ["mul", "div"])
def test_mul_div_f32_many_operands_by_characterization(run, mode, op):
    """200k random float pairs (structured as above): sign(y - a*b) and sign(y - a/b) = sign(y b - a)
    sign(b) are exact in double, so each result is checked without the Fraction reference."""
    rng = np.random.default_rng(7 + len(op) + D.MODES.index(mode))
    a, b = _structured(rng, "f32", 200_000, 2)
    y = run(f"{op}.{mode}.f32", a, b).view(np.float32)
    with np.errstate(invalid="ignore"):
        af, bf = a.view(np.float32).astype(np.float64), b.view(np.float32).astype(np.float64)
    finite = np.isfinite(af) & np.isfinite(bf) & (bf != 0) & (af != 0) & np.isfinite(y)
    if op == "mul":
        exact_sign = np.sign(af * bf)

        def cmp(v):
            return np.sign(v.astype(np.float64) - af * bf)
    else:
        exact_sign = np.sign(af) * np.sign(bf)

        def cmp(v):
            with np.errstate(invalid="ignore"):
                return np.sign(v.astype(np.float64) * bf - af) * np.sign(bf)
    ok = _characterized(y, cmp, mode, exact_sign > 0) | ~finite
    assert ok.all(), [(hex(int(p)), hex(int(q)), float(r)) for p, q, r in zip(a[~ok][:8], b[~ok][:8], y[~ok][:8])]
    # the overflowing ones (inf or the largest float) by the reference
    over = np.flatnonzero(np.isfinite(af) & np.isfinite(bf) & (bf != 0) & ~np.isfinite(y))[:200]
    _check(f"{op}.{mode}.f32", [a[over], b[over]], y.view(np.uint32)[over])


def test_one_source_for_the_three_paths():
    """libdevice's NVVM intrinsics are these bodies; the layer's header names these functions; inline
    PTX calls them."""
    from shflx.codegen import libdevice as L
    for key, (res, args, body, _) in D.HELPERS.items():
        op, mode, ty = key.split(".")
        if op != "sub":
            nvvm = f"d2f.{mode}" if op == "d2f" else f"{op}.{mode}.{'f' if ty == 'f32' else 'd'}"
            assert L.NVVM_IR[nvvm] == (res, args, body)
    assert "fma.rz.d" in L.NVVM_IR and "i2f.rz" not in L.NVVM_IR
    from pathlib import Path
    header = (Path(D.__file__).parent.parent / "frontend" / "include" / "shflx_math_amd.h").read_text()
    for key in D.HELPERS:
        op, mode, ty = key.split(".")
        assert f"__shflx_directed_{op}_##M##_{ty}" in header


PTX_FORMS = [("add.rz.f32 $0, $1, $2;", "add.rz.f32"), ("sub.rm.f64 $0, $1, $2;", "sub.rm.f64"),
             ("mul.rp.f32 $0, $1, $2;", "mul.rp.f32"), ("mul.rm.f64 $0, $1, $2;", "mul.rm.f64"),
             ("div.rz.f32 $0, $1, $2;", "div.rz.f32"), ("div.rp.f64 $0, $1, $2;", "div.rp.f64"),
             ("fma.rp.f32 $0, $1, $2, $3;", "fma.rp.f32"), ("rcp.rz.f64 $0, $1;", "rcp.rz.f64"),
             ("rcp.rm.f32 $0, $1;", "rcp.rm.f32"), ("sqrt.rp.f32 $0, $1;", "sqrt.rp.f32"),
             ("sqrt.rz.f64 $0, $1;", "sqrt.rz.f64"), ("cvt.rp.f32.f64 $0, $1;", "d2f.rp.f32"),
             ("fma.rz.f64 $0, $1, $2, $3;", "fma.rz.f64")]


@pytest.mark.parametrize("block,key", PTX_FORMS)
def test_inline_ptx_calls_the_same_functions(block, key):
    """The asm statement through ptxblock, its helper defined by define_declared, run on random
    operands against the reference."""
    from shflx.ir.ptxblock import translate
    fty, atys = D.HELPERS[key][0], D.HELPERS[key][1]
    n = len(atys)
    tr = translate(block, [fty], [(t, f"%x{k}") for k, t in enumerate(atys)], {}, "t", 32, "%res")
    assert any(D.symbol(key) in line for line in tr.lines)
    params = ", ".join(f"{t} %x{k}" for k, t in enumerate(atys))
    text = (f"define {fty} @f({params}) {{\nentry:\n" + "\n".join(tr.lines) + f"\n  ret {fty} %res\n}}\n"
            + "\n".join(tr.declarations.values()) + "\n")
    text = D.define_declared(text)
    assert not re.search(rf"^declare .*@{D.PREFIX}", text, re.M)
    engine = _jit(text)
    ct = {"float": ctypes.c_float, "double": ctypes.c_double}
    fn = ctypes.CFUNCTYPE(ct[fty], *[ct[t] for t in atys])(engine.get_function_address("f"))
    rng = np.random.default_rng(3)
    aty = arg_type(key)
    cols = _structured(rng, aty, 300, n)
    ty = key.rsplit(".", 1)[1]
    got = np.array([fn(*map(float, args)) for args in zip(*[c.view(NP[aty][1]) for c in cols])],
                   dtype=NP[ty][1]).view(NP[ty][0])
    _check(key, cols, got)


def test_inline_ptx_leaves_ftz_directed_unsupported():
    from shflx.ir.ptxblock import PtxBlockError, translate
    for block, ty in (("add.rz.ftz.f32 $0, $1, $2;", "float"), ("sqrt.rm.ftz.f32 $0, $1;", "float")):
        n = block.count("$") - 1
        with pytest.raises(PtxBlockError):
            translate(block, [ty], [(ty, f"%x{k}") for k in range(n)], {}, "t", 32, "%res")


@pytest.mark.parametrize("mode", D.MODES)
@pytest.mark.parametrize("op", ["add", "sub"])
def test_add_f32_near_overflow_by_characterization(run, mode, op):
    """200k sums of floats in the top 20 binades with exponents within 20 of each other (exact in
    double, so checked by characterization): 2Sum's error near the largest float, the overflow
    boundary, and cancellation there."""
    rng = np.random.default_rng(11 + D.MODES.index(mode) + len(op))
    n = 200_000
    ea = np.where(rng.random(n) < 0.5, 254, rng.integers(234, 255, n))
    eb = np.clip(ea - rng.integers(0, 21, n) * rng.integers(0, 2, n), 1, 254)
    a = (rng.integers(0, 2, n) << 31 | ea << 23 | rng.integers(0, 1 << 23, n)).astype(np.uint32)
    b = (rng.integers(0, 2, n) << 31 | eb << 23 | rng.integers(0, 1 << 23, n)).astype(np.uint32)
    y = run(f"{op}.{mode}.f32", a, b).view(np.float32)
    af, bf = a.view(np.float32).astype(np.float64), b.view(np.float32).astype(np.float64)
    exact = af + bf if op == "add" else af - bf            # exact: the exponents are within 20

    def cmp(v):
        return np.sign(v.astype(np.float64) - exact)
    ok = _characterized(y, cmp, mode, exact > 0) | (exact == 0)
    assert ok.all(), [(hex(int(p)), hex(int(q)), float(r)) for p, q, r in zip(a[~ok][:8], b[~ok][:8], y[~ok][:8])]
    assert (np.abs(y) == np.float32(3.4028235e38)).any()            # both overflow outcomes seen (rz never gives inf)
    assert (~np.isfinite(y)).any() == (mode != "rz")


@pytest.mark.parametrize("key", [k for k in KEYS if k.endswith(".f64") and k.split(".")[0] in ("add", "sub", "mul")])
def test_f64_near_overflow(run, key):
    """Doubles in the top binades with close exponents, against the reference: 2Sum and the scaled
    product residual where the nearest result is the largest double or overflows."""
    rng = np.random.default_rng(sum(map(ord, key)) + 5)
    n = 2000
    e = 2046 - rng.integers(0, 3, (2, n)) * rng.integers(0, 2, (2, n))
    if key.startswith("mul"):
        e = np.stack([1023 + rng.integers(500, 524, n), 1023 + rng.integers(500, 524, n)])
    cols = [(rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63) | e[k].astype(np.uint64) << np.uint64(52)
             | rng.integers(0, 1 << 52, n, dtype=np.uint64)) for k in range(2)]
    got = run(key, *cols)
    _check(key, cols, got)
    assert (got & np.uint64(0x7FFFFFFFFFFFFFFF) >= np.uint64(0x7FEFFFFFFFFFFFFF)).any()


@pytest.mark.parametrize("mode", D.MODES)
def test_double_to_float_in_and_near_the_float_range(run, mode):
    """20,000 doubles with exponents from below float's subnormals to above its largest value."""
    rng = np.random.default_rng(21 + D.MODES.index(mode))
    n = 20_000
    e = rng.integers(1023 - 152, 1023 + 130, n).astype(np.uint64)
    m = rng.integers(0, 1 << 52, n, dtype=np.uint64)
    m = np.where(rng.random(n) < 0.3, m & ~np.uint64((1 << 28) - 1), m)     # exact floats and ties
    x = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63) | e << np.uint64(52) | m
    _check(f"d2f.{mode}.f32", [x], run(f"d2f.{mode}.f32", x))


def _f64(rng, n: int, exp_lo: int, exp_hi: int, short: float = 0.3) -> np.ndarray:
    """n doubles with biased exponents in [exp_lo, exp_hi] (0: subnormal), random signs, a share of
    them with few significant bits (exact sums, ties)."""
    e = rng.integers(exp_lo, exp_hi + 1, n).astype(np.uint64)
    m = rng.integers(0, 1 << 52, n, dtype=np.uint64)
    m = np.where(rng.random(n) < short, m & ~np.uint64((1 << 45) - 1), m)
    return rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63) | e << np.uint64(52) | m


@pytest.mark.parametrize("mode", D.MODES)
@pytest.mark.parametrize("case", ["cancel", "z_far_below", "z_far_above", "subnormal", "overflow", "product_over"])
def test_fma_f64_regimes(run, mode, case):
    """The double fma where its error term is hardest to get: the sum cancelling (z = -x*y rounded,
    nudged), z far below or above the product (the +-2^-300 stand-in, n = z), products and sums in
    the subnormal range, overflow of the sum, a product beyond the largest double with a finite sum."""
    rng = np.random.default_rng(hash((mode, case)) % 2**32 if False else 99 + D.MODES.index(mode) * 7 + len(case))
    n = 1500
    if case == "cancel":
        x, y = _f64(rng, n, 900, 1150), _f64(rng, n, 900, 1150)
        p = -(x.view(np.float64) * y.view(np.float64))
        z = (p.view(np.uint64) + rng.integers(-3, 4, n).astype(np.uint64)).astype(np.uint64)
    elif case == "z_far_below":
        x, y = _f64(rng, n, 700, 1300), _f64(rng, n, 700, 1300)
        z = _f64(rng, n, 0, 400)
    elif case == "z_far_above":
        x, y = _f64(rng, n, 400, 700), _f64(rng, n, 400, 700)
        z = _f64(rng, n, 1300, 2046)
    elif case == "subnormal":
        x, y = _f64(rng, n, 0, 520), _f64(rng, n, 0, 520)
        z = _f64(rng, n, 0, 40)
    elif case == "overflow":
        x, y = _f64(rng, n, 1530, 1560), _f64(rng, n, 1530, 1560)
        z = _f64(rng, n, 2040, 2046)
    else:
        x, y = _f64(rng, n, 1535, 1537), _f64(rng, n, 1535, 1537)
        z = _f64(rng, n, 2046, 2046) | np.uint64(1 << 63)
        x &= np.uint64(0x7FFFFFFFFFFFFFFF)
        y &= np.uint64(0x7FFFFFFFFFFFFFFF)
    with np.errstate(all="ignore"):
        cols = [x.astype(np.uint64), y.astype(np.uint64), z.astype(np.uint64)]
    _check(f"fma.{mode}.f64", cols, run(f"fma.{mode}.f64", *cols))
