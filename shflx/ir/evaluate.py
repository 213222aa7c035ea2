"""The lane-function evaluator: what an SSA operand of a shuffle is, decided from its backward slice.

A constant; a function of the lane id alone (add/sub/mul/and/or/xor/shl and casts over
threadIdx.x or %laneid (`workitem.id.x`, `mbcnt`, `sreg.tid.x`, `sreg.laneid`): those keep "low 5
bits of the result depend only on the low 5 bits of the inputs", and shfl.sync reads only b[4:0],
so evaluating lanes 0..31 gives the exact map); a warp-uniform runtime value (kernel arguments,
block ids, sizes); or per-lane dynamic. `LaneEvaluator` evaluates a lane-only slice exactly on
every hardware lane (HIP's ds_bpermute addresses, chain guards)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..lanes import s32
from .text import DEF, call_args

LOW_BIT_OPS = {"add", "sub", "mul", "and", "or", "xor", "shl"}
CASTS = {"zext", "sext", "trunc"}
UNIFORM_CALLS = ("llvm.amdgcn.workgroup.id.", "llvm.amdgcn.readfirstlane", "llvm.amdgcn.readlane",
                 "llvm.nvvm.read.ptx.sreg.ctaid.", "llvm.nvvm.read.ptx.sreg.ntid.", "llvm.nvvm.read.ptx.sreg.nctaid.")
TID_X_CALLS = ("llvm.amdgcn.workitem.id.x", "llvm.nvvm.read.ptx.sreg.tid.x")      # threadIdx.x
LANE_CALLS = (*TID_X_CALLS, "llvm.amdgcn.mbcnt.lo", "llvm.amdgcn.mbcnt.hi", "llvm.nvvm.read.ptx.sreg.laneid",
              'asm "mov.u32 $0, %laneid;"', 'asm sideeffect "mov.u32 $0, %laneid;"')  # cub::LaneId() (NVPTX IR)

_CAST = re.compile(r"^(zext|sext|trunc)(?: nneg| nuw| nsw)* i(\d+) \S+ to i(\d+)")
MAX_BLOCK_THREADS = 1024         # CUDA's limit on threads per block: threadIdx.x < 1024
_ICMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b,
         "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b}


def cast_value(inst: str, v: int) -> int:
    """The value of `zext/sext/trunc iN v to iM` (ValueError for any other cast): exact, so a
    `sext i1` is all ones and a `trunc` to i1..i16 drops the high bits."""
    m = _CAST.match(inst)
    if not m:
        raise ValueError(f"cast {inst}")
    op, src, dst = m.group(1), int(m.group(2)), int(m.group(3))
    v &= (1 << src) - 1
    if op == "sext" and v >> (src - 1):
        v -= 1 << src
    return v & ((1 << dst) - 1)


def mbcnt_kind(inst: str) -> str | None:
    """"lo"/"hi" for `mbcnt.lo/hi(i32 -1, X)`, the lane count under a full mask (the lane id plus
    the accumulator X); None for any other call, including an mbcnt of another mask (a popcount
    of ballot bits below the lane, not the lane id)."""
    m = re.search(r"@llvm\.amdgcn\.mbcnt\.(lo|hi)\(", inst)
    return m.group(1) if m and call_args(inst)[0] == "-1" else None


def phi_incoming(inst: str) -> list[str]:
    """The incoming value tokens of `phi TYPE [ V, %bb ], ...`."""
    return re.findall(r"\[\s*([^,\]\s]+)\s*,\s*%[\w.\-]+\s*\]", inst)


@dataclass(frozen=True)
class Operand:
    kind: str                    # "const" | "lane" | "uniform" | "dynamic"
    value: int | None = None     # const
    lanes: tuple[int, ...] | None = None   # lane-only: the value for lanes 0..31
    text: str = ""               # the IR operand
    from_tid: bool = False       # lane-only through threadIdx.x (CUDA lane = threadIdx.x % 32 assumed)


class FunctionBody:
    """SSA definitions of one function, for backward slices."""

    def __init__(self, name: str, lines: list[str], params: list[str],
                 constants: dict[str, tuple[int, tuple[int, ...]]] | None = None):
        self.name = name
        self.defs: dict[str, str] = {}
        self.params = set(params)
        self.constants = constants or {}          # immutable integer tables of the module (text.constant_tables)
        for line in lines:
            m = DEF.match(line)
            if m:
                self.defs[m.group(1)] = m.group(2)

    def classify(self, token: str, low_bits: bool = False, per_lane: bool = False) -> Operand:
        """`low_bits`: only bits 4:0 of the operand matter (b); then a lane-only slice of
        low-bit-preserving ops over threadIdx.x is evaluated per lane. Other lane-only slices
        (shifts, divisions, compares, selects: `(0x1B >> 2 * (lane & 3)) & 3`) are evaluated for
        every thread of a block and taken when every warp gets the same 32 values (bits 4:0 for
        b; all 32 bits where `per_lane`, for c). Anything else lane-dependent is dynamic."""
        if re.fullmatch(r"-?\d+", token):
            return Operand("const", int(token), text=token)
        kinds = self._leaf_kinds(token, set())
        if kinds is None:
            return Operand("dynamic", text=token)
        if "lane" in kinds:
            vals = None
            if low_bits and "other" not in kinds:
                vals = tuple(self._eval(token, lane) & 0xFFFFFFFF for lane in range(32))
            elif low_bits or per_lane:
                vals = self.warp_invariant(token, 0x1F if low_bits else 0xFFFFFFFF)
            if vals is None:
                return Operand("dynamic", text=token)
            return Operand("lane", lanes=vals, text=token, from_tid=self._uses_tid(token, set()))
        return Operand("uniform", text=token)

    def warp_invariant(self, token: str, keep: int) -> tuple[int, ...] | None:
        """`token & keep` for CUDA lanes 0..31 when every warp of a block (threadIdx.x < 1024, or
        both halves of a wave64 for mbcnt) computes the same 32 values; None otherwise, or when
        the slice reads anything but the thread's lane and constants."""
        if self._uses_tid(token, set()) and self._uses_mbcnt(token, set()):
            return None
        ids = MAX_BLOCK_THREADS if self._uses_tid(token, set()) else 64
        try:
            values = [self._full(token, t, 0) & keep for t in range(ids)]
        except (KeyError, ValueError, IndexError, ZeroDivisionError):
            return None
        warps = {tuple(values[w:w + 32]) for w in range(0, ids, 32)}
        return warps.pop() if len(warps) == 1 else None

    def _uses_mbcnt(self, token: str, seen: set[str]) -> bool:
        inst = self.defs.get(token)
        if inst is None or token in seen:
            return False
        seen.add(token)
        if "mbcnt" in inst:
            return True
        return any(self._uses_mbcnt(o, seen) for o in self.operands(inst) if o.startswith("%"))

    def _leaf_kinds(self, token: str, seen: set[str]) -> set[str] | None:
        """{'lane', 'uniform', 'other'} reached by the slice; None when it is not lane-evaluable."""
        if re.fullmatch(r"-?\d+|true|false", token):
            return set()
        if token in self.params:
            return {"uniform"}
        if token in seen:
            return None
        seen.add(token)
        inst = self.defs.get(token)
        if inst is None:
            return None
        op = inst.split()[0]
        if op in ("call", "tail"):
            if "mbcnt" in inst:
                if mbcnt_kind(inst) is None:
                    return None
                acc = self._leaf_kinds(call_args(inst)[1], seen)
                return None if acc is None else {"lane"} | acc
            if any(c in inst for c in LANE_CALLS):
                return {"lane"}
            return {"uniform"} if any(c in inst for c in UNIFORM_CALLS) else None
        if op == "load":               # a constant table indexed by a lane-only value: a per-lane lookup
            index = self._table_index(inst)
            kinds = None if index is None else self._leaf_kinds(index[1], seen)
            return None if kinds is None else kinds | ({"other"} if "lane" in kinds else set())
        high_bit_ops = ("lshr", "ashr", "udiv", "sdiv", "urem", "srem", "select", "icmp")
        if op not in LOW_BIT_OPS and op not in CASTS and op not in high_bit_ops:
            return None       # loads, phis, calls we do not know: not provably uniform or lane-only
        out: set[str] = set()
        for o in self.operands(inst):
            k = self._leaf_kinds(o, seen)
            if k is None:
                return None
            out |= k
        if op in high_bit_ops and "lane" in out:
            out.add("other")  # these look at high bits: a lane-dependent input makes it per-warp
        return out

    def _full(self, token: str, lane: int, depth: int) -> int:
        if depth > 200:
            raise ValueError("slice too deep")
        if re.fullmatch(r"-?\d+", token):
            return int(token)
        if token in ("true", "false"):
            return int(token == "true")
        inst = self.defs[token]
        op = inst.split()[0]
        if op == "phi":                # one value whichever edge was taken: every incoming value agrees
            values = {self._full(v, lane, depth + 1) & 0xFFFFFFFF for v in phi_incoming(inst)}
            if len(values) != 1:
                raise ValueError(f"phi of different values: {inst}")
            return values.pop()
        if op in ("call", "tail"):
            if any(c in inst for c in TID_X_CALLS):
                return lane
            if "sreg.laneid" in inst or "%laneid" in inst:
                return lane % 32
            kind = mbcnt_kind(inst)
            if kind is not None:
                counted = min(lane, 32) if kind == "lo" else max(0, lane - 32)
                return counted + self._full(call_args(inst)[1], lane, depth + 1)
            raise ValueError(f"call in the slice: {inst}")
        if op == "load":
            index = self._table_index(inst)
            if index is None:
                raise ValueError(f"load in the slice: {inst}")
            values, tok = index
            k = self._full(tok, lane, depth + 1)
            if not 0 <= k < len(values):
                raise IndexError(f"table index {k} out of range")
            return values[k]
        if op == "select":
            c, a, b = (self._full(o, lane, depth + 1) for o in self.operands(inst))
            return a if c else b
        if op == "icmp":
            pred = next(w for w in inst.split()[1:] if w != "samesign")
            a, b = (self._full(o, lane, depth + 1) for o in self.operands(inst))
            if pred.startswith("s"):
                return int(_ICMP["u" + pred[1:]](s32(a), s32(b)))
            return int(_ICMP[pred](a & 0xFFFFFFFF, b & 0xFFFFFFFF))
        vals = [self._full(o, lane, depth + 1) for o in self.operands(inst)]
        if op in CASTS:
            return cast_value(inst, vals[0])
        a, b = vals[0] & 0xFFFFFFFF, vals[1] & 0xFFFFFFFF
        table = {"add": a + b, "sub": a - b, "mul": a * b, "and": a & b, "or": a | b, "xor": a ^ b,
                 "shl": a << (b & 31), "lshr": a >> (b & 31), "ashr": s32(a) >> (b & 31),
                 "udiv": a // b if b else None, "urem": a % b if b else None}
        if op not in table or table[op] is None:
            raise ValueError(f"op {op}")
        return table[op]

    def _table_index(self, load: str) -> tuple[tuple[int, ...], str] | None:
        """(table values, index token) of `load iK, ptr %p` where %p indexes an immutable module
        table with K-bit elements (`getelementptr iK, @t, idx` or `[N x iK], @t, 0, idx`)."""
        m = re.match(r"^load i(\d+), ptr(?: addrspace\(\d+\))? (%[\w.\-]+)", load)
        gep = self.defs.get(m.group(2), "") if m else ""
        g = re.match(r"^getelementptr (?:inbounds )?(?:nuw )?(?:nusw )?(\[\d+ x i\d+\]|i\d+), "
                     r"ptr(?: addrspace\(\d+\))? @([\w.$\-]+), (.*)$", gep.split(", !")[0])
        if not g or g.group(2) not in self.constants:
            return None
        bits, values = self.constants[g.group(2)]
        indices = [i.split()[-1] for i in g.group(3).split(",")]
        if g.group(1).startswith("["):
            if len(indices) != 2 or indices[0] != "0":
                return None
        elif len(indices) != 1 or g.group(1) != f"i{bits}":
            return None
        return (values, indices[-1]) if int(m.group(1)) == bits else None

    def _uses_tid(self, token: str, seen: set[str]) -> bool:
        inst = self.defs.get(token)
        if inst is None or token in seen:
            return False
        seen.add(token)
        if any(c in inst for c in TID_X_CALLS):
            return True
        return any(self._uses_tid(o, seen) for o in self.operands(inst) if o.startswith("%"))

    def operands(self, inst: str) -> list[str]:
        body = re.sub(r"^\w+( (nuw|nsw|exact|disjoint|samesign))*\s+", "", inst)
        body = re.sub(r",\s*!.*$", "", body)
        if body.startswith(("eq ", "ne ", "ugt ", "uge ", "ult ", "ule ", "sgt ", "sge ", "slt ", "sle ")):
            body = body.split(" ", 1)[1]
        if " to " in body:                                    # casts
            body = body.split(" to ")[0]
        toks = [t.strip() for t in body.split(",")]
        return [t.split()[-1] for t in toks if t]

    def _eval(self, token: str, lane: int) -> int:
        if re.fullmatch(r"-?\d+", token):
            return int(token)
        inst = self.defs[token]
        op = inst.split()[0]
        if op in ("call", "tail"):     # lanes 0..31: mbcnt.lo counts the lane, mbcnt.hi adds none
            kind = mbcnt_kind(inst)
            if kind is not None:
                return (lane if kind == "lo" else 0) + self._eval(call_args(inst)[1], lane)
            return lane
        vals = [self._eval(o, lane) for o in self.operands(inst)]
        if op in CASTS:
            return cast_value(inst, vals[0])
        a, b = vals[0], vals[1]
        return {"add": a + b, "sub": a - b, "mul": a * b, "and": a & b, "or": a | b, "xor": a ^ b,
                "shl": a << (b & 31)}[op]


class LaneEvaluator(FunctionBody):
    """Evaluates an SSA value exactly for each hardware lane when its slice reads only the lane id
    (mbcnt, workitem.id.x) and constants: every i32 op, casts, icmp and select."""

    def lane_values(self, token: str, wave: int) -> tuple[int, ...] | None:
        try:
            return tuple(self._full(token, lane, 0) & 0xFFFFFFFF for lane in range(wave))
        except (KeyError, ValueError, IndexError, ZeroDivisionError):
            return None

