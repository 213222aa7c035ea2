"""Warp shuffles in PTX: every shfl.sync (and legacy shfl) site, and the reduction/scan chains
they form, with the lanes whose results are used.

Why: the NVIDIA rewrites need the same facts about PTX that shflx/ir/ gathers from LLVM IR:
which operands are constants, which shuffles feed a combine that feeds the next shuffle, and which
lanes read the final value. Everything here is conservative: a register defined more than once is
not a constant, a value used outside the chain breaks it, and a use whose executing lanes are not
known makes every lane live. The meaning of a chain is computed by shflx.chains.shape (multiset
semantics), never assumed from its spelling.

Lane conditions understood: %laneid, and `tid.x & 31` / `tid.x % 32` (with the note that lanes
are then taken as threadIdx.x % 32: 1-D blocks, or blockDim.x a multiple of 32, as the CUDA source
itself assumes), compared with a constant by setp, guarding an instruction (`@p`) or a forward
branch over a label-free region."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..chains.shape import ChainStep, classify
from ..cuda import FULL_MASK, ShflOperands, cuda_call
from ..errors import InputError, Location
from ..lanes import CUDA_WARP, lanes_to_mask, mask_to_lanes, s32
from ..pattern import Collective
from .ptxir import Function, Instruction, Label, Module

MODES = ("up", "down", "bfly", "idx")
ALL_LANES = FULL_MASK
TID_NOTE = "lane taken as threadIdx.x % 32 (1-D blocks or blockDim.x a multiple of 32)"

# PTX combine instruction -> shflx.combine fn (PTX ISA "Integer Arithmetic Instructions": add, min,
# max; "Logic and Shift Instructions": and, or, xor; "Floating-Point Instructions": add, min, max).
_INT_COMBINES = {("add", "s32"): "add", ("add", "u32"): "add", ("min", "s32"): "smin",
                 ("min", "u32"): "umin", ("max", "s32"): "smax", ("max", "u32"): "umax",
                 ("and", "b32"): "and", ("or", "b32"): "or", ("xor", "b32"): "xor",
                 ("mul", "s32"): "mul", ("mul", "u32"): "mul"}
_F32_COMBINES = {"add": "fadd", "min": "fmin", "max": "fmax", "mul": "fmul"}
_MOVES = ("mov.b32", "mov.u32", "mov.s32", "mov.f32")        # 32-bit moves keep every bit


def parse_int(text: str) -> int | None:
    """A PTX integer literal as its 32-bit pattern (decimal, hex, octal, binary; U suffix), else None."""
    t = text.strip()
    m = re.fullmatch(r"(-?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9]\d*)U?", t)
    if not m:
        return None
    digits = m.group(2)
    base = 16 if digits[:2] in ("0x", "0X") else 2 if digits[:2] in ("0b", "0B") else \
        8 if digits.startswith("0") and len(digits) > 1 else 10
    v = int(digits[2:] if base in (16, 2) else digits, base)
    return (-v if m.group(1) else v) & 0xFFFFFFFF


@dataclass
class Value:
    """A shuffle operand: its text, and its 32-bit value when it is a compile-time constant."""

    text: str
    const: int | None

    def show(self) -> str:
        return hex(self.const) if self.const is not None else f"<{self.text}>"


@dataclass
class Site:
    """One shfl.sync / shfl instruction."""

    function: Function
    ins: Instruction
    mode: str
    legacy: bool
    dest: str
    pred_out: str | None
    src: str
    b: Value
    c: Value
    mask: Value

    @property
    def line(self) -> int:
        return self.ins.line

    @property
    def operands(self) -> ShflOperands | None:
        """The PTX operands when b, c and the member mask are all constants."""
        if None in (self.b.const, self.c.const, self.mask.const):
            return None
        return ShflOperands(self.mode, self.b.const, self.c.const, self.mask.const)

    def cuda(self) -> str:
        """The CUDA call the operands spell (as compile's report does), else the PTX form."""
        ops = self.operands
        if ops is not None:
            call = cuda_call(self.mode, str(s32(ops.b)), ops.c, ops.member_mask, self.legacy)
            if call is not None:
                return call
        return f"shfl{'' if self.legacy else '.sync'}.{self.mode} b={self.b.show()} c={self.c.show()} " \
               f"mask={self.mask.show()}"

    def cls(self) -> str:
        """xor / up / down / broadcast, or dynamic (recognize.py's classes; a PTX shuffle whose b and c
        are constants is never a rotate)."""
        ops = self.operands
        if ops is None or self.b.const is None or self.c.const is None:
            return "dynamic"
        if self.mode == "bfly":
            return "xor"
        if self.mode in ("up", "down"):
            return self.mode
        # idx with a constant b: each segment reads one lane, never a rotate (checked exhaustively
        # over b[4:0], the clamp c[4:0] and the segment mask c[12:8])
        return "broadcast"


@dataclass
class Chain:
    """Shuffle + combine steps where each shuffle reads the previous step's combined value."""

    function: Function
    sites: list[Site]
    combines: list[Instruction]
    moves: list[Instruction]             # 32-bit moves between the steps (f32 <-> b32 views)
    fn: str | None                       # shflx.combine fn; None when the steps disagree
    ptx_type: str                        # s32 / u32 / b32 / f32 of the combines
    input: str                           # the register the first shuffle reads
    result: str                          # the register the last combine writes
    steps: list[ChainStep] = field(default_factory=list)
    live: int = ALL_LANES
    live_why: str = "every lane"
    notes: list[str] = field(default_factory=list)
    collective: Collective | None = None
    reason: str | None = None            # why it is not a whole-warp reduction (None: it is one)

    @property
    def line(self) -> int:
        return self.sites[0].line

    @property
    def shape(self) -> str:
        modes = {s.mode for s in self.sites}
        if len(modes) == 1:
            return {"bfly": "butterfly", "down": "down-tree", "up": "up-scan", "idx": "mixed"}[modes.pop()]
        return "mixed"

    def instructions(self) -> list[Instruction]:
        return [s.ins for s in self.sites] + self.combines + self.moves


# ----------------------------------------------------------------------------- data flow

class Flow:
    """Definitions and uses of every register name in one function body (scopes merged, which only
    ever adds defs and uses: conservative)."""

    def __init__(self, fn: Function):
        self.fn = fn
        self.body = fn.body or []
        self.defs: dict[str, list[int]] = {}
        self.uses: dict[str, list[int]] = {}
        for k, s in enumerate(self.body):
            if isinstance(s, Instruction):
                for r in s.dests():
                    self.defs.setdefault(r, []).append(k)
                for r in s.srcs() + ([s.pred] if s.pred else []):
                    self.uses.setdefault(r, []).append(k)
        self.labels = {s.name: k for k, s in enumerate(self.body) if isinstance(s, Label)}
        # labels control can reach: named by a branch (or a .branchtargets list); the $L__tmp labels
        # of line info are not, and do not split a straight-line stretch
        self.targets = fn.branch_targets()
        self._regions = self._branch_regions()

    def is_target(self, s: object) -> bool:
        """Whether statement `s` is a label that some branch can jump to."""
        return isinstance(s, Label) and s.name in self.targets

    def single_def(self, reg: str) -> Instruction | None:
        d = self.defs.get(reg, [])
        return self.body[d[0]] if len(d) == 1 else None

    def const(self, text: str) -> int | None:
        """An immediate, or a register whose only definition moves an immediate into it."""
        v = parse_int(text)
        if v is not None:
            return v
        d = self.single_def(text)
        if d is not None and d.pred is None and d.opcode in _MOVES[:3] and len(d.operands) == 2:
            return parse_int(d.operands[1])
        return None

    def alias(self, reg: str) -> str:
        """The register a chain of single-definition 32-bit moves copies (bit views: f32 <-> b32)."""
        seen = set()
        while reg not in seen:
            seen.add(reg)
            d = self.single_def(reg)
            if d is None or d.pred is not None or d.opcode not in _MOVES or len(d.operands) != 2 \
                    or not d.operands[1].startswith("%") or d.operands[1].split(".")[0] in _SPECIAL:
                return reg
            reg = d.operands[1]
        return reg

    def lane_expr(self, reg: str, notes: set[str]) -> bool:
        """Whether `reg` holds the lane id (%laneid, tid.x & 31, tid.x % 32)."""
        d = self.single_def(reg)
        if d is None or d.pred is not None:
            return False
        if d.opcode in _MOVES[:3] and d.operands[1:] == ["%laneid"]:
            return True
        if d.opcode in ("and.b32", "rem.u32") and len(d.operands) == 3:
            k = self.const(d.operands[2])
            t = self.single_def(d.operands[1])
            tid = t is not None and t.pred is None and t.opcode in _MOVES[:3] and t.operands[1:] == ["%tid.x"]
            if tid and k == (31 if d.opcode == "and.b32" else 32):
                notes.add(TID_NOTE)
                return True
        return False

    def lane_bounds(self, pred: str, notes: set[str], depth: int = 0) -> tuple[int, int]:
        """(must, may): lanes where predicate `pred` is true in every thread, and where it can be.
        Lane-id comparisons are exact; and/or/not of predicates combine the bounds; anything
        else is unknown (0, all)."""
        unknown = (0, ALL_LANES)
        d = self.single_def(pred)
        if d is None or d.pred is not None or depth > 16:
            return unknown
        dests = [x.strip() for x in d.operands[0].split("|")] if d.operands else []
        if d.opcode in ("or.pred", "and.pred", "xor.pred", "not.pred", "mov.pred") and dests == [pred]:
            args = [self.lane_bounds(a, notes, depth + 1) for a in d.operands[1:]]
            if d.opcode == "or.pred" and len(args) == 2:
                return args[0][0] | args[1][0], args[0][1] | args[1][1]
            if d.opcode == "and.pred" and len(args) == 2:
                return args[0][0] & args[1][0], args[0][1] & args[1][1]
            if d.opcode == "not.pred" and len(args) == 1:
                return ~args[0][1] & ALL_LANES, ~args[0][0] & ALL_LANES
            if d.opcode == "mov.pred" and len(args) == 1:
                return args[0]
            return unknown
        truth = self._lane_compare(d, notes)
        if truth is None or pred not in dests:
            return unknown
        if dests[0] != pred:
            truth = ~truth & ALL_LANES         # the `|q` output of setp is the complement
        return truth, truth

    def _lane_compare(self, d: Instruction, notes: set[str]) -> int | None:
        """The lanes where `setp.CMP.TYPE p, lane, K` (or K, lane) is true."""
        if d.base != "setp" or len(d.operands) != 3:
            return None
        mods = d.modifiers
        if len(mods) != 2 or mods[1] not in ("s32", "u32", "b32"):
            return None
        cmp, typ = mods
        a, b = d.operands[1], d.operands[2]
        if self.lane_expr(a, notes) and self.const(b) is not None:
            k, flip = self.const(b), False
        elif self.lane_expr(b, notes) and self.const(a) is not None:
            k, flip = self.const(a), True
        else:
            return None
        if typ == "s32" and k >= 1 << 31:
            k -= 1 << 32
        lanes = np.arange(CUDA_WARP)
        x, y = (lanes, k) if not flip else (k, lanes)
        ops = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
               "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal, "hi": np.greater,
               "hs": np.greater_equal}
        if cmp not in ops:
            return None
        return lanes_to_mask(ops[cmp](x, y))

    def _branch_regions(self) -> list[tuple[int, int, str, bool]]:
        """(branch index, label index, predicate, negated) for `@p bra L` over a label-free stretch."""
        out = []
        for k, s in enumerate(self.body):
            if isinstance(s, Instruction) and s.base == "bra" and s.pred and s.operands:
                end = self.labels.get(s.operands[0])
                if end is not None and end > k and not any(self.is_target(x) for x in self.body[k + 1:end]):
                    out.append((k, end, s.pred, s.neg))
        return out

    def exec_lanes(self, k: int, notes: set[str]) -> int:
        """The lanes that can execute body[k] (all 32 unless a lane condition restricts them)."""
        lanes = ALL_LANES
        s = self.body[k]
        if isinstance(s, Instruction) and s.pred:
            must, may = self.lane_bounds(s.pred, notes)
            lanes &= (~must & ALL_LANES) if s.neg else may
        for start, end, pred, neg in self._regions:
            if start < k < end:                # only lanes that do not take the branch get here
                must, may = self.lane_bounds(pred, notes)
                lanes &= may if neg else ~must & ALL_LANES
        return lanes


