"""Finding reduction and scan chains in AMDGPU LLVM IR (after clang -O), and their live lanes.

A chain step is a constant-map shuffle marker whose result is combined with the value it shuffled:
  %r = call @__shflx_shfl_sync(mode, -1, %v, b, c)      (bitcasts around it are looked through)
  %s = OP %r, %v  |  call @llvm.{s,u}{max,min}/maxnum/minnum(%r, %v)  |  select (icmp %r, %v), %r, %v
optionally guarded (a scan's `if (lane >= d)`): `select %cond, IDENTITY, %r` feeding OP, or
`select %cond, %s, %v` after it, with %cond a function of the lane id. The next step shuffles %s.
A final shuffle of the chain value guarded the same way without a combine is an exclusive scan's
shift. Live lanes: the lanes whose branch condition reaches the uses of the chain result (an
`if (lane == 0)` store), else every lane. Text in, facts out; rewriting is the compiler's job."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..lanes import lanes_to_mask
from ..combine import FNS
from ..cuda import FULL_MASK, ShflOperands
from ..chains.shape import ChainStep
from .body import FunctionIR, module_functions
from .sites import MODE_NAMES, Site
from .text import call_args

BINARY = {"add": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor", "fadd": "fadd", "fmul": "fmul"}
INTRINSICS = {"llvm.smax.i32": "smax", "llvm.smin.i32": "smin", "llvm.umax.i32": "umax",
              "llvm.umin.i32": "umin", "llvm.maxnum.f32": "fmax", "llvm.minnum.f32": "fmin"}
ICMP_FNS = {"sgt": "smax", "sge": "smax", "slt": "smin", "sle": "smin",
            "ugt": "umax", "uge": "umax", "ult": "umin", "ule": "umin"}



@dataclass
class Chain:
    """A recognized chain: its steps, the IR it spans and what is known about its uses."""

    function: str
    sites: list[Site]
    steps: tuple[ChainStep, ...]
    start: str                           # the i32 token the first shuffle reads
    result: str                          # the token holding the chain's final value
    result_line: int                     # module line index defining `result`
    type: str                            # i32 | float
    fn: str
    reassoc: bool                        # every combine carries `reassoc` (or `fast`)
    live: int = FULL_MASK
    live_note: str = "every lane (no lane condition guards the uses)"
    live_from_tid: bool = False          # the live lanes were read off threadIdx.x (lane = tid.x % 32)
    blockers: list[str] = field(default_factory=list)   # why it may not be re-synthesized
    guards: tuple[Guard | None, ...] = ()              # per step: its guard as written

    @property
    def from_tid(self) -> bool:
        """Whether what was recognized holds only where the CUDA lane is threadIdx.x % 32: live
        lanes or a step's guard read off threadIdx.x."""
        return self.live_from_tid or any(g is not None and g.from_tid for g in self.guards)

    @property
    def shape(self) -> str:
        modes = {s.operands.mode for s in self.steps}
        moves = any(s.fn is None for s in self.steps)
        if modes == {"bfly"}:
            return "butterfly"
        if modes == {"down"}:
            return "down-tree"
        if modes == {"up"}:
            return "exclusive up-scan" if moves else "up-scan"
        return "mixed"


_Body = FunctionIR        # the chain recognizer's name for a function's IR


def _identity_const(text: str, fn: str) -> bool:
    """Is the IR constant `text` the identity of `fn` (what an unguarded lane adds)?"""
    f = FNS[fn]
    if f.is_float:
        try:
            val = float(text)
        except ValueError:
            return False
        return np.float32(val).view(np.uint32) == f.identity or (fn == "fadd" and val == 0.0)
    if not re.fullmatch(r"-?\d+", text):
        return False
    return int(text) & 0xFFFFFFFF == f.identity


