"""Reference lockstep interpreter for the inline-PTX subset CUB-style blocks use, written from the
PTX ISA text (instructions mov, add, sub, mul.lo, and, or, xor, not, shl, shr, min, max, setp with
`.and/.or/.xor`, selp, shfl.sync, vote.sync.ballot, bmsk, bfe, bfi, prmt, shf, lop3, cvt.pack.sat, cvt from f32
to integers; guards `@p`/`@!p`; %laneid, %lanemask_*) and cuda_ref for shfl. Independent of
shflx: nothing here imports it. A block runs on `lanes` lanes at once (32 or 64; lanes 32..63 are
a second warp); a register holds one u32 (or bool) per lane; a guarded write keeps the old value
where the guard is false."""
from __future__ import annotations

import re

import numpy as np

from .cuda_ref import ref_shfl

M32 = 0xFFFFFFFF
CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
       "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal, "hi": np.greater, "hs": np.greater_equal}
BOOL = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}
UNDEFINED = 0xDEADBEEF      # what a register holds before its first write (tests must not see it)


def _signed(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.int64) & M32
    return np.where(x >= 1 << 31, x - (1 << 32), x)


def _f32(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.int64) & M32).astype(np.uint32).view(np.float32)


def _bits(f: np.ndarray) -> np.ndarray:
    return f.astype(np.float32).view(np.uint32).astype(np.int64)


