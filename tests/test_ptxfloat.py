"""The 16-bit float instructions of inline PTX (those of NVIDIA's cuda_fp16.hpp / cuda_bf16.hpp at
sm_80): the IR shflx emits, compiled for this host by llvmlite's JIT and run, against references
written from the PTX ISA's definitions: exact results are IEEE round-to-nearest-even of the exact
value (computed with Fraction), `.approx` ones within the PTX ISA's error bounds. Every f16 bit
pattern where an input is one 16-bit value.

bfloat16 subnormals are left out here: x86 hosts convert float to bfloat16 with VCVTNEPS2BF16,
which flushes them, so the host cannot tell right IR from wrong there (the AMD code is run on the
emulator by hw_tests/amd/test_cuda_fp16_hw.py)."""
from __future__ import annotations

import ctypes
import re
import struct
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from shflx.ir.inline_ptx import translate_inline_ptx
from shflx.ir.ptxblock import translate

C_TYPES = {"i16": ctypes.c_uint16, "i32": ctypes.c_uint32, "i64": ctypes.c_uint64}
FORMATS = {"f16": (10, 5), "bf16": (7, 8)}             # fraction bits, exponent bits
ALL16 = np.arange(1 << 16, dtype=np.uint32)
SPECIAL16 = {"f16": [0, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x8001, 0x03FF, 0x7BFF, 0xFBFF,
                     0x3800, 0x3BFF, 0x3C01, 0x4000],
             "bf16": [0, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x8001, 0x007F, 0x7F7F, 0xFF7F,
                      0x3F00, 0x3F7F, 0x3F81, 0x4000]}


def _truncdfhf2(x: float) -> float:
    """compiler-rt's double -> half (x86 lowers llvm.fma.f16 to a double fma and this call, which
    the JIT's process lacks): numpy's correctly rounded conversion, the half returned in the low
    16 bits of xmm0 as the half ABI has it."""
    with np.errstate(over="ignore"):
        return struct.unpack("<f", struct.pack("<I", int(np.float16(x).view(np.uint16))))[0]


_TRUNC = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_double)(_truncdfhf2)


@pytest.fixture(scope="module")
def llvm():
    import llvmlite.binding as binding
    binding.initialize_native_target()
    binding.initialize_native_asmprinter()
    binding.add_symbol("__truncdfhf2", ctypes.cast(_TRUNC, ctypes.c_void_p).value)
    return binding


def jit(llvm, block: str, out: str, ins: list[str]):
    """The asm block as a host function of integer arguments (the asm operands' bits)."""
    tr = translate(block, [out], [(t, f"%a{k}") for k, t in enumerate(ins)], {}, "t", 32, "%res")
    params = ", ".join(f"{t} %a{k}" for k, t in enumerate(ins))
    text = (f"define {out} @f({params}) {{\nentry:\n" + "\n".join(tr.lines) + f"\n  ret {out} %res\n}}\n"
            + "\n".join(tr.declarations.values()))
    module = llvm.parse_assembly(f'target triple = "{llvm.get_default_triple()}"\n' + text)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten())
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    fn = ctypes.CFUNCTYPE(C_TYPES[out], *[C_TYPES[t] for t in ins])(engine.get_function_address("f"))

    def run(*cols) -> np.ndarray:
        return np.array([fn(*(int(c) for c in args)) for args in zip(*cols)], dtype=np.uint64)
    run.engine, run.text = engine, text
    return run


# ------------------------------------------------------------------ exact reference (Fraction)

def decode(bits: int, fmt: str) -> Fraction | None:
    """The value of a 16-bit pattern (+-inf as None-free markers: 'inf' is returned as a float)."""
    m, e = FORMATS[fmt]
    sign, exp, frac = bits >> 15 & 1, bits >> m & ((1 << e) - 1), bits & ((1 << m) - 1)
    if exp == (1 << e) - 1:
        return float("nan") if frac else (float("-inf") if sign else float("inf"))
    bias = (1 << (e - 1)) - 1
    v = Fraction(frac, 1 << m) * Fraction(2) ** (1 - bias) if exp == 0 else \
        Fraction((1 << m) + frac, 1 << m) * Fraction(2) ** (exp - bias)
    return -v if sign else v