def _combine_of(body: _Body, tok: str, a: set[str], b: set[str]) -> str | None:
    """The combine fn when `tok` = OP(x, y) with x in a and y in b (either order)."""
    inst = body.defs.get(tok, "")
    if not inst:
        return None
    ops = body.operands(inst) if not inst.startswith(("call", "tail")) else call_args(inst)
    head = inst.split()[0]
    fn = None
    if head in BINARY:
        fn = BINARY[head]
    elif head in ("call", "tail"):
        callee = re.search(r"@([\w.]+)\(", inst)
        fn = INTRINSICS.get(callee.group(1)) if callee else None
    elif head == "select" and len(ops) == 3:
        cmp = body.defs.get(ops[0], "")
        if cmp.startswith("icmp "):
            pred = cmp.split()[1]
            x, y = body.operands(cmp)
            if pred in ICMP_FNS and (ops[1], ops[2]) == (x, y):
                fn = ICMP_FNS[pred]
            elif pred in ICMP_FNS and (ops[1], ops[2]) == (y, x):
                fn = {"smax": "smin", "smin": "smax", "umax": "umin", "umin": "umax"}[ICMP_FNS[pred]]
            ops = ops[1:]
    if fn is None or len(ops) != 2:
        return None
    if (ops[0] in a and ops[1] in b) or (ops[0] in b and ops[1] in a):
        return fn
    return None



@dataclass(frozen=True)
class Guard:
    """A step's guard as the IR writes it, to run the chain as written where the recognized lanes
    may not hold: `select cond, ARM, ARM` after the combine (`where` "after": arms "combined",
    "own", "moved"), on the moved value before it ("before": "moved" or an identity constant,
    the select feeding the combine), or a move's ("move": "moved" or an identity constant)."""

    where: str
    cond: str
    arms: tuple[str, str]                # (if cond is true, if false)
    from_tid: bool                       # the lanes were read off threadIdx.x


@dataclass
class _Step:
    site: Site
    step: ChainStep
    out: str                 # token holding the value after this step
    own: set[str]            # tokens this step defines (marker, casts, selects, combine)
    reassoc: bool
    type: str
    guard: Guard | None = None


def _guard_select(body: _Body, tok: str, moved: set[str], fn: str | None) -> tuple[int, str, bool] | None:
    """`tok` = select %cond, A, B with one arm in `moved` and the other the identity (or, when
    fn is None, any identity): (lanes taking the moved arm, cond, moved-arm-when-true)."""
    inst = body.defs.get(tok, "")
    if not inst.startswith("select "):
        return None
    cond, a, b = body.operands(inst)
    consts = re.findall(r"(?:i32|float|half|double) ([^,\s]+)", inst)
    for moved_arm, other, when_true in ((a, b, True), (b, a, False)):
        if moved_arm in moved and other not in moved and other in consts + [other]:
            if fn is not None and not _identity_const(other, fn):
                continue
            lanes = body.lane_condition(cond, exact=True)
            if lanes is None:
                return None
            return (lanes if when_true else ~lanes & FULL_MASK), cond, when_true
    return None


