"""The float instructions of inline PTX that NVIDIA's cuda_fp16.hpp and cuda_bf16.hpp write, as
LLVM IR for AMDGPU: the 16-bit formats (.f16, .bf16) and their packed pairs (.f16x2, .bf16x2),
`set`, directed-rounding `cvt`, `.ftz`, and the `.approx` functions.

Why a module of its own: with __CUDA_ARCH__ 800 the headers' device code is inline PTX, one
instruction form per function (PTX ISA 8.7, "Half Precision Floating-Point Instructions" and
"Floating-Point Instructions"), and each form is one rule of `emit` (the tables below name the
LLVM operations; tests/data/ptx_forms_cuda_fp16_bf16.tsv lists the forms). A pair is LLVM's
<2 x half> / <2 x bfloat> (element 0 = the low 16 bits, as PTX packs them), so one rule serves a
type and its pair. ptxblock calls `emit` for every float `uf` node it has no rule of its own for.

Exact forms are IEEE round-to-nearest-even (LLVM's fadd/fmul/fma/fptrunc in the default
floating-point environment; f16 subnormals are kept, AMD's default f16 mode; bfloat16's fma is
written out, see _fma_bf16). Where PTX and LLVM differ, the PTX meaning is written out:
  min/max: PTX returns the non-NaN operand and orders -0 below +0 (llvm.minimumnum/maximumnum);
  .NaN forms return NaN if either is (llvm.minimum/maximum);
  .sat: clamped to [+0, 1], NaN -> +0; .relu: max(x, +0) with NaN kept;
  cvt.rz/rm/rp to a narrower float: the nearest value, stepped one unit toward the direction
  where it lies on the wrong side of the exact value;
  .ftz (f32): subnormal inputs and results are zero of the same sign;
  add/sub/mul without a rounding modifier may be fused by ptxas into fma (PTX ISA "Rounding
  modifiers"): they carry LLVM's `contract` flag where the device code contracts across
  statements (-ffp-contract=fast, nvcc's -fmad=true), the .rn forms never.
A NaN result is a quiet NaN whose payload may differ from PTX's canonical one (0x7fff).

`.approx` is read as an approximation (assumption, stated as libdevice's `.approx` choice is):
ex2/lg2 are llvm.exp2/llvm.log2, which AMDGPU selects as v_exp_f32/v_log_f32 (1 ulp; PTX asks
2^-22 relative error); tanh is 1 - 2/(2^(2|x|*log2 e) + 1) with tanh's sign, and x itself below
|x| < 2^-6 (relative error under 2^-11, PTX's bound for tanh.approx.f32); the 16-bit forms are
the f32 function rounded once to the format."""
from __future__ import annotations

# PTX type -> (LLVM element type, LLVM type of the register, intrinsic suffix, integer type, lanes)
TYPES = {"f16": ("half", "half", "f16", "i16", 1), "bf16": ("bfloat", "bfloat", "bf16", "i16", 1),
         "f16x2": ("half", "<2 x half>", "v2f16", "i32", 2), "bf16x2": ("bfloat", "<2 x bfloat>", "v2bf16", "i32", 2),
         "f32": ("float", "float", "f32", "i32", 1)}
ONE = {"half": 0x3C00, "bfloat": 0x3F80, "float": 0x3F800000}
ELEMENT_BITS = {"half": 16, "bfloat": 16, "float": 32}
# (opcode base, modifiers) -> rule; the type is the opcode's last word (any of TYPES but f32, whose
# arithmetic ptxblock writes; f32 has only `set` and the .ftz/.approx forms below)
ARITH = {"add": "fadd", "sub": "fsub", "mul": "fmul"}
MINMAX = {("min", ()): "minimumnum", ("max", ()): "maximumnum", ("min", ("NaN",)): "minimum",
          ("max", ("NaN",)): "maximum"}
# set's and setp's comparisons (PTX ISA "Comparison and Selection Instructions": eq..ge are
# ordered, false on NaN; the *u forms are true on NaN; num/nan test for NaN)
FCMP = {"eq": "oeq", "ne": "one", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "equ": "ueq",
        "neu": "une", "ltu": "ult", "leu": "ule", "gtu": "ugt", "geu": "uge", "num": "ord", "nan": "uno"}
