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
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

from ..cuda import FULL_MASK
from .body import FunctionIR
from .sites import Site, site_map
from .text import DEF, LABEL, constant_tables, function_waves, functions

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


@dataclass(frozen=True)
class Demand:
    """The lanes (bit per CUDA lane) where a shuffle's result is used: `lanes` from lane conditions
    of the lane id alone; `lanes_tid` (a subset) also from threadIdx.x ones, true where the CUDA
    lane is threadIdx.x % 32."""

    lanes: int
    lanes_tid: int


@lru_cache(maxsize=4)
@lru_cache(maxsize=4)
def module_demands(ir: str) -> Mapping[int, Demand]:
    """demanded_lanes of every shuffle site of `ir`, once per module text (the chain report and
    the site lowering both read them; read-only, shared)."""
    from .sites import find_sites
    return MappingProxyType(demanded_lanes(ir, find_sites(ir)))


def demanded_lanes(ir: str, sites: list[Site]) -> dict[int, Demand]:
    """The demanded lanes of every site in `sites`, keyed by its line index."""
    lines = ir.splitlines()
    by_fn: dict[str, list[Site]] = {}
    for s in sites:
        by_fn.setdefault(s.function, []).append(s)
    tables = constant_tables(lines)
    waves = function_waves(lines)
    out: dict[int, Demand] = {}
    for name, start, end, params in functions(lines):
        mine = by_fn.get(name)
        if not mine:
            continue
        body = FunctionIR(name, lines[start + 1:end], params, start + 1, tables, waves.get(name, 64))
        exact = _Walk(body, mine, use_tid=False).run()
        with_tid = _Walk(body, mine, use_tid=True).run()
        for s in mine:
            out[s.line_index] = Demand(exact.get(s.result, FULL_MASK), with_tid.get(s.result, FULL_MASK)
                                       & exact.get(s.result, FULL_MASK))
    return out


def is_per_lane_call(inst: str) -> bool:
    """A call of an intrinsic computed lane by lane (PER_LANE_INTRINSICS)."""
    m = _INTRINSIC.search(inst)
    return bool(m) and "asm " not in inst.split("@", 1)[0] and m.group(1) in PER_LANE_INTRINSICS


class _Walk:
    """The fixed point of the demand equations over the values that can carry a shuffle result."""

    def __init__(self, body: FunctionIR, sites: list[Site], use_tid: bool):
        self.body, self.use_tid = body, use_tid
        self.reads: dict[str, list[int] | None] = {}      # marker -> source lane of each lane (None: dynamic)
        for s in sites:
            mapped = site_map(s)
            self.reads[s.result] = None if mapped is None else [int(v) for v in mapped[1]]
        self.markers = {s.result: s for s in sites}
        self.demand: dict[str, int] = {}
        self._block_lanes: dict[str, int] = {}

    # ------------------------------------------------------------------ lanes that run a block
    def cond_lanes(self, cond: str, negate: bool) -> int:
        """Lanes where `cond` (negated) can be true; every lane when it is no lane condition."""
        if re.fullmatch(r"true|false|-?\d+", cond):
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
        cone, dependents = self._cone()
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

    def _transparent(self, user: str) -> bool:
        """Does `user`'s demand flow into its operands (rather than all the lanes that run it)?"""
        inst = self.body.defs.get(user, "")
        op = inst.split()[0] if inst else ""
        return (user in self.markers or op in PER_LANE_OPS or op in DIVISIONS or op in ("phi", "select")
                or op in ("call", "tail") and is_per_lane_call(inst))

    def _cone(self) -> tuple[set[str], dict[str, set[str]]]:
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
                if isinstance(u, str) and u in body.defs and self._transparent(u):
                    dependents.setdefault(u, set()).add(tok)
                    todo.append(u)
                elif isinstance(u, int) and (join := self._clean_join(tok, u)) is not None:
                    for phi in join:
                        dependents.setdefault(phi, set()).add(tok)
                        todo.append(phi)
        return cone, dependents

    def _clean_join(self, cond: str, k: int) -> list[str] | None:
        """The phis at the join of the conditional branch on line `k` when `cond` is its
        condition and the paths between only compute; None otherwise."""
        body = self.body
        m = re.match(r"^br i1 (%[\w.\-]+), label", body.line(k).strip())
        if not m or m.group(1) != cond:
            return None
        block = body.block_at(k)
        region = body.branch_region(block)
        join = body.ipdom(block)
        if region is None or join is None:
            return None
        for b, line in zip(body.block_of, body.lines):
            if b in region and not self._only_computes(line):
                return None
        return [tok for tok, kk in body.line_of.items()
                if body.block_at(kk) == join and body.defs[tok].startswith("phi ")]

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

    def _from_uses(self, tok: str) -> int:
        """The lanes where some use of `tok` observes it, from the current demands of its users."""
        body = self.body
        out = 0
        for u in body.users.get(tok, []):
            if out == FULL_MASK:
                break
            if isinstance(u, int):
                out |= self._line_use(tok, u)
            elif u in body.defs:
                out |= self._value_use(tok, u)
        return out

    def _line_use(self, tok: str, k: int) -> int:
        """A use by a line that defines nothing: a branch condition, a store, a call, a return."""
        body = self.body
        text = body.line(k).strip()
        block = body.block_at(k)
        if text.startswith("br i1 "):
            join = self._clean_join(tok, k)
            if join is None:
                return self.block_lanes(block)
            want = 0
            for phi in join:
                want |= self.demand.get(phi, 0)
            return want & self.block_lanes(block)
        if text.startswith(("call ", "tail call ", "ret ")) or " call " in text.split("(", 1)[0]:
            return FULL_MASK                        # a callee may read other lanes; a caller anything
        return self.block_lanes(block)              # store, switch, fence, atomics: the lanes that run it

    def _value_use(self, tok: str, user: str) -> int:
        body = self.body
        inst = body.defs[user]
        op = inst.split()[0]
        block = body.block_at(body.line_of[user])
        if not self._transparent(user):
            if op in ("call", "tail"):
                return FULL_MASK
            return self.block_lanes(block)          # a load address, an alloca, an atomic...
        want = self.demand.get(user, 0)
        if user in self.markers:
            site = self.markers[user]
            reads = self.reads[user]
            if site.value != tok:                   # mask, b or c: where the shuffle runs
                return self.block_lanes(block)
            if reads is None or site.value in (site.b.text, site.c.text, site.mask.text):
                return FULL_MASK
            lanes = 0
            for lane in range(32):
                if want >> lane & 1:
                    lanes |= 1 << reads[lane]
            return lanes
        if op == "phi":
            lanes = 0
            for inc, pred in _PHI_EDGE.findall(inst):
                if inc == tok:
                    lanes |= want & self.edge_lanes(pred, block)
            return lanes
        if op == "select":
            cond, a, b = body.operands(inst)
            lanes = want if tok == cond else 0
            if tok == a:
                lanes |= want & self.cond_lanes(cond, False)
            if tok == b:
                lanes |= want & self.cond_lanes(cond, True)
            return lanes
        if op in DIVISIONS:
            ops = body.operands(inst)
            return self.block_lanes(block) if ops[1:] and ops[1] == tok else want
        return want


__all__ = ["Demand", "demanded_lanes", "module_demands", "PER_LANE_OPS", "DIVISIONS", "is_per_lane_call"]
