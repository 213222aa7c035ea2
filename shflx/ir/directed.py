"""Directed-rounding float arithmetic on AMD: PTX's `.rz`/`.rm`/`.rp` forms of add, sub, mul, div,
rcp, sqrt, fma (f32, f64) and cvt.f32.f64, as CUDA's `__fadd_rz`, `__dmul_ru`, `__frcp_rd`,
`__double2float_rz`, ... call them, exact to the last bit. One LLVM IR function per (operation,
mode, type), written once here and used by the three paths that need them: the CUDA layer's
intrinsics (shflx_math_amd.h declares the
functions, `define_declared` defines them), libdevice's NVVM intrinsics (codegen.libdevice takes
the bodies for `llvm.nvvm.add.rz.f`, ...) and inline PTX (ptxblock calls them).

Why: AMD's backend has no per-instruction rounding mode for these operations. Each function
computes the round-to-nearest result n (LLVM's fadd/fmul/fdiv/llvm.sqrt/llvm.fma, IEEE 754-2019
§4.3.1 roundTiesToEven) and the sign of the exact error x - n, then steps n one unit toward the
requested direction where it lies on the wrong side (the bits of n plus or minus 1: the next float
away from or toward zero, max finite <-> inf included). The error's sign comes from error-free
transformations:
  add/sub: 2Sum (Knuth; Muller et al., Handbook of Floating-Point Arithmetic, 2nd ed., 2018, ch. 4):
    exact unless the sum overflows; an infinite n from finite operands is an overflow, whose exact
    value lies toward zero from n;
  mul, div, rcp, sqrt: the fma residual (Boldo and Daumas, "Representable correcting terms for
    possibly underflowing floating point operations", ARITH 2003: exact unless it underflows), on
    operands scaled by powers of 2 (ldexp, exact) to significands near 1, so the residual cannot
    underflow and only its sign is read: ma*mb - P for a product
    with P = n 2^-(ea+eb); ma - Q*mb for a quotient with Q = n 2^(eb-ea); mx - S*S for a square
    root with x = mx 4^h, S = n 2^-h. An overflowed or underflowed n gives the residual's sign too
    (inf and 0 scale to themselves);
  fma.f32: in double, where the product is exact and so is the 2Sum error t of the sum s. n is s
    rounded to float: rounding is monotonic, so s lies strictly between the same two floats as the
    exact value, or is the exact value's float, and n is one of those two; the exact value's side
    of n is s's where s != n, t's where s == n. A directed result needs no more than that (n need
    not be the nearest);
  fma.f64: ErrFma on scaled operands (_fma_f64);
  cvt.f32.f64 (d2f): the float nearest x compared with x in double.
Signs of zero (IEEE 754-2019 §6.3; PTX ISA 8.7, "Floating Point Instructions: add"): an exact
zero sum of operands not both +0 is -0 in round-toward-negative (.rm) and as round-to-nearest gives
it otherwise; products, quotients and square roots keep their round-to-nearest signs. NaN and
infinite results are round-to-nearest's (a NaN's payload may differ from NVIDIA's canonical one).
Subnormal inputs and results are kept, as CUDA's forms without .ftz."""
from __future__ import annotations

import re

MODES = ("rz", "rm", "rp")
# PTX type -> (LLVM type, integer type, fraction bits, exponent field mask, bias)
TYPES = {"f32": ("float", "i32", 23, 0xFF, 127), "f64": ("double", "i64", 52, 0x7FF, 1023)}
OPERATIONS = {"add": 2, "sub": 2, "mul": 2, "div": 2, "rcp": 1, "sqrt": 1, "fma": 3, "d2f": 1}
PREFIX = "__shflx_directed_"


class _Body:
    """Straight-line IR over the parameters %a, %b, %c: numbered values, and the intrinsics called."""

    def __init__(self):
        self.lines: list[str] = []
        self.declares: dict[str, str] = {}
        self.n = 0

    def emit(self, text: str) -> str:
        self.n += 1
        self.lines.append(f"%v{self.n} = {text}")
        return f"%v{self.n}"

    def call(self, ret: str, fn: str, args: str) -> str:
        types = ", ".join(a.rsplit(" ", 1)[0] for a in args.split(", "))
        self.declares[fn] = f"declare {ret} @{fn}({types})"
        return self.emit(f"call {ret} @{fn}({args})")