APPROX_F32 = {"ex2": "llvm.exp2.f32", "lg2": "llvm.log2.f32"}
# cvt's directed roundings to a narrower float (PTX ISA "cvt": .rz, .rm, .rp)
DIRECTED = ("rz", "rm", "rp")
FLOATS = {"f16": ("half", 16), "bf16": ("bfloat", 16), "f32": ("float", 32), "f64": ("double", 64)}
# cvt's rounding to an integral value (.rni is to nearest even)
ROUND_INTEGRAL = {"rni": "roundeven", "rzi": "trunc", "rmi": "floor", "rpi": "ceil"}
INTS = {t: (int(t[1:]), t[0] == "s") for t in ("s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64")}


def nan_as_integer(src_bits: int, dst_bits: int) -> int:
    """What cvt from a float of `src_bits` to an integer of `dst_bits` (signed or not, any integer
    rounding) gives for NaN, as measured on an H200 (sm_90 and sm_80 builds of nvcc 13.0, the
    intrinsics and cvt.rzi/rni directly): the integer's sign bit for a 64-bit destination, and for
    a double to 32 bits; 0 otherwise (f16, bf16 and float to 8-32 bits). Infinities and values out
    of range saturate (LLVM's fpto[su]i.sat)."""
    return 1 << (dst_bits - 1) if dst_bits == 64 or (src_bits == 64 and dst_bits == 32) else 0


def float_to_integer(em, src: str, x: str, dst_bits: int, signed: bool) -> str:
    """cvt of the (already rounded) float `x` of PTX type `src` (FLOATS) to an integer: saturating,
    NaN as nan_as_integer."""
    fty, src_bits = FLOATS[src]
    v = em.call(f"i{dst_bits}", f"llvm.fpto{'s' if signed else 'u'}i.sat.i{dst_bits}.{src}", f"{fty} {x}")
    nan = nan_as_integer(src_bits, dst_bits)
    if not nan:
        return v
    isnan = em.emit(f"fcmp uno {fty} {x}, 0.0")
    return em.emit(f"select i1 {isnan}, i{dst_bits} {nan - (1 << dst_bits)}, i{dst_bits} {v}")    # the sign bit
TANH_SMALL = 0x3C800000       # 2^-6 as float bits: below it tanh(x) = x within 2^-13
LOG2E_X2 = 0x4038AA3B         # 2*log2(e) as float bits


