"""Symbolic emulation of a PTX kernel over bit-vectors, as in PTXASW (Matsumura et al., CC'23;
spec/synthesis_notes.md §1.3): each register holds an expression over the thread's coordinates.

Why: load->shuffle synthesis must prove that lane i's address of one load equals lane i+N's
address of another for every launch. Registers become expressions over %tid (thread-varying),
%ctaid/%ntid/%nctaid and kernel parameters (warp-uniform symbols); loaded values are a function of
(memory epoch, address); float and other pure instructions are uninterpreted functions of their
operands; branches give per-block path conditions. Soundness rule: whatever is not understood
(special registers other than the thread geometry, shuffles, atomics, loop-carried values, call
results, ...) becomes a fresh *thread-varying* unknown `u(tid.x, tid.y, tid.z)`: a value about which
nothing is known in another lane, never a wrong fact.

Expressions are small hash-consed nodes (`Expr`), evaluated concretely in Python (cheap candidate
search) and translated to Z3 only for proofs (`prove_shift`). This module and verify/ are z3's homes.

Lane model: a proof is only used on the rewritten path, which runs only when the whole warp is
active and `%ntid.x % 32 == 0`; there `%laneid == %tid.x % 32` and lane i+N is the thread
(tid.x+N, tid.y, tid.z) of the same CTA (PTX ISA §10.2 %laneid, CUDA Programming Guide "Thread
Hierarchy": warps are consecutive thread ids, x fastest). `prove_shift` assumes exactly that."""
from __future__ import annotations

import hashlib
import itertools
import re
import struct
import weakref
from dataclasses import dataclass, field
from typing import Iterable

from ..errors import InputError, Location
from . import ptxir

# ------------------------------------------------------------------------------ expressions

# Hash-consing table: weak values, so nodes of finished emulations are freed (a long `shflx ptx`
# run or a test session does not grow it forever); ids come from a counter and are never reused.
_INTERN: "weakref.WeakValueDictionary[tuple, Expr]" = weakref.WeakValueDictionary()
_IDS = itertools.count()


class Expr:
    """A hash-consed bit-vector node: equal structure is the same object (identity compares).

    `tv` (lane-varying): the node depends on %tid.x (or %laneid); every other node has the same
    value in two lanes of one warp, which the prover exploits (see `_z3_of`)."""

    __slots__ = ("op", "w", "args", "id", "tv", "__weakref__")

    def __init__(self, op: str, w: int, args: tuple, tv: bool):
        self.op, self.w, self.args, self.tv = op, w, args, tv
        self.id = next(_IDS)

    def __repr__(self) -> str:
        if self.op == "const":
            return f"{self.args[0]:#x}:{self.w}"
        if self.op in ("sym", "tid"):
            return str(self.args[0])
        return f"{self.op}({', '.join(map(repr, self.args))})"


def mk(op: str, w: int, *args) -> Expr:
    key = (op, w) + tuple(a.id if isinstance(a, Expr) else ("v", a) for a in args)
    e = _INTERN.get(key)
    if e is None:
        tv = (op == "tid" and args[0] == "x") or op == "laneid" or any(isinstance(a, Expr) and a.tv for a in args)
        e = _INTERN[key] = Expr(op, w, args, tv)
    return e


def const(v: int, w: int) -> Expr:
    return mk("const", w, v & ((1 << w) - 1))


def sym(name: str, w: int) -> Expr:
    """A warp-uniform unknown (kernel parameter, %ctaid, %ntid, a global's address)."""
    return mk("sym", w, name)


TID = {a: mk("tid", 32, a) for a in "xyz"}
LANEID = mk("laneid", 32)  # = tid.x & 31 on the rewritten path (see module docstring)
TRUE, FALSE = const(1, 1), const(0, 1)
# %lanemask_* (PTX ISA 10.x): bits of the lanes below, at or below, above, at or above this one
_EQ = mk("shl", 32, const(1, 32), LANEID)
_LT = mk("sub", 32, _EQ, const(1, 32))
_LE = mk("sub", 32, mk("shl", 32, _EQ, const(1, 32)), const(1, 32))   # lane 31: 0 - 1 = all bits
LANEMASKS = {"%lanemask_eq": _EQ, "%lanemask_lt": _LT, "%lanemask_le": _LE,
             "%lanemask_gt": mk("not", 32, _LE), "%lanemask_ge": mk("not", 32, _LT)}


def uf(name: str, w: int, *args: Expr) -> Expr:
    """An uninterpreted function: equal arguments give equal results (pure instructions, memory)."""
    return mk("uf", w, name, *args)


def unknown(name: str, w: int) -> Expr:
    """A thread-varying unknown: nothing is known about its value in any other thread."""
    return uf(name, w, TID["x"], TID["y"], TID["z"])


def _c(e: Expr) -> int | None:
    return e.args[0] if e.op == "const" else None


def binop(op: str, a: Expr, b: Expr) -> Expr:
    """Build with light folding (constants, x+0, x*1) so equal values usually share one node."""
    w = a.w
    ca, cb = _c(a), _c(b)
    m = (1 << w) - 1
    if ca is not None and cb is not None and op in _FOLD:
        return const(_FOLD[op](ca, cb, w), w)
    if op == "add":
        if cb == 0:
            return a
        if ca == 0:
            return b
        if b.op == "const" and a.op == "add" and a.args[1].op == "const":
            return binop("add", a.args[0], const(a.args[1].args[0] + cb, w))
        if a.op == "const":
            return binop("add", b, a)
    if op == "sub" and cb is not None:
        return binop("add", a, const(-cb & m, w))
    if op == "mul":
        if cb == 1:
            return a
        if ca is not None:
            return binop("mul", b, a)
    if op in ("and", "or", "xor") and ca is not None and cb is None:
        return binop(op, b, a)
    return mk(op, w, a, b)


_FOLD = {
    "add": lambda a, b, w: a + b, "sub": lambda a, b, w: a - b, "mul": lambda a, b, w: a * b,
    "and": lambda a, b, w: a & b, "or": lambda a, b, w: a | b, "xor": lambda a, b, w: a ^ b,
    "shl": lambda a, b, w: (a << b) if b < w else 0,
    "lshr": lambda a, b, w: (a >> b) if b < w else 0,
}


def resize(e: Expr, w: int, signed: bool) -> Expr:
    """Zero/sign extension or truncation to w bits (PTX cvt between integer types, §9.7.9.21)."""
    if w == e.w:
        return e
    if w < e.w:
        return const(e.args[0], w) if e.op == "const" else mk("trunc", w, e)
    if e.op == "const":
        v = e.args[0]
        if signed and v >> (e.w - 1):
            v -= 1 << e.w
        return const(v, w)
    return mk("sext" if signed else "zext", w, e)


def ite(c: Expr, a: Expr, b: Expr) -> Expr:
    if a is b or c is TRUE:
        return a
    if c is FALSE:
        return b
    return mk("ite", a.w, c, a, b)


def cmp(op: str, a: Expr, b: Expr) -> Expr:
    """Boolean (width 1) comparison: eq, ne, ult, ule, ugt, uge, slt, sle, sgt, sge."""
    swap = {"ugt": "ult", "uge": "ule", "sgt": "slt", "sge": "sle"}
    if op in swap:
        return cmp(swap[op], b, a)
    if op == "ne":
        return bnot(cmp("eq", a, b))
    if a is b:
        return TRUE if op in ("eq", "ule", "sle") else FALSE
    return mk(op, 1, a, b)


def bnot(a: Expr) -> Expr:
    if a.op == "bnot":
        return a.args[0]
    return const(1 - a.args[0], 1) if a.op == "const" else mk("bnot", 1, a)


def band(a: Expr, b: Expr) -> Expr:
    if a is TRUE or a is b:
        return b
    if b is TRUE:
        return a
    return FALSE if FALSE in (a, b) else mk("band", 1, a, b)


def bor(a: Expr, b: Expr) -> Expr:
    if a is FALSE or a is b:
        return b
    if b is FALSE:
        return a
    return TRUE if TRUE in (a, b) else mk("bor", 1, a, b)


def bxor(a: Expr, b: Expr) -> Expr:
    """Exclusive or of two predicates (setp's `.xor` combining operation, xor.pred)."""
    return bor(band(a, bnot(b)), band(bnot(a), b))


# ------------------------------------------------------------------------------ concrete evaluation

