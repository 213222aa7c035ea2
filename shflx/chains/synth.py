"""Value-aware synthesis of a reduction or scan for one AMD target: build, prove, pick the cheapest.

A collective is built from stages. Each stage wants, per lane, the value of one other lane to
combine in, or the identity (a scan lane with nothing to add), or nothing (a lane whose value no
longer matters). The cheapest move for a stage comes from the shuffle synthesizer's candidates
(shflx.match.search) plus DPP16 moves whose `old` is the identity, so row_shr / row_bcast with
row masks and BC are found, not written in; identity lanes that no move covers get a select.
Families of stage sequences (spec/golden_sequences.yaml shows the production ones):
  butterfly   every lane combines a partner block, per stage the cheapest of xor and mirror maps;
  readlane    a butterfly up to the row totals, then the two row totals read as scalars;
  carry       (gfx9 row_bcast) row totals carried into the odd rows, then a readlane broadcast;
  row scan    row-local Hillis-Steele scan, then the previous row's total carried in;
  literal     the user's own chain, each shuffle lowered on its own (the never-worse fallback).
Every candidate is a Plan proven with the multiset semantics before it can win."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from ..combine import FNS
from ..lanes import LaneMap, ZERO, lanes_to_mask
from ..match.cost import chain_cost, folds_into_combine
from ..match.search import SearchReport, candidates, pool
from ..match.solvers import dpp16_solutions
from ..pattern import Collective, format_pattern
from ..plan import Combine, Plan, Readlane, Select, Step, UpdateDpp, Writelane, rename_steps
from ..target import Target

IDENT = -4          # a stage lane that must receive the identity (nothing to combine)
FREE = -5           # a stage lane whose result no longer matters
MAX_MOVES = 4       # cheapest move candidates kept per stage


@dataclass
class Builder:
    """Straight-line plan under construction; each stage appends steps with fresh ids."""

    target: Target
    fn: str
    steps: list[Step] = field(default_factory=list)
    value: str = "x"
    n: int = 0

    @property
    def wave(self) -> int:
        return self.target.wave

    def fresh(self, tag: str) -> str:
        self.n += 1
        return f"{tag}{self.n}"

    def cost(self) -> float:
        return chain_cost(self.target, self.steps)

    def plan(self, text: str) -> Plan:
        """The plan built so far, for the pattern `text`."""
        return Plan.made_for(self.target, text, tuple(self.steps), self.value, self.cost())




@lru_cache(maxsize=4096)
def _moves(target: Target, fn: str, want: bytes) -> tuple[tuple[tuple[Step, ...], str, bool], ...]:
    """Cheapest ways to deliver a stage's lanes: (steps from x, result id, needs a select).

    `want` is the stage's per-lane source (int16 bytes) with IDENT/FREE entries."""
    src = np.frombuffer(want, np.int16).astype(np.int64)
    ident, free = src == IDENT, src == FREE
    real = ~ident & ~free
    lanes = np.arange(target.wave)
    out: list[tuple[float, tuple[Step, ...], str, bool]] = []
    # a DPP16 move, from x or else from a cheap first move, whose invalid or masked-off lanes keep
    # `old` = the identity (LLVM folds it into the combine: GCNDPPCombine rule 2)
    keeps = {"identity": ident | free}
    want_src = np.where(real, src, -9)
    best: tuple[float, tuple[Step, ...]] | None = None
    firsts = [((), "x", lanes)]
    for attempt in ("from x", "from the pool"):
        if attempt == "from the pool":
            firsts = [(v.steps, v.ref, v.prov) for v in pool(target)]
        provs = np.array([f[2] for f in firsts])
        for n, sol in dpp16_solutions(target, provs, want_src, ~free, keeps):
            first, ref, _ = firsts[n]
            step = UpdateDpp("m", ref, sol.pop("old"), **sol)
            if FNS[fn].identity_is_zero and step.row_mask == 15 and step.bank_mask == 15:
                step = replace(step, bound_ctrl=1, old="undef")    # BC=1 injects the identity (rule 1)
            steps = tuple(first) + (step,)
            cost = chain_cost(target, steps + (Combine("c", fn, "x", "m"),))
            if best is None or cost < best[0]:
                best = (cost, steps)
        if best is not None:
            break
    if best is not None:
        out.append((best[0], best[1], "m", False))
        if len(best[1]) == 1 and folds_into_combine(best[1][0], fn):
            return ((best[1], "m", False),)        # a folded DPP operand: no move is cheaper
    # any shuffle the synthesizer finds for the real lanes; identity lanes then need a select
    if real.any():
        want = LaneMap(np.where(real, src, lanes), real)
        for cand in sorted(candidates(target, want, SearchReport()), key=lambda c: c.rank)[:MAX_MOVES]:
            out.append((cand.cost, cand.steps, cand.result, bool(ident.any())))
    if ident.any() and FNS[fn].identity_is_zero:     # an injected 0 is the identity: no select
        want = LaneMap(np.where(real, src, np.where(ident, ZERO, lanes)), ~free)
        for cand in sorted(candidates(target, want, SearchReport()), key=lambda c: c.rank)[:MAX_MOVES]:
            out.append((cand.cost, cand.steps, cand.result, False))
    return tuple((steps, ref, sel) for _, steps, ref, sel in out)