def _bits(b: _Body, ty: str, x: str) -> str:
    fty, ity = TYPES[ty][:2]
    return b.emit(f"bitcast {fty} {x} to {ity}")


def _exponent(b: _Body, ty: str, x: str) -> str:
    """x's exponent as an i32: the field less the bias, subnormals (and zero) at the least normal
    exponent, so ldexp(x, -e) is x's significand, |.| < 2 (inf and NaN stay what they are)."""
    fty, ity, frac, mask, bias = TYPES[ty]
    field = b.emit(f"and {ity} {b.emit(f'lshr {ity} {_bits(b, ty, x)}, {frac}')}, {mask}")
    field = b.emit(f"trunc {ity} {field} to i32") if ity != "i32" else field
    field = b.call("i32", "llvm.umax.i32", f"i32 {field}, i32 1")
    return b.emit(f"sub i32 {field}, {bias}")


def _ldexp(b: _Body, ty: str, x: str, e: str) -> str:
    fty = TYPES[ty][0]
    return b.call(fty, f"llvm.ldexp.{ty}.i32", f"{fty} {x}, i32 {e}")


def _ldexp_wide(b: _Body, ty: str, x: str, e: str) -> str:
    """ldexp by an exponent of up to twice the format's range (a product's or quotient's), in two
    steps of half of it: each 2^k is then a number of the format, as an implementation of
    V_LDEXP as S0 * 2^S1 rounded in the format needs (amdemu's does; the hardware's is exact either
    way), and the value in between lies between x and the result, so neither step rounds."""
    half = b.emit(f"ashr i32 {e}, 1")
    return _ldexp(b, ty, _ldexp(b, ty, x, half), b.emit(f"sub i32 {e}, {half}"))


def _fma(b: _Body, ty: str, x: str, y: str, z: str) -> str:
    fty = TYPES[ty][0]
    return b.call(fty, f"llvm.fma.{ty}", f"{fty} {x}, {fty} {y}, {fty} {z}")


def _signs(b: _Body, ty: str, r: str) -> tuple[str, str]:
    """(r > 0, r < 0), both false for a zero or NaN r."""
    fty = TYPES[ty][0]
    return b.emit(f"fcmp ogt {fty} {r}, 0.0"), b.emit(f"fcmp olt {fty} {r}, 0.0")


def _step(b: _Body, ty: str, mode: str, n: str, above: str, below: str) -> str:
    """n moved one float toward the exact value where `mode` asks: `above`/`below` say the exact
    value is greater/less than n. In bits, +1 is away from zero and -1 toward it, for either sign."""
    fty, ity = TYPES[ty][:2]
    bits = _bits(b, ty, n)
    negative = b.emit(f"icmp slt {ity} {bits}, 0")
    if mode == "rp":
        step, delta = above, b.emit(f"select i1 {negative}, {ity} -1, {ity} 1")
    elif mode == "rm":
        step, delta = below, b.emit(f"select i1 {negative}, {ity} 1, {ity} -1")
    else:                       # rz: toward zero where |exact| < |n|
        step, delta = b.emit(f"select i1 {negative}, i1 {above}, i1 {below}"), "-1"
    moved = b.emit(f"add {ity} {bits}, {b.emit(f'select i1 {step}, {ity} {delta}, {ity} 0')}")
    return b.emit(f"bitcast {ity} {moved} to {fty}")


def _zero_sum_rm(b: _Body, ty: str, r: str, s: str, x: str, y: str, xty: str) -> str:
    """.rm's result where the sum s = x + y (of type xty) is an exact zero: -0 unless x and y are
    both +0; r elsewhere."""
    fty, ity = TYPES[ty][:2]
    zero = b.emit(f"fcmp oeq {TYPES[xty][0]} {s}, 0.0")
    xity = TYPES[xty][1]
    both = b.emit(f"icmp eq {xity} {b.emit(f'or {xity} {_bits(b, xty, x)}, {_bits(b, xty, y)}')}, 0")
    z = b.emit(f"select i1 {both}, {ity} 0, {ity} {-(1 << (int(ity[1:]) - 1))}")
    return b.emit(f"select i1 {zero}, {fty} {b.emit(f'bitcast {ity} {z} to {fty}')}, {fty} {r}")