def _bmsk(a: Expr, b: Expr, clamp: bool) -> Expr:
    """bmsk.{clamp,wrap}.b32 (PTX ISA 9.7.8.x): b bits set from bit a; .wrap takes a and b mod 32,
    .clamp gives 0 for a >= 32 and every bit from a for b >= 32."""
    c31, c32 = const(31, 32), const(32, 32)
    a1, b1 = binop("and", a, c31), binop("and", b, c31)
    ones = const(-1, 32)
    mask0 = binop("shl", ones, a1)
    total = binop("add", a1, b1)
    overflow = bnot(cmp("ult", total, c32))
    if clamp:
        big_a, big_b = bnot(cmp("ult", a, c32)), bnot(cmp("ult", b, c32))
        mask0 = ite(big_a, const(0, 32), mask0)
        overflow = bor(overflow, bor(big_a, big_b))
    mask1 = ite(overflow, const(0, 32), ite(cmp("eq", b1, const(0, 32)), ones, binop("shl", ones, total)))
    return binop("and", mask0, mk("not", 32, mask1))


def _bfe(a: Expr, b: Expr, c: Expr, signed: bool) -> Expr:
    """bfe.{u,s}{32,64} d, a, pos, len (PTX ISA 9.7.8.x): len bits of a from pos (each taken
    mod 256); the bits past the field or past a's msb are 0, or (signed) the field's top bit
    a[min(pos+len-1, msb)] (0 when len is 0)."""
    w = a.w
    pos, ln = binop("and", b, const(0xFF, 32)), binop("and", c, const(0xFF, 32))
    wide = lambda x: resize(x, w, False)            # noqa: E731 (0..255 fits every width)
    mask = binop("sub", binop("shl", const(1, w), wide(ln)), const(1, w))     # len >= w: all ones
    field = binop("and", binop("lshr", a, wide(pos)), mask)
    if not signed:
        return field
    valid = binop("and", mask, binop("lshr", const(-1, w), wide(pos)))       # i < len, pos + i <= msb
    top = binop("sub", binop("add", pos, ln), const(1, 32))
    top = ite(cmp("ult", top, const(w - 1, 32)), top, const(w - 1, 32))
    sbit = binop("and", binop("lshr", a, wide(top)), const(1, w))
    sbit = ite(cmp("eq", ln, const(0, 32)), const(0, w), sbit)
    return binop("or", field, binop("and", binop("sub", const(0, w), sbit), mk("not", w, valid)))


def _bfi(a: Expr, b: Expr, c: Expr, d: Expr) -> Expr:
    """bfi.b{32,64} f, a, b, pos, len (PTX ISA 9.7.8.x): b with its bits pos..pos+len-1 (those
    within the msb; pos, len mod 256) replaced by a's low bits."""
    w = a.w
    pos, ln = resize(binop("and", c, const(0xFF, 32)), w, False), resize(binop("and", d, const(0xFF, 32)), w, False)
    mask = binop("shl", binop("sub", binop("shl", const(1, w), ln), const(1, w)), pos)
    return binop("or", binop("and", b, mk("not", w, mask)), binop("and", binop("shl", a, pos), mask))


def _prmt(a: Expr, b: Expr, c: Expr) -> Expr:
    """prmt.b32 d, a, b, c, default mode (PTX ISA 9.7.8.x): byte k of d is byte (c >> 4k) & 7
    of {b, a} (a the low word), or with (c >> 4k) & 8 its sign replicated (0x00 or 0xff)."""
    both = mk("concat", 64, b, a)
    out = const(0, 32)
    for k in range(4):
        sel = binop("and", binop("lshr", c, const(4 * k, 32)), const(0xF, 32))
        byte = binop("and", resize(binop("lshr", both, resize(binop("shl", binop("and", sel, const(7, 32)),
                                                                        const(3, 32)), 64, False)), 32, False),
                     const(0xFF, 32))
        sign = ite(cmp("eq", binop("and", byte, const(0x80, 32)), const(0, 32)), const(0, 32), const(0xFF, 32))
        byte = ite(cmp("eq", binop("and", sel, const(8, 32)), const(0, 32)), byte, sign)
        out = binop("or", out, binop("shl", byte, const(8 * k, 32)))
    return out


def _shf(a: Expr, b: Expr, c: Expr, left: bool, clamp: bool) -> Expr:
    """shf.{l,r}.{clamp,wrap}.b32 d, a, b, c (PTX ISA 9.7.8.x, funnel shift): n = min(c, 32) (.clamp)
    or c & 31 (.wrap); .l: the 32 high bits of {b, a} << n, .r: the 32 low bits of {b, a} >> n."""
    n = ite(cmp("ult", c, const(32, 32)), c, const(32, 32)) if clamp else binop("and", c, const(31, 32))
    both = binop("or", binop("shl", resize(b, 64, False), const(32, 64)), resize(a, 64, False))
    if left:
        return resize(binop("lshr", binop("shl", both, resize(n, 64, False)), const(32, 64)), 32, False)
    return resize(binop("lshr", both, resize(n, 64, False)), 32, False)


def _lop3(a: Expr, b: Expr, c: Expr, lut: int) -> Expr:
    """lop3.b32 d, a, b, c, immLut (PTX ISA "Logic and Shift Instructions: lop3"): each bit of d is
    the bit of immLut at (a << 2) | (b << 1) | c of that bit position (immLut = F(0xF0, 0xCC,
    0xAA)); written as the OR of immLut's minterms, which LLVM folds to and/or/xor."""
    ones = const(0xFFFFFFFF, 32)
    out = const(0, 32)
    for k in range(8):
        if lut >> k & 1:
            term = ones
            for bit, x in ((4, a), (2, b), (1, c)):
                term = binop("and", term, x if k & bit else mk("not", 32, x))
            out = binop("or", out, term)
    return out


def _clz32(a: Expr) -> Expr:
    """clz.b32: leading zero bits (32 for 0), by halving the range: five compare-and-shift steps."""
    n, x = const(0, 32), a
    for s in (16, 8, 4, 2, 1):
        small = cmp("ult", x, const(1 << (32 - s), 32))       # the top s bits are zero
        n = ite(small, binop("add", n, const(s, 32)), n)
        x = ite(small, binop("shl", x, const(s, 32)), x)
    return ite(cmp("eq", a, const(0, 32)), const(32, 32), n)


def _bfind32(a: Expr, signed: bool, shiftamt: bool) -> Expr:
    """bfind.{u32,s32}{.shiftamt} (PTX ISA "Integer Arithmetic Instructions: bfind"): the position
    of the most significant non-sign bit (a 1, or for a negative .s32 a 0), 0xffffffff when there is
    none; .shiftamt: 31 minus that position (the left shift that brings it to bit 31)."""
    x = ite(cmp("slt", a, const(0, 32)), mk("not", 32, a), a) if signed else a
    lead = _clz32(x)
    found = binop("sub", const(31, 32), lead) if not shiftamt else lead
    return ite(cmp("eq", x, const(0, 32)), const(0xFFFFFFFF, 32), found)


def _popc32(a: Expr) -> Expr:
    """popc.b32: the set bits, summed pairwise, by nibbles, then by bytes through a multiply."""
    x = binop("sub", a, binop("and", binop("lshr", a, const(1, 32)), const(0x55555555, 32)))
    x = binop("add", binop("and", x, const(0x33333333, 32)), binop("and", binop("lshr", x, const(2, 32)), const(0x33333333, 32)))
    x = binop("and", binop("add", x, binop("lshr", x, const(4, 32))), const(0x0F0F0F0F, 32))
    return binop("lshr", binop("mul", x, const(0x01010101, 32)), const(24, 32))


def _brev32(a: Expr) -> Expr:
    """brev.b32: bit i to bit 31 - i, by swapping bits, pairs, nibbles, bytes and halves."""
    x = a
    for s, m in ((1, 0x55555555), (2, 0x33333333), (4, 0x0F0F0F0F), (8, 0x00FF00FF), (16, 0x0000FFFF)):
        x = binop("or", binop("and", binop("lshr", x, const(s, 32)), const(m, 32)),
                  binop("shl", binop("and", x, const(m, 32)), const(s, 32)))
    return x


def _halves64(a: Expr) -> tuple[Expr, Expr]:
    return resize(a, 32, False), resize(binop("lshr", a, const(32, 64)), 32, False)


def _bit_count64(base: str, a: Expr) -> Expr:
    """clz.b64, popc.b64 (32-bit results) and brev.b64 from the 32-bit forms of the two halves."""
    lo, hi = _halves64(a)
    if base == "popc":
        return binop("add", _popc32(lo), _popc32(hi))
    if base == "clz":
        return ite(cmp("eq", hi, const(0, 32)), binop("add", const(32, 32), _clz32(lo)), _clz32(hi))
    return binop("or", binop("shl", resize(_brev32(lo), 64, False), const(32, 64)), resize(_brev32(hi), 64, False))


def _s(v: int, w: int) -> int:
    return v - (1 << w) if v >> (w - 1) else v