_SPECIAL = frozenset({"%tid", "%ntid", "%laneid", "%warpid", "%ctaid", "%nctaid", "%clock", "%clock64",
                      "%lanemask_eq", "%lanemask_lt", "%lanemask_le", "%lanemask_gt", "%lanemask_ge"})


# ----------------------------------------------------------------------------- sites

def _site(flow: Flow, ins: Instruction, filename: str) -> Site | None:
    """The shuffle `ins` is, None for any other instruction; a malformed shfl is an error naming
    its line (ptxas would reject it, and skipping it would hide a shuffle)."""
    mods = ins.modifiers
    legacy = "sync" not in mods
    mode = next((m for m in mods if m in MODES), None)
    if ins.base != "shfl":
        return None
    where = Location(filename, ins.line or None)
    if mode is None:
        raise InputError(f"'{ins.opcode}': a shfl needs a mode, one of {', '.join(MODES)}", where)
    n = 4 if legacy else 5
    if len(ins.operands) != n:
        form = "d[|p], a, b, c" + ("" if legacy else ", membermask")
        raise InputError(f"'{ins.opcode}' takes {n} operands ({form}), got {len(ins.operands)}", where)
    d, a, b, c = ins.operands[:4]
    dest, _, pred_out = (x.strip() for x in d.partition("|"))
    mask = ins.operands[4] if not legacy else "0xffffffff"
    return Site(flow.fn, ins, mode, legacy, dest, pred_out or None, a,
                Value(b, flow.const(b)), Value(c, flow.const(c)), Value(mask, flow.const(mask)))