def _step_at(body: _Body, site: Site) -> _Step | None:
    """Recognize the combine (and guard) that consumes `site`'s shuffle."""
    mode = MODE_NAMES[site.mode.value & 3]
    mask = site.mask.value & 0xFFFFFFFF if site.mask.kind == "const" else 0   # runtime: never full
    operands = ShflOperands(mode, site.b.value & 0xFFFFFFFF, site.c.value & 0xFFFFFFFF, mask)
    moved = body.aliases(site.result)
    value = body.aliases(site.value)
    users = {u for t in moved for u in body.users.get(t, []) if isinstance(u, str) and u not in moved}
    for u in sorted(users, key=lambda t: body.line_of.get(t, 0)):
        inst = body.defs.get(u, "")
        fn = _combine_of(body, u, moved, value)
        if fn is not None:                     # unguarded combine, or guarded after it
            own = moved | {u}
            step = ChainStep(operands, fn)
            out = u
            guard = None
            for g in body.users.get(u, []):
                if isinstance(g, str) and body.defs.get(g, "").startswith("select "):
                    cond, a, b = body.operands(body.defs[g])
                    pred = _predicate_lanes(body, cond, operands)
                    # `@p add` after `shfl.sync ... r|p`: where p is false, r is the lane's own value
                    others = value | (moved if pred is not None else set())
                    if {a, b} <= ({u} | others) and a != b:
                        lanes = pred if pred is not None else body.lane_condition(cond, exact=True)
                        if lanes is not None:
                            keep = lanes if a == u else ~lanes & FULL_MASK
                            step, out = ChainStep(operands, fn, keep), g
                            own.add(g)
                            arm = {t: ("combined" if t == u else "own" if t in value else "moved") for t in (a, b)}
                            guard = Guard("after", cond, (arm[a], arm[b]), pred is None and body.from_tid(cond))
                            break
            return _Step(site, step, out, own, "reassoc" in inst or " fast " in inst, _type_of(inst), guard)
        if inst.startswith("select "):         # guard first: select %c, IDENTITY, %r -> OP(sel, v)
            for fn_user in body.users.get(u, []):
                if not isinstance(fn_user, str):
                    continue
                fn = _combine_of(body, fn_user, body.aliases(u), value)
                if fn is None:
                    continue
                guard = _guard_select(body, u, moved, fn)
                if guard is None:
                    continue
                text = body.defs[fn_user]
                return _Step(site, ChainStep(operands, fn, guard[0]), fn_user, moved | {u, fn_user},
                             "reassoc" in text or " fast " in text, _type_of(text), _written(body, u, moved, "before"))
            guard = _guard_select(body, u, moved, None)
            if guard is not None:                # a guarded move: an exclusive scan's shift
                return _Step(site, ChainStep(operands, None, guard[0]), u, moved | {u}, True,
                             _type_of(body.defs[u]), _written(body, u, moved, "move"))
    return None


def _written(body: _Body, tok: str, moved: set[str], where: str) -> Guard:
    """The guard `tok` = select %cond, A, B as written: each arm the moved value or a constant."""
    cond, a, b = body.operands(body.defs[tok])
    return Guard(where, cond, tuple("moved" if t in moved else t for t in (a, b)), body.from_tid(cond))


def _predicate_lanes(body: _Body, cond: str, operands: ShflOperands) -> int | None:
    """Lanes where `cond` is this shuffle's own PTX predicate (`shflx.inrange.MODE(b, c)`)."""
    m = re.match(r"^call i1 @shflx\.inrange\.(\w+)\(i32 (-?\d+), i32 (-?\d+)\)", body.defs.get(cond, ""))
    if not m or (m.group(1), int(m.group(2)) & 0xFFFFFFFF, int(m.group(3)) & 0xFFFFFFFF) != \
            (operands.mode, operands.b, operands.c):
        return None
    return lanes_to_mask(operands.predicate())


# 16-bit float types by their CUDA names, as reports give them (NVIDIA's __hadd2 is PTX add.f16x2:
# one fadd on <2 x half>)
CUDA_TYPE = {"half": "__half", "<2 x half>": "__half2", "bfloat": "__nv_bfloat16", "<2 x bfloat>": "__nv_bfloat162"}


def _type_of(inst: str) -> str:
    """The value type an instruction computes on: an LLVM scalar type, or a 16-bit float type or
    pair by its CUDA name."""
    m = re.search(r"<2 x (?:half|bfloat)>|\b(?:i32|float|half|bfloat|double|i64|i16)\b", inst)
    return "?" if m is None else CUDA_TYPE.get(m.group(0), m.group(0))