def _add(b: _Body, ty: str, mode: str, x: str, y: str) -> str:
    fty = TYPES[ty][0]
    s = b.emit(f"fadd {fty} {x}, {y}")
    x1 = b.emit(f"fsub {fty} {s}, {y}")                 # 2Sum: s + t = x + y exactly
    y1 = b.emit(f"fsub {fty} {s}, {x1}")
    t = b.emit(f"fadd {fty} {b.emit(f'fsub {fty} {x}, {x1}')}, {b.emit(f'fsub {fty} {y}, {y1}')}")
    above, below = _signs(b, ty, t)
    inf = b.emit(f"bitcast {TYPES[ty][1]} {0x7F800000 if ty == 'f32' else 0x7FF0000000000000} to {fty}")
    fabs = [b.call(fty, f"llvm.fabs.{ty}", f"{fty} {v}") for v in (s, x, y)]
    finite_x, finite_y = (b.emit(f"fcmp olt {fty} {v}, {inf}") for v in fabs[1:])
    finite = b.emit(f"and i1 {finite_x}, {finite_y}")
    overflow = b.emit(f"and i1 {finite}, {b.emit(f'fcmp oeq {fty} {fabs[0]}, {inf}')}")
    s_neg = b.emit(f"fcmp olt {fty} {s}, 0.0")           # an overflow's exact value is toward zero from s
    above = b.emit(f"select i1 {overflow}, i1 {s_neg}, i1 {above}")
    below = b.emit(f"select i1 {overflow}, i1 {b.emit(f'xor i1 {s_neg}, true')}, i1 {below}")
    r = _step(b, ty, mode, s, above, below)
    return _zero_sum_rm(b, ty, r, s, x, y, ty) if mode == "rm" else r


def _mul(b: _Body, ty: str, mode: str, x: str, y: str) -> str:
    fty = TYPES[ty][0]
    p = b.emit(f"fmul {fty} {x}, {y}")
    ex, ey = _exponent(b, ty, x), _exponent(b, ty, y)
    mx, my = _ldexp(b, ty, x, b.emit(f"sub i32 0, {ex}")), _ldexp(b, ty, y, b.emit(f"sub i32 0, {ey}"))
    big_p = _ldexp_wide(b, ty, p, b.emit(f"sub i32 0, {b.emit(f'add i32 {ex}, {ey}')}"))
    r = _fma(b, ty, mx, my, b.emit(f"fneg {fty} {big_p}"))     # the sign of x*y - p
    return _step(b, ty, mode, p, *_signs(b, ty, r))


def _div(b: _Body, ty: str, mode: str, x: str, y: str) -> str:
    fty, ity = TYPES[ty][:2]
    q = b.emit(f"fdiv {fty} {x}, {y}")
    ex, ey = _exponent(b, ty, x), _exponent(b, ty, y)
    mx, my = _ldexp(b, ty, x, b.emit(f"sub i32 0, {ex}")), _ldexp(b, ty, y, b.emit(f"sub i32 0, {ey}"))
    big_q = _ldexp_wide(b, ty, q, b.emit(f"sub i32 {ey}, {ex}"))
    r = _fma(b, ty, b.emit(f"fneg {fty} {big_q}"), my, mx)     # the sign of (x/y - q) * sign(y)
    pos, neg = _signs(b, ty, r)
    y_neg = b.emit(f"icmp slt {ity} {_bits(b, ty, y)}, 0")
    above = b.emit(f"select i1 {y_neg}, i1 {neg}, i1 {pos}")
    below = b.emit(f"select i1 {y_neg}, i1 {pos}, i1 {neg}")
    return _step(b, ty, mode, q, above, below)


def _sqrt(b: _Body, ty: str, mode: str, x: str) -> str:
    fty = TYPES[ty][0]
    s = b.call(fty, f"llvm.sqrt.{ty}", f"{fty} {x}")
    h = b.emit(f"ashr i32 {_exponent(b, ty, x)}, 1")               # x = mx 4^h
    mx = _ldexp(b, ty, x, b.emit(f"mul i32 {h}, -2"))
    big_s = _ldexp(b, ty, s, b.emit(f"sub i32 0, {h}"))
    r = _fma(b, ty, b.emit(f"fneg {fty} {big_s}"), big_s, mx)   # the sign of x - s*s
    return _step(b, ty, mode, s, *_signs(b, ty, r))