def find_sites(module: Module) -> list[Site]:
    """Every shuffle of every function, in file order."""
    out = []
    for fn in module.functions:
        if fn.body:
            flow = Flow(fn)
            out.extend(s for s in (_site(flow, i, module.filename) for i in fn.instructions()) if s is not None)
    return out


# ----------------------------------------------------------------------------- chains

def _combine_fn(ins: Instruction) -> tuple[str | None, str, str | None]:
    """(fn, ptx type, why not) of a candidate combine instruction."""
    mods = ins.modifiers
    if not mods:
        return None, "", f"'{ins.opcode}' is not a combine"
    typ = mods[-1]
    if typ == "f32":
        fn = _F32_COMBINES.get(ins.base)
        extra = [m for m in mods[:-1] if m not in ("rn",) or ins.base != "add"]
        if fn and extra:
            return None, typ, f"'{ins.opcode}' has modifiers {extra} that redux.sync does not model"
        return fn, typ, None if fn else f"'{ins.opcode}' is not a combine"
    if ins.base == "mul" and mods[0] != "lo":
        return None, typ, f"'{ins.opcode}' is not a 32-bit combine"
    if len(mods) != (2 if ins.base == "mul" else 1):
        return None, typ, f"'{ins.opcode}' has modifiers that are not a plain combine"
    fn = _INT_COMBINES.get((ins.base, typ))
    return fn, typ, None if fn else f"'{ins.opcode}' is not a combine shflx knows"