def emit(em, opcode: str, args: list[str], w: int) -> str | None:
    """IR (an i{w} value) for the float instruction `opcode` on the i-typed operands `args`;
    None when no rule applies (ptxblock then names the instruction)."""
    parts = opcode.split(".")
    base, mods, ptype = parts[0], tuple(parts[1:-1]), parts[-1]
    if base == "set":
        return _set(em, mods, ptype, args, w)
    if base == "cvt":
        return _cvt(em, parts[1:-2], parts[-2], ptype, args, w)
    if ptype not in TYPES:
        return None
    elt, fty, sfx, ity, lanes = TYPES[ptype]
    if ptype == "f32":
        return _f32(em, base, mods, args, w)
    if base == "setp" and len(mods) == 1 and mods[0] in FCMP and w == 1 and lanes == 1:
        x, y = (_f(em, a, ity, fty) for a in args)
        return em.emit(f"fcmp {FCMP[mods[0]]} {fty} {x}, {y}")
    if w != (16 * lanes):
        return None
    xs = [_f(em, a, ity, fty) for a in args]
    if base in ARITH and len(xs) == 2 and mods in ((), ("rn",), ("sat",), ("rn", "sat")):
        flag = "contract " if em.contract and not ("rn" in mods or "sat" in mods) else ""
        r = em.emit(f"{ARITH[base]} {flag}{fty} {xs[0]}, {xs[1]}")
        r = _sat(em, r, elt, fty, sfx, lanes) if "sat" in mods else r
    elif base == "fma" and len(xs) == 3 and mods in (("rn",), ("rn", "sat"), ("rn", "relu")):
        r = _fma_bf16(em, xs, lanes) if elt == "bfloat" else \
            em.call(fty, f"llvm.fma.{sfx}", f"{fty} {xs[0]}, {fty} {xs[1]}, {fty} {xs[2]}")
        if "sat" in mods:
            r = _sat(em, r, elt, fty, sfx, lanes)
        elif "relu" in mods:
            r = em.call(fty, f"llvm.maximum.{sfx}", f"{fty} {r}, {fty} {_splat(em, 0, elt, fty, lanes)}")
    elif (base, mods) in MINMAX and len(xs) == 2:
        r = em.call(fty, f"llvm.{MINMAX[base, mods]}.{sfx}", f"{fty} {xs[0]}, {fty} {xs[1]}")
    elif base == "neg" and not mods and len(xs) == 1:
        r = em.emit(f"fneg {fty} {xs[0]}")
    elif base == "abs" and not mods and len(xs) == 1:
        r = em.call(fty, f"llvm.fabs.{sfx}", f"{fty} {xs[0]}")
    elif base == "tanh" and mods == ("approx",) and len(xs) == 1:
        vf = "float" if lanes == 1 else f"<{lanes} x float>"
        wide = em.emit(f"fpext {fty} {xs[0]} to {vf}")
        per = [wide] if lanes == 1 else [em.emit(f"extractelement {vf} {wide}, i32 {k}") for k in range(lanes)]
        outs = [_tanh(em, v) for v in per]
        if lanes == 1:
            r = em.emit(f"fptrunc float {outs[0]} to {fty}")
        else:
            vec = "poison"
            for k, v in enumerate(outs):
                vec = em.emit(f"insertelement {vf} {vec}, float {v}, i32 {k}")
            r = em.emit(f"fptrunc {vf} {vec} to {fty}")
    else:
        return None
    return em.emit(f"bitcast {fty} {r} to {ity}")


def _f(em, v: str, ity: str, fty: str) -> str:
    return em.emit(f"bitcast {ity} {v} to {fty}")


def _splat(em, bits: int, elt: str, fty: str, lanes: int) -> str:
    """The constant whose every element has the bit pattern `bits`."""
    eb = ELEMENT_BITS[elt]
    word = sum(bits << (eb * k) for k in range(lanes))
    return em.emit(f"bitcast i{eb * lanes} {word} to {fty}")


def _sat(em, r: str, elt: str, fty: str, sfx: str, lanes: int) -> str:
    """.sat: max with +0 (NaN and -0 become +0), then min with 1."""
    lo = em.call(fty, f"llvm.maximumnum.{sfx}", f"{fty} {r}, {fty} {_splat(em, 0, elt, fty, lanes)}")
    return em.call(fty, f"llvm.minimumnum.{sfx}", f"{fty} {lo}, {fty} {_splat(em, ONE[elt], elt, fty, lanes)}")