def _fma_f32(b: _Body, mode: str, x: str, y: str, z: str) -> str:
    xd, yd, zd = (b.emit(f"fpext float {v} to double") for v in (x, y, z))
    p = b.emit(f"fmul double {xd}, {yd}")                  # exact: 24 + 24 bits
    s = b.emit(f"fadd double {p}, {zd}")
    p1 = b.emit(f"fsub double {s}, {zd}")                  # 2Sum: s + t = x*y + z exactly
    z1 = b.emit(f"fsub double {s}, {p1}")
    t = b.emit(f"fadd double {b.emit(f'fsub double {p}, {p1}')}, {b.emit(f'fsub double {zd}, {z1}')}")
    t_pos, t_neg = _signs(b, "f64", t)
    n = b.emit(f"fptrunc double {s} to float")            # a float next to the exact value (see above)
    nd = b.emit(f"fpext float {n} to double")
    same = b.emit(f"fcmp oeq double {s}, {nd}")
    above = b.emit(f"or i1 {b.emit(f'fcmp ogt double {s}, {nd}')}, {b.emit(f'and i1 {same}, {t_pos}')}")
    below = b.emit(f"or i1 {b.emit(f'fcmp olt double {s}, {nd}')}, {b.emit(f'and i1 {same}, {t_neg}')}")
    r = _step(b, "f32", mode, n, above, below)
    return _zero_sum_rm(b, "f32", r, s, p, zd, "f64") if mode == "rm" else r


def _two_sum(b: _Body, fty: str, x: str, y: str) -> tuple[str, str]:
    s = b.emit(f"fadd {fty} {x}, {y}")
    x1 = b.emit(f"fsub {fty} {s}, {y}")
    y1 = b.emit(f"fsub {fty} {s}, {x1}")
    return s, b.emit(f"fadd {fty} {b.emit(f'fsub {fty} {x}, {x1}')}, {b.emit(f'fsub {fty} {y}, {y1}')}")