def _link(flow: Flow, site: Site) -> tuple[Instruction, list[Instruction], str | None] | str:
    """The combine that merges this shuffle's result with its input, the moves on the way, and
    the guard predicate it runs under (the shuffle's own |p), or why there is none."""
    if site.legacy:
        return "legacy shfl without .sync"
    if site.ins.pred:
        return f"the shuffle is guarded by @{'!' if site.ins.neg else ''}{site.ins.pred}"
    moved, moves = {site.dest}, []
    src = flow.alias(site.src)
    users: list[int] = []
    frontier = [site.dest]
    while frontier:
        r = frontier.pop()
        for k in flow.uses.get(r, []):
            u = flow.body[k]
            if u.opcode in _MOVES and len(u.operands) == 2 and u.operands[1] == r and u.pred is None \
                    and flow.single_def(u.operands[0]) is u:
                moves.append(u)
                moved.add(u.operands[0])
                frontier.append(u.operands[0])
            else:
                users.append(k)
    if len(set(users)) != 1:
        return "the shuffled value is used by several instructions" if users else "the shuffled value is unused"
    comb = flow.body[users[0]]
    if len(comb.operands) != 3:
        return f"the shuffled value feeds '{comb.opcode}', not a two-operand combine"
    x, y = comb.operands[1], comb.operands[2]
    if not ((x in moved and flow.alias(y) == src) or (y in moved and flow.alias(x) == src)):
        return f"'{comb.opcode}' at line {comb.line} does not combine the shuffled value with the shuffle's input"
    if comb.pred and comb.pred != site.pred_out:
        return f"the combine is guarded by {comb.pred}, not by the shuffle's predicate"
    return comb, moves, comb.pred


