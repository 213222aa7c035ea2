"""Reference for directed-rounding float arithmetic (IEEE 754-2019 §4.3.2 roundTowardZero /
roundTowardPositive / roundTowardNegative; §6 for infinities, NaN and signed zeros; PTX ISA 8.7,
"Floating Point Instructions": add/sub/mul/fma/div/rcp/sqrt with .rz/.rm/.rp), written from the
standard only: the exact value as a Fraction, rounded by integer arithmetic. Values are bit patterns
(ints); a NaN result is returned as None (any NaN is accepted)."""
from __future__ import annotations

import math
import struct
from fractions import Fraction

# format -> (precision p, least normal exponent, greatest exponent, total bits)
FORMATS = {"f32": (24, -126, 127, 32), "f64": (53, -1022, 1023, 64)}


def _pack(x: float, fmt: str) -> int:
    code = {"f32": ("<I", "<f"), "f64": ("<Q", "<d")}[fmt]
    return struct.unpack(code[0], struct.pack(code[1], x))[0]


def value(bits: int, fmt: str):
    """A pattern's value: a Fraction, float('inf')/-inf, or None for NaN (a zero's sign is read
    from the bits by `sign`)."""
    p, emin, emax, w = FORMATS[fmt]
    frac_bits = p - 1
    s = bits >> (w - 1) & 1
    e = bits >> frac_bits & ((1 << (w - p)) - 1)
    f = bits & ((1 << frac_bits) - 1)
    if e == (1 << (w - p)) - 1:
        return None if f else (-math.inf if s else math.inf)
    if e == 0:
        v = Fraction(f, 1 << frac_bits) * Fraction(2) ** emin
    else:
        v = Fraction((1 << frac_bits) + f, 1 << frac_bits) * Fraction(2) ** (e - emax)
    return -v if s else v


def sign(bits: int, fmt: str) -> int:
    return bits >> (FORMATS[fmt][3] - 1) & 1


def _inf(s: int, fmt: str) -> int:
    return _pack(-math.inf if s else math.inf, fmt)


def _zero(s: int, fmt: str) -> int:
    return s << (FORMATS[fmt][3] - 1)


def round_to(x: Fraction, fmt: str, mode: str) -> int:
    """Nonzero exact x rounded to the format: rz toward zero, rm toward -inf, rp toward +inf, rn to
    nearest, ties to even."""
    p, emin, emax, _ = FORMATS[fmt]
    s = int(x < 0)
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()      # 2^e <= a < 2^(e+1) after fixing
    if Fraction(2) ** e > a:
        e -= 1
    k = max(e, emin) - (p - 1)                                      # the unit in the last place
    scaled = a / Fraction(2) ** k
    m = scaled.numerator // scaled.denominator
    away = (mode == "rp" and not s) or (mode == "rm" and s)
    if mode == "rn":
        rest = scaled - m
        away = rest > Fraction(1, 2) or (rest == Fraction(1, 2) and m % 2 == 1)
        if away:
            m += 1
        away = True                                                  # overflow goes to inf
    elif away and m != scaled:
        m += 1
    mag = m * Fraction(2) ** k
    largest = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
    if mag > largest:
        return _inf(s, fmt) if away else _pack(-float(largest) if s else float(largest), fmt)
    if mag == 0:
        return _zero(s, fmt)
    return _pack(-float(mag) if s else float(mag), fmt)


def _exact_or_zero(x: Fraction, zero_sign: int, fmt: str, mode: str) -> int:
    return _zero(zero_sign, fmt) if x == 0 else round_to(x, fmt, mode)


def add(a: int, b: int, fmt: str, mode: str) -> int | None:
    x, y = value(a, fmt), value(b, fmt)
    if x is None or y is None:
        return None
    if isinstance(x, float) or isinstance(y, float):
        if isinstance(x, float) and isinstance(y, float) and x != y:
            return None
        return _inf(int((x if isinstance(x, float) else y) < 0), fmt)
    s = x + y
    if s == 0:     # §6.3: both zeros of one sign keep it; otherwise +0, -0 under roundTowardNegative
        zs = sign(a, fmt) if (x == 0 and y == 0 and sign(a, fmt) == sign(b, fmt)) else int(mode == "rm")
        return _zero(zs, fmt)
    return round_to(s, fmt, mode)


def sub(a: int, b: int, fmt: str, mode: str) -> int | None:
    return add(a, b ^ (1 << (FORMATS[fmt][3] - 1)), fmt, mode)


def mul(a: int, b: int, fmt: str, mode: str) -> int | None:
    x, y = value(a, fmt), value(b, fmt)
    if x is None or y is None:
        return None
    s = sign(a, fmt) ^ sign(b, fmt)
    if isinstance(x, float) or isinstance(y, float):
        return None if x == 0 or y == 0 else _inf(s, fmt)
    return _exact_or_zero(x * y, s, fmt, mode)


def div(a: int, b: int, fmt: str, mode: str) -> int | None:
    x, y = value(a, fmt), value(b, fmt)
    if x is None or y is None:
        return None
    s = sign(a, fmt) ^ sign(b, fmt)
    if isinstance(x, float):
        return None if isinstance(y, float) else _inf(s, fmt)
    if isinstance(y, float):
        return _zero(s, fmt)
    if y == 0:
        return None if x == 0 else _inf(s, fmt)
    return _exact_or_zero(x / y, s, fmt, mode)


def rcp(a: int, fmt: str, mode: str) -> int | None:
    return div(_pack(1.0, fmt), a, fmt, mode)


def sqrt(a: int, fmt: str, mode: str) -> int | None:
    """The float y with y*y on the correct side of x: the largest with y*y <= x (rz, rm) or the
    smallest with y*y >= x (rp)."""
    x = value(a, fmt)
    if x is None or x < 0:
        return None
    if x == 0 or isinstance(x, float):
        return a
    # from a float near the root, walk to the answer through exact comparisons of squares
    bits = round_to(Fraction(math.sqrt(float(x))), fmt, "rz")
    if mode == "rp":
        while value(bits, fmt) ** 2 < x:
            bits += 1
        while bits > 0 and value(bits - 1, fmt) ** 2 >= x:
            bits -= 1
    else:
        while value(bits, fmt) ** 2 > x:
            bits -= 1
        while value(bits + 1, fmt) ** 2 <= x:
            bits += 1
    return bits


def fma(a: int, b: int, c: int, fmt: str, mode: str) -> int | None:
    x, y, z = value(a, fmt), value(b, fmt), value(c, fmt)
    if x is None or y is None or z is None:
        return None
    ps = sign(a, fmt) ^ sign(b, fmt)
    if isinstance(x, float) or isinstance(y, float):
        if x == 0 or y == 0:
            return None
        if isinstance(z, float) and (z < 0) != bool(ps):
            return None
        return _inf(ps, fmt)
    if isinstance(z, float):
        return c
    t = x * y + z
    if t == 0:
        both = x * y == 0 and z == 0 and ps == sign(c, fmt)
        return _zero(ps if both else int(mode == "rm"), fmt)
    return round_to(t, fmt, mode)


def d2f(a: int, fmt: str, mode: str) -> int | None:
    """A double (the bits a) converted to float (fmt is the result's, f32)."""
    x = value(a, "f64")
    if x is None:
        return None
    if isinstance(x, float):
        return _inf(int(x < 0), fmt)
    return _exact_or_zero(x, sign(a, "f64"), fmt, mode)


OPS = {"d2f": d2f, "add": add, "sub": sub, "mul": mul, "div": div, "rcp": rcp, "sqrt": sqrt, "fma": fma}