def _fma_f64(b: _Body, mode: str, x: str, y: str, z: str) -> str:
    """fma.f64: n = fma(x, y, z) and the sign of x*y + z - n, computed at the scale where x and y
    are significands (k = ex + ey): the scaled sum's nearest value R1 and its exact error (ErrFma:
    Boldo and Muller, "Exact and approximated error of the FMA", IEEE TC 2011: x'y' + z' = R1 + g
    exactly, g = gamma + alpha2, |g| <= ulp(R1)/2), and D = R1 - n 2^-k (exact; not 0 only where n
    is subnormal and rounded on its own grid, then |D| >= ulp(R1) > |g|): the sign is D's, else g's.
    z far above x*y (z 2^-k > 2^300): n = z, and the sign is x*y's; z far below (< 2^-300): only its
    sign can matter, so it stands as +-2^-300. A zero product or a non-finite operand gives an exact
    result; an infinite n from finite operands is an overflow, whose exact value lies toward zero.
    (With a nonzero product, n is subnormal only where k < 0, so n 2^-k is exact.)"""
    ex, ey, ez = (_exponent(b, "f64", v) for v in (x, y, z))
    n = _fma(b, "f64", x, y, z)
    k = b.emit(f"add i32 {ex}, {ey}")
    mx = _ldexp(b, "f64", x, b.emit(f"sub i32 0, {ex}"))
    my = _ldexp(b, "f64", y, b.emit(f"sub i32 0, {ey}"))
    zk = b.emit(f"sub i32 {ez}, {k}")                        # z's exponent at the scale
    far_above = b.emit(f"icmp sgt i32 {zk}, 300")
    far_below = b.emit(f"icmp slt i32 {zk}, -300")
    tiny = b.emit(f"select i1 {b.emit(f'fcmp olt double {z}, 0.0')}, double {_pow2(b, -300, True)}, "
                  f"double {_pow2(b, -300, False)}")
    z_scaled = _ldexp_wide(b, "f64", z, b.emit(f"sub i32 0, {k}"))
    z_zero = b.emit(f"fcmp oeq double {z}, 0.0")
    z_nonzero = b.emit(f"xor i1 {z_zero}, true")
    use_tiny = b.emit(f"and i1 {far_below}, {z_nonzero}")
    zs = b.emit(f"select i1 {use_tiny}, double {tiny}, double {z_scaled}")
    ns = _ldexp_wide(b, "f64", n, b.emit(f"sub i32 0, {k}"))
    r1 = _fma(b, "f64", mx, my, zs)                            # ErrFma on the scaled operands
    u1 = b.emit(f"fmul double {mx}, {my}")
    u2 = _fma(b, "f64", mx, my, b.emit(f"fneg double {u1}"))
    alpha1, alpha2 = _two_sum(b, "double", zs, u2)
    beta1, beta2 = _two_sum(b, "double", u1, alpha1)
    gamma = b.emit(f"fadd double {b.emit(f'fsub double {beta1}, {r1}')}, {beta2}")
    g = b.emit(f"fadd double {gamma}, {alpha2}")
    d = b.emit(f"fsub double {r1}, {ns}")
    d_zero = b.emit(f"fcmp oeq double {d}, 0.0")
    e = b.emit(f"select i1 {d_zero}, double {g}, double {d}")
    above, below = _signs(b, "f64", e)
    xy_sign = b.emit(f"fmul double {_sign1(b, x)}, {_sign1(b, y)}")      # z far above: x*y's sign
    xy_nonzero = b.emit(f"and i1 {b.emit(f'fcmp one double {x}, 0.0')}, {b.emit(f'fcmp one double {y}, 0.0')}")
    xy_above = b.emit(f"and i1 {xy_nonzero}, {b.emit(f'fcmp ogt double {xy_sign}, 0.0')}")
    xy_below = b.emit(f"and i1 {xy_nonzero}, {b.emit(f'fcmp olt double {xy_sign}, 0.0')}")
    above = b.emit(f"select i1 {far_above}, i1 {xy_above}, i1 {above}")
    below = b.emit(f"select i1 {far_above}, i1 {xy_below}, i1 {below}")
    inf = b.emit(f"bitcast i64 {0x7FF0000000000000} to double")
    finite = "true"
    for v in (x, y, z):
        f = b.emit(f"fcmp olt double {b.call('double', 'llvm.fabs.f64', f'double {v}')}, {inf}")
        finite = b.emit(f"and i1 {finite}, {f}")
    overflow = b.emit(f"fcmp oeq double {b.call('double', 'llvm.fabs.f64', f'double {n}')}, {inf}")
    n_neg = b.emit(f"fcmp olt double {n}, 0.0")
    above = b.emit(f"select i1 {overflow}, i1 {n_neg}, i1 {above}")
    below = b.emit(f"select i1 {overflow}, i1 {b.emit(f'xor i1 {n_neg}, true')}, i1 {below}")
    inexact = b.emit(f"and i1 {finite}, {xy_nonzero}")      # a zero product: n is z, exact
    above = b.emit(f"and i1 {inexact}, {above}")
    below = b.emit(f"and i1 {inexact}, {below}")
    r = _step(b, "f64", mode, n, above, below)
    if mode != "rm":
        return r
    # an exact zero sum: x*y and z cancel (or are zeros); its sign as _zero_sum_rm, the product's
    # zero sign being x's xor y's
    n_zero = b.emit(f"fcmp oeq double {n}, 0.0")
    no_step = b.emit(f"xor i1 {b.emit(f'or i1 {above}, {below}')}, true")
    exact_zero = b.emit(f"and i1 {n_zero}, {no_step}")
    p0 = b.emit(f"fmul double {_sign1(b, x)}, {_sign1(b, y)}")
    p_pos_zero = b.emit(f"fcmp ogt double {p0}, 0.0")             # the product's zero would be +0
    z_pos_zero = b.emit(f"icmp eq i64 {_bits(b, 'f64', z)}, 0")
    xy_zero = b.emit(f"xor i1 {xy_nonzero}, true")
    both_pos = b.emit(f"and i1 {b.emit(f'and i1 {xy_zero}, {p_pos_zero}')}, {z_pos_zero}")
    zero = b.emit(f"select i1 {both_pos}, double 0.0, double -0.0")
    return b.emit(f"select i1 {exact_zero}, double {zero}, double {r}")