def _fma_bf16(em, xs: list[str], lanes: int) -> str:
    """bfloat16 fma rounded once: AMD targets without a bfloat16 fma promote llvm.fma.bf16 to a float
    fma and round again, which can differ (the hardware test caught it). Here: the product is exact
    in double (16 bits), the sum is double's plus its exact error (TwoSum), rounded to odd at double
    and then at float precision, and only then to nearest even at bfloat16's 8 bits, which the two
    odd roundings (each at least 2 bits wider than the next) leave correct (Boldo and Melquiond,
    "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd", 2008)."""
    def vec(t: str) -> str:
        return t if lanes == 1 else f"<{lanes} x {t}>"
    d, f, b = vec("double"), vec("float"), vec("bfloat")
    i1 = vec("i1")
    zero = "zeroinitializer" if lanes > 1 else "0.0"
    a, m, c = (em.emit(f"fpext {b} {x} to {d}") for x in xs)
    p = em.emit(f"fmul {d} {a}, {m}")
    s = em.emit(f"fadd {d} {p}, {c}")                    # TwoSum (Knuth): s + err = p + c exactly
    bp = em.emit(f"fsub {d} {s}, {p}")
    ap = em.emit(f"fsub {d} {s}, {bp}")
    err = em.emit(f"fadd {d} {em.emit(f'fsub {d} {p}, {ap}')}, {em.emit(f'fsub {d} {c}, {bp}')}")
    inexact = em.emit(f"fcmp one {d} {err}, {zero}")
    err_neg, s_neg = em.emit(f"fcmp olt {d} {err}, {zero}"), em.emit(f"fcmp olt {d} {s}, {zero}")
    grow = em.emit(f"icmp eq {i1} {err_neg}, {s_neg}")   # err on s's side: the exact magnitude is larger
    odd = _to_odd(em, s, inexact, grow, vec("i64"), d, lanes)
    r = em.emit(f"fptrunc {d} {odd} to {f}")
    back = em.emit(f"fpext {f} {r} to {d}")
    inexact = em.emit(f"fcmp one {d} {back}, {odd}")
    fabs = f"llvm.fabs.{_sfx(lanes, 64)}"
    grow = em.emit(f"fcmp olt {d} {em.call(d, fabs, f'{d} {back}')}, {em.call(d, fabs, f'{d} {odd}')}")
    r = _to_odd(em, r, inexact, grow, vec("i32"), f, lanes)
    return em.emit(f"fptrunc {f} {r} to {b}")


def _sfx(lanes: int, bits: int) -> str:
    t = {64: "f64", 32: "f32"}[bits]
    return t if lanes == 1 else f"v{lanes}{t}"


def _to_odd(em, x: str, inexact: str, grow: str, it: str, ft: str, lanes: int) -> str:
    """x rounded to odd where it is inexact: an even last bit steps one unit, away from zero where
    `grow` (the exact value's magnitude is larger), else toward it."""
    bits = em.emit(f"bitcast {ft} {x} to {it}")
    elt = it.split()[-1].rstrip(">")
    one, minus = (str(k) if lanes == 1 else f"<{', '.join([f'{elt} {k}'] * lanes)}>" for k in (1, -1))
    zero = "0" if lanes == 1 else "zeroinitializer"
    i1 = "i1" if lanes == 1 else f"<{lanes} x i1>"
    even = em.emit(f"icmp eq {it} {em.emit(f'and {it} {bits}, {one}')}, {zero}")
    step = em.emit(f"select {i1} {grow}, {it} {one}, {it} {minus}")
    delta = em.emit(f"select {i1} {em.emit(f'and {i1} {even}, {inexact}')}, {it} {step}, {it} {zero}")
    return em.emit(f"bitcast {it} {em.emit(f'add {it} {bits}, {delta}')} to {ft}")


def _tanh(em, x: str) -> str:
    """tanh.approx of one float (see the module docstring)."""
    ax = em.call("float", "llvm.fabs.f32", f"float {x}")
    k = em.emit(f"bitcast i32 {LOG2E_X2} to float")
    e = em.call("float", "llvm.exp2.f32", f"float {em.emit(f'fmul float {ax}, {k}')}")
    one = em.emit(f"bitcast i32 {ONE['float']} to float")
    two = em.emit(f"fadd float {one}, {one}")
    q = em.emit(f"fdiv float {two}, {em.emit(f'fadd float {e}, {one}')}")
    t = em.emit(f"fsub float {one}, {q}")
    small = em.emit(f"fcmp olt float {ax}, {em.emit(f'bitcast i32 {TANH_SMALL} to float')}")
    r = em.emit(f"select i1 {small}, float {ax}, float {t}")
    return em.call("float", "llvm.copysign.f32", f"float {r}, float {x}")


def _ftz(em, bits: str) -> str:
    """A float's bits with a subnormal flushed to zero of its sign (.ftz)."""
    sub = em.emit(f"icmp eq i32 {em.emit(f'and i32 {bits}, 2139095040')}, 0")     # exponent 0
    return em.emit(f"select i1 {sub}, i32 {em.emit(f'and i32 {bits}, -2147483648')}, i32 {bits}")


