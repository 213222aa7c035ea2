"""Demanded lanes: for each shuffle site, the CUDA lanes on which its result can be observed.

A shuffle's lowering must be right only where its result matters, so the cheapest proven plan for
those lanes may be used (a down-tree read at lane 0 needs `down 1` only at lane 0: one DPP row
shift on gfx9 instead of ds_bpermute). The lanes come from a backward lane-liveness over SSA
values, as LLVM's demanded-bits analysis does for bits:
  - an instruction whose result in a lane depends only on its operands in that lane (arithmetic,
    compares, casts, per-lane intrinsics) passes its demand to its operands;
  - a phi passes it along each edge to the lanes that can take that edge; a select on a lane
    condition to the lanes that pick each arm;
  - a shuffle with a constant map demands its source lanes (a `__shfl_sync(v, 0)` broadcast: lane 0);
  - a conditional branch demands its condition where the phis of its join point (immediate
    post-dominator) are demanded, when the paths it chooses between only compute (no memory
    access, call, shuffle or loop): a lane that takes another path there changes nothing else;
  - anything else (a store, a load address, a call, a divisor, a return value) demands its operands
    on every lane that can run it: all lanes, or those of an enclosing branch on a lane condition
    (`if (lane == 0)`).
Lane sets are unions over the warps of a block, so a demand is a superset in every warp (sound).
Lane conditions read off threadIdx.x hold only where the CUDA lane is threadIdx.x % 32 (1-D
blocks, or blockDim.x a multiple of 32): `Demand.lanes` never reads them, `Demand.lanes_tid` does.
Text in, facts out (STYLE: the core is pure)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Mapping

from ..cuda import FULL_MASK
from .body import FunctionIR, module_functions
from .sites import Site, site_map
from .text import DEF, LABEL

# Instructions whose result in a lane is a function of their operands in that lane and that cannot
# trap: the demand of the result is the demand of each operand. Divisions pass it to the dividend
# only (a divisor of 0 is undefined behaviour: it is demanded wherever the division runs).
PER_LANE_OPS = {"add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub", "fmul",
                "fdiv", "frem", "fneg", "icmp", "fcmp", "zext", "sext", "trunc", "fptrunc", "fpext",
                "fptoui", "fptosi", "uitofp", "sitofp", "bitcast", "freeze", "extractvalue", "insertvalue",
                "extractelement", "insertelement", "shufflevector", "getelementptr", "ptrtoint",
                "inttoptr", "addrspacecast"}
DIVISIONS = {"udiv", "sdiv", "urem", "srem"}
# Intrinsics computed lane by lane without memory or cross-lane effects (LLVM LangRef; AMDGPU's
# IntrinsicsAMDGPU.td for the llvm.amdgcn math ones).
PER_LANE_INTRINSICS = ("smax", "smin", "umax", "umin", "abs", "fabs", "maxnum", "minnum", "maximum",
                       "minimum", "fma", "fmuladd", "exp", "exp2", "log", "log2", "sqrt", "ldexp",
                       "copysign", "floor", "ceil", "trunc", "rint", "round", "roundeven", "nearbyint",
                       "canonicalize", "is.fpclass", "ctpop", "ctlz", "cttz", "bitreverse", "bswap",
                       "fshl", "fshr", "sadd.with.overflow", "uadd.with.overflow", "ssub.with.overflow",
                       "usub.with.overflow", "smul.with.overflow", "umul.with.overflow", "sadd.sat",
                       "uadd.sat", "ssub.sat", "usub.sat", "frexp", "amdgcn.rcp", "amdgcn.rsq",
                       "amdgcn.sqrt", "amdgcn.exp2", "amdgcn.log", "amdgcn.ldexp", "amdgcn.fmed3",
                       "amdgcn.class", "amdgcn.frexp.mant", "amdgcn.frexp.exp", "amdgcn.fract",
                       "amdgcn.div.scale", "amdgcn.div.fmas", "amdgcn.div.fixup", "amdgcn.fdiv.fast",
                       "amdgcn.sin", "amdgcn.cos", "amdgcn.cvt.pkrtz", "amdgcn.fmul.legacy")
_INTRINSIC = re.compile(r"@llvm\.([\w.]+?)(?:\.[vifp]\d+\w*|\.f16|\.bf16)*\(")
_PHI_EDGE = re.compile(r"\[\s*([^,\]\s]+)\s*,\s*%([\w.\-]+)\s*\]")
_LITERAL = re.compile(r"true|false|-?\d+")


@dataclass(frozen=True)
class Demand:
    """The lanes (bit per CUDA lane) where a shuffle's result is used: `lanes` from lane conditions
    of the lane id alone; `lanes_tid` (a subset) also from threadIdx.x ones, true where the CUDA
    lane is threadIdx.x % 32."""

    lanes: int
    lanes_tid: int


@lru_cache(maxsize=4)
def module_demands(ir: str) -> Mapping[int, Demand]:
    """demanded_lanes of every shuffle site of `ir`, once per module text (the chain report and
    the site lowering both read them; read-only, shared)."""
    from .sites import find_sites
    return MappingProxyType(demanded_lanes(ir, find_sites(ir)))


def demanded_lanes(ir: str, sites: list[Site]) -> dict[int, Demand]:
    """The demanded lanes of every site in `sites`, keyed by its line index."""
    by_fn: dict[str, list[Site]] = {}
    for s in sites:
        by_fn.setdefault(s.function, []).append(s)
    module = module_functions(ir)
    out: dict[int, Demand] = {}
    for name, start, end, params in module.spans:
        mine = by_fn.get(name)
        if not mine:
            continue
        body = module.body(name, start, end, params)
        uses = _Uses(body, mine)
        exact = _Walk(uses, use_tid=False).run()
        with_tid = _Walk(uses, use_tid=True).run()
        for s in mine:
            out[s.line_index] = Demand(exact.get(s.result, FULL_MASK), with_tid.get(s.result, FULL_MASK)
                                       & exact.get(s.result, FULL_MASK))
    return out


def is_per_lane_call(inst: str) -> bool:
    """A call of an intrinsic computed lane by lane (PER_LANE_INTRINSICS)."""
    m = _INTRINSIC.search(inst)
    return bool(m) and "asm " not in inst.split("@", 1)[0] and m.group(1) in PER_LANE_INTRINSICS


class _Uses:
    """What the demand equations read of one function that does not depend on the demands: each
    value's uses as the equations see them (parsed once), the values they reach (the cone) and
    the clean joins of its branches. Shared by the two walks (lane id alone; threadIdx.x too)."""

    def __init__(self, body: FunctionIR, sites: list[Site]):
        self.body = body
        self.reads: dict[str, list[int] | None] = {}      # marker -> source lane of each lane (None: dynamic)
        for s in sites:
            mapped = site_map(s)
            self.reads[s.result] = None if mapped is None else [int(v) for v in mapped[1]]
        self.markers = {s.result: s for s in sites}
        self._transparent_memo: dict[str, bool] = {}
        self._join_memo: dict[int, tuple[str | None, list[str] | None]] = {}
        self._uses_memo: dict[str, list[tuple]] = {}

    def transparent(self, user: str) -> bool:
        """Does `user`'s demand flow into its operands (rather than all the lanes that run it)?"""
        known = self._transparent_memo.get(user)
        if known is None:
            inst = self.body.defs.get(user, "")
            op = inst.split()[0] if inst else ""
            known = self._transparent_memo[user] = (
                user in self.markers or op in PER_LANE_OPS or op in DIVISIONS or op in ("phi", "select")
                or op in ("call", "tail") and is_per_lane_call(inst))
        return known

    @cached_property
    def cone(self) -> tuple[set[str], dict[str, set[str]]]:
        """The values reachable from the shuffle results through transparent users and branches
        (the phis where a branch's paths meet), and for each value, whose demand reads its own."""
        body = self.body
        cone: set[str] = set()
        dependents: dict[str, set[str]] = {}
        todo = list(self.markers)
        while todo:
            tok = todo.pop()
            if tok in cone:
                continue
            cone.add(tok)
            for u in body.users.get(tok, []):
                if isinstance(u, str) and u in body.defs and self.transparent(u):
                    dependents.setdefault(u, set()).add(tok)
                    todo.append(u)
                elif isinstance(u, int) and (join := self.clean_join(tok, u)) is not None:
                    for phi in join:
                        dependents.setdefault(phi, set()).add(tok)
                        todo.append(phi)
        return cone, dependents

    def clean_join(self, cond: str, k: int) -> list[str] | None:
        """The phis at the join of the conditional branch on line `k` when `cond` is its
        condition and the paths between only compute; None otherwise."""
        if k not in self._join_memo:
            self._join_memo[k] = self._branch_join(k)
        branch_cond, phis = self._join_memo[k]
        return phis if branch_cond == cond else None

    def _branch_join(self, k: int) -> tuple[str | None, list[str] | None]:
        """(the condition of the conditional branch on line `k` or None, the phis at its join
        when the paths between only compute, else None)."""
        body = self.body
        m = _COND_BR.match(body.line(k).strip())
        if not m:
            return None, None
        block = body.block_at(k)
        region = body.branch_region(block)
        join = body.ipdom(block)
        if region is None or join is None:
            return m.group(1), None
        if not all(self.block_computes.get(b, True) for b in region):
            return m.group(1), None
        return m.group(1), list(self.phis_at.get(join, []))

    @cached_property
    def block_computes(self) -> dict[str, bool]:
        """Block -> whether each of its lines only computes (_only_computes)."""
        out: dict[str, bool] = {}
        for b, line in zip(self.body.block_of, self.body.lines):
            out[b] = out.get(b, True) and self._only_computes(line)
        return out

    @cached_property
    def phis_at(self) -> dict[str, list[str]]:
        """Block -> the phis it defines, in the order of the function's definitions."""
        body = self.body
        out: dict[str, list[str]] = {}
        for tok, kk in body.line_of.items():
            if body.defs[tok].startswith("phi "):
                out.setdefault(body.block_at(kk), []).append(tok)
        return out

    def _only_computes(self, line: str) -> bool:
        """A line a lane may run on a path it would not have taken: a label, an unconditional or
        conditional branch, debug info, or a per-lane computation that cannot trap."""
        text = line.strip()
        if not text or text.startswith((";", "br ", "#dbg_")) or LABEL.match(text):
            return True
        if text.startswith(("call void @llvm.dbg.", "tail call void @llvm.dbg.")):
            return True
        m = DEF.match(text)
        if not m:
            return False
        op = m.group(2).split()[0]
        if m.group(1) in self.markers:
            return False
        return op in PER_LANE_OPS or op in ("phi", "select") or op in ("call", "tail") and is_per_lane_call(m.group(2))

    def uses(self, tok: str) -> list[tuple]:
        """`tok`'s uses as the equations read them, in the order of body.users: (kind, ...) where
        kind says how the use's lanes follow from the demands (see _Walk.use_lanes)."""
        out = self._uses_memo.get(tok)
        if out is None:
            body = self.body
            out = []
            for u in body.users.get(tok, []):
                if isinstance(u, int):
                    out.append(self._line_use(tok, u))
                elif u in body.defs:
                    out.append(self._value_use(tok, u))
            self._uses_memo[tok] = out
        return out

    def _line_use(self, tok: str, k: int) -> tuple:
        """A use by a line that defines nothing: a branch condition, a store, a call, a return."""
        body = self.body
        text = body.line(k).strip()
        block = body.block_at(k)
        if text.startswith("br i1 "):
            return (_JOIN, block, tok, k)
        if text.startswith(("call ", "tail call ", "ret ")) or " call " in text.split("(", 1)[0]:
            return (_EVERY,)                        # a callee may read other lanes; a caller anything
        return (_RUNS, block)                       # store, switch, fence, atomics: the lanes that run it

    def _value_use(self, tok: str, user: str) -> tuple:
        body = self.body
        inst = body.defs[user]
        op = inst.split()[0]
        block = body.block_at(body.line_of[user])
        if not self.transparent(user):
            if op in ("call", "tail"):
                return (_EVERY,)
            return (_RUNS, block)                   # a load address, an alloca, an atomic...
        if user in self.markers:
            site = self.markers[user]
            reads = self.reads[user]
            if site.value != tok:                   # mask, b or c: where the shuffle runs
                return (_RUNS, block)
            if reads is None or site.value in (site.b.text, site.c.text, site.mask.text):
                return (_EVERY,)
            return (_READS, user, tuple(reads))
        if op == "phi":
            return (_PHI, user, block, tuple(pred for inc, pred in _PHI_EDGE.findall(inst) if inc == tok))
        if op == "select":
            cond, a, b = body.operands(inst)
            return (_SELECT, user, cond, tok == cond, tok == a, tok == b)
        if op in DIVISIONS:
            ops = body.operands(inst)
            if ops[1:] and ops[1] == tok:
                return (_RUNS, block)
        return (_WANT, user)


