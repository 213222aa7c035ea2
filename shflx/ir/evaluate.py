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
from functools import cached_property
from typing import Any, Callable

import numpy as np

from ..lanes import s32
from .constants import NO_CONSTANTS, ModuleConstants, read_image, table_read
from .text import DEF, LABEL, LABEL_REF, call_args, split_args

LOW_BIT_OPS = {"add", "sub", "mul", "and", "or", "xor", "shl"}
CASTS = {"zext", "sext", "trunc"}
# Calls whose result is the same in every lane of the wave: block ids and sizes, reads of one lane,
# and the wave-wide lane masks (__ballot_sync/__activemask on wave32; on wave64 the CUDA layer
# takes each warp's half with a lane-dependent shift, so the slice is lane-dependent there).
UNIFORM_CALLS = ("llvm.amdgcn.workgroup.id.", "llvm.amdgcn.readfirstlane", "llvm.amdgcn.readlane",
                 "llvm.amdgcn.ballot.", "llvm.amdgcn.icmp.", "llvm.amdgcn.fcmp.",
                 "llvm.nvvm.read.ptx.sreg.ctaid.", "llvm.nvvm.read.ptx.sreg.ntid.", "llvm.nvvm.read.ptx.sreg.nctaid.")
# Pure integer intrinsics (__ffs, __popc, __clz, min/max, ...): uniform when every operand is.
PURE_CALLS = ("llvm.cttz.", "llvm.ctlz.", "llvm.ctpop.", "llvm.umin.", "llvm.umax.", "llvm.smin.", "llvm.smax.",
              "llvm.abs.", "llvm.bitreverse.", "llvm.bswap.", "llvm.fshl.", "llvm.fshr.")
SHUFFLE_MARKER = "__shflx_shfl_sync"      # the CUDA layer's shuffle (ir.sites): mode, mask, value, b, c
TID_X_CALLS = ("llvm.amdgcn.workitem.id.x", "llvm.nvvm.read.ptx.sreg.tid.x")      # threadIdx.x
LANE_CALLS = (*TID_X_CALLS, "llvm.amdgcn.mbcnt.lo", "llvm.amdgcn.mbcnt.hi", "llvm.nvvm.read.ptx.sreg.laneid",
              'asm "mov.u32 $0, %laneid;"', 'asm sideeffect "mov.u32 $0, %laneid;"')  # cub::LaneId() (NVPTX IR)

_CAST = re.compile(r"^(zext|sext|trunc)(?: nneg| nuw| nsw)* i(\d+) \S+ to i(\d+)")
MAX_BLOCK_THREADS = 1024         # CUDA's limit on threads per block: threadIdx.x < 1024
_ICMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b,
         "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b}


def _s32_all(v: np.ndarray) -> np.ndarray:
    """lanes.s32 of each value of an object array."""
    return np.array([s32(x) for x in v], dtype=object)


# LLVM's i32 binary operators on unsigned 32-bit values: Python integers and numpy object arrays
# of them take the same operators, so one table serves the per-thread and the all-threads pass
_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "shl": lambda a, b: a << (b & 31), "lshr": lambda a, b: a >> (b & 31),
    "udiv": lambda a, b: a // b, "urem": lambda a, b: a % b}


def _binary(op: str, a: Any, b: Any, signed: Callable[[Any], Any]) -> Any:
    """`op` of the low 32 bits of a and b (`signed`: s32 for the arithmetic shift's operand);
    ValueError for an operator not in _BINARY or a division by zero."""
    a, b = a & 0xFFFFFFFF, b & 0xFFFFFFFF
    if op == "ashr":
        return signed(a) >> (b & 31)
    if op not in _BINARY or (op in ("udiv", "urem") and not np.all(b)):
        raise ValueError(f"op {op}")
    return _BINARY[op](a, b)


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


_OPCODE_FLAGS = re.compile(r"^\w+( (nuw|nsw|exact|disjoint|samesign))*\s+")
_METADATA = re.compile(r",\s*!.*$")
_PREDICATES = ("eq ", "ne ", "ugt ", "uge ", "ult ", "ule ", "sgt ", "sge ", "slt ", "sle ")