def run_block(text: str, operands: dict[str, np.ndarray | int], lanes: int = 32) -> dict[str, np.ndarray]:
    """Execute `text` (PTX statements; `$k` operands given in `operands`); returns the registers."""
    regs: dict[str, np.ndarray] = {k: np.broadcast_to(np.asarray(v, np.int64) & M32, (lanes,)).copy()
                                   for k, v in operands.items()}
    lane = np.arange(lanes)
    for stmt in (s.strip(" \t\n{}") for s in text.split(";")):
        if not stmt:
            continue
        if stmt.startswith(".reg"):
            for name in stmt.split(None, 2)[2].split(","):
                regs[name.strip()] = np.full(lanes, UNDEFINED, np.int64)
            continue
        guard = np.ones(lanes, bool)
        g = re.match(r"@(!?)(\S+)\s+", stmt)
        if g:
            guard = regs[g.group(2)].astype(bool) ^ (g.group(1) == "!")
            stmt = stmt[g.end():]
        opcode, _, rest = stmt.partition(" ")
        ops = [o.strip() for o in rest.split(",")]
        parts = opcode.split(".")

        def val(tok: str) -> np.ndarray:
            if tok.startswith("!"):
                return ~regs[tok[1:]].astype(bool)
            if tok == "%laneid":
                return lane & 31
            if tok.startswith("%lanemask_"):          # PTX ISA "Special Registers": bit i for lanes i ? laneid
                rel = {"eq": np.equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}
                f = rel[tok[len("%lanemask_"):]]
                return np.array([sum(1 << i for i in range(32) if f(i, ln & 31)) for ln in lane], np.int64)
            if tok in regs:
                return regs[tok]
            v = int(tok, 0)
            return np.full(lanes, v & M32, np.int64)

        def put(dest: str, v: np.ndarray) -> None:
            old = regs.get(dest, np.full(lanes, UNDEFINED, np.int64))
            regs[dest] = np.where(guard, np.asarray(v, np.int64), old)

        ty = parts[-1]
        signed = ty.startswith("s")
        num = _signed if signed else (lambda x: x & M32)
        if parts[0] == "mov":
            put(ops[0], val(ops[1]))
        elif parts[0] in ("add", "sub", "mul", "min", "max") and ty == "f32":
            a, b = _f32(val(ops[1])), _f32(val(ops[2]))
            f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "min": np.fmin, "max": np.fmax}[parts[0]]
            put(ops[0], _bits(f(a, b)))
        elif parts[0] in ("add", "sub", "mul", "and", "or", "xor", "min", "max"):
            a, b = num(val(ops[1])), num(val(ops[2]))
            f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "and": np.bitwise_and,
                 "or": np.bitwise_or, "xor": np.bitwise_xor, "min": np.minimum, "max": np.maximum}[parts[0]]
            if ty == "pred":
                put(ops[0], BOOL[parts[0]](a.astype(bool), b.astype(bool)))
            else:
                put(ops[0], f(a, b) & M32)
        elif parts[0] == "not":
            put(ops[0], ~val(ops[1]).astype(bool) if ty == "pred" else ~val(ops[1]) & M32)
        elif parts[0] in ("shl", "shr"):
            a, n = num(val(ops[1])), val(ops[2]) & M32
            n = np.minimum(n, 32)               # PTX clamps the shift amount at the width
            if parts[0] == "shl":
                put(ops[0], np.where(n >= 32, 0, (a << np.minimum(n, 31)) & M32))
            else:
                put(ops[0], (a >> np.minimum(n, 63)) & M32)
        elif parts[0] == "setp":
            cmpop, combine = parts[1], parts[2] if len(parts) == 4 else None
            if ty == "f32":
                a, b = _f32(val(ops[1])), _f32(val(ops[2]))
                t = CMP[cmpop](a, b) & ~np.isnan(a) & ~np.isnan(b)
            elif cmpop in ("lo", "ls", "hi", "hs"):          # unsigned whatever the type
                t = CMP[cmpop](val(ops[1]) & M32, val(ops[2]) & M32)
            else:
                t = CMP[cmpop](num(val(ops[1])), num(val(ops[2])))
            f = ~t
            if combine:
                c = val(ops[3]).astype(bool)
                t, f = BOOL[combine](t, c), BOOL[combine](f, c)
            dests = ops[0].split("|")
            put(dests[0].strip(), t)
            if len(dests) > 1:
                put(dests[1].strip(), f)
        elif parts[0] == "selp":
            put(ops[0], np.where(val(ops[3]).astype(bool), val(ops[1]), val(ops[2])))
        elif parts[0] == "shfl":
            mode = next(m for m in parts[1:] if m != "sync")    # shfl.sync.up.b32 or shfl.up.sync.b32
            a, b, c = val(ops[1]), val(ops[2]), val(ops[3])
            out, pred = np.zeros(lanes, np.int64), np.zeros(lanes, bool)
            for warp in range(0, lanes, 32):
                w = slice(warp, warp + 32)
                src, p = ref_shfl(mode, [int(x) for x in b[w]], [int(x) for x in c[w]])
                out[w] = a[w][src]
                pred[w] = p
            dests = ops[0].split("|")
            put(dests[0].strip(), out)
            if len(dests) > 1:
                put(dests[1].strip(), pred)
        elif parts[0] in BITFIELD:
            sels = [re.fullmatch(r"(.+?)(?:\.([bh]\d))?", o) for o in ops[1:]]   # a video operand's .b0 / .h1
            args = [[int(x) for x in val(m.group(1)) & M32] for m in sels]
            extra = {"selectors": [m.group(2) for m in sels]} if parts[0] in VIDEO else {}
            put(ops[0], np.array([BITFIELD[parts[0]](parts, *a, **extra) for a in zip(*args)], np.int64))
        elif parts[0] == "vote":                        # ballot of this 32-lane warp's lanes in the mask
            p, mask = val(ops[1]).astype(bool), val(ops[2]) & M32
            out = np.zeros(lanes, np.int64)
            for warp in range(0, lanes, 32):
                bits = sum(1 << i for i in range(32) if p[warp + i])
                out[warp:warp + 32] = bits & mask[warp:warp + 32]
            put(ops[0], out)
        elif parts[:3] == ["cvt", "pack", "sat"]:
            n = int(parts[3][1:])
            lo, hi = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if parts[3][0] == "s" else (0, (1 << n) - 1)
            sat = lambda x: np.clip(_signed(x), lo, hi) & ((1 << n) - 1)       # noqa: E731
            d = (sat(val(ops[1])) << n) | sat(val(ops[2]))
            if len(ops) == 4:
                d = d | (val(ops[3]) << (2 * n))
            put(ops[0], d & M32)
        elif parts[0] == "cvt" and parts[-1] == "f32" and parts[1] in ROUND_TO_INT:
            f = _f32(val(ops[1])).astype(np.float64)
            r = ROUND_TO_INT[parts[1]](f)
            lo, hi = (-(1 << 31), (1 << 31) - 1) if parts[-2] == "s32" else (0, (1 << 32) - 1)
            put(ops[0], np.where(np.isnan(r), 0, np.clip(np.nan_to_num(r), lo, hi)).astype(np.int64) & M32)
        else:
            raise ValueError(f"ptx_ref: no reference for '{stmt}'")
    return regs