# _Uses' kinds of use: every lane; the lanes that run a block; the branch of a clean join; a
# shuffle's source lanes; a phi's edges; a select's arms; the user's own demand
_EVERY, _RUNS, _JOIN, _READS, _PHI, _SELECT, _WANT = range(7)
_COND_BR = re.compile(r"^br i1 (%[\w.\-]+), label")


class _Walk:
    """The fixed point of the demand equations over the values that can carry a shuffle result."""

    def __init__(self, uses: _Uses, use_tid: bool):
        self.uses, self.body, self.use_tid = uses, uses.body, use_tid
        self.markers = uses.markers
        self.demand: dict[str, int] = {}
        self._block_lanes: dict[str, int] = {}
        self._cond_lanes: dict[tuple[str, bool], int] = {}

    # ------------------------------------------------------------------ lanes that run a block
    def cond_lanes(self, cond: str, negate: bool) -> int:
        """Lanes where `cond` (negated) can be true; every lane when it is no lane condition."""
        key = (cond, negate)
        lanes = self._cond_lanes.get(key)
        if lanes is None:
            lanes = self._cond_lanes[key] = self._lanes_of_condition(cond, negate)
        return lanes

    def _lanes_of_condition(self, cond: str, negate: bool) -> int:
        if _LITERAL.fullmatch(cond):
            return FULL_MASK if (cond not in ("false", "0")) != negate else 0
        if not self.use_tid and self.body.from_tid(cond):
            return FULL_MASK
        lanes = self.body.lane_condition(cond, negate)
        return FULL_MASK if lanes is None else lanes

    def block_lanes(self, block: str, seen: frozenset[str] = frozenset()) -> int:
        """Lanes that can run `block`: through single-predecessor blocks up to branches on lane
        conditions (nested `if`s intersect); every lane where a block has several predecessors."""
        if block in self._block_lanes:
            return self._block_lanes[block]
        body = self.body
        lanes = FULL_MASK
        if body.preds.get(block, 0) == 1 and block not in seen:
            preds = [b for b, succ in body.successors.items() if block in succ]
            if len(preds) == 1:
                lanes = self.edge_lanes(preds[0], block, seen | {block})
        self._block_lanes[block] = lanes
        return lanes

    def edge_lanes(self, pred: str, succ: str, seen: frozenset[str] = frozenset()) -> int:
        """Lanes that can go from `pred` to `succ`: those that run `pred` and whose branch or
        switch at its end (on a lane condition) picks `succ`."""
        lanes = self.block_lanes(pred, seen)
        edge = self.body.edges.get((pred, succ))
        if edge is not None:
            return lanes & self.cond_lanes(edge[0], not edge[1])
        switch = self.body.switch_lanes(pred, succ)
        if switch is not None and (self.use_tid or not self.body.from_tid(switch[1])):
            return lanes & switch[0]
        return lanes

    # ------------------------------------------------------------------ the equations
    def run(self) -> dict[str, int]:
        cone, dependents = self.uses.cone
        work = list(cone)
        queued = set(work)
        while work:
            tok = work.pop()
            queued.discard(tok)
            new = self.demand.get(tok, 0) | self._from_uses(tok)
            if new != self.demand.get(tok, 0):
                self.demand[tok] = new
                for dep in dependents.get(tok, ()):
                    if dep not in queued:
                        queued.add(dep)
                        work.append(dep)
        return {m: self.demand.get(m, 0) for m in self.markers}

    def _from_uses(self, tok: str) -> int:
        """The lanes where some use of `tok` observes it, from the current demands of its users."""
        out = 0
        for use in self.uses.uses(tok):
            if out == FULL_MASK:
                break
            out |= self.use_lanes(use)
        return out

    def use_lanes(self, use: tuple) -> int:
        """The lanes where one use (_Uses.uses) observes its value, from the current demands."""
        kind = use[0]
        if kind == _WANT:
            return self.demand.get(use[1], 0)
        if kind == _RUNS:
            return self.block_lanes(use[1])
        if kind == _EVERY:
            return FULL_MASK
        if kind == _READS:
            want, reads = self.demand.get(use[1], 0), use[2]
            lanes = 0
            for lane in range(32):
                if want >> lane & 1:
                    lanes |= 1 << reads[lane]
            return lanes
        if kind == _PHI:
            want, block = self.demand.get(use[1], 0), use[2]
            lanes = 0
            for pred in use[3]:
                lanes |= want & self.edge_lanes(pred, block)
            return lanes
        if kind == _SELECT:
            _, user, cond, is_cond, is_a, is_b = use
            want = self.demand.get(user, 0)
            lanes = want if is_cond else 0
            if is_a:
                lanes |= want & self.cond_lanes(cond, False)
            if is_b:
                lanes |= want & self.cond_lanes(cond, True)
            return lanes
        _, block, tok, k = use                      # _JOIN: a conditional branch on the value
        join = self.uses.clean_join(tok, k)
        if join is None:
            return self.block_lanes(block)
        want = 0
        for phi in join:
            want |= self.demand.get(phi, 0)
        return want & self.block_lanes(block)


__all__ = ["Demand", "demanded_lanes", "module_demands", "PER_LANE_OPS", "DIVISIONS", "is_per_lane_call"]