def _f32(em, base: str, mods: tuple, args: list[str], w: int) -> str | None:
    """fma.rn.f32 and the f32 `.approx` and `.ftz` forms ptxblock leaves: the .ftz form is the
    plain one between flushed input and flushed result."""
    if w != 32:
        return None
    if base == "fma" and mods == ("rn",) and len(args) == 3:
        x = [_f(em, a, "i32", "float") for a in args]
        r = em.call("float", "llvm.fma.f32", f"float {x[0]}, float {x[1]}, float {x[2]}")
        return em.emit(f"bitcast float {r} to i32")
    ftz = "ftz" in mods
    rest = tuple(m for m in mods if m != "ftz")
    if rest != ("approx",) or len(args) != 1:
        return None
    x = _ftz(em, args[0]) if ftz else args[0]
    if base in APPROX_F32:
        r = em.call("float", APPROX_F32[base], f"float {_f(em, x, 'i32', 'float')}")
        out = em.emit(f"bitcast float {r} to i32")
    elif base == "tanh" and not ftz:
        out = em.emit(f"bitcast float {_tanh(em, _f(em, x, 'i32', 'float'))} to i32")
    elif ftz and base in ("rcp", "rsqrt", "sqrt"):
        out = em.float_op(f"{base}.approx.f32", [x], 32)
    else:
        return None
    return _ftz(em, out) if ftz and out is not None else out


def _set(em, mods: tuple, stype: str, args: list[str], w: int) -> str | None:
    """set.CMP.DTYPE.STYPE d, a, b (PTX ISA "set", "Half Precision Comparison Instructions: set"):
    per element, true is 1.0 in a float DTYPE and all ones in an integer one, false is 0; a pair
    source compares each half into the matching half of d."""
    if len(mods) != 2 or mods[0] not in FCMP or stype not in TYPES or len(args) != 2:
        return None
    dtype = mods[1]
    elt, fty, _, ity, lanes = TYPES[stype]
    eb = ELEMENT_BITS[elt]
    if dtype in TYPES and TYPES[dtype][4] == lanes and ELEMENT_BITS[TYPES[dtype][0]] == eb:
        true = ONE[TYPES[dtype][0]]
    elif dtype in ("u32", "s32") and eb * lanes == 32:
        true = (1 << eb) - 1
    else:
        return None
    if w != eb * lanes:
        return None
    x, y = (_f(em, a, ity, fty) for a in args)
    c = em.emit(f"fcmp {FCMP[mods[0]]} {fty} {x}, {y}")
    it = f"i{eb}" if lanes == 1 else f"<{lanes} x i{eb}>"
    if lanes == 1:
        return em.emit(f"select i1 {c}, {it} {true}, {it} 0")
    sel = em.emit(f"select <{lanes} x i1> {c}, {it} <{', '.join([f'i{eb} {true}'] * lanes)}>, {it} zeroinitializer")
    return em.emit(f"bitcast {it} {sel} to i{w}")