def evaluate(e: Expr, env: dict[str, int], uniform: dict[int, int] | None = None) -> int:
    """The value of e for one thread: env maps tid.x/y/z and symbol names to ints; uninterpreted
    functions hash their arguments (deterministic, so equal arguments give equal values).
    `uniform` caches the nodes that do not depend on tid.x, shared by calls that vary only tid.x."""
    memo: dict[int, int] = dict(uniform) if uniform is not None else {}
    stack = [e]
    while stack:
        n = stack[-1]
        if n.id in memo:
            stack.pop()
            continue
        kids = [a for a in n.args if isinstance(a, Expr) and a.id not in memo]
        if kids:
            stack.extend(kids)
            continue
        stack.pop()
        memo[n.id] = v = _eval1(n, env, memo)
        if uniform is not None and not n.tv:
            uniform[n.id] = v
    return memo[e.id]


def _eval1(n: Expr, env: dict[str, int], memo: dict[int, int]) -> int:
    w, m = n.w, (1 << n.w) - 1
    v = [memo[a.id] if isinstance(a, Expr) else a for a in n.args]
    ws = [a.w for a in n.args if isinstance(a, Expr)]
    op = n.op
    if op == "const":
        return v[0]
    if op == "sym":
        return env.get(v[0], int.from_bytes(hashlib.blake2b(v[0].encode(), digest_size=8).digest(), "little")) & m
    if op == "tid":
        return env["tid." + v[0]] & m
    if op == "laneid":
        return env["tid.x"] & 31
    if op == "uf":
        h = hashlib.blake2b(repr(v).encode(), digest_size=8).digest()
        return int.from_bytes(h, "little") & m
    if op in _FOLD:
        return _FOLD[op](v[0], v[1], w) & m
    if op == "ashr":
        return (_s(v[0], w) >> min(v[1], w)) & m
    if op == "not":
        return ~v[0] & m
    if op == "trunc":
        return v[0] & m
    if op == "zext":
        return v[0]
    if op == "sext":
        return _s(v[0], ws[0]) & m
    if op == "ite":
        return v[1] if v[0] else v[2]
    if op == "eq":
        return int(v[0] == v[1])
    if op == "ult":
        return int(v[0] < v[1])
    if op == "ule":
        return int(v[0] <= v[1])
    if op == "slt":
        return int(_s(v[0], ws[0]) < _s(v[1], ws[0]))
    if op == "sle":
        return int(_s(v[0], ws[0]) <= _s(v[1], ws[0]))
    if op == "bnot":
        return 1 - v[0]
    if op == "band":
        return v[0] & v[1]
    if op == "bor":
        return v[0] | v[1]
    if op == "concat":  # args: hi, lo
        return (v[0] << ws[1]) | v[1]
    if op == "extract":  # args: x, lo
        return (v[0] >> v[1]) & m
    raise AssertionError(f"no concrete semantics for {op}")


# ------------------------------------------------------------------------------ the emulator

@dataclass
class Load:
    """One load the emulator saw: where, what, and its address as an expression of the thread."""

    inst: ptxir.Instruction
    block: int
    pos: int            # position of the instruction in its block (0-based)
    addr: Expr
    width: int
    epoch: int          # memory epoch: equal epochs see the same memory (no store, barrier, call between)


@dataclass
class Block:
    label: str | None
    insts: list[ptxir.Instruction] = field(default_factory=list)
    succs: list[tuple[int, "Expr | None"]] = field(default_factory=list)  # (block, edge condition)


@dataclass
class Emulation:
    """Per-block path conditions (necessary conditions for reaching the block) and loads."""

    function: ptxir.Function
    blocks: list[Block]
    pc: list[Expr]
    loads: list[Load]
    loop_blocks: set[int]
    unsupported: str | None = None   # why the function cannot be rewritten at all (None: fine)


_INT_TYPES = re.compile(r"^[bus](8|16|32|64)$")
_TYPE_W = {"pred": 1, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
           "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32, "b64": 64, "u64": 64,
           "s64": 64, "f64": 64, "b128": 128}
# Instructions that are deterministic functions of their operands (PTX ISA §9.7: integer, float,
# conversion and bit-manipulation instructions read no state but their operands); the float ones
# are left uninterpreted, as PTXASW does with its uninterpreted conversion functions.
_PURE = frozenset({
    "add", "sub", "mul", "mad", "fma", "div", "rem", "sqrt", "rsqrt", "rcp", "ex2", "lg2", "sin",
    "cos", "tanh", "min", "max", "abs", "neg", "copysign", "testp", "cvt", "cvta", "popc", "clz",
    "brev", "bfe", "bfi", "bfind", "prmt", "dp4a", "dp2a", "lop3", "shf", "mul24", "mad24", "sad",
    "not", "cnot", "and", "or", "xor", "shl", "shr", "selp", "setp", "set", "slct", "mov", "fns",
    "addc", "subc", "madc", "szext", "bmsk", "cvt.pack"})
# the scalar video instructions (PTX ISA "Scalar Video Instructions"), read by StraightLine.video
_VIDEO = frozenset({"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad"})
_SPECIAL_UNIFORM = re.compile(r"^%(ntid|ctaid|nctaid)\.([xyz])$")
# Memory effects that end an epoch: stores, atomics/reductions, barriers and fences, calls, and
# asynchronous copies (their destination changes behind the thread's back).
_EPOCH_END = ("st", "atom", "red", "bar", "barrier", "membar", "fence", "call", "cp", "mbarrier",
              "wmma", "stmatrix", "tensormap", "multimem", "cp.async")


def _imm(tok: str, w: int) -> Expr | None:
    t = tok.strip()
    m = re.fullmatch(r"([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9]\d*)U?", t)
    if m:
        v = int(m.group(2), 0) if not re.fullmatch(r"0[0-7]+", m.group(2)) else int(m.group(2), 8)
        return const(-v if m.group(1) == "-" else v, w)
    m = re.fullmatch(r"0[fF]([0-9a-fA-F]{8})|0[dD]([0-9a-fA-F]{16})", t)
    if m:
        return const(int(m.group(1) or m.group(2), 16), w)
    # a decimal floating-point constant (PTX ISA 4.5.3: a double, rounded to the instruction's type)
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?", t) and re.search(r"[.eE]", t) and w in _FLOAT_FMT:
        return const(int.from_bytes(struct.pack("<" + _FLOAT_FMT[w], float(t)), "little"), w)
    return None


_FLOAT_FMT = {16: "e", 32: "f", 64: "d"}