def find_chains(ir: str, sites: list[Site]) -> list[Chain]:
    """Chains of two or more steps among `sites` (constant maps; any mask, reported)."""

    by_fn: dict[str, list[Site]] = {}
    for s in sites:
        if s.constant_map and s.b.kind == "const" and s.c.kind == "const":
            by_fn.setdefault(s.function, []).append(s)
    chains: list[Chain] = []
    module = module_functions(ir)
    for name, start, end, params in module.spans:
        fsites = by_fn.get(name)
        if not fsites:
            continue
        body = module.body(name, start, end, params)
        readers = {s.result: _read_lanes(s) for s in fsites
                   if s.mask.kind == "const" and s.mask.value & FULL_MASK == FULL_MASK}
        where = {s.result: s.location for s in fsites}
        where.update({("b", s.result): s.b.text for s in fsites})      # a reader's source-lane operand
        steps = {s.result: st for s in fsites if (st := _step_at(body, s)) is not None}
        by_value = {}
        for st in steps.values():
            for alias in body.aliases(st.site.value):
                by_value.setdefault(alias, []).append(st)
        used = set()
        for s in sorted(fsites, key=lambda s: s.line_index):
            if s.result in used or s.result not in steps:
                continue
            run = [steps[s.result]]
            while run[-1].step.fn is not None:
                nxt = list({st.site.result: st for a in body.aliases(run[-1].out) for st in by_value.get(a, [])
                            if st.site.result not in used and st is not run[-1]}.values())
                if len(nxt) != 1:
                    break
                run.append(nxt[0])
            if len(run) < 2 or any(st.step.fn is None for st in run[:-1]):
                continue
            used |= {st.site.result for st in run}
            chains.append(_make_chain(body, run, readers, where))
    return chains


def _make_chain(body: _Body, run: list[_Step], readers: dict[str, int], where: dict[str, str]) -> Chain:
    fns = {st.step.fn for st in run if st.step.fn is not None}
    fn = sorted(fns)[0]
    combines = [st for st in run if st.step.fn is not None]
    chain = Chain(body.name, [st.site for st in run], tuple(st.step for st in run), run[0].site.value,
                  run[-1].out, body.line_of[run[-1].out], combines[-1].type, fn,
                  all(st.reassoc for st in combines), guards=tuple(st.guard for st in run))
    if len(fns) > 1:
        chain.blockers.append(f"mixes combine operators {sorted(fns)}")
    if any(st.site.mask.kind != "const" for st in run):
        chain.blockers.append("a runtime member mask (e.g. a cooperative-groups tile mask): only "
                              "constant full-warp masks are re-synthesized")
    if chain.type not in ("i32", "float"):
        chain.blockers.append(f"{chain.type} values (only i32 and float chains are re-synthesized)")
    inside = set().union(*(st.own for st in run))
    result = body.aliases(chain.result)
    for k, st in enumerate(run):    # every value the chain computes but its result: used only inside
        # (a re-synthesized chain leaves them behind as dead copies: a use elsewhere would read one)
        mine = body.aliases(st.site.result) | set().union(*(body.aliases(tok) for tok in st.own))
        if k < len(run) - 1:
            mine |= body.aliases(st.out)
        for tok in sorted(mine - result):
            if any(u not in inside and not (isinstance(u, str) and u in body.aliases(st.out))
                   and not _is_marker_of(u, run) for u in body.users.get(tok, [])):
                chain.blockers.append(f"an intermediate value ({tok}) is used between the steps or after the chain")
                break
    blocks = {body.block_of[st.site.line_index - body.first] for st in run}
    if len(blocks) > 1:
        chain.blockers.append("the steps are not in one basic block")
    deciders: list[str] = []
    chain.live, chain.live_note = _liveness(body, chain, readers, where, deciders)
    chain.live_from_tid = chain.live != FULL_MASK and any(body.from_tid(t) for t in deciders)
    return chain


def _select_lanes(body: _Body, tok: str, value: set[str]) -> int | None:
    """Lanes where `select %c, A, B` passes the chain value on (the other arm does not read it)."""
    cond, a, b = body.operands(body.defs[tok])
    if (a in value) == (b in value) or cond in value:
        return None
    return body.lane_condition(cond, negate=b in value)