def _sign1(b: _Body, x: str) -> str:
    """+-1.0 with x's sign bit."""
    return b.call("double", "llvm.copysign.f64", f"double 1.0, double {x}")


def _pow2(b: _Body, e: int, negative: bool) -> str:
    bits = (e + 1023) << 52 | (1 << 63 if negative else 0)
    return b.emit(f"bitcast i64 {bits - (1 << 64) if negative else bits} to double")


def _d2f(b: _Body, mode: str, x: str) -> str:
    """cvt.rz/rm/rp.f32.f64: the float nearest x, and x's side of it (compared in double, exact)."""
    n = b.emit(f"fptrunc double {x} to float")
    nd = b.emit(f"fpext float {n} to double")
    return _step(b, "f32", mode, n, b.emit(f"fcmp ogt double {x}, {nd}"), b.emit(f"fcmp olt double {x}, {nd}"))


def _build(op: str, mode: str, ty: str) -> tuple[str, str]:
    """(body, declarations) of one helper."""
    b = _Body()
    fty = TYPES[ty][0]
    if op == "add":
        r = _add(b, ty, mode, "%a", "%b")
    elif op == "sub":
        r = _add(b, ty, mode, "%a", b.emit(f"fneg {fty} %b"))
    elif op == "mul":
        r = _mul(b, ty, mode, "%a", "%b")
    elif op == "div":
        r = _div(b, ty, mode, "%a", "%b")
    elif op == "rcp":
        r = _div(b, ty, mode, "1.0", "%a")
    elif op == "sqrt":
        r = _sqrt(b, ty, mode, "%a")
    elif op == "d2f":
        r = _d2f(b, mode, "%a")
    elif ty == "f64":
        r = _fma_f64(b, mode, "%a", "%b", "%c")
    else:
        r = _fma_f32(b, mode, "%a", "%b", "%c")
    return "\n  ".join([*b.lines, f"ret {fty} {r}"]), "\n".join(b.declares.values())


# "add.rz.f32" -> (result type, argument types, body over %a, %b, %c, the intrinsics' declarations);
# the type is the result's, which is the operands' but for d2f (double -> float)
HELPERS: dict[str, tuple[str, tuple[str, ...], str, str]] = {}
for _op, _arity in OPERATIONS.items():
    for _ty in TYPES:
        if _op == "d2f" and _ty == "f64":
            continue
        for _mode in MODES:
            _fty = TYPES[_ty][0]
            _args = ("double",) if _op == "d2f" else (_fty,) * _arity
            HELPERS[f"{_op}.{_mode}.{_ty}"] = (_fty, _args, *_build(_op, _mode, _ty))


def symbol(key: str) -> str:
    """The function's name: "add.rz.f32" -> __shflx_directed_add_rz_f32 (a C name, so the layer's
    header can declare it)."""
    return PREFIX + key.replace(".", "_")


def definition(key: str) -> str:
    res, args, body, _ = HELPERS[key]
    params = ", ".join(f"{t} %{'abc'[k]}" for k, t in enumerate(args))
    return f"define internal {res} @{symbol(key)}({params}) alwaysinline {{\n  {body}\n}}"


_DECLARE = re.compile(rf"^declare [^@]*@{PREFIX}(\w+)\(.*$", re.M)


def define_declared(ir: str) -> str:
    """`ir` with each helper it declares (the layer's intrinsics, inline PTX) defined in its place,
    and the intrinsics those use declared where `ir` does not."""
    keys = {symbol(key)[len(PREFIX):]: key for key in HELPERS}
    found: list[str] = []

    def define(m: re.Match) -> str:
        key = keys.get(m.group(1))
        if key is None:
            return m.group(0)
        found.append(key)
        return definition(key)

    ir = _DECLARE.sub(define, ir)
    if not found:
        return ir
    declared = set(re.findall(r"^declare [^@]*@([\w.$]+)\(", ir, re.M))
    extra = {}
    for key in found:
        for line in HELPERS[key][3].splitlines():
            name = re.search(r"@([\w.$]+)\(", line).group(1)
            if name not in declared:
                extra[name] = line
    return ir.rstrip("\n") + "\n\n" + "\n".join(extra.values()) + "\n"