def stage(b: Builder, src: np.ndarray, combine: bool = True) -> None:
    """Append the cheapest stage: each lane combines (or, if not `combine`, takes) the value of
    lane src[i], or the identity (IDENT), or anything (FREE)."""
    best: tuple[float, list[Step], str] | None = None
    for steps, ref, needs_select in _moves(b.target, b.fn, src.astype(np.int16).tobytes()):
        tag = b.fresh("s")
        body, moved = rename_steps(steps, b.value, tag)
        holes = np.flatnonzero(src == IDENT)
        keep = lanes_to_mask(src != IDENT)
        result = moved
        if combine:
            body.append(Combine(f"{tag}.c", b.fn, b.value, moved))
            result = f"{tag}.c"
            if needs_select:                                   # identity lanes keep their value
                body.append(Select(f"{tag}.k", result, b.value, keep))
                result = f"{tag}.k"
        elif needs_select and len(holes) <= b.wave // 32:      # one lane per half: writelanes
            for k, lane in enumerate(holes.tolist()):
                body.append(Writelane(f"{tag}.w{k}", "identity", lane, result))
                result = f"{tag}.w{k}"
        elif needs_select:
            body.append(Select(f"{tag}.k", moved, "identity", keep))
            result = f"{tag}.k"
        cost = chain_cost(b.target, b.steps + body)
        if best is None or cost < best[0]:
            best = (cost, body, result)
    if best is None:
        raise RuntimeError("internal error: no move for a stage (the bpermute fallback always exists)")
    b.steps += best[1]
    b.value = best[2]


def broadcast(b: Builder, lane_in_half: int, combine_with: int | None = None) -> None:
    """Every lane takes lane `lane_in_half` of its 32-lane half (combined with lane
    `combine_with` of it when given): readlanes, scalar combines, a half select on wave64."""
    halves = []
    for h in range(0, b.wave, 32):
        r = b.fresh("r")
        b.steps.append(Readlane(r, b.value, h + lane_in_half))
        if combine_with is not None:
            r2 = b.fresh("r")
            b.steps.append(Readlane(r2, b.value, h + combine_with))
            c = b.fresh("u")
            b.steps.append(Combine(c, b.fn, r, r2))
            r = c
        halves.append(r)
    if len(halves) == 1:
        b.value = halves[0]
        return
    sel = b.fresh("h")
    b.steps.append(Select(sel, halves[0], halves[1], (1 << 32) - 1))
    b.value = sel


def _half_pos(wave: int) -> np.ndarray:
    return np.arange(wave) % 32


# ------------------------------------------------------------------------ families

def butterfly_stages(b: Builder, width: int, upto: int) -> None:
    """Reduction stages d = 1, 2, .. < upto: after stage d every aligned 2d block is reduced."""
    lanes = np.arange(b.wave)
    d = 1
    while d < min(upto, width):
        best_src = None
        for src in (lanes ^ d, lanes ^ (2 * d - 1)):       # xor, or the mirror inside the 2d block
            trial = Builder(b.target, b.fn, list(b.steps), b.value, b.n)
            stage(trial, src)
            if best_src is None or trial.cost() < best_src[0]:
                best_src = (trial.cost(), trial)
        b.steps, b.value, b.n = best_src[1].steps, best_src[1].value, best_src[1].n
        d *= 2