def encode(x, fmt: str, mode: str = "rn", zero_sign: int = 0) -> int:
    """x (Fraction or +-inf) rounded to the format as mode says (rn, rz, rm, rp)."""
    m, e = FORMATS[fmt]
    inf, maxf = ((1 << e) - 1) << m, (((1 << e) - 1) << m) - 1
    if isinstance(x, float):
        return inf | (0x8000 if x < 0 else 0)
    if x == 0:
        return zero_sign << 15
    sign = int(x < 0)
    a = abs(x)
    bias = (1 << (e - 1)) - 1
    ex = max(a.numerator.bit_length() - a.denominator.bit_length(), 1 - bias)
    while Fraction(2) ** ex > a and ex > 1 - bias:
        ex -= 1
    while Fraction(2) ** (ex + 1) <= a:
        ex += 1
    q = a / Fraction(2) ** (ex - m)            # the significand scaled to an integer part of m+1 bits
    lo = q.numerator // q.denominator
    rest = q - lo
    up = {"rn": rest > Fraction(1, 2) or (rest == Fraction(1, 2) and lo & 1), "rz": False,
          "rp": rest > 0 and not sign, "rm": rest > 0 and bool(sign)}[mode]
    n = lo + int(up)
    if n == 1 << (m + 1):
        n, ex = 1 << m, ex + 1
    if ex > bias:                              # beyond the largest finite value
        to_inf = mode == "rn" or (mode == "rp" and not sign) or (mode == "rm" and sign)
        return (inf if to_inf else maxf) | sign << 15
    bits = n if n < 1 << m else ((ex + bias) << m) | (n - (1 << m))
    return bits | sign << 15


def is_nan(bits, fmt: str):
    m, e = FORMATS[fmt]
    bits = np.asarray(bits, np.int64)
    return ((bits >> m) & ((1 << e) - 1) == (1 << e) - 1) & (bits & ((1 << m) - 1) != 0)


def as_float(bits: int, fmt: str) -> float:
    """The 16-bit pattern as a double (exact, signed zeros kept)."""
    if fmt == "f16":
        return float(np.uint16(bits).view(np.float16))
    return float(np.uint32(bits << 16).view(np.float32))


def subnormal(bits: int, fmt: str) -> bool:
    m, e = FORMATS[fmt]
    return (bits >> m) & ((1 << e) - 1) == 0 and bits & ((1 << m) - 1) != 0


def host_blind(fmt: str, ins: list[int], want: int | None) -> bool:
    """A bfloat16 case whose inputs or result are subnormal (see the module docstring)."""
    return fmt == "bf16" and any(subnormal(b, fmt) for b in [*ins, *([want] if want is not None else [])])


def host_rounds_twice(op: str, xs: list[int], fmt: str) -> bool:
    """x86 computes a half fma as a double fma rounded to half: two roundings, which the host gets
    right only where the exact value is a double (bfloat16's fma is shflx's own, rounded once)."""
    if op != "fma" or fmt != "f16":
        return False
    vals = [decode(x, fmt) for x in xs]
    if any(isinstance(v, float) for v in vals):
        return False
    v = vals[0] * vals[1] + vals[2]
    return Fraction(float(v)) != v


def exact(op: str, xs: list[int], fmt: str) -> int | None:
    """The correctly rounded result of op on 16-bit patterns; None for a NaN result."""
    vals = [decode(x, fmt) for x in xs]
    fl = [as_float(x, fmt) for x in xs]
    with np.errstate(all="ignore"):
        f = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
             "fma": lambda a, b, c: a * b + c}[op](*[np.float64(v) for v in fl])
    if np.isnan(f):
        return None
    if any(isinstance(v, float) for v in vals):       # an infinite operand: an infinite result
        return encode(float(f), fmt)
    v = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "fma": lambda a, b, c: a * b + c}[op](*vals)
    return encode(v, fmt, zero_sign=int(np.signbit(f)))