def _read_lanes(site: Site) -> int:
    """The lanes a constant-map full-mask shuffle reads (its source lanes)."""
    from ..ir.sites import site_map

    _, src = site_map(site)
    return sum(1 << int(j) for j in set(np.asarray(src).tolist()))


def _is_marker_of(user: str | int, run: list[_Step]) -> bool:
    return any(user == st.site.result for st in run)


# Instructions whose result in a lane depends only on their operands in that lane: the lanes that
# need such a result are the lanes that need its operands, so liveness flows through them.
PER_LANE_OPS = {"add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or",
                "xor", "fadd", "fsub", "fmul", "fdiv", "frem", "fneg", "icmp", "fcmp", "select", "phi",
                "zext", "sext", "trunc", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
                "bitcast", "freeze", "extractvalue", "insertvalue", "extractelement", "insertelement"}
PER_LANE_INTRINSICS = ("@llvm.smax.", "@llvm.smin.", "@llvm.umax.", "@llvm.umin.", "@llvm.abs.",
                       "@llvm.fabs.", "@llvm.maxnum.", "@llvm.minnum.", "@llvm.maximum.", "@llvm.minimum.",
                       "@llvm.fma.", "@llvm.fmuladd.")


def _per_lane(body: _Body, tok: str) -> bool:
    op = body.op(tok)
    if op in ("call", "tail"):
        inst = body.defs[tok]
        return any(i in inst for i in PER_LANE_INTRINSICS)
    return op in PER_LANE_OPS


def _block_lanes(body: _Body, block: str) -> int | None:
    """Lanes that can run `block` when it is entered only from a branch on a lane condition;
    None when it is not (several predecessors, or a condition that is not a lane condition)."""
    guard = body.branch_to.get(block)
    if guard is None or body.preds.get(block, 0) != 1:
        return None
    _, cond, taken = guard
    return body.lane_condition(cond, negate=not taken)


def _edge_lanes(body: _Body, pred: str, succ: str, deciders: list[str]) -> int:
    """Lanes that can go from block `pred` to `succ`: those that can run `pred`, and of those the
    ones whose branch at the end of `pred` picks `succ` (every lane where either is unknown)."""
    lanes = _block_lanes(body, pred)
    if lanes is None:
        lanes = FULL_MASK
    else:
        deciders.append(body.branch_to[pred][1])
    edge = body.edges.get((pred, succ))
    if edge is not None:
        taken = body.lane_condition(edge[0], negate=not edge[1])
        if taken is not None:
            lanes &= taken
            deciders.append(edge[0])
    return lanes


def _liveness(body: _Body, chain: Chain, readers: dict[str, int], where: dict,
              deciders: list[str]) -> tuple[int, str]:
    """Lanes that read the chain result: the union over its uses of the lanes whose branch
    condition leads to the use (an `if (lane == 0)` store) or that a constant-map shuffle reads
    (a `__shfl_sync(v, 0)` broadcast); every lane when any use is unguarded.

    Uses are followed through per-lane instructions and phis (a result merged after `if (warp ==
    0)`, accumulated in a loop, stored under `if (tid == 0)`): such a value in a lane needs the
    chain result only in that lane. Along the way the lanes that can hold the chain result are
    narrowed by each phi edge's block guard (a phi takes the value only from lanes that came
    along that edge); a use contributes its own lanes within those. Each lane set is a union over
    warps, so their intersection still bounds the live lanes of every warp (sound). `deciders`
    gets the tokens the lanes were read off (conditions, the readers' source-lane operands)."""
    walk = _LiveUses(body, chain, readers, where, deciders)
    verdict = walk.run()
    if verdict is not None:
        return verdict
    if not walk.conds:
        return FULL_MASK, "every lane (no use found)"
    how = " through phis" if walk.through_phi else ""
    return walk.live, f"lanes {walk.live:#x} (the result is used only under conditions on the lane{how})"