def _step(site: Site, comb: Instruction) -> ChainStep | None:
    ops = site.operands
    if ops is None:
        return None
    fn, _, _ = _combine_fn(comb)
    guard = FULL_MASK
    if comb.pred:
        p = lanes_to_mask(ops.predicate())
        guard = (~p & FULL_MASK) if comb.neg else p
    return ChainStep(ops, fn, guard)


def find_chains(module: Module, sites: list[Site] | None = None) -> list[Chain]:
    """Chains of two or more linked steps, each with its collective (or the reason it has none)."""
    sites = find_sites(module) if sites is None else sites
    chains = []
    for fn in module.functions:
        if not fn.body:
            continue
        flow = Flow(fn)
        mine = [s for s in sites if s.function is fn]
        links = {id(s): _link(flow, s) for s in mine}
        by_input: dict[str, list[Site]] = {}
        for s in mine:
            by_input.setdefault(flow.alias(s.src), []).append(s)
        produced = {}
        for s in mine:
            lk = links[id(s)]
            if not isinstance(lk, str):
                produced[flow.alias(lk[0].dests()[0])] = s
        for s in mine:
            lk = links[id(s)]
            if isinstance(lk, str) or flow.alias(s.src) in produced:
                continue                               # not a chain start
            steps = [(s, lk)]
            seen = {id(s)}
            while True:
                out = flow.alias(steps[-1][1][0].dests()[0])
                nxt = [t for t in by_input.get(out, []) if not isinstance(links[id(t)], str)]
                if len(nxt) != 1 or id(nxt[0]) in seen:      # a loop-carried chain leads back to itself
                    break
                seen.add(id(nxt[0]))
                steps.append((nxt[0], links[id(nxt[0])]))
            if len(steps) >= 2:
                chains.append(_analyze(flow, steps))
    return chains


def _analyze(flow: Flow, steps: list) -> Chain:
    sites = [s for s, _ in steps]
    combines = [lk[0] for _, lk in steps]
    moves = [m for _, lk in steps for m in lk[1]]
    for site, comb in zip(sites[1:], combines):          # moves from a combine to the next shuffle
        r, done = site.src, comb.dests()[0]
        while r != done:
            d = flow.single_def(r)
            if d is None or d.opcode not in _MOVES:
                break
            moves.append(d)
            r = d.operands[1]
    fns = {_combine_fn(c)[0] for c in combines}
    types = {_combine_fn(c)[1] for c in combines}
    result = combines[-1].dests()[0]
    chain = Chain(flow.fn, sites, combines, moves, fns.pop() if len(fns) == 1 else None,
                  "/".join(sorted(types)), sites[0].src, result)
    notes: set[str] = set()
    chain.reason = _why_not(flow, chain, notes)
    if chain.reason is None:
        chain.steps = [_step(s, c) for s, c in zip(sites, combines)]
        chain.live, chain.live_why = _live(flow, chain, notes)
        got = classify(chain.steps, chain.live)
        if isinstance(got, str):
            chain.reason = got
        else:
            chain.collective = got
    chain.notes = sorted(notes)
    return chain