def sample16(fmt: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = rng.integers(0, 1 << 16, n)
    out[: len(SPECIAL16[fmt]) ** 1] = SPECIAL16[fmt]
    return out


def pairs(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return words & 0xFFFF, words >> 16


# ------------------------------------------------------------------ exact forms

@pytest.mark.parametrize("fmt", ["f16", "bf16"])
@pytest.mark.parametrize("form", ["add.rn", "sub.rn", "mul.rn", "add", "mul", "fma.rn"])
@pytest.mark.parametrize("pair", [False, True])
def test_arithmetic_is_the_exact_value_rounded_to_nearest_even(llvm, fmt, form, pair):
    op = form.split(".")[0]
    n_in = 3 if op == "fma" else 2
    ty = fmt + ("x2" if pair else "")
    regs = ", ".join(f"${k}" for k in range(n_in + 1))
    f = jit(llvm, f"{form}.{ty} {regs};", "i32" if pair else "i16", ["i32" if pair else "i16"] * n_in)
    rng = np.random.default_rng(len(form) + 7 * pair)
    cols = [sample16(fmt, 1500, k + len(form)) for k in range(n_in)]
    cols = [np.concatenate([c, rng.permutation(SPECIAL16[fmt] * 4)]) for c in cols]   # specials against each other
    if pair:
        hi = [rng.permutation(c) for c in cols]
        got = f(*[c | (h << 16) for c, h in zip(cols, hi)])
        lo_got, hi_got = pairs(got)
        halves = [(cols, lo_got), (hi, hi_got)]
    else:
        halves = [(cols, f(*cols))]
    for ins, out in halves:
        for k in range(len(out)):
            want = exact(op, [int(c[k]) for c in ins], fmt)
            if host_blind(fmt, [int(c[k]) for c in ins], want) or host_rounds_twice(op, [int(c[k]) for c in ins], fmt):
                continue
            if want is None:
                assert is_nan(int(out[k]), fmt), (form, [hex(int(c[k])) for c in ins], hex(int(out[k])))
            else:
                assert int(out[k]) == want, (form, [hex(int(c[k])) for c in ins], hex(int(out[k])), hex(want))


def test_only_the_forms_without_a_rounding_modifier_may_contract():
    """PTX ISA "Rounding modifiers": mul/add without .rn may be fused by ptxas; with .rn never, and
    none where the device code does not contract across statements (-ffp-contract=on/off)."""
    def text(block, contract=True):
        return "\n".join(translate(block, ["i16"], [("i16", "%a"), ("i16", "%b")], {}, "t", 32, "%r",
                                   contract).lines)
    assert re.search(r"fadd contract half", text("add.f16 $0, $1, $2;"))
    assert re.search(r"fadd half", text("add.rn.f16 $0, $1, $2;")) and "contract" not in text("add.rn.f16 $0, $1, $2;")
    assert "contract" not in text("mul.f16 $0, $1, $2;", contract=False)


SAT = {"f16": 0x3C00, "bf16": 0x3F80}


@pytest.mark.parametrize("fmt", ["f16"])
@pytest.mark.parametrize("form", ["add.sat", "mul.sat", "fma.rn.sat", "fma.rn.relu"])
def test_saturate_and_relu(llvm, fmt, form):
    """.sat clamps to [+0, 1] with NaN -> +0; .relu is max(x, +0) keeping NaN."""
    op = form.split(".")[0]
    n_in = 3 if op == "fma" else 2
    f = jit(llvm, f"{form}.{fmt} " + ", ".join(f"${k}" for k in range(n_in + 1)) + ";", "i16", ["i16"] * n_in)
    cols = [sample16(fmt, 800, 11 + k) for k in range(n_in)]
    got = f(*cols)
    for k in range(len(got)):
        want = exact(op, [int(c[k]) for c in cols], fmt)
        w = decode(want, fmt) if want is not None else None
        if form.endswith("relu"):
            if want is None:
                assert is_nan(int(got[k]), fmt)
                continue
            expect = 0 if want & 0x8000 else want          # negative (and -0) -> +0
        else:
            expect = 0 if want is None or w <= 0 else (SAT[fmt] if w >= 1 else want)
        assert int(got[k]) == expect, (form, [hex(int(c[k])) for c in cols], hex(int(got[k])), expect)


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
def test_min_max_prefer_numbers_order_signed_zeros_and_nan_forms_propagate(llvm, fmt):
    pos0, neg0, one, nan = 0, 0x8000, SPECIAL16[fmt][2], SPECIAL16[fmt][6]
    cases = {("min", ()): [(pos0, neg0, neg0), (one, nan, one), (nan, one, one)],
             ("max", ()): [(pos0, neg0, pos0), (neg0, pos0, pos0), (one, nan, one)],
             ("min", ("NaN",)): [(one, nan, None), (nan, one, None), (neg0, pos0, neg0)],
             ("max", ("NaN",)): [(one, nan, None), (pos0, neg0, pos0)]}
    for (op, mods), rows in cases.items():
        f = jit(llvm, f"{'.'.join((op, *mods, fmt))} $0, $1, $2;", "i16", ["i16", "i16"])
        for a, b, want in rows:
            got = int(f([a], [b])[0])
            assert (is_nan(got, fmt) if want is None else got == want), (op, mods, hex(a), hex(b), hex(got))
        xs, ys = sample16(fmt, 400, 1), sample16(fmt, 400, 2)
        got = f(xs, ys)
        for x, y, g in zip(xs, ys, got):
            vx, vy = decode(int(x), fmt), decode(int(y), fmt)
            if vx != vx or vy != vy or vx == vy or host_blind(fmt, [int(x), int(y)], None):
                continue
            assert int(g) == int((x if (vx < vy) == (op == "min") else y)), (op, hex(x), hex(y))


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
def test_neg_and_abs_change_only_the_sign_bit(llvm, fmt):
    neg = jit(llvm, f"neg.{fmt} $0, $1;", "i16", ["i16"])(ALL16)
    ab = jit(llvm, f"abs.{fmt} $0, $1;", "i16", ["i16"])(ALL16)
    ok = ~is_nan(ALL16, fmt)
    np.testing.assert_array_equal(neg[ok], (ALL16 ^ 0x8000)[ok])
    np.testing.assert_array_equal(ab[ok], (ALL16 & 0x7FFF)[ok])
    assert is_nan(neg[~ok], fmt).all() and is_nan(ab[~ok], fmt).all()


def test_every_half_widens_to_float_exactly_and_back(llvm):
    wide = jit(llvm, "cvt.f32.f16 $0, $1;", "i32", ["i16"])(ALL16)
    want = ALL16.astype(np.uint16).view(np.float16).astype(np.float32)
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(wide.astype(np.uint32).view(np.float32)[ok], want[ok])
    back = jit(llvm, "cvt.rn.f16.f32 $0, $1;", "i16", ["i32"])(wide)
    np.testing.assert_array_equal(back[ok], ALL16[ok])


FLOATS32 = np.concatenate([np.random.default_rng(5).integers(0, 1 << 32, 3000),
                           np.random.default_rng(6).uniform(-70000, 70000, 1000).astype(np.float32).view(np.uint32),
                           np.float32([0.0, -0.0, 1.0, 65504.0, 65519.99, 65520.0, 1e9, -1e9, 5.96e-8, 2.98e-8,
                                       -2.98e-8, 3e-8, np.inf, -np.inf, 1.00048828125, 1.0009765625,
                                       3.3895e38, 1e-40]).view(np.uint32)])


@pytest.mark.parametrize("fmt, mode", [("f16", "rn"), ("f16", "rz"), ("f16", "rm"), ("f16", "rp"),
                                       ("bf16", "rn"), ("bf16", "rz")])
def test_float_to_16_bits_rounds_as_the_mode_says(llvm, fmt, mode):
    got = jit(llvm, f"cvt.{mode}.{fmt}.f32 $0, $1;", "i16", ["i32"])(FLOATS32)
    for x, g in zip(FLOATS32.astype(np.uint32), got):
        v = float(x.view(np.float32))
        if v != v:
            assert is_nan(int(g), fmt)
            continue
        want = encode(v if np.isinf(v) else Fraction(v), fmt, mode, zero_sign=int(np.signbit(v)))
        if host_blind(fmt, [want], None) or (fmt == "bf16" and 0 < abs(v) < 2.0 ** -126):
            continue
        assert int(g) == want, (fmt, mode, hex(int(x)), v, hex(int(g)), hex(want))


def test_two_floats_into_a_pair_put_the_first_in_the_high_half(llvm):
    f = jit(llvm, "cvt.rn.f16x2.f32 $0, $1, $2;", "i32", ["i32", "i32"])
    got = int(f([np.float32(1.0).view(np.uint32)], [np.float32(-2.0).view(np.uint32)])[0])
    assert got == 0x3C00C000
    g = jit(llvm, "cvt.rn.bf16x2.f32 $0, $1, $2;", "i32", ["i32", "i32"])
    assert int(g([np.float32(1.0).view(np.uint32)], [np.float32(-2.0).view(np.uint32)])[0]) == 0x3F80C000


INTS = {"s16": (16, True), "u16": (16, False), "s32": (32, True), "u32": (32, False), "s64": (64, True),
        "u64": (64, False)}


@pytest.mark.parametrize("src", sorted(INTS))
@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_integer_to_half_rounds_as_the_mode_says(llvm, src, mode):
    bits, signed = INTS[src]
    rng = np.random.default_rng(bits + len(mode))
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    vals = [lo, hi, 0, 1, -1 if signed else 2, 2049, 2051, 4097, 65504, 65519, 65520, 65535, 100003] + \
        [int(v) for v in rng.integers(max(lo, -(1 << 62)), min(hi, 1 << 62), 300, dtype=np.int64)]
    vals = [v for v in vals if lo <= v <= hi]
    ity = f"i{bits}"
    f = jit(llvm, f"cvt.{mode}.f16.{src} $0, $1;", "i16", [ity])
    got = f([v & ((1 << bits) - 1) for v in vals])
    for v, g in zip(vals, got):
        assert int(g) == encode(Fraction(v), "f16", mode), (src, mode, v, hex(int(g)))


@pytest.mark.parametrize("mode, fn", [("rni", np.rint), ("rzi", np.trunc), ("rmi", np.floor), ("rpi", np.ceil)])
def test_rounding_a_half_to_an_integral_half(llvm, mode, fn):
    got = jit(llvm, f"cvt.{mode}.f16.f16 $0, $1;", "i16", ["i16"])(ALL16)
    x = ALL16.astype(np.uint16).view(np.float16)
    with np.errstate(invalid="ignore"):
        want = fn(x.astype(np.float32)).astype(np.float16).view(np.uint16)
    ok = ~np.isnan(x)
    np.testing.assert_array_equal(got[ok], want[ok])


# NaN to an integer, as an H200 gave it (nvcc 13.0, sm_90 and sm_80: cvt.rzi.s64.f16, cvt.rzi.u32.f16,
# __half2ull_rz, __half2ll_rz, __half2uint_rz, __half2int_rz, __half2ushort_rz, __half2short_rz):
# the sign bit for 64 bits, 0 for 8 to 32 bits
H200_NAN = {"s8": 0, "u8": 0, "s16": 0, "u16": 0, "s32": 0, "u32": 0, "s64": -(1 << 63), "u64": 1 << 63}


@pytest.mark.parametrize("dst", sorted(H200_NAN))
def test_half_to_integer_truncates_saturates_and_sends_nan_where_an_h200_does(llvm, dst):
    bits, signed = int(dst[1:]), dst[0] == "s"
    out = "i32" if bits == 8 else f"i{bits}"
    got = jit(llvm, f"cvt.rzi.{dst}.f16 $0, $1;", out, ["i16"])(ALL16)
    x = ALL16.astype(np.uint16).view(np.float16).astype(np.float64)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    want = [H200_NAN[dst] if v != v else hi if v > hi else lo if v < lo else int(v) for v in x]     # int() truncates
    want = np.array([w & ((1 << int(out[1:])) - 1) for w in want], dtype=np.uint64)
    np.testing.assert_array_equal(got, want)


# float and double to 32 and 64 bits, NaN and the infinities, as an H200 gave them (nvcc 13.0, sm_90
# and sm_80: cvt.rzi.u64.f32, cvt.rzi.s64.f32, cvt.rni.u64.f64, __float2uint_rz, __float2int_rz,
# __double2uint_rz, __double2int_rz, __double2ll_rz, __double2ull_rz): NaN is the sign bit for 64
# bits and for double to 32 bits, 0 for float to 32 bits
H200_FLOAT_NAN = {("f32", "s32"): 0, ("f32", "u32"): 0, ("f32", "s64"): 1 << 63, ("f32", "u64"): 1 << 63,
                  ("f64", "s32"): 1 << 31, ("f64", "u32"): 1 << 31, ("f64", "s64"): 1 << 63, ("f64", "u64"): 1 << 63}


@pytest.mark.parametrize("src,dst", sorted(H200_FLOAT_NAN))
@pytest.mark.parametrize("rnd", ["rzi", "rni"])
def test_float_to_integer_sends_nan_where_an_h200_does(llvm, src, dst, rnd):
    bits, signed = int(dst[1:]), dst[0] == "s"
    width = "i64" if src == "f64" else "i32"
    nan, inf, ninf = (0x7FF8000000000000, 0x7FF0000000000000, 0xFFF0000000000000) if src == "f64" else \
        (0x7FC00000, 0x7F800000, 0xFF800000)
    got = jit(llvm, f"cvt.{rnd}.{dst}.{src} $0, $1;", f"i{bits}", [width])([nan, nan | 1 << (int(width[1:]) - 1), inf, ninf])
    mask = (1 << bits) - 1
    hi, lo = ((1 << (bits - 1)) - 1, (1 << (bits - 1)) & mask) if signed else (mask, 0)
    assert [int(v) & mask for v in got] == [H200_FLOAT_NAN[src, dst]] * 2 + [hi, lo]


# ------------------------------------------------------------------ set, setp

CMPS = {"eq": np.equal, "ne": lambda a, b: (a < b) | (a > b), "lt": np.less, "le": np.less_equal,
        "gt": np.greater, "ge": np.greater_equal, "equ": lambda a, b: ~((a < b) | (a > b)),
        "neu": lambda a, b: ~np.equal(a, b), "ltu": lambda a, b: ~(a >= b), "geu": lambda a, b: ~(a < b),
        "nan": lambda a, b: np.isnan(a) | np.isnan(b)}


@pytest.mark.parametrize("cmp", sorted(CMPS))
def test_set_gives_one_or_all_ones_per_half_and_setp_a_predicate(llvm, cmp):
    xs, ys = sample16("f16", 600, 3), sample16("f16", 600, 4)
    ys[::3] = xs[::3]
    a, b = (v.astype(np.uint16).view(np.float16).astype(np.float32) for v in (xs, ys))
    with np.errstate(invalid="ignore"):
        truth = CMPS[cmp](a, b)
    pair = jit(llvm, f"set.{cmp}.f16x2.f16x2 $0, $1, $2;", "i32", ["i32", "i32"])(xs | (ys << 16), ys | (xs << 16))
    lo, hi = pairs(pair)
    np.testing.assert_array_equal(lo, np.where(truth, 0x3C00, 0))
    mask = jit(llvm, f"set.{cmp}.u32.f16x2 $0, $1, $2;", "i32", ["i32", "i32"])(xs, ys)
    np.testing.assert_array_equal(mask & 0xFFFF, np.where(truth, 0xFFFF, 0))
    pred = jit(llvm, f"{{ .reg .pred p; setp.{cmp}.f16 p, $1, $2; selp.u16 $0, 1, 0, p; }}", "i16", ["i16", "i16"])
    np.testing.assert_array_equal(pred(xs, ys), truth.astype(int))
    a32, b32 = (v.astype(np.float32).view(np.uint32) for v in (a, b))
    f32 = jit(llvm, f"set.{cmp}.f32.f32 $0, $1, $2;", "i32", ["i32", "i32"])(a32, b32)
    np.testing.assert_array_equal(f32, np.where(truth, 0x3F800000, 0))


# ------------------------------------------------------------------ .approx, .ftz

def test_tanh_approx_is_within_the_ptx_bound(llvm):
    """tanh.approx.f32: PTX ISA bound 2^-10.987 relative error (a half result: 1 ulp of half)."""
    xs = np.concatenate([np.linspace(-12, 12, 4001), [0.0, -0.0, 1e-30, -1e-7, 0.015, 0.016, np.inf, -np.inf]]).astype(np.float32)
    got = jit(llvm, "tanh.approx.f32 $0, $1;", "i32", ["i32"])(xs.view(np.uint32)).astype(np.uint32).view(np.float32)
    want = np.tanh(xs.astype(np.float64))
    rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-38)
    assert rel.max() < 2.0 ** -10.987 and (np.signbit(got) == np.signbit(xs)).all()
    h = jit(llvm, "tanh.approx.f16 $0, $1;", "i16", ["i16"])(ALL16)
    x = ALL16.astype(np.uint16).view(np.float16)
    ok = np.isfinite(x)
    want16 = np.tanh(x[ok].astype(np.float64))
    got16 = h[ok].astype(np.uint16).view(np.float16).astype(np.float64)
    ulp = np.spacing(np.abs(want16).astype(np.float16)).astype(np.float64)
    assert (np.abs(got16 - want16) <= ulp).all()


@pytest.mark.parametrize("op, fn", [("ex2", np.exp2), ("lg2", np.log2)])
def test_ex2_and_lg2_approx_are_within_two_ulp(llvm, op, fn):
    xs = np.random.default_rng(8).uniform(0.01 if op == "lg2" else -100, 100, 2000).astype(np.float32)
    got = jit(llvm, f"{op}.approx.f32 $0, $1;", "i32", ["i32"])(xs.view(np.uint32)).astype(np.uint32).view(np.float32)
    want = fn(xs.astype(np.float64))
    assert (np.abs(got - want) <= 2 * np.spacing(np.abs(want).astype(np.float32))).all()


def test_ftz_flushes_subnormal_inputs_and_results_to_signed_zero(llvm):
    sub = np.float32(1e-40).view(np.uint32)
    rcp = jit(llvm, "rcp.approx.ftz.f32 $0, $1;", "i32", ["i32"])
    assert int(rcp([sub])[0]) == 0x7F800000 and int(rcp([sub | 0x80000000])[0]) == 0xFF800000
    ex2 = jit(llvm, "ex2.approx.ftz.f32 $0, $1;", "i32", ["i32"])
    assert int(ex2([np.float32(-130.0).view(np.uint32)])[0]) == 0          # 2^-130 is subnormal: +0
    assert int(ex2([np.float32(3.0).view(np.uint32)])[0]) == np.float32(8.0).view(np.uint32)


# ------------------------------------------------------------------ the rest of the headers' forms

def test_atom_add_of_a_half_pair_is_one_float_atomic_of_both_halves():
    tr = translate("atom.add.noftz.f16x2 $0, [$1], $2;", ["i32"], [("ptr", "%p"), ("i32", "%v")], {}, "t", 64, "%r")
    assert re.search(r"atomicrmw fadd ptr %\S+, <2 x half> %\S+ syncscope\(\"agent\"\) monotonic", "\n".join(tr.lines))
    tr = translate("atom.add.noftz.f16 $0, [$1], $2;", ["i16"], [("ptr", "%p"), ("i16", "%v")], {}, "t", 64, "%r")
    assert re.search(r"atomicrmw fadd ptr %\S+, half", "\n".join(tr.lines))


def test_warp_sz_is_32_and_an_inner_scope_may_shadow_a_register(llvm):
    tr = translate("{mov.u32 $0, WARP_SZ;}", ["i32"], [], {}, "t", 64, "%r")
    assert tr.lines[-1].endswith("add i32 32, 0")
    f = jit(llvm, "{ .reg .b32 p; mov.b32 p, 5; { .reg .b32 p; add.u32 p, $1, 1; mov.b32 $0, p; } "
                  "add.u32 $0, $0, p; }", "i32", ["i32"])
    assert int(f([10])[0]) == 16


FORMS = Path(__file__).parent / "data" / "ptx_forms_cuda_fp16_bf16.tsv"
CONSTRAINTS = {"h": "i16", "r": "i32", "l": "i64", "f": "float", "d": "double"}


def _forms() -> list[tuple[str, str, str, str]]:
    return [tuple(line.split("\t")) for line in FORMS.read_text().splitlines() if line and not line.startswith("#")]


@pytest.mark.parametrize("opcode, out, ins, operands", _forms(), ids=lambda v: v if "." in v else None)
def test_every_instruction_form_of_nvidias_half_headers_translates(opcode, out, ins, operands):
    block = operands if operands.startswith("{") else f"{opcode} {operands};"
    in_types = [("ptr" if c == "l" and "[" in operands and k == 0 else CONSTRAINTS[c]) for k, c in enumerate(ins.split())]
    outs = [CONSTRAINTS[out]] if out else []
    tr = translate(block, outs, [(t, f"%a{k}") for k, t in enumerate(in_types)], {}, "t", 64, "%r" if outs else None)
    assert tr.lines


def test_an_opcode_with_an_upper_case_modifier_is_recognized_as_ptx():
    """max.NaN.f16 (cuda_fp16.hpp's __hmax_nan) is PTX, not AMDGPU assembly left for the assembler."""
    ir = ('define i16 @f(i16 %a, i16 %b) {\nentry:\n'
          '  %r = call i16 asm "max.NaN.f16 $0, $1, $2;", "=h,h,h"(i16 %a, i16 %b)\n  ret i16 %r\n}\n')
    out = translate_inline_ptx(ir)
    assert " asm " not in out and "@llvm.maximum.f16" in out


def test_nvidias_half_shuffles_are_proved_and_lowered_off_ds_bpermute(tmp_path):
    """cuda_fp16.hpp's __half / __half2 shuffles are inline shfl.sync whose c operand is computed from
    `mov.u32 %0, WARP_SZ` (another asm statement): translated after clang folded, it is still the
    constant 0x1f, so the shuffles lower as the plain ones do (DPP, not the general ds_bpermute)."""
    from shflx.driver.amd import compile_file
    from shflx.driver.report import instruction_counts
    src = tmp_path / "h.cu"
    src.write_text("#include <cuda_fp16.h>\n"
                   "__global__ void k(__half2 *p, __half *q) {\n"
                   "  p[threadIdx.x] = __shfl_xor_sync(0xffffffffu, p[threadIdx.x], 1);\n"
                   "  q[threadIdx.x] = __shfl_down_sync(0xffffffffu, q[threadIdx.x], 1);\n}\n")
    res = compile_file(src, "gfx942", emit="asm")
    assert [s.cls for s in res.sites] == ["xor", "down"]
    assert instruction_counts(res.output).get("ds_bpermute", 0) == 0