# float -> integer rounding of cvt.{rni,rzi,rmi,rpi} (nearest even, toward zero, down, up)
ROUND_TO_INT = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}


def _bit(x: int, i: int) -> int:
    return (x >> i) & 1


def _bmsk(parts, a: int, b: int) -> int:
    """PTX ISA bmsk pseudocode, line by line."""
    a1, b1 = a & 0x1F, b & 0x1F
    mask0 = (M32 << a1) & M32
    total = a1 + b1
    mask1 = (M32 << total) & M32 if total < 32 else 0
    overflow = total >= 32
    if parts[1] == "clamp":
        if a >= 32:
            overflow, mask0 = True, 0
        if b >= 32:
            overflow = True
    if overflow:
        mask1 = 0
    elif b1 == 0:
        mask1 = M32
    return mask0 & ~mask1 & M32


def _bfe(parts, a: int, b: int, c: int) -> int:
    """PTX ISA bfe pseudocode (32-bit types), bit by bit."""
    msb, pos, length = 31, b & 0xFF, c & 0xFF
    sbit = 0 if parts[1].startswith("u") or length == 0 else _bit(a, min(pos + length - 1, msb))
    return sum((_bit(a, pos + i) if i < length and pos + i <= msb else sbit) << i for i in range(msb + 1))


def _bfi(parts, a: int, b: int, c: int, d: int) -> int:
    """PTX ISA bfi pseudocode (.b32), bit by bit."""
    f, pos, length = b, c & 0xFF, d & 0xFF
    for i in range(length):
        if pos + i > 31:
            break
        f = (f & ~(1 << (pos + i))) | (_bit(a, i) << (pos + i))
    return f & M32


def _prmt(parts, a: int, b: int, c: int) -> int:
    """PTX ISA prmt, default mode: byte i of d is byte c[4i+2:4i] of {b, a}, sign-replicated
    when c[4i+3] is set."""
    both = (b << 32) | a
    out = 0
    for i in range(4):
        sel = (c >> (4 * i)) & 0xF
        byte = (both >> (8 * (sel & 7))) & 0xFF
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * i)
    return out


def _shf(parts, a: int, b: int, c: int) -> int:
    """PTX ISA shf pseudocode: n = .clamp ? min(c, 32) : c & 0x1f; .l: d = (b << n) | (a >> (32 - n)),
    .r: d = (b << (32 - n)) | (a >> n), where a 32-bit shift by 32 or more gives 0."""
    n = min(c, 32) if parts[2] == "clamp" else c & 0x1F
    shl = lambda x, k: (x << k) & M32 if k < 32 else 0      # noqa: E731
    shr = lambda x, k: x >> k if k < 32 else 0              # noqa: E731
    return shl(b, n) | shr(a, 32 - n) if parts[1] == "l" else shl(b, 32 - n) | shr(a, n)