def family_butterfly(coll: Collective, target: Target, fn: str) -> Builder:
    b = Builder(target, fn)
    wave = target.wave
    if coll.bits:                       # strided: one xor stage per lane bit, lowest first
        lanes = np.arange(wave)
        for bit in range(5):
            if coll.bits >> bit & 1:
                stage(b, lanes ^ (1 << bit))
        return b
    butterfly_stages(b, coll.width, coll.width)
    return b


def family_readlane(coll: Collective, target: Target, fn: str) -> Builder | None:
    """Row totals by butterfly, then the two rows of each half read as scalars (width 32)."""
    if coll.width != 32 or coll.bits:
        return None
    b = Builder(target, fn)
    wave = target.wave
    butterfly_stages(b, 32, 16)
    live = _live(coll, wave)
    if not live[_half_pos(wave) >= 16].any():      # only row 0 of each half is used: one readlane
        halves = []
        for h in range(0, wave, 32):
            r = b.fresh("r")
            b.steps.append(Readlane(r, b.value, h + 16))
            halves.append(r)
        other = halves[0]
        if len(halves) == 2:
            other = b.fresh("h")
            b.steps.append(Select(other, halves[0], halves[1], (1 << 32) - 1))
        c = b.fresh("c")
        b.steps.append(Combine(c, fn, b.value, other))
        b.value = c
        return b
    broadcast(b, 0, 16)
    return b


def family_carry(coll: Collective, target: Target, fn: str) -> Builder | None:
    """Row totals, then row 0's total carried into row 1 of each half (row_bcast:15 on gfx9,
    whatever is cheapest elsewhere); a readlane broadcast when lanes of row 0 are live."""
    if coll.width != 32 or coll.bits:
        return None
    b = Builder(target, fn)
    wave = target.wave
    butterfly_stages(b, 32, 16)
    pos = _half_pos(wave)
    base = np.arange(wave) - pos
    stage(b, np.where(pos >= 16, base + 15, IDENT))
    if _live(coll, wave)[pos < 16].any():
        broadcast(b, 31)
    return b


def family_scan(coll: Collective, target: Target, fn: str, rows: bool) -> Builder | None:
    """Hillis-Steele: up-d stages over the whole width, or (`rows`, width 32) inside each row
    and then lane 15 of row 0 carried into row 1 (row_bcast:15 on gfx9, as ockl and LLVM's
    atomic optimizer do); an exclusive scan ends with an up-1 move."""
    if coll.kind != "scan" or (rows and coll.width != 32):
        return None
    b = Builder(target, fn)
    wave = target.wave
    pos = _half_pos(wave)
    lanes = np.arange(wave)
    w = 16 if rows else coll.width
    d = 1
    while d < w:
        stage(b, np.where(pos % w >= d, lanes - d, IDENT))
        d *= 2
    if rows:
        stage(b, np.where(pos >= 16, lanes - pos + 15, IDENT))
    if coll.exclusive:
        stage(b, np.where(pos % coll.width >= 1, lanes - 1, IDENT), combine=False)
    return b


def _live(coll: Collective, wave: int) -> np.ndarray:
    return coll.multisets(wave)[1]


def family_plans(coll: Collective, target: Target) -> list[tuple[str, Plan]]:
    """Every family's plan for the collective (unproven)."""
    fn = coll.fn
    text = format_pattern(coll)
    out: list[tuple[str, Plan]] = []
    builders: list[tuple[str, Builder | None]] = []
    if coll.kind == "reduce":
        builders += [("butterfly", family_butterfly(coll, target, fn)),
                     ("readlane", family_readlane(coll, target, fn)),
                     ("carry", family_carry(coll, target, fn))]
    else:
        if coll.width < 32:      # at width 32 every up-d stage crosses rows: the row scan dominates
            builders.append(("hillis-steele", family_scan(coll, target, fn, rows=False)))
        builders.append(("row scan + carry", family_scan(coll, target, fn, rows=True)))
    for name, b in builders:
        if b is not None:
            out.append((name, b.plan(text)))
    return out