def _why_not(flow: Flow, chain: Chain, notes: set[str]) -> str | None:
    """Structural reasons a chain cannot be treated as one collective (None: it can)."""
    for c in chain.combines:
        fn, _, why = _combine_fn(c)
        if fn is None:
            return why
    if chain.fn is None:
        return f"mixes combine operators {sorted({_combine_fn(c)[0] for c in chain.combines})}"
    for s in chain.sites:
        for v, what in ((s.b, "b"), (s.c, "c"), (s.mask, "member mask")):
            if v.const is None:
                return f"runtime {what} operand {v.text} at line {s.line}"
    body = flow.body
    idx = sorted(flow.fn.index(i) for i in chain.instructions())
    first, last = idx[0], idx[-1]
    for k in range(first + 1, last):
        s = body[k]
        if flow.is_target(s):
            return f"label {s.name} between the steps (another path enters the chain)"
        if isinstance(s, Instruction) and s.base in ("bra", "brx", "ret", "exit", "call"):
            return f"'{s.opcode}' at line {s.line} between the steps"
    mine = {id(i) for i in chain.instructions()}
    for i in chain.instructions():           # every intermediate value stays inside the chain
        for r in i.dests():
            if i is chain.combines[-1] and r == chain.result:
                continue
            for k in flow.uses.get(r, []):
                if id(body[k]) not in mine:
                    return f"value {r} is used between steps (line {body[k].line})"
            if len(flow.defs.get(r, [])) != 1:
                return f"register {r} is assigned more than once"
    for r in {chain.input, flow.alias(chain.input)}:
        for k in flow.defs.get(r, []):
            if first < k < last:
                return f"the chain's input {r} is redefined at line {body[k].line} between the steps"
    return None


def _live(flow: Flow, chain: Chain, notes: set[str]) -> tuple[int, str]:
    """The lanes whose final value is read, and why: a lane condition, a broadcast, or every lane."""
    live, why, seen = 0, [], set()
    frontier = [chain.result]
    chain_ins = {id(i) for i in chain.instructions()}
    while frontier:
        r = frontier.pop()
        if r in seen:
            continue
        seen.add(r)
        for k in flow.uses.get(r, []):
            u = flow.body[k]
            if id(u) in chain_ins:
                continue
            lanes = flow.exec_lanes(k, notes)
            if u.base == "shfl":
                site = _site(flow, u, "<ptx>")     # already checked by find_sites
                if site is not None and site.src == r and r not in (site.b.text, site.c.text, site.mask.text) \
                        and site.operands is not None and u.pred is None:
                    src = site.operands.lane_map().src
                    members = mask_to_lanes(site.operands.member_mask, CUDA_WARP)
                    execs = mask_to_lanes(lanes, CUDA_WARP) & members
                    read = lanes_to_mask(np.isin(np.arange(CUDA_WARP), src[execs]))
                    live |= read
                    why.append(f"{site.cuda()} at line {u.line} reads lanes {_lanes_text(read)}")
                    continue
            if u.opcode in _MOVES and len(u.operands) == 2 and u.operands[1] == r and u.pred is None:
                frontier.append(u.operands[0])
                continue
            if u.base == "selp" and len(u.operands) == 4 and (u.operands[1] == r) != (u.operands[2] == r):
                must, may = flow.lane_bounds(u.operands[3], notes)   # selp d, a, b, p: a where p, else b
                lanes &= may if u.operands[1] == r else ~must & ALL_LANES
            live |= lanes
            why.append(f"line {u.line} ({u.base}) runs on lanes {_lanes_text(lanes)}")
    if not why:
        return ALL_LANES, "no use found: every lane kept"
    return live, "; ".join(why)


def _lanes_text(mask: int) -> str:
    if mask == ALL_LANES:
        return "all"
    lanes = np.flatnonzero(mask_to_lanes(mask, CUDA_WARP))
    return ",".join(str(x) for x in lanes) if len(lanes) <= 4 else f"{mask:#010x}"