def _cvt(em, mods: list[str], dst: str, src: str, args: list[str], w: int) -> str | None:
    """The conversions the 16-bit formats add to ptxblock's: float -> 16-bit float with .rn (also
    two floats into a pair, `cvt.rn.f16x2.f32 d, a, b`: a in the high half) and .rz/.rm/.rp; integer
    -> f16 in every rounding; 16-bit float -> integer (.rni/.rzi/.rmi/.rpi, saturating, NaN as
    nan_as_integer);
    rounding to an integral value in the same float type (cvt.rni.f16.f16)."""
    if "ftz" in mods or "sat" in mods:
        return None
    if dst in ("f16x2", "bf16x2") and src == "f32" and mods == ["rn"] and len(args) == 2:
        elt = TYPES[dst][0]
        hi, lo = (_narrow(em, _f(em, a, "i32", "float"), "float", elt, "rn") for a in args)
        words = [em.emit(f"zext i16 {em.emit(f'bitcast {elt} {v} to i16')} to i32") for v in (hi, lo)]
        return em.emit(f"or i32 {em.emit(f'shl i32 {words[0]}, 16')}, {words[1]}")
    if len(args) != 1:
        return None
    x = args[0]
    if dst in FLOATS and src == dst and len(mods) == 1 and mods[0] in ROUND_INTEGRAL:
        fty, fw = FLOATS[dst]
        r = em.call(fty, f"llvm.{ROUND_INTEGRAL[mods[0]]}.{dst}", f"{fty} {_f(em, x, f'i{fw}', fty)}")
        return _widen(em, em.emit(f"bitcast {fty} {r} to i{fw}"), fw, w, False)
    if dst in ("f16", "bf16") and len(mods) == 1 and mods[0] in ("rn", *DIRECTED):
        elt = FLOATS[dst][0]
        if src in FLOATS and FLOATS[src][1] > 16:
            sty, sw = FLOATS[src]
            v = _narrow(em, _f(em, x, f"i{sw}", sty), sty, elt, mods[0])
        elif src in INTS and dst == "f16":
            iw, signed = INTS[src]
            conv = "sitofp" if signed else "uitofp"
            if mods[0] == "rn":
                v = em.emit(f"{conv} i{iw} {x} to half")
            else:   # exact in float below 2^24; above, float's rounding keeps it beyond half's range
                v = _narrow(em, em.emit(f"{conv} i{iw} {x} to float"), "float", "half", mods[0])
        else:
            return None
        return _widen(em, em.emit(f"bitcast {elt} {v} to i16"), 16, w, False)
    if src in ("f16", "bf16") and dst in INTS and len(mods) == 1 and mods[0] in ROUND_INTEGRAL:
        fty = FLOATS[src][0]
        dw, signed = INTS[dst]
        r = em.call(fty, f"llvm.{ROUND_INTEGRAL[mods[0]]}.{src}", f"{fty} {_f(em, x, 'i16', fty)}")
        v = float_to_integer(em, src, r, dw, signed)
        return _widen(em, v, dw, w, signed)
    if src == "bf16" and dst in ("f32", "f64") and not mods:
        fty, fw = FLOATS[dst]
        v = em.emit(f"fpext bfloat {_f(em, x, 'i16', 'bfloat')} to {fty}")
        return _widen(em, em.emit(f"bitcast {fty} {v} to i{fw}"), fw, w, False)
    return None


def _widen(em, v: str, vw: int, w: int, signed: bool) -> str:
    if vw == w:
        return v
    return em.emit(f"{'trunc' if vw > w else 'sext' if signed else 'zext'} i{vw} {v} to i{w}")


def _narrow(em, x: str, sty: str, elt: str, mode: str) -> str:
    """x (a wider float) rounded to `elt` as cvt's `mode` says: the nearest value n, then one step
    toward the direction's side where n lies beyond x (NaN and exact values stay)."""
    n = em.emit(f"fptrunc {sty} {x} to {elt}")
    if mode == "rn":
        return n
    back = em.emit(f"fpext {elt} {n} to {sty}")
    above = em.emit(f"fcmp ogt {sty} {back}, {x}")
    below = em.emit(f"fcmp olt {sty} {back}, {x}")
    bits = em.emit(f"bitcast {elt} {n} to i16")
    neg = em.emit(f"icmp slt i16 {bits}, 0")
    # the step in bits: toward zero is -1 for either sign; away from zero +1
    if mode == "rz":
        step = em.emit(f"select i1 {neg}, i1 {below}, i1 {above}")
        delta = em.emit(f"select i1 {step}, i16 -1, i16 0")
    elif mode == "rp":
        delta = em.emit(f"select i1 {below}, i16 {em.emit(f'select i1 {neg}, i16 -1, i16 1')}, i16 0")
    else:
        delta = em.emit(f"select i1 {above}, i16 {em.emit(f'select i1 {neg}, i16 1, i16 -1')}, i16 0")
    return em.emit(f"bitcast i16 {em.emit(f'add i16 {bits}, {delta}')} to {elt}")