class _Emu:
    """Walks the CFG in reverse post-order, one register environment per block entry."""

    def __init__(self, fn: ptxir.Function, filename: str):
        self.fn, self.filename = fn, filename
        self.params = {p.name for p in fn.params}
        self.fresh = 0
        self.loads: list[Load] = []
        self._widths: dict[str, int | None] = {}

    # --- helpers
    def new_unknown(self, w: int, tag: str = "u") -> Expr:
        self.fresh += 1
        return unknown(f"{tag}{self.fresh}", w)

    def reg_width(self, name: str) -> int | None:
        """Bits of a declared register (`%r<N>` ranges included), None when undeclared."""
        if name not in self._widths:
            t = self.fn.reg_type(name)
            self._widths[name] = _TYPE_W.get(t.lstrip(".")) if t else None
        return self._widths[name]

    def read(self, env: dict, tok: str, w: int) -> Expr:
        tok = tok.strip()
        neg = tok.startswith("!")
        if neg:
            return bnot(self.read(env, tok[1:], 1))
        e = _imm(tok, w)
        if e is not None:
            return e
        m = _SPECIAL_UNIFORM.match(tok)
        if m:
            return resize(sym(tok[1:], 32), w, False)
        if tok in ("%tid.x", "%tid.y", "%tid.z"):
            return resize(TID[tok[-1]], w, False)
        if tok == "%laneid":
            return resize(LANEID, w, False)
        if tok == "WARP_SZ":          # PTX's predefined constant: the warp size (PTX ISA "Predefined Identifiers")
            return const(32, w)
        if tok in LANEMASKS:
            return resize(LANEMASKS[tok], w, False)
        if tok.startswith("{"):
            parts = [p.strip() for p in tok[1:-1].split(",")]
            pw = w // len(parts)
            vals = [self.read(env, p, pw) for p in parts]
            out = vals[0]
            for v in vals[1:]:   # {lo, ..., hi}: the first element is the least significant
                out = mk("concat", out.w + v.w, v, out)
            return out
        if tok in env:
            v = env[tok]
            return v if v.w == w else resize(v, w, False)
        if self.reg_width(tok) is not None or tok.startswith("%"):
            # never written on any path seen (or a special register not modelled): unknown
            return self.new_unknown(w, "r")
        return resize(sym("&" + tok, 64), w, False)   # the address of a named variable: uniform

    def address(self, env: dict, op: str) -> Expr:
        body = op.strip()[1:-1].strip()
        m = re.fullmatch(r"(.+?)\s*\+\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))", body)
        base, off = (m.group(1), int(m.group(2).replace(" ", ""), 0)) if m else (body, 0)
        if _imm(base, 64) is not None:
            return const(_imm(base, 64).args[0] + off, 64)
        b = self.read(env, base, 64)
        if b.w != 64:
            b = resize(b, 64, False)
        return binop("add", b, const(off, 64))

    # --- one instruction
    def step(self, env: dict, inst: ptxir.Instruction, epoch: list, bi: int, pos: int) -> None:
        base, mods = inst.base, inst.modifiers
        dests = inst.dests()
        if base in ("bra", "ret", "exit"):
            return
        if base in _EPOCH_END or inst.opcode.startswith(_EPOCH_END):
            epoch[0] = self.new_epoch(epoch[0])
            for d in dests:
                self.write(env, inst, d, self.new_unknown(self.reg_width(d) or 64, "m"))
            return
        if base == "ld" or base == "ldu":
            self.load(env, inst, mods, epoch, bi, pos)
            return
        if not dests:
            return
        vals = self.semantics(env, inst, base, mods, dests)
        if vals is None:
            vals = [self.new_unknown(self.reg_width(d) or 32, "i") for d in dests]
        guard = self.guard(env, inst)        # read once, before any destination (it may be one)
        for d, v in zip(dests, vals):
            self.write(env, inst, d, v, guard=guard)

    def new_epoch(self, old: tuple) -> tuple:
        self.fresh += 1
        return (self.fresh, old[1])

    def guard(self, env: dict, inst: ptxir.Instruction) -> Expr | None:
        return self.read(env, ("!" if inst.neg else "") + inst.pred, 1) if inst.pred is not None else None

    def write(self, env: dict, inst: ptxir.Instruction, dest: str, v: Expr, signed: bool = False,
              guard: Expr | None = None) -> None:
        """dest := v, widened (sign-extended when `signed`) or truncated to the register's width,
        under the instruction's guard (`guard`: its value before the instruction, when given)."""
        w = self.reg_width(dest)
        if w is not None and v.w != w:
            v = resize(v, w, signed)
        if inst.pred is not None:
            p = guard if guard is not None else self.guard(env, inst)
            old = env.get(dest) or self.new_unknown(v.w, "r")
            v = ite(p, v, old if old.w == v.w else resize(old, v.w, False))
        env[dest] = v

    def load(self, env: dict, inst, mods, epoch, bi: int, pos: int) -> None:
        dests = inst.dests()
        space = next((m for m in mods if m in ("global", "shared", "local", "const", "param")), "generic")
        tname = mods[-1] if mods else "b32"
        ew = _TYPE_W.get(tname, 32)
        src = inst.operands[-1]
        if space == "param":
            m = re.fullmatch(r"\[\s*([A-Za-z_$][\w$]*)\s*(?:\+\s*(\d+))?\s*\]", src.strip())
            if m and m.group(1) in self.params:
                for k, d in enumerate(dests):
                    self.write(env, inst, d, sym(f"param:{m.group(1)}+{int(m.group(2) or 0) + k * ew // 8}", ew))
                return
            for d in dests:
                self.write(env, inst, d, self.new_unknown(ew, "p"))
            return
        addr = self.address(env, src)
        volatile = any(m in ("volatile", "relaxed", "acquire", "mmio", "cv") for m in mods)
        if volatile or space in ("local", "generic"):
            vals = [self.new_unknown(ew, "v") for _ in dests]
        else:
            ep, varying = epoch[0]
            name = f"mem{ep}.{space}.{ew}"
            args = (TID["x"], TID["y"], TID["z"]) if varying else ()
            vals = [uf(name, ew, binop("add", addr, const(k * ew // 8, 64)), *args)
                    for k in range(len(dests))]
        # ld.s8/.s16 into a wider register sign-extends, .u/.b zero-extend (PTX ISA `ld`; measured on
        # the H100: byte 0x80 loads as 0xffffff80 with .s8, 0x80 with .u8 and .b8)
        for d, v in zip(dests, vals):
            self.write(env, inst, d, v, signed=tname.startswith("s"))
        if space == "global" and len(dests) == 1 and inst.pred is None:
            self.loads.append(Load(inst, bi, pos, addr, ew, epoch[0][0]))

    def semantics(self, env, inst, base, mods, dests) -> list[Expr] | None:
        ops = inst.operands
        if base in _VIDEO:
            return self.video(env, base, mods, ops)
        if base not in _PURE:
            return None
        tname = mods[-1] if mods else ""
        w = _TYPE_W.get(tname)
        if w is None:
            return None
        is_int = bool(_INT_TYPES.match(tname)) or tname == "pred"
        signed = tname.startswith("s")
        if base == "mov":
            if ops[0].startswith("{"):  # unpack: mov.b64 {lo, hi}, x
                x = self.read(env, ops[1], w)
                parts = [p.strip() for p in ops[0][1:-1].split(",")]
                pw = w // len(parts)
                return [mk("extract", pw, x, k * pw) for k in range(len(parts))]
            return [self.read(env, ops[1], w)]
        if base == "setp":
            return self.setp(env, inst, mods, dests)
        if base == "selp":
            a, b = self.read(env, ops[1], w), self.read(env, ops[2], w)
            return [ite(self.read(env, ops[3], 1), a, b)]
        if base == "cvt" and mods[:2] == ("pack", "sat"):
            return self.cvt_pack(env, mods[2:], ops)
        if base == "cvt" and len(mods) >= 2 and _INT_TYPES.match(mods[-1]) and _INT_TYPES.match(mods[-2]) \
                and not any(m in ("sat",) for m in mods):
            dw, sw = _TYPE_W[mods[-2]], _TYPE_W[mods[-1]]
            x = self.read(env, ops[1], sw)
            return [resize(resize(x, sw, False), dw, mods[-1].startswith("s"))]
        if not is_int or any(m in ("sat", "cc") for m in mods) or base in ("addc", "subc", "madc"):
            # cvt.DST.SRC reads SRC's width and writes DST's (PTX ISA §9.7.9.21)
            out_w = _TYPE_W.get(mods[-2]) if base == "cvt" and len(mods) >= 2 else None
            return [uf(inst.opcode, self.reg_width(dests[0]) or out_w or w,
                       *[self.read(env, o, w) for o in ops[1:]])] if len(dests) == 1 else None
        if tname == "pred":
            a = [self.read(env, o, 1) for o in ops[1:]]
            f = {"and": band, "or": bor, "xor": bxor}
            if base in f:
                return [f[base](a[0], a[1])]
            if base == "not":
                return [bnot(a[0])]
            return None
        out = self.integer(env, base, mods, w, signed, ops)
        if out is None and len(dests) == 1:   # deterministic, not modelled bit by bit: uninterpreted
            out_w = _TYPE_W.get(mods[-2]) if base == "cvt" and len(mods) >= 2 else None   # cvt.FLOAT.INT
            out = [uf(inst.opcode, self.reg_width(dests[0]) or out_w or w, *[self.read(env, o, w) for o in ops[1:]])]
        return out

    def integer(self, env, base, mods, w, signed, ops) -> list[Expr] | None:
        rd = lambda k, ww=w: self.read(env, ops[k], ww)  # noqa: E731
        if base in ("add", "sub", "and", "or", "xor"):
            return [binop(base, rd(1), rd(2))]
        if base in ("mul", "mad"):
            mode = next((m for m in mods if m in ("lo", "hi", "wide")), "lo")
            a, b = rd(1), rd(2)
            if mode == "lo":
                p = binop("mul", a, b)
            elif mode == "wide":
                p = binop("mul", resize(a, 2 * w, signed), resize(b, 2 * w, signed))
            else:
                return None   # .hi: uninterpreted below
            if base == "mad":
                p = binop("add", p, rd(3, p.w))
            return [p]
        if base == "shl":
            return [binop("shl", rd(1), resize(rd(2, 32), w, False))]
        if base == "shr":
            return [binop("ashr" if signed else "lshr", rd(1), resize(rd(2, 32), w, False))]
        if base == "not":
            return [mk("not", w, rd(1))]
        if base == "neg":
            return [binop("sub", const(0, w), rd(1))]
        if base in ("min", "max"):
            a, b = rd(1), rd(2)
            lt = cmp("slt" if signed else "ult", a, b)
            return [ite(lt, a, b) if base == "min" else ite(lt, b, a)]
        if base == "bmsk" and w == 32 and mods[:1] in (("clamp",), ("wrap",)):
            return [_bmsk(rd(1), rd(2), mods[0] == "clamp")]
        if base == "bfe" and len(ops) == 4:
            return [_bfe(rd(1), rd(2, 32), rd(3, 32), signed)]
        if base == "bfi" and len(ops) == 5:
            return [_bfi(rd(1), rd(2), rd(3, 32), rd(4, 32))]
        if base == "prmt" and w == 32 and mods == ("b32",) and len(ops) == 4:
            return [_prmt(rd(1), rd(2), rd(3))]
        if base == "lop3" and mods == ("b32",) and len(ops) == 5 and (lut := _imm(ops[4], 32)) is not None \
                and lut.op == "const":
            return [_lop3(rd(1), rd(2), rd(3), lut.args[0] & 0xFF)]
        if base == "slct" and mods[1:] == ("s32",) and mods[0] in ("b32", "u32", "s32", "f32") and len(ops) == 4:
            # slct.dtype.s32 d, a, b, c (PTX ISA "Comparison and Selection Instructions: slct"):
            # d = c >= 0 ? a : b, a and b moved as bits
            return [ite(cmp("sle", const(0, 32), rd(3)), rd(1), rd(2))]
        if base == "bfind" and w == 32 and len(ops) == 2 and mods[:-1] in ((), ("shiftamt",)):
            return [_bfind32(rd(1), signed, bool(mods[:-1]))]
        if base in ("clz", "popc", "brev") and w == 32 and len(ops) == 2:
            return [{"clz": _clz32, "popc": _popc32, "brev": _brev32}[base](rd(1))]
        if base in ("clz", "popc", "brev") and w == 64 and len(ops) == 2:
            return [_bit_count64(base, rd(1))]
        if base == "shf" and w == 32 and len(mods) == 3 and mods[0] in ("l", "r") and mods[1] in ("clamp", "wrap") \
                and len(ops) == 4:
            return [_shf(rd(1), rd(2), rd(3), mods[0] == "l", mods[1] == "clamp")]
        return None

    def video(self, env, base, mods, ops) -> list[Expr] | None:
        """The scalar video instructions on whole 32-bit words (PTX ISA "Scalar Video
        Instructions"): a and b sign- or zero-extended by their types (33 bits, exact here in 64),
        the operation, then an optional secondary operation with c; d is the low 32 bits. Only the
        forms whose result that defines alone: selectors on a and b only (none on d), .sat on vadd, vsub,
        vabsdiff, vmin, vmax (clamped to d's type before the secondary operation), no vmad scaling
        or negated operands, and a secondary .min/.max only where the result fits d's type (after
        .sat, or vmin/vmax of one type). Anything else stays unsupported (a named error)."""
        types = [m for m in mods if m in ("u32", "s32")]
        rest = [m for m in mods if m not in ("u32", "s32")]
        if len(types) != 3 or any(o.strip().startswith("-") for o in ops) or any("." in o for o in ops[:1] + ops[3:]):
            return None
        dt, at, bt = types
        a, b = self.video_source(env, ops[1], at == "s32"), self.video_source(env, ops[2], bt == "s32")
        if a is None or b is None:
            return None
        if base == "vmad":
            if rest or len(ops) != 4:
                return None
            return [resize(binop("add", binop("mul", a, b), resize(self.read(env, ops[3], 32), 64, False)), 32, False)]
        if base in ("vshl", "vshr"):
            if bt != "u32" or not rest or rest[0] not in ("clamp", "wrap"):
                return None
            mode, rest = rest[0], rest[1:]
            n = ite(cmp("ult", b, const(32, 64)), b, const(32, 64)) if mode == "clamp" else binop("and", b, const(31, 64))
            tmp = binop("shl", a, n) if base == "vshl" else binop("ashr" if at == "s32" else "lshr", a, n)
        else:
            sat, rest = "sat" in rest, [m for m in rest if m != "sat"]
            diff = binop("sub", a, b)
            tmp = {"vadd": lambda: binop("add", a, b), "vsub": lambda: diff,
                   "vabsdiff": lambda: ite(cmp("slt", diff, const(0, 64)), binop("sub", b, a), diff),
                   "vmin": lambda: ite(cmp("slt", a, b), a, b), "vmax": lambda: ite(cmp("slt", a, b), b, a)}[base]()
            if sat:                      # clamped to d's range: exact, tmp is 34 bits
                lo, hi = (-(1 << 31), (1 << 31) - 1) if dt == "s32" else (0, (1 << 32) - 1)
                tmp = ite(cmp("slt", tmp, const(lo, 64)), const(lo, 64), ite(cmp("slt", const(hi, 64), tmp), const(hi, 64), tmp))
        if len(rest) > 1 or (len(ops) == 4) != (len(rest) == 1):
            return None
        d = resize(tmp, 32, False)
        if not rest:
            return [d]
        c = self.read(env, ops[3], 32)
        if rest[0] == "add":
            return [binop("add", d, c)]
        if rest[0] in ("min", "max") and ((base in ("vmin", "vmax") and dt == at == bt) or "sat" in mods):
            lt = cmp("slt" if dt == "s32" else "ult", d, c)
            return [ite(lt, d, c) if rest[0] == "min" else ite(lt, c, d)]
        return None

    def video_source(self, env, op: str, signed: bool) -> Expr | None:
        """A video instruction's a or b, 64 bits wide: the word, or the byte (.b0-.b3) or half-word
        (.h0, .h1) its selector names, sign- or zero-extended by the operand's type."""
        m = re.fullmatch(r"(.+?)(?:\.(b[0-3]|h[01]))?", op.strip())
        if "." in m.group(1):
            return None
        x = self.read(env, m.group(1), 32)
        if m.group(2):
            size, k = (8 if m.group(2)[0] == "b" else 16), int(m.group(2)[1])
            x = resize(binop("lshr", x, const(size * k, 32)), size, False)
        return resize(x, 64, signed)

    def cvt_pack(self, env, mods, ops) -> list[Expr] | None:
        """cvt.pack.sat.{s8,u8,s16,u16}.s32{.b32} d, a, b{, c} (PTX ISA 9.7.9.22): a and b
        saturated to the N-bit type, b in d's low N bits, a above it; with c, c fills the bits
        above 2N (c's low bits first)."""
        sizes = {"s8": 8, "u8": 8, "s16": 16, "u16": 16}
        if len(mods) < 2 or mods[0] not in sizes or mods[1] != "s32" or len(ops) != (4 if len(mods) == 3 else 3) \
                or (len(mods) == 3) != (sizes[mods[0]] == 8) or mods[2:] not in ((), ("b32",)):
            return None
        n, signed = sizes[mods[0]], mods[0].startswith("s")
        lo, hi = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if signed else (0, (1 << n) - 1)
        m = (1 << n) - 1

        def sat(x: Expr) -> Expr:
            x = ite(cmp("slt", x, const(lo, 32)), const(lo, 32), x)
            return binop("and", ite(cmp("sgt", x, const(hi, 32)), const(hi, 32), x), const(m, 32))
        a, b = (self.read(env, o, 32) for o in ops[1:3])
        d = binop("or", binop("shl", sat(a), const(n, 32)), sat(b))
        if len(ops) == 4:
            d = binop("or", d, binop("shl", self.read(env, ops[3], 32), const(2 * n, 32)))
        return [d]

    def setp(self, env, inst, mods, dests) -> list[Expr] | None:
        ops = inst.operands
        cmpop, tname, middle = mods[0], mods[-1], mods[1:-1]
        combine = [m for m in middle if m in ("and", "or", "xor")]
        if len(combine) > 1 or any(m not in ("and", "or", "xor", "ftz") for m in middle) \
                or len(ops) != (4 if combine else 3):
            return None
        boolop = combine[0] if combine else None
        w = _TYPE_W.get(tname)
        if w is None:
            return None
        a, b = self.read(env, ops[1], w), self.read(env, ops[2], w)
        if _INT_TYPES.match(tname):
            s = "s" if tname.startswith("s") else "u"
            table = {"eq": "eq", "ne": "ne", "lt": s + "lt", "le": s + "le", "gt": s + "gt", "ge": s + "ge",
                     "lo": "ult", "ls": "ule", "hi": "ugt", "hs": "uge"}
            if cmpop not in table:
                return None
            c = cmp(table[cmpop], a, b)
        else:
            c = uf(f"setp.{cmpop}{'.ftz' if 'ftz' in middle else ''}.{tname}", 1, a, b)
        outs = [c, bnot(c)]
        if boolop:
            x = self.read(env, ops[3], 1)
            f = {"and": band, "or": bor, "xor": bxor}.get(boolop)
            if f is None:
                return None
            outs = [f(c, x), f(bnot(c), x)]
        return outs[:len(dests)]


# ------------------------------------------------------------------------------ straight-line blocks

SHFL_MODES = ("up", "down", "bfly", "idx")      # shfl's mode field, in PTX's encoding order


class UnsupportedInstruction(ValueError):
    """An instruction (or an operand of it) to which StraightLine gives no meaning."""

    def __init__(self, inst: ptxir.Instruction | None, reason: str):
        self.inst, self.reason = inst, reason
        super().__init__(f"'{inst.render().rstrip(';')}': {reason}" if inst is not None else reason)


# The extended-precision instructions that read the carry flag, and the register that holds it
# (CC.CF: one per thread, kept across asm statements: ir.inline_ptx)
CARRY_OPS = ("addc", "subc", "madc")
CARRY = "%cc.cf"


class StraightLine(_Emu):
    """Straight-line PTX executed over given inputs, for translators that must understand every
    value (inline PTX blocks on AMD): each instruction means what it means to `emulate` (guards,
    setp's combining predicate, selp, integer ops and casts; float ops stay uninterpreted `uf`
    nodes named by their opcode). What `emulate` would leave unknown is an UnsupportedInstruction
    here. shfl/shfl.sync give `shfl` (value) and `shfl.inrange` (predicate) nodes with args
    (mode index, mask, a, b, c) / (mode index, b, c): cross-lane, so a translator lowers them and
    `evaluate` cannot. `origin` maps each written value to the instruction that wrote it."""

    def __init__(self, fn: ptxir.Function, inputs: dict[str, Expr], widths: dict[str, int] | None = None):
        super().__init__(fn, "<inline asm>")
        self._widths.update(widths or {})      # the asm's operands ($0..): their LLVM types' bits
        self.env: dict[str, Expr] = dict(inputs)
        self.origin: dict[int, ptxir.Instruction] = {}
        self.current: ptxir.Instruction | None = None

    def execute(self, inst: ptxir.Instruction) -> None:
        self.current = inst
        dests = inst.dests()
        if not dests or inst.base in ("ld", "ldu", "call") or inst.base in _EPOCH_END \
                or inst.opcode.startswith(_EPOCH_END):
            raise UnsupportedInstruction(inst, "only register-to-register instructions are supported")
        if inst.base == "shfl":
            vals = self.shfl(inst)
        elif inst.base == "vote":
            vals = self.vote(inst)
        elif inst.base in CARRY_OPS or (inst.base in ("add", "sub", "mad") and "cc" in inst.modifiers):
            vals = self.carry(inst)
        elif inst.base in ("mul", "mad") and inst.modifiers[:1] == ("hi",):
            vals = self.high_product(inst)
        else:
            vals = self.semantics(self.env, inst, inst.base, inst.modifiers, dests)
        if vals is None or len(vals) != len(dests):
            raise UnsupportedInstruction(inst, "not supported")
        guard = self.guard(self.env, inst)
        for d, v in zip(dests, vals):
            self.write(self.env, inst, d, v, guard=guard)
            self.origin.setdefault(self.env[d].id, inst)

    def carry(self, inst: ptxir.Instruction) -> list[Expr]:
        """The extended-precision instructions (PTX ISA 9.7.2: add.cc, addc{.cc}, sub.cc,
        subc{.cc}, mad{.lo,.hi}.cc, madc{.lo,.hi}{.cc} on .u32/.s32/.u64/.s64): the sum or difference
        in twice the width, with the carry flag CC.CF read from and written to the `CARRY` register
        (0 or 1, 32 bits: a carry-in, a carry-out; for subtraction a borrow). Unguarded only."""
        base, mods, ops = inst.base, inst.modifiers, inst.operands
        tname = mods[-1] if mods else ""
        half = [m for m in mods[:-1] if m in ("lo", "hi")]
        rest = [m for m in mods[:-1] if m not in ("lo", "hi", "cc")]
        w = {"u32": 32, "s32": 32, "u64": 64, "s64": 64}.get(tname)
        mad = base in ("mad", "madc")
        if w is None or rest or inst.pred is not None or len(ops) != (4 if mad else 3) or \
                (mad and len(half) != 1) or (not mad and half):
            raise UnsupportedInstruction(inst, "expected add.cc, addc{.cc}, sub.cc, subc{.cc}, mad{.lo,.hi}.cc "
                                               "or madc{.lo,.hi}{.cc} on .u32/.s32/.u64/.s64, unguarded")
        signed, ww = tname.startswith("s"), 2 * w
        rd = lambda k: self.read(self.env, ops[k], w)              # noqa: E731
        wide = lambda e: resize(e, ww, False)                      # noqa: E731
        if base in ("addc", "subc", "madc"):
            if CARRY not in self.env:
                raise UnsupportedInstruction(inst, "reads the carry flag, which no instruction has set")
            cin = resize(self.env[CARRY], ww, False)
        else:
            cin = const(0, ww)
        if mad:
            product = binop("mul", resize(rd(1), ww, signed), resize(rd(2), ww, signed))
            a = wide(resize(product if half[0] == "lo" else binop("lshr", product, const(w, ww)), w, False))
            b = rd(3)
        else:
            a, b = wide(rd(1)), rd(2)
        if base in ("sub", "subc"):
            total = binop("sub", binop("sub", a, wide(b)), cin)       # negative: a borrow
            out = binop("lshr", total, const(ww - 1, ww))
        else:
            total = binop("add", binop("add", a, wide(b)), cin)
            out = binop("lshr", total, const(w, ww))
        if "cc" in mods:
            self.env[CARRY] = resize(out, 32, False)
        return [resize(total, w, False)]

    def high_product(self, inst: ptxir.Instruction) -> list[Expr]:
        """mul.hi / mad.hi on .u16-.u64 and .s16-.s64 (PTX ISA 9.7.1 "mul", "mad"): the upper half of
        the full product (plus c for mad, wrapping), the operands extended as the type's sign says."""
        mods, ops = inst.modifiers, inst.operands
        w = {"u16": 16, "s16": 16, "u32": 32, "s32": 32, "u64": 64, "s64": 64}.get(mods[-1])
        if w is None or len(mods) != 2 or len(ops) != (4 if inst.base == "mad" else 3):
            raise UnsupportedInstruction(inst, "expected mul.hi or mad.hi on a 16-, 32- or 64-bit integer type")
        signed = mods[-1].startswith("s")
        a, b = (resize(self.read(self.env, ops[k], w), 2 * w, signed) for k in (1, 2))
        high = resize(binop("lshr", binop("mul", a, b), const(w, 2 * w)), w, False)
        return [binop("add", high, self.read(self.env, ops[3], w)) if inst.base == "mad" else high]

    def shfl(self, inst: ptxir.Instruction) -> list[Expr]:
        mods = inst.modifiers
        sync = "sync" in mods                        # ptxas also takes shfl.up.sync.b32 (moderngpu writes it)
        mode_type = tuple(m for m in mods if m != "sync")
        if len(mode_type) != 2 or mode_type[0] not in SHFL_MODES or mode_type[1] != "b32" \
                or len(inst.operands) != (5 if sync else 4) or len(inst.dests()) > 2:
            raise UnsupportedInstruction(inst, "expected shfl{.sync}.{up,down,bfly,idx}.b32 d{|p}, a, b, c{, mask}")
        a, b, c = (self.read(self.env, o, 32) for o in inst.operands[1:4])
        mask = self.read(self.env, inst.operands[4], 32) if sync else const(-1, 32)
        code = SHFL_MODES.index(mode_type[0])
        return [mk("shfl", 32, code, mask, a, b, c), mk("shfl.inrange", 1, code, b, c)][:len(inst.dests())]

    def vote(self, inst: ptxir.Instruction) -> list[Expr]:
        """vote.sync.{ballot.b32,any.pred,all.pred,uni.pred} d, {!}p, membermask (PTX ISA 9.7.12.x;
        CUB spells the ballot vote.ballot.sync.b32): a `ballot` node (mask, p), the bits of the
        warp's lanes in the mask whose p is true; any/all/uni are tests of ballots."""
        mods = tuple(m for m in inst.modifiers if m != "sync")
        if "sync" not in inst.modifiers or len(inst.operands) != 3 or len(inst.dests()) != 1 \
                or mods not in (("ballot", "b32"), ("any", "pred"), ("all", "pred"), ("uni", "pred")):
            raise UnsupportedInstruction(inst, "expected vote.sync.{ballot.b32,any.pred,all.pred,uni.pred} d, p, mask")
        p = self.read(self.env, inst.operands[1], 1)
        mask = self.read(self.env, inst.operands[2], 32)
        yes = mk("ballot", 32, mask, p)
        if mods[0] == "ballot":
            return [yes]
        no = mk("ballot", 32, mask, bnot(p))
        none_false, none_true = cmp("eq", no, const(0, 32)), cmp("eq", yes, const(0, 32))
        return [{"any": bnot(none_true), "all": none_false, "uni": bor(none_false, none_true)}[mods[0]]]

    def write(self, env: dict, inst: ptxir.Instruction, dest: str, v: Expr, signed: bool = False,
              guard: Expr | None = None) -> None:
        """As the emulator's, but a guarded first write keeps an `undef` node where the guard is
        false (an error only if that value is used)."""
        if inst.pred is not None and dest not in env:
            env[dest] = mk("undef", self.reg_width(dest) or v.w, dest)
        super().write(env, inst, dest, v, signed, guard)
        new = env[dest]
        if new.op == "ite" and new.args[2].op == "ite" and new.args[2].args[2].op == "undef" \
                and new.args[2].args[0] is bnot(new.args[0]):
            # `@p x = a; @!p x = b`: the undefined arm is never chosen
            env[dest] = ite(new.args[0], new.args[1], new.args[2].args[1])

    def read(self, env: dict, tok: str, w: int) -> Expr:
        name = tok.strip().lstrip("!")
        if name not in env and _imm(name, w) is None and not name.startswith(("%", "{")) and name != "WARP_SZ":
            raise UnsupportedInstruction(self.current, f"reads '{name}' before any write to it")
        return super().read(env, tok, w)

    def new_unknown(self, w: int, tag: str = "u") -> Expr:
        if tag == "r":
            raise UnsupportedInstruction(self.current, "reads a special register other than %laneid "
                                                       "and %tid.x")
        raise UnsupportedInstruction(self.current, "not supported")


def _blocks(fn: ptxir.Function) -> tuple[list[Block], str | None]:
    """Basic blocks of the body; the second value says why the CFG is not understood (or None)."""
    blocks: list[Block] = [Block(None)]
    labels: dict[str, int] = {}
    targets = fn.branch_targets()   # line-info labels ($L__tmp3:) are not: they split nothing
    why = None
    depth = 0
    for s in fn.body or ():
        if isinstance(s, ptxir.ScopeOpen):
            depth += 1
        elif isinstance(s, ptxir.ScopeClose):
            depth -= 1
        elif isinstance(s, ptxir.RegDecl) and depth > 0:
            why = why or f"line {s.line}: register declared in a nested scope"
        if isinstance(s, ptxir.Label) and s.name in targets:
            if blocks[-1].insts or blocks[-1].label is not None:
                blocks.append(Block(s.name))
            else:
                blocks[-1].label = s.name
            labels[s.name] = len(blocks) - 1
        elif isinstance(s, ptxir.Instruction):
            blocks[-1].insts.append(s)
            if s.base in ("bra", "ret", "exit", "brx", "trap"):
                blocks.append(Block(None))
    for k, b in enumerate(blocks):
        last = b.insts[-1] if b.insts else None
        nxt = k + 1 if k + 1 < len(blocks) else None
        if last is not None and last.base == "brx":
            why = why or f"line {last.line}: indirect branch"
        if last is not None and last.base == "bra":
            target = labels.get(last.operands[0].strip())
            if target is None:
                why = why or f"line {last.line}: branch to unknown label"
                continue
            if last.pred is None:
                b.succs = [(target, None)]
            else:
                b.succs = [(target, ("t", last)), (nxt, ("f", last))] if nxt is not None else [(target, ("t", last))]
        elif last is not None and last.base in ("ret", "exit", "trap"):
            b.succs = [(nxt, ("f", last))] if last.pred is not None and nxt is not None else []
        elif nxt is not None:
            b.succs = [(nxt, None)]
    return blocks, why


def emulate(fn: ptxir.Function, filename: str = "<ptx>") -> Emulation:
    """Symbolically execute one kernel body; see the module docstring for what is modelled."""
    if fn.body is None:
        raise InputError(f"{fn.name} is a declaration without a body", Location(filename, fn.line))
    blocks, why = _blocks(fn)
    rpo, back = _depth_first(blocks)
    preds: dict[int, list[int]] = {k: [] for k in range(len(blocks))}
    for k, b in enumerate(blocks):
        for s, _ in b.succs:
            preds[s].append(k)
    headers, loop_blocks = _natural_loops(preds, back)
    emu = _Emu(fn, filename)
    out: dict[int, tuple[dict, tuple, Expr]] = {}
    pc = [FALSE] * len(blocks)
    for k in rpo:
        incoming = _incoming(emu, blocks, preds[k], back, out, k)
        if k == 0:
            env, ep, c = {}, (0, False), TRUE
        elif not incoming:
            continue   # unreachable
        else:
            env, ep, c = _merge(emu, incoming)
        if k in headers:
            ep = _loop_carried(emu, blocks, headers[k], env, ep)
        pc[k] = c
        epoch = [ep]
        for pos, inst in enumerate(blocks[k].insts):
            emu.step(env, inst, epoch, k, pos)
        out[k] = (env, epoch[0], c)
    return Emulation(fn, blocks, pc, emu.loads, loop_blocks, why)


def _depth_first(blocks: list) -> tuple[list[int], set[tuple[int, int]]]:
    """(reverse post-order, back edges): a depth-first walk from the entry; an edge to a block on
    the stack is a back edge (it closes a loop)."""
    n = len(blocks)
    order, state, back = [], [0] * n, set()
    stack = [(0, iter([s for s, _ in blocks[0].succs]))]
    state[0] = 1
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            state[node] = 2
            order.append(node)
        elif state[nxt] == 1:
            back.add((node, nxt))
        elif state[nxt] == 0:
            state[nxt] = 1
            stack.append((nxt, iter([s for s, _ in blocks[nxt].succs])))
    return order[::-1], back


def _natural_loops(preds: dict[int, list[int]], back: set[tuple[int, int]]) -> tuple[dict[int, set[int]], set[int]]:
    """(loop header -> its blocks, every block in a loop): per back edge src -> hdr, the natural
    loop, the blocks that reach src without passing hdr."""
    loop_blocks: set[int] = set()
    headers: dict[int, set[int]] = {}
    for src, hdr in back:
        body, work = {hdr, src}, [src]
        while work:
            x = work.pop()
            for p in preds[x]:
                if p not in body:
                    body.add(p)
                    work.append(p)
        headers.setdefault(hdr, set()).update(body)
        loop_blocks |= body
    return headers, loop_blocks


def _incoming(emu: _Emu, blocks: list, preds: list[int], back: set[tuple[int, int]],
              out: dict[int, tuple[dict, tuple, Expr]], k: int) -> list[tuple[dict, tuple, Expr]]:
    """(state, epoch, path condition) along each forward edge into block k from a block already run,
    the condition narrowed by the branch taken."""
    incoming = []
    for p in preds:
        if (p, k) in back or p not in out:
            continue
        penv, pep, ppc = out[p]
        cond = ppc
        for s, ec in blocks[p].succs:
            if s == k and ec is not None:
                kind, br = ec
                g = emu.read(penv, ("!" if br.neg else "") + br.pred, 1)
                cond = band(ppc, g if kind == "t" else bnot(g))
        incoming.append((penv, pep, cond))
    return incoming


def _loop_carried(emu: _Emu, blocks: list, body: set[int], env: dict, ep: tuple) -> tuple:
    """At a loop header: every register the loop writes becomes a thread-varying unknown (lanes may
    be at different trips); a loop that ends an epoch (a barrier, a store) starts a fresh one."""
    written = {d for j in body for i in blocks[j].insts for d in i.dests()}
    for d in sorted(written):     # sorted: the unknowns' names must not depend on hashing
        env[d] = emu.new_unknown(emu.reg_width(d) or 64, "loop")
    if any(i.base in _EPOCH_END or i.opcode.startswith(_EPOCH_END) for j in body for i in blocks[j].insts):
        emu.fresh += 1
        ep = (emu.fresh, True)
    return ep


def _merge(emu: _Emu, incoming: list[tuple[dict, tuple, Expr]]) -> tuple[dict, tuple, Expr]:
    """Join: each register is an ite over the incoming edge conditions; epochs that differ make a
    fresh thread-varying memory."""
    if len(incoming) == 1:
        env, ep, c = incoming[0]
        return dict(env), ep, c
    c = FALSE
    for _, _, ci in incoming:
        c = bor(c, ci)
    env: dict[str, Expr] = {}
    for name in sorted(set().union(*(e.keys() for e, _, _ in incoming))):   # deterministic unknowns
        vals = [e.get(name) for e, _, _ in incoming]
        if all(v is vals[0] for v in vals):
            env[name] = vals[0]
            continue
        w = next(v.w for v in vals if v is not None)
        vals = [v if v is not None and v.w == w else emu.new_unknown(w, "r") for v in vals]
        acc = vals[-1]
        for (_, _, ci), v in zip(incoming[-2::-1], vals[-2::-1]):
            acc = ite(ci, v, acc)
        env[name] = acc
    eps = {ep for _, ep, _ in incoming}
    if len(eps) == 1:
        ep = eps.pop()
    else:
        emu.fresh += 1
        ep = (emu.fresh, True)
    return env, ep, c


# ------------------------------------------------------------------------------ Z3

@dataclass(frozen=True)
class ShiftProof:
    """Outcome of proving addr_b(t) == addr_a(t + delta): 'proved', 'refuted' or 'unknown'."""

    status: str
    assumptions: tuple[str, ...] = ()
    reason: str = ""


NSW_FREE_TIMEOUT_MS = 10   # budget for dropping the no-wrap assumption from a proof
NSW_ASSUMPTION = ("no signed 32-bit overflow in the index arithmetic that is sign-extended into the "
                  "addresses (C/C++ int semantics, where that overflow is undefined)")


def _z3_of(z3, e: Expr, delta: int, memo: dict, ufs: dict, nsw: bool = False):
    """Z3 term of e for the thread (tid.x + delta, tid.y, tid.z); memo is per (delta, nsw).

    With `nsw`, a sign extension of 32-bit add/sub/mul/shl is taken as the same operation on the
    sign-extended operands (no signed wrap: NSW_ASSUMPTION)."""
    stack = [e]
    while stack:
        n = stack[-1]
        if n.id in memo:
            stack.pop()
            continue
        opaque = not n.tv and (n.op == "uf" or (n.op == "mul" and n.args[1].op != "const"))
        kids = [a for a in n.args if isinstance(a, Expr) and a.id not in memo] if not opaque else []
        if nsw and n.op == "sext" and n.tv:
            stack.pop()
            memo[n.id] = _sext_nsw(z3, n.args[0], n.w, delta, memo, ufs)
            continue
        if kids:
            stack.extend(kids)
            continue
        stack.pop()
        if opaque:
            # A product or call that does not depend on tid.x has the same value in both lanes:
            # one opaque constant serves both. Sound (the formula only gets more general) and it
            # keeps products of launch parameters out of the bit-blaster.
            memo[n.id] = z3.Bool(f"k{n.id}") if n.w == 1 else z3.BitVec(f"k{n.id}", n.w)
            memo["opaque"] = True
            continue
        a = [memo[x.id] if isinstance(x, Expr) else x for x in n.args]
        memo[n.id] = _z3_node(z3, n, a, delta, ufs)
    return memo[e.id]


def _sext_nsw(z3, x: Expr, w: int, delta: int, memo: dict, ufs: dict):
    """sext(x) to w bits, pushed through add/sub/mul/shl-by-constant of thread-varying terms."""
    if x.tv and x.op in ("add", "sub", "mul"):
        a = _sext_nsw(z3, x.args[0], w, delta, memo, ufs)
        b = _sext_nsw(z3, x.args[1], w, delta, memo, ufs)
        return a + b if x.op == "add" else a - b if x.op == "sub" else a * b
    if x.tv and x.op == "shl" and x.args[1].op == "const" and x.args[1].args[0] < x.w:
        return _sext_nsw(z3, x.args[0], w, delta, memo, ufs) << x.args[1].args[0]
    if x.op == "const":
        return z3.BitVecVal(_s(x.args[0], x.w), w)
    return z3.SignExt(w - x.w, _z3_of(z3, x, delta, memo, ufs, True))


def _z3_node(z3, n: Expr, a: list, delta: int, ufs: dict):
    op, w = n.op, n.w
    if op == "const":
        return z3.BoolVal(bool(a[0])) if w == 1 else z3.BitVecVal(a[0], w)
    if op == "sym":
        return z3.BitVec(a[0], w)
    if op == "tid":
        t = z3.BitVec("tid." + a[0], 32)
        return t + delta if a[0] == "x" and delta else t
    if op == "laneid":
        return (z3.BitVec("tid.x", 32) + delta) & 31
    if op == "uf":
        args = a[1:]
        key = (a[0], w, tuple(_sort_key(z3, x) for x in args))
        f = ufs.get(key)
        if f is None:
            f = ufs[key] = z3.Function(f"{a[0]}#{len(ufs)}", *[x.sort() for x in args],
                                       z3.BoolSort() if w == 1 else z3.BitVecSort(w))
        return f(*args) if args else z3.Const(f"{a[0]}#{len(ufs)}", z3.BoolSort() if w == 1 else z3.BitVecSort(w))
    bv = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
          "and": lambda x, y: x & y, "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y,
          "shl": lambda x, y: x << y, "lshr": z3.LShR, "ashr": lambda x, y: x >> y}
    if op in bv:
        return bv[op](a[0], a[1])
    if op == "not":
        return ~a[0]
    if op == "trunc":
        return z3.Extract(w - 1, 0, a[0])
    if op == "zext":
        return z3.ZeroExt(w - a[0].size(), a[0])
    if op == "sext":
        return z3.SignExt(w - a[0].size(), a[0])
    if op == "ite":
        return z3.If(a[0], a[1], a[2])
    cmps = {"eq": lambda x, y: x == y, "ult": z3.ULT, "ule": z3.ULE, "slt": lambda x, y: x < y,
            "sle": lambda x, y: x <= y}
    if op in cmps:
        return cmps[op](a[0], a[1])
    if op == "bnot":
        return z3.Not(a[0])
    if op == "band":
        return z3.And(a[0], a[1])
    if op == "bor":
        return z3.Or(a[0], a[1])
    if op == "concat":
        return z3.Concat(a[0], a[1])
    if op == "extract":
        return z3.Extract(a[1] + w - 1, a[1], a[0])
    raise AssertionError(op)


def _sort_key(z3, x) -> int:
    return 1 if x.sort() == z3.BoolSort() else x.size()


def geometry_facts(z3, delta: int) -> list:
    """What holds on the rewritten path: launch limits (PTX ISA §10.5-10.8: %ntid.x,y <= 1024,
    %ntid.z <= 64; %tid < %ntid; %ctaid < %nctaid), the runtime guard %ntid.x % 32 == 0, and the
    source lane (tid.x % 32) + delta inside the warp."""
    f = []
    for ax, lim in (("x", 1024), ("y", 1024), ("z", 64)):
        t, nt = z3.BitVec("tid." + ax, 32), z3.BitVec("ntid." + ax, 32)
        c, nc = z3.BitVec("ctaid." + ax, 32), z3.BitVec("nctaid." + ax, 32)
        f += [z3.ULT(t, nt), z3.UGE(nt, 1), z3.ULE(nt, lim), z3.ULT(c, nc)]
    lane = z3.BitVec("tid.x", 32) & 31
    f += [z3.BitVec("ntid.x", 32) & 31 == 0, lane + delta >= 0, lane + delta <= 31]
    return f


def prove_shift(addr_b: Expr, addr_a: Expr, pc: Expr, delta: int, timeout_ms: int = 2000,
                nsw: bool = True) -> ShiftProof:
    """Prove addr_b(t) == addr_a(t') for every launch and thread t whose warp is full, where t' is
    t's lane + delta (same CTA, tid.x + delta) and both t and t' reach the block (pc holds for both).

    Tried first exactly; if that fails and `nsw`, again assuming that the 32-bit add/sub/mul/shl
    feeding each sign extension does not overflow (nvcc and clang derive these from C `int`
    indices, whose overflow is undefined in the source: NSW_ASSUMPTION). The result says which."""
    import z3
    ufs: dict = {}

    opaque = [False]

    def query(nsw_mode: bool, budget_ms: int):
        m0, m1 = {}, {}
        b = _z3_of(z3, addr_b, 0, m0, ufs, nsw_mode)
        a = _z3_of(z3, addr_a, delta, m1, ufs, nsw_mode)
        pcs = [_z3_of(z3, pc, 0, m0, ufs, nsw_mode), _z3_of(z3, pc, delta, m1, ufs, nsw_mode)]
        s = z3.Solver()
        s.set("timeout", budget_ms)
        s.add(*geometry_facts(z3, delta), *pcs, b != a)
        opaque[0] = opaque[0] or "opaque" in m0 or "opaque" in m1
        return s.check()

    def failed(r) -> ShiftProof:
        # A model is a real counterexample only when no opaque abstraction was involved.
        if r == z3.sat and not opaque[0]:
            return ShiftProof("refuted", reason="counterexample")
        return ShiftProof("unknown", reason="counterexample under abstraction" if r == z3.sat else str(r))

    # Exact first, on a short budget (a counterexample that wraps can be slow to find).
    r = query(False, min(timeout_ms, NSW_FREE_TIMEOUT_MS) if nsw and _sext_nodes(addr_b) else timeout_ms)
    if r == z3.unsat:
        return ShiftProof("proved")
    if not nsw or not (_sext_nodes(addr_a) or _sext_nodes(addr_b)):
        return failed(r)
    r = query(True, timeout_ms)
    if r == z3.unsat:
        return ShiftProof("proved", (NSW_ASSUMPTION,))
    return failed(r)


def _sext_nodes(e: Expr) -> set[Expr]:
    out, seen, stack = set(), set(), [e]
    while stack:
        n = stack.pop()
        if n.id in seen:
            continue
        seen.add(n.id)
        if n.op == "sext" and n.tv:
            out.add(n)
        stack.extend(a for a in n.args if isinstance(a, Expr))
    return out


__all__: Iterable[str] = ("Expr", "Emulation", "Load", "ShiftProof", "emulate", "evaluate", "prove_shift",
                          "geometry_facts", "NSW_ASSUMPTION")