def instruction_operands(inst: str) -> tuple[str, ...]:
    """The operand tokens of an instruction's text after `=`: opcode, flags, a compare's
    predicate, a cast's `to TYPE` and metadata dropped, the last word of each comma part."""
    body = _OPCODE_FLAGS.sub("", inst, count=1)
    body = _METADATA.sub("", body, count=1)
    if body.startswith(_PREDICATES):
        body = body.split(" ", 1)[1]
    if " to " in body:                                    # casts
        body = body.split(" to ")[0]
    if "<" not in body:
        toks = [t.strip() for t in body.split(",")]
        return tuple(t.split()[-1] for t in toks if t)
    return tuple(_last_operand(t) for t in split_args(body) if t)      # `<2 x i64> <i64 1, i64 1>`


def _last_operand(part: str) -> str:
    """The operand of one comma part: its last word, or a whole trailing vector constant."""
    if not part.endswith(">"):
        return part.split()[-1]
    depth = 0
    for k in range(len(part) - 1, -1, -1):
        depth += (part[k] == ">") - (part[k] == "<")
        if depth == 0:
            return part[k:]
    return part.split()[-1]


def mbcnt_kind(inst: str) -> str | None:
    """"lo"/"hi" for `mbcnt.lo/hi(i32 -1, X)`, the lane count under a full mask (the lane id plus
    the accumulator X); None for any other call, including an mbcnt of another mask (a popcount
    of ballot bits below the lane, not the lane id)."""
    m = re.search(r"@llvm\.amdgcn\.mbcnt\.(lo|hi)\(", inst)
    return m.group(1) if m and call_args(inst)[0] == "-1" else None


# The linear thread id, as a polynomial over the thread and block-size registers (monomial: the
# sorted registers it multiplies -> coefficient)
LINEAR_THREAD_ID = {("tid.x",): 1, ("ntid.x", "tid.y"): 1, ("ntid.x", "ntid.y", "tid.z"): 1}
# blockDim.x/y/z as the CUDA layer reads them: the code object's hidden group sizes (AMDGPU code
# object v5 implicit kernel arguments, hidden_group_size_x/y/z at offsets 12/14/16: LLVM
# AMDGPUUsage, "Code Object V5 Metadata"), an i16 load zero-extended
_GROUP_SIZE = {"12": "ntid.x", "14": "ntid.y", "16": "ntid.z"}