def _clz(parts, a: int) -> int:
    """PTX ISA clz.b32: d = 0; while (d < 32 && (a & (0x80000000 >> d)) == 0) d++."""
    d = 0
    while d < 32 and not a & (0x80000000 >> d):
        d += 1
    return d


def _popc(parts, a: int) -> int:
    return bin(a).count("1")


def _brev(parts, a: int) -> int:
    return sum(_bit(a, i) << (31 - i) for i in range(32))


def _bfind(parts, a: int) -> int:
    """PTX ISA bfind pseudocode: msb = 31; for .s32 a negative a is inverted first; d = the highest
    i with bit i set, else 0xffffffff; .shiftamt: msb - i."""
    if parts[-1] == "s32" and a >> 31:
        a = ~a & M32
    d = next((i for i in range(31, -1, -1) if _bit(a, i)), None)
    if d is None:
        return M32
    return 31 - d if "shiftamt" in parts else d


def _slct(parts, a: int, b: int, c: int) -> int:
    """PTX ISA slct with an .s32 c: d = (c >= 0) ? a : b."""
    return a if not c >> 31 else b


def _lop3(parts, a: int, b: int, c: int, lut: int) -> int:
    """PTX ISA lop3: bit i of d is F(a_i, b_i, c_i), where immLut = F(0xF0, 0xCC, 0xAA): the row of
    F's truth table for (a_i, b_i, c_i) is bit 4a_i + 2b_i + c_i of immLut."""
    return sum(_bit(lut, 4 * _bit(a, i) + 2 * _bit(b, i) + _bit(c, i)) << i for i in range(32))


def _video(parts, a: int, b: int, c: int = 0, selectors=(None, None)) -> int:
    """PTX ISA "Scalar Video Instructions" pseudocode on whole words, with Python's unbounded ints:
    ta, tb sign- or zero-extended by type; vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vmad; then
    optSecondaryOp(op2, tmp, c); d is the low 32 bits."""
    op, types = parts[0], [t for t in parts[1:] if t in ("u32", "s32")]
    ext = lambda x, t, n=32: x - (1 << n) if t == "s32" and x >> (n - 1) else x   # noqa: E731
    ta, tb = ext(a, types[1]), ext(b, types[2])
    for k, sel in enumerate(selectors[:2]):
        if sel:                             # partSelectSignExtend: byte or half-word `sel` of a or b
            n, i = (8 if sel[0] == "b" else 16), int(sel[1])
            v = ((a, b)[k] >> (n * i)) & ((1 << n) - 1)
            ta, tb = (ext(v, types[1], n), tb) if k == 0 else (ta, ext(v, types[2], n))
    mods = [m for m in parts[1:] if m not in ("u32", "s32")]
    if op == "vmad":
        return (ta * tb + c) & M32
    if op in ("vshl", "vshr"):
        n = min(tb, 32) if mods.pop(0) == "clamp" else tb & 0x1F
        tmp = ta << n if op == "vshl" else ta >> n
    else:
        tmp = {"vadd": ta + tb, "vsub": ta - tb, "vabsdiff": abs(ta - tb), "vmin": min(ta, tb), "vmax": max(ta, tb)}[op]
    if "sat" in mods:                      # optSaturate to the range of dtype
        mods.remove("sat")
        lo, hi = (-(1 << 31), (1 << 31) - 1) if types[0] == "s32" else (0, M32)
        tmp = max(lo, min(hi, tmp))
    if mods:
        tc = ext(c, types[0])
        tmp = {"add": tmp + tc, "min": min(tmp, tc), "max": max(tmp, tc)}[mods[0]]
    return tmp & M32


BITFIELD = {"bmsk": _bmsk, "bfe": _bfe, "bfi": _bfi, "prmt": _prmt, "shf": _shf, "clz": _clz, "popc": _popc,
            "brev": _brev, "lop3": _lop3, "bfind": _bfind, "slct": _slct}
VIDEO = ("vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad")
BITFIELD.update({v: _video for v in VIDEO})