class _LiveUses:
    """_liveness's walk over the uses of the chain result: the live lanes found, the conditions they
    were read off, whether a phi was passed, and per value the lanes where it may hold the result."""

    def __init__(self, body: _Body, chain: Chain, readers: dict[str, int], where: dict, deciders: list[str]):
        self.body, self.readers, self.where, self.deciders = body, readers, where, deciders
        self.steps_block = body.block_of[max(s.line_index for s in chain.sites) - body.first]
        self.live = 0
        self.conds: list[str] = []
        self.through_phi = False
        self.holds: dict[str, int] = {}            # value -> lanes where it may hold the chain result
        self.todo = [(chain.result, FULL_MASK)]

    def run(self) -> tuple[int, str] | None:
        """Follow every use; the every-lane verdict of an unguarded use, or None when all are bounded."""
        while self.todo:
            value, lanes_in = self.todo.pop()
            if value in self.holds and lanes_in & ~self.holds[value] == 0:
                continue
            lanes_in |= self.holds.get(value, 0)
            values = self.body.aliases(value)
            for v in values:
                self.holds[v] = lanes_in
            for tok in values:
                for u in self.body.users.get(tok, []):
                    if isinstance(u, str) and (u in values or self.value_use(u, values, lanes_in)):
                        continue
                    verdict = self.final_use(u, lanes_in)
                    if verdict is not None:
                        return verdict
        return None

    def value_use(self, u: str, values: Any, lanes_in: int) -> bool:
        """A use whose lanes are read off it or followed on: another shuffle (its source lanes), a lane
        select (`lane == 0 ? v : 0`), a phi (the lanes of the edges the value comes along), or a
        per-lane instruction. False for anything else."""
        body = self.body
        if u in self.readers:
            self.live |= self.readers[u] & lanes_in
            self.deciders.append(self.where.get(("b", u), ""))
            self.conds.append(f"the shuffle at {self.where.get(u, u)}")
            return True
        if body.op(u) == "select":
            picked = _select_lanes(body, u, values)
            if picked is not None:
                self.live |= picked & lanes_in
                self.deciders.append(body.operands(body.defs[u])[0])
                self.conds.append(body.operands(body.defs[u])[0])
                return True
        if body.op(u) == "phi":
            self.through_phi = True
            edge = 0
            phi_block = body.block_of[body.line_of[u] - body.first]
            for inc, pred in re.findall(r"\[\s*([^,\]\s]+)\s*,\s*%([\w.\-]+)\s*\]", body.defs[u]):
                if inc in values:
                    edge |= _edge_lanes(body, pred, phi_block, self.deciders)
            self.todo.append((u, lanes_in & edge))
            return True
        if _per_lane(body, u):
            self.todo.append((u, lanes_in))
            return True
        return False

    def final_use(self, u: Any, lanes_in: int) -> tuple[int, str] | None:
        """A use that is not followed (a store, a call, ...): the lanes of its block's guard; where
        there is none (or it is where the steps run: the sunk combine) and the value may be in every
        lane, the every-lane verdict."""
        body = self.body
        line = body.line_of[u] if isinstance(u, str) else u
        block = body.block_of[line - body.first]
        lanes = None if block == self.steps_block else _block_lanes(body, block)
        if lanes is None:
            if lanes_in == FULL_MASK:
                guard = body.branch_to.get(block)
                if guard is not None and body.preds.get(block, 0) == 1 and block != self.steps_block:
                    return FULL_MASK, "every lane (a use under a condition that is not a lane condition)"
                return FULL_MASK, f"every lane ({'through a phi' if self.through_phi else 'an unguarded use'})"
            lanes = FULL_MASK
            self.conds.append("the phi edges' branch conditions")
        else:
            self.deciders.append(body.branch_to[block][1])
            self.conds.append(body.branch_to[block][1])
        self.live |= lanes & lanes_in
        return None