def polynomial(defs: dict[str, str], token: str, depth: int = 0) -> dict[tuple[str, ...], int] | None:
    """`token` as an integer polynomial over threadIdx.{x,y,z} and blockDim.{x,y,z} (their products
    fit i32 by CUDA's limits), through add, mul, shl by a constant, zext/sext; None otherwise."""
    if re.fullmatch(r"-?\d+", token):
        return {(): int(token)} if int(token) else {}
    inst = defs.get(token)
    if inst is None or depth > 20:
        return None
    inst = inst.split(", !")[0]                     # no metadata attachments
    m = re.match(r"^(?:tail )?call (?:noundef )?(?:range\([^)]*\) )?i32 @llvm\.amdgcn\.workitem\.id\.([xyz])\(\)", inst)
    if m:
        return {(f"tid.{m.group(1)}",): 1}
    m = re.match(r"^zext (?:nneg )?i16 (%[\w.\-]+) to i32$", inst)
    if m:
        load = re.match(r"^load i16, ptr addrspace\(4\) (%[\w.\-]+)", defs.get(m.group(1), ""))
        gep = re.match(r"^getelementptr (?:inbounds )?(?:nuw )?i8, ptr addrspace\(4\) (%[\w.\-]+), i64 (\d+)(?:,|$)",
                       defs.get(load.group(1), "") if load else "")
        base = defs.get(gep.group(1), "") if gep else ""
        if gep and gep.group(2) in _GROUP_SIZE and "@llvm.amdgcn.implicitarg.ptr()" in base:
            return {(_GROUP_SIZE[gep.group(2)],): 1}
        return None
    m = re.match(r"^(add|mul|shl)(?: nuw| nsw)* i32 (\S+), (\S+)$", inst)
    if not m:
        return None
    a = polynomial(defs, m.group(2), depth + 1)
    if m.group(1) == "shl":
        if a is None or not re.fullmatch(r"\d+", m.group(3)) or int(m.group(3)) > 31:
            return None
        return {k: v << int(m.group(3)) for k, v in a.items()}
    b = polynomial(defs, m.group(3), depth + 1)
    if a is None or b is None:
        return None
    out: dict[tuple[str, ...], int] = {}
    if m.group(1) == "add":
        for part in (a, b):
            for k, v in part.items():
                out[k] = out.get(k, 0) + v
    else:
        for ka, va in a.items():
            for kb, vb in b.items():
                k = tuple(sorted(ka + kb))
                out[k] = out.get(k, 0) + va * vb
    return {k: v for k, v in out.items() if v}


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
                 constants: ModuleConstants | None = None, wave: int = 64):
        self.name = name
        self.defs: dict[str, str] = {}
        self.params = set(params)
        self.constants = constants or NO_CONSTANTS   # immutable integer tables of the module (ir.constants)
        self.wave = wave                 # hardware lanes mbcnt counts (64 where unknown: the larger)
        self.def_block: dict[str, str] = {}
        self.exits: dict[str, str] = {}              # block -> its terminator (a switch on one line)
        self.block_preds: dict[str, list[str]] = {}
        block, pending = "entry", ""
        for line in lines:
            text = line.strip()
            label = LABEL.match(text)
            if label and not text.startswith(("%", "call", "store")):
                block = label.group(1)
            m = DEF.match(line)
            if m:
                self.defs[m.group(1)] = m.group(2)
                self.def_block[m.group(1)] = block
            if text.startswith(("br ", "switch ")) or pending:
                pending += " " + text.split(", !")[0] if pending else text.split(", !")[0]
                if not pending.startswith("switch ") or "]" in text:
                    self.exits[block] = pending
                    for succ in dict.fromkeys(LABEL_REF.findall(pending)):
                        self.block_preds.setdefault(succ, []).append(block)
                    pending = ""

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
        if not kinds:                  # constants only (an inline PTX result, translated after clang folded)
            try:
                v = self._eval(token, 0) & 0xFFFFFFFF
            except KeyError:           # an operation _eval does not compute
                return Operand("uniform", text=token)
            return Operand("const", v - (1 << 32) if v >> 31 else v, text=token)
        if "lane" in kinds:
            vals = None
            wave64_mbcnt = self.wave == 64 and self._uses_mbcnt(token, set())
            # a uniform leaf (a kernel argument) has no value in _eval
            if low_bits and kinds == {"lane"} and not wave64_mbcnt:
                vals = tuple(self._eval(token, lane) & 0xFFFFFFFF for lane in range(32))
            elif low_bits or per_lane:     # (mbcnt.lo alone is 32 in a wave64's upper half: both halves)
                vals = self.warp_invariant(token, 0x1F if low_bits else 0xFFFFFFFF)
            if vals is None:
                return Operand("dynamic", text=token)
            return Operand("lane", lanes=vals, text=token, from_tid=self._uses_tid(token, set()))
        return Operand("uniform", text=token)

    def warp_invariant(self, token: str, keep: int) -> tuple[int, ...] | None:
        """`token & keep` for CUDA lanes 0..31 when every warp of a block (threadIdx.x < 1024, or
        both halves of a wave64 for mbcnt) computes the same 32 values; None otherwise, or when
        the slice reads anything but the thread's lane and constants."""
        tid, mbcnt = self._uses_tid(token, set()), self._uses_mbcnt(token, set())
        if tid and mbcnt or (tid or mbcnt) and self.wide_linear(token):
            return None
        ids = MAX_BLOCK_THREADS if tid else self.wave
        try:
            values = [v & keep for v in self.full_values(token, ids)]
        except (KeyError, ValueError, IndexError, ZeroDivisionError):
            return None
        warps = {tuple(values[w:w + 32]) for w in range(0, ids, 32)}
        return warps.pop() if len(warps) == 1 else None

    def wide_linear(self, token: str, keep: int = 31, seen: set[str] | None = None) -> bool:
        """Whether `token`'s slice reads a linear_bits value with a bit outside `keep` (`linear & 63`).
        A slice that also reads threadIdx.x is evaluated for thread numbers standing for both;
        amd.guard's premise makes them agree in bits 4:0 only (a (32, 2) block: thread 33 has
        threadIdx.x 1); one with mbcnt counts the lanes of `self.wave`, which IR without target
        features reads as 64 on a wave32 target too (bit 5 is then the wave's parity). Such
        slices are not evaluable."""
        seen = set() if seen is None else seen
        inst = self.defs.get(token)
        if inst is None or token in seen:
            return False
        seen.add(token)
        bits = self.linear_bits(token)
        if bits is not None:
            return bool(bits & ~keep)
        return any(self.wide_linear(o, keep, seen) for o in self.operands(inst) if o.startswith("%"))

    def _uses_mbcnt(self, token: str, seen: set[str]) -> bool:
        inst = self.defs.get(token)
        if inst is None or token in seen:
            return False
        seen.add(token)
        if "mbcnt" in inst:
            return True
        return any(self._uses_mbcnt(o, seen) for o in self.operands(inst) if o.startswith("%"))

    def _leaf_kinds(self, token: str, seen: set[str]) -> set[str] | None:
        """{'lane', 'uniform', 'other'} reached by the slice; None when it is not lane-evaluable.
        Memoized per value: a value the slice reaches twice (threadIdx.x in `perm[tid >> 3] + (tid &
        7)`) is one leaf, not a cycle; `seen` holds the values being visited (a cycle: None)."""
        memo = self.__dict__.setdefault("_kinds_memo", {})
        if token in memo:
            return memo[token]
        if token in seen:
            return None
        seen.add(token)
        memo[token] = out = self._leaf_kinds_of(token, seen)
        seen.discard(token)
        return out

    def _leaf_kinds_of(self, token: str, seen: set[str]) -> set[str] | None:
        if re.fullmatch(r"-?\d+|true|false", token):
            return set()
        if token in self.params:
            return {"uniform"}
        inst = self.defs.get(token)
        if inst is None:
            return None
        if self.linear_bits(token) is not None:
            return {"lane"}
        op = inst.split()[0]
        if op == "phi":                # picked by a branch or switch on a lane-only value
            decided = self._phi_decider(token)
            if decided is None:
                return None
            out = set()
            for o in [decided[0], *phi_incoming(inst)]:
                k = self._leaf_kinds(o, seen)
                if k is None:
                    return None
                out |= k
            return out | ({"other"} if "lane" in out else set())
        if op in ("call", "tail"):
            if "mbcnt" in inst:
                if mbcnt_kind(inst) is None:
                    return None
                acc = self._leaf_kinds(call_args(inst)[1], seen)
                return None if acc is None else {"lane"} | acc
            if any(c in inst for c in LANE_CALLS):
                return {"lane"}
            if any(c in inst for c in UNIFORM_CALLS):
                return {"uniform"}
            if any(c in inst for c in PURE_CALLS):
                return self._uniform_if_all(call_args(inst), seen)
            if f"@{SHUFFLE_MARKER}(" in inst:
                return self._broadcast_kinds(call_args(inst), seen)
            return None
        if op == "load":               # a constant table indexed by a lane-only value: a per-lane lookup
            read = table_read(self.defs, self.constants, inst)
            if read is None:
                return None
            kinds: set[str] = set()
            for tok, _, _ in read.terms:
                k = self._leaf_kinds(tok, seen)
                if k is None:
                    return None
                kinds |= k
            return kinds | ({"other"} if "lane" in kinds else set())
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

    def _uniform_if_all(self, operands: list[str], seen: set[str]) -> set[str] | None:
        """{'uniform'} when every operand is a constant or warp-uniform; None otherwise (the
        evaluator does not compute these calls per lane)."""
        for o in operands:
            k = self._leaf_kinds(o, seen)
            if k is None or not k <= {"uniform"}:
                return None
        return {"uniform"}

    def _broadcast_kinds(self, args: list[str], seen: set[str]) -> set[str] | None:
        """A width-32 idx shuffle under the full constant mask with a constant or uniform source
        lane gives every lane of the warp the same value; on wave32 the warp is the wave, so the
        result is uniform (on wave64 the two warps of a wave may broadcast different values)."""
        if self.wave != 32 or len(args) != 5:
            return None
        mode, mask, _value, b, c = args
        if (mode, mask) != ("3", "-1") or not re.fullmatch(r"-?\d+", c) or int(c) & 0x1F1F != 0x1F:
            return None
        return self._uniform_if_all([b], seen)

    def _full(self, token: str, lane: int, depth: int) -> int:
        """The value of `token` in thread `lane` (its threadIdx.x), evaluated through the slice;
        KeyError/ValueError/IndexError/ZeroDivisionError where it cannot be. Each token's
        instruction is read once (`_node`): callers evaluate the same slice for up to 1,024 ids."""
        if depth > 200:
            raise ValueError("slice too deep")
        nodes = self.__dict__.setdefault("_nodes", {})
        node = nodes.get(token)
        if node is None:
            node = nodes[token] = self._node(token)
        kind, data = node
        if kind == "const":
            return data
        if kind == "tid":
            return lane
        if kind == "laneid":
            return lane % 32
        if kind == "linear":
            return lane & data
        if kind == "bin":
            op, operands = data
            a, b = (self._full(o, lane, depth + 1) for o in operands)
            return _binary(op, a, b, s32)
        if kind == "select":
            c, a, b = (self._full(o, lane, depth + 1) for o in data)
            return a if c else b
        if kind == "icmp":
            pred, operands = data
            a, b = (self._full(o, lane, depth + 1) for o in operands)
            if pred.startswith("s"):
                return int(_ICMP["u" + pred[1:]](s32(a), s32(b)))
            return int(_ICMP[pred](a & 0xFFFFFFFF, b & 0xFFFFFFFF))
        if kind == "cast":
            inst, operands = data
            vals = [self._full(o, lane, depth + 1) for o in operands]
            return cast_value(inst, vals[0])
        if kind == "phi":              # the edge the lane takes, or one value whichever edge was taken
            decided, incoming = data
            if decided is not None:
                cond, pick = decided
                return self._full(pick(self._full(cond, lane, depth + 1)), lane, depth + 1)
            values = {self._full(v, lane, depth + 1) & 0xFFFFFFFF for v in incoming}
            if len(values) != 1:
                raise ValueError(f"phi of different values: {self.defs[token]}")
            return values.pop()
        if kind == "mbcnt":
            mb, acc = data
            counted = min(lane, 32) if mb == "lo" else max(0, lane - 32)
            return counted + self._full(acc, lane, depth + 1)
        if kind == "load":
            read = data
            at = read.address(lambda tok: self._full(tok, lane, depth + 1))
            return read_image(self.constants.images[read.table], at, read.width)
        raise ValueError(data)                         # "error": what cannot be evaluated

    def full_values(self, token: str, count: int) -> list[int]:
        """`_full(token, t, 0)` for every thread t < `count`: evaluated for all threads at once
        (numpy arrays of Python integers, the same operations, so the same values), else, where
        that pass stops (a table read out of range, a branch another thread takes), thread by
        thread, raising what `_full` raises."""
        threads = np.arange(count).astype(object)
        try:
            return list(self._full_all(token, threads, 0))
        except Exception:               # noqa: BLE001 - the exact per-thread evaluation decides
            return [self._full(token, t, 0) for t in range(count)]

    def _full_all(self, token: str, threads: np.ndarray, depth: int) -> np.ndarray:
        """_full for every thread of `threads` at once (an object array of their ids)."""
        if depth > 200:
            raise ValueError("slice too deep")
        nodes = self.__dict__.setdefault("_nodes", {})
        node = nodes.get(token)
        if node is None:
            node = nodes[token] = self._node(token)
        kind, data = node
        n = len(threads)
        if kind == "const":
            return np.full(n, data, dtype=object)
        if kind == "tid":
            return threads
        if kind == "laneid":
            return threads % 32
        if kind == "linear":
            return threads & data
        if kind == "bin":
            op, operands = data
            a, b = (self._full_all(o, threads, depth + 1) for o in operands)
            return _binary(op, a, b, _s32_all)
        if kind == "select":
            c, a, b = (self._full_all(o, threads, depth + 1) for o in data)
            return np.where([bool(v) for v in c], a, b)
        if kind == "icmp":
            pred, operands = data
            a, b = (self._full_all(o, threads, depth + 1) for o in operands)
            if pred.startswith("s"):
                held = _ICMP["u" + pred[1:]](_s32_all(a), _s32_all(b))
            else:
                held = _ICMP[pred](a & 0xFFFFFFFF, b & 0xFFFFFFFF)
            return np.array([int(bool(h)) for h in held], dtype=object)
        if kind == "cast":
            inst, operands = data
            vals = [self._full_all(o, threads, depth + 1) for o in operands]
            return np.array([cast_value(inst, v) for v in vals[0]], dtype=object)
        if kind == "phi":
            decided, incoming = data
            if decided is not None:
                cond, pick = decided
                picks = [pick(v) for v in self._full_all(cond, threads, depth + 1)]
                values = {t: self._full_all(t, threads, depth + 1) for t in dict.fromkeys(picks)}
                return np.array([values[t][k] for k, t in enumerate(picks)], dtype=object)
            values = [self._full_all(v, threads, depth + 1) & 0xFFFFFFFF for v in incoming]
            if any(list(v) != list(values[0]) for v in values[1:]):
                raise ValueError(f"phi of different values: {self.defs[token]}")
            return values[0]
        if kind == "mbcnt":
            mb, acc = data
            counted = np.array([min(t, 32) if mb == "lo" else max(0, t - 32) for t in threads], dtype=object)
            return counted + self._full_all(acc, threads, depth + 1)
        if kind == "load":
            read = data
            terms = {tok: self._full_all(tok, threads, depth + 1) for tok, _, _ in read.terms}
            image = self.constants.images[read.table]
            return np.array([read_image(image, read.address(lambda tok: terms[tok][k]), read.width)
                             for k in range(n)], dtype=object)
        raise ValueError(data)

    def _node(self, token: str) -> tuple[str, Any]:
        """`token`'s instruction, read for _full: (kind, what evaluating it needs)."""
        if re.fullmatch(r"-?\d+", token):
            return "const", int(token)
        if token in ("true", "false"):
            return "const", int(token == "true")
        inst = self.defs[token]                      # KeyError: not defined in the function
        op = inst.split()[0]
        bits = self.linear_bits(token)
        if bits is not None:
            return "linear", bits
        if op == "phi":
            return "phi", (self._phi_decider(token), phi_incoming(inst))
        if op in ("call", "tail"):
            if any(c in inst for c in TID_X_CALLS):
                return "tid", None
            if "sreg.laneid" in inst or "%laneid" in inst:
                return "laneid", None
            kind = mbcnt_kind(inst)
            if kind is not None:
                return "mbcnt", (kind, call_args(inst)[1])
            return "error", f"call in the slice: {inst}"
        if op == "load":
            read = table_read(self.defs, self.constants, inst)
            return ("error", f"load in the slice: {inst}") if read is None else ("load", read)
        if op == "select":
            return "select", self.operands(inst)
        if op == "icmp":
            return "icmp", (next(w for w in inst.split()[1:] if w != "samesign"), self.operands(inst))
        if op in CASTS:
            return "cast", (inst, self.operands(inst))
        return "bin", (op, self.operands(inst))

    def _phi_decider(self, token: str) -> tuple[str, Callable[[int], str]] | None:
        """(the value that picks `token`'s incoming value, value -> that incoming value) when one
        `br i1 %c` or `switch %v` block decides the phi: each incoming edge comes from that block
        or from a block it alone enters that only branches on (`switch (lane & 3) { case 0: src
        = 2; ... }` after -O). None otherwise."""
        inst = self.defs.get(token, "")
        home = self.def_block.get(token)
        edges = re.findall(r"\[\s*([^,\]\s]+)\s*,\s*%([\w.\-]+)\s*\]", inst)
        if not inst.startswith("phi ") or home is None or not edges:
            return None
        origin = {}                    # the deciding block's target -> the phi's incoming value
        decider = None
        for value, pred in edges:
            via = pred
            if self.exits.get(pred, "") == f"br label %{home}" and len(self.block_preds.get(pred, [])) == 1:
                via, pred = pred, self.block_preds[pred][0]
            elif pred != home:
                via = home
            if decider not in (None, pred):
                return None
            decider = pred
            origin[via] = value
        exit_ = self.exits.get(decider or "", "")
        br = re.match(r"^br i1 (\S+), label %([\w.\-]+), label %([\w.\-]+)$", exit_)
        if br:
            taken = {True: br.group(2), False: br.group(3)}
            if not all(t in origin for t in taken.values()):
                return None
            return br.group(1), lambda v: origin[taken[bool(v & 1)]]
        sw = re.match(r"^switch (i\d+) (\S+), label %([\w.\-]+) \[(.*)\]$", exit_)
        if not sw:
            return None
        bits = int(sw.group(1)[1:])
        cases = {int(c) & ((1 << bits) - 1): lab for c, lab in re.findall(r"i\d+ (-?\d+), label %([\w.\-]+)", sw.group(4))}
        default = sw.group(3)

        def pick(v: int) -> str:
            target = cases.get(v & ((1 << bits) - 1), default)
            if target not in origin:
                raise ValueError(f"the switch leads lane value {v} away from the phi")
            return origin[target]
        return sw.group(2), pick

    def _uses_tid(self, token: str, seen: set[str]) -> bool:
        inst = self.defs.get(token)
        if inst is None or token in seen or self.linear_bits(token) is not None:
            return False
        seen.add(token)
        if any(c in inst for c in TID_X_CALLS):
            return True
        return any(self._uses_tid(o, seen) for o in self.operands(inst) if o.startswith("%"))

    def linear_bits(self, token: str) -> int | None:
        """C where `token` is `and L, C` with L the block's linear thread id (threadIdx.x +
        blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z), as NVIDIA's cooperative groups and
        code for 2-D/3-D blocks compute a rank) and 0 <= C < the wave size: a function of the
        hardware lane alone, with no premise on the block's shape, since waves are made of
        consecutive linear ids (CUDA's warps likewise, CUDA Programming Guide "Thread Hierarchy").
        None otherwise."""
        memo = self.__dict__.setdefault("_linear_memo", {})
        if token not in memo:
            memo[token] = None
            inst = self.defs.get(token, "")
            m = re.match(r"^and i32 (\S+), (\S+)$", inst.split(", !")[0])
            if m:
                for value, mask in ((m.group(1), m.group(2)), (m.group(2), m.group(1))):
                    if re.fullmatch(r"\d+", mask) and int(mask) < self.wave and \
                            polynomial(self.defs, value) == LINEAR_THREAD_ID:
                        memo[token] = int(mask)
        return memo[token]

    def operands(self, inst: str) -> list[str]:
        """The operand tokens of `inst` (a fresh list; parsed once per instruction text)."""
        toks = self._operand_memo.get(inst)
        if toks is None:
            toks = self._operand_memo[inst] = instruction_operands(inst)
        return list(toks)

    @cached_property
    def _operand_memo(self) -> dict[str, tuple[str, ...]]:
        """Instruction text -> its operand tokens (operands)."""
        return {}

    def _eval(self, token: str, lane: int) -> int:
        if re.fullmatch(r"-?\d+", token):
            return int(token)
        bits = self.linear_bits(token)
        if bits is not None:
            return lane & bits
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
        """`token` in hardware lanes 0..wave-1; None where a linear_bits mask reaches past the
        wave (the function read as wave64 on a wave32 target: bit 5 is no lane bit there)."""
        if self.wide_linear(token, wave - 1):
            return None
        try:
            return tuple(self._full(token, lane, 0) & 0xFFFFFFFF for lane in range(wave))
        except (KeyError, ValueError, IndexError, ZeroDivisionError):
            return None

