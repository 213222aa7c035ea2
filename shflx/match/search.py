"""The synthesizer: the cheapest proven AMD step sequence for a constant lane map.

Order of the search (cheapest families first; every candidate is a full plan with a cost):
  0. nothing to do (the map is the identity on the care-set);
  1. one step from x: DPP16 (every legal control, BC, `old` = x keeps CUDA's own-value lanes,
     row/bank masks), DPP8, permlane16/x16, ds_swizzle, readlane broadcasts;
  2. two steps: a pool of cheap first moves (full-mask DPP16, DPP8 xors, permlanex16 row swap,
     gfx950 permlane16.swap), then any final one-step solver on what the first move produced;
  3. two pool values merged by a lane select (v_cndmask), or a value fixed up on the lanes it gets
     wrong (one move, two moves, or a ds_swizzle while the best plan is the fallback);
     3b. on GFX8/9, a shift across 16-lane rows as a per-row shift plus interleaved wave-shift
     chains (match.shifts), also after a permutation inside rows, and the row swap as two of them;
     3c. a value right on all but a few lanes, those written by v_writelane from v_readlane;
  4. while the best plan still uses the LDS: a cross-row move without the LDS (gfx950 permlane16
     swap halves, the row swap; gfx10+ permlanex16), then stages 1-2 for the rest (gfx950: the
     row swap's select folded into the last DPP move of the rest, select_folded);
  ds_bpermute, always correct (the exact fallback), priced with its address table.
Candidates are ranked by (cost, LDS use, steps); the best one is proven before it is returned,
and a refuted candidate (a shflx bug) falls through to the next (DESIGN decision 6). With
`--prefer lds-free` (Target.prefer) plans without an LDS op rank first, and every stage prunes
against the cheapest of those."""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from ..amd.primitives import LDS_OPS
from ..amd.swizzle import rotate_wrap_relied_on
from ..emulate import Provenance, Trace, result
from ..lanes import LaneMap, ZERO, lanes_to_mask
from ..plan import (DsBpermute, DsSwizzle, MovDpp8, Permlane16, Permlane16Swap, Permlane16Var, Permlanex16,
                    Permlanex16Var, Plan, Readlane, Select, Step, UpdateDpp, Writelane)
from ..target import Target
from .cost import folds_into_combine, steps_cost
from .shifts import shift_pair_plans, shift_plans
from .solvers import (batch_group_selectors, dpp16_after_many, dpp16_solutions, dpp_table, lane_bits, solve_any,
                      solve_readlane, solve_swizzle)

ROW_SWAP = dict(sel_lo=0x76543210, sel_hi=0xFEDCBA98)
FIXUP_TRIES = 6        # values (by lanes already right) tried as the base of a select fix-up
FIXUP_TWO_STEP_TRIES = 2   # of those, the bases whose remaining lanes may take a two-step fix
MAX_REPEAT = 4         # a cheap full-wave move applied up to this many times (gfx9 wave_shr:1 x d)
MAX_REPEAT_LDS_FREE = 16   # with --prefer lds-free: up to a whole row (the row swap's two halves)


def cheapest(target: Target) -> float:
    return min(target.cost("dpp_mov"), target.cost("valu"))


@dataclass(frozen=True)
class Candidate:
    steps: tuple[Step, ...]
    result: str
    cost: float
    stage: str

    @property
    def rank(self) -> tuple[float, bool, int, bool]:
        """Cheapest first; ties: no LDS (an LDS-crossbar op also waits behind the kernel's own LDS
        traffic, which the model does not see), fewer steps, then a final move LLVM can fold."""
        folds = bool(self.steps) and folds_into_combine(self.steps[-1], None)
        return (self.cost, self.uses_lds, len(self.steps), not folds)

    @property
    def uses_lds(self) -> bool:
        return any(s.op in LDS_OPS for s in self.steps)


@dataclass(frozen=True, eq=False)
class PoolValue:
    steps: tuple[Step, ...]
    ref: str
    prov: np.ndarray
    cost: float


@dataclass
class SearchReport:
    candidates: int = 0
    pool: int = 0


def _plan(target: Target, steps: tuple[Step, ...], ref: str) -> Plan:
    return Plan.made_for(target, "", steps, ref, steps_cost(target, steps))


def provenance(target: Target, steps: tuple[Step, ...], ref: str) -> np.ndarray:
    return result(_plan(target, steps, ref), Provenance(target.wave), Trace())


def _acc(prov: np.ndarray, want: LaneMap) -> np.ndarray:
    """acc[i, j]: lane i is right when it reads lane j of a value with provenance `prov`."""
    return (prov[None, :] == want.src[:, None]) | ~want.care[:, None]


def _keep(prov: np.ndarray, want: LaneMap) -> np.ndarray:
    return (prov == want.src) | ~want.care


@lru_cache(maxsize=32)
def pool(target: Target) -> tuple[PoolValue, ...]:
    """Cheap first moves from x, one per distinct resulting lane map (memoized per target)."""
    wave = target.wave
    seen: dict[bytes, PoolValue] = {}

    def keep(steps: tuple[Step, ...], prov: np.ndarray) -> None:
        cost = steps_cost(target, steps)
        key = prov.astype(np.int8).tobytes()
        if key not in seen or seen[key].cost > cost:
            seen[key] = PoolValue(steps, "p", prov, cost)

    # full-mask DPP16 moves straight from the control table (spec §3.3 with all lanes active):
    # BC=1 writes 0 where the source is out of range, BC=0 with old = x keeps the lane's own value
    t = dpp_table(target)
    lanes = np.arange(wave)
    for k, c in enumerate(t.ctrls.tolist()):
        keep((UpdateDpp("p", "x", "undef", c, 15, 15, 1),), np.where(t.valid[k], t.src[k], ZERO))
        keep((UpdateDpp("p", "x", "x", c, 15, 15, 0),), np.where(t.valid[k], t.src[k], lanes))
    raw: list[tuple[Step, ...]] = []
    if target.has("dpp8"):
        for k in range(4, 8):
            raw.append((MovDpp8("p", "x", sum(((j ^ k) << (3 * j)) for j in range(8))),))
    if target.has("permlane16"):
        raw.append((Permlanex16("p", "x", "undef", fi=0, bound_ctrl=0, **ROW_SWAP),))
    if target.has("permlane_swap") and wave == 64:
        for take in (0, 1):
            raw.append((Permlane16Swap("p", "x", "x", 0, 0, take),))
    for steps in raw:
        keep(steps, provenance(target, steps, "p"))
    return tuple(sorted(seen.values(), key=lambda v: v.cost))


@lru_cache(maxsize=32)
def repeated(target: Target) -> tuple[PoolValue, ...]:
    """Single full-mask DPP16 moves with BC=1 (lanes out of range read 0) applied 2..MAX_REPEAT
    times: gfx9 wave_shr:1 x d is an up-d shift across the whole wave, which a select with x
    turns into CUDA's up/down at width 32 without ds_bpermute (issue 14). Only moves that shift
    the whole wave or a row are iterated (their powers are new maps; xmask/mirror powers are not)."""
    out: dict[bytes, PoolValue] = {}
    wave = target.wave
    lanes = np.arange(wave)
    t = dpp_table(target)
    for k, c in enumerate(t.ctrls.tolist()):
        if c not in _SHIFT_CTRLS:
            continue
        step = np.where(t.valid[k], t.src[k], ZERO)
        prov = lanes.copy()
        steps: tuple[Step, ...] = ()
        for n in range(1, (MAX_REPEAT_LDS_FREE if target.lds_free_first else MAX_REPEAT) + 1):
            prov = np.where(step >= 0, prov[np.clip(step, 0, wave - 1)], ZERO)
            src = "x" if n == 1 else f"p{n - 1}"
            steps = steps + (UpdateDpp(f"p{n}", src, "undef", c, 15, 15, 1),)
            if n == 1:
                continue
            v = PoolValue(steps, f"p{n}", prov.copy(), steps_cost(target, steps))
            key = prov.astype(np.int8).tobytes()
            if key not in out or out[key].cost > v.cost:
                out[key] = v
    return tuple(sorted(out.values(), key=lambda v: v.cost))


# DPP16 controls that move data by one lane across the row or the wave (spec §3.3):
# row_shl/shr:1 (0x101, 0x111), wave_shl/rol/shr/ror:1 (0x130, 0x134, 0x138, 0x13C)
_SHIFT_CTRLS = frozenset({0x101, 0x111, 0x130, 0x134, 0x138, 0x13C})


def var_permlanes(target: Target, want: LaneMap) -> tuple[Step, ...] | None:
    """Any map that stays inside 32-lane halves as v_permlane16_var + v_permlanex16_var with one
    shared per-lane selector (the source lane; only its bits [3:0] are read, spec §9) merged by a
    select on the lanes whose source is in their own row (gfx12, issue 14)."""
    if not target.has("permlane_var"):
        return None
    lanes = np.arange(target.wave)
    src = np.where(want.care, want.src, lanes).astype(np.int64)
    if (src < 0).any() or ((src >> 5) != (lanes >> 5)).any():
        return None
    sel = tuple(int(v) & 15 for v in src)
    same = (src >> 4) == (lanes >> 4)
    a = Permlane16Var("a0", "x", "undef", sel, 0, 0)
    b = Permlanex16Var("b0", "x", "undef", sel, 0, 0)
    if same.all():
        return (replace(a, id="f"),)
    if not same.any():
        return (replace(b, id="f"),)
    return (a, b, Select("f", "a0", "b0", lanes_to_mask(same)))


def _rename(steps: tuple[Step, ...], prefix: str) -> tuple[tuple[Step, ...], dict[str, str]]:
    names = {s.id: f"{prefix}{k}" for k, s in enumerate(steps)}
    out = []
    for s in steps:
        changes = {r: names.get(getattr(s, r), getattr(s, r)) for r in s.refs if getattr(s, r) is not None}
        out.append(replace(s, id=names[s.id], **changes))
    return tuple(out), names


def final_steps(target: Target, src_ref: str, prov: np.ndarray, want: LaneMap,
                olds: dict[str, np.ndarray], with_lds: bool) -> list[tuple[Step, ...]]:
    """Every one-step way to turn the value `src_ref` (provenance `prov`) into `want`."""
    keeps = {name: _keep(p, want) for name, p in olds.items()}
    keeps["undef"] = ~want.care
    out: list[tuple[Step, ...]] = []
    for _, sol in dpp16_solutions(target, prov[None, :], want.src, want.care, keeps):
        old = sol.pop("old")
        out.append((UpdateDpp("f", src_ref, old, **sol),))
    for _, last in selector_finals(target, prov[None, :], want, src_ref):
        out.append((last,))
    if with_lds:
        sol = solve_swizzle(target, want)
        if sol:
            out.append((DsSwizzle("f", src_ref, **sol),))
    return out


def selector_finals(target: Target, provs: np.ndarray, want: LaneMap, src_ref: str,
                    limit: int | None = None) -> list[tuple[int, Step]]:
    """DPP8 and permlane16/x16 finals after each current value: one selector per group position
    (closed form, STYLE.md), shared by every group."""
    out: list[tuple[int, Step]] = []
    if target.has("dpp8"):
        for n, sels in batch_group_selectors(provs, want.src, want.care, 8)[:limit]:
            out.append((n, MovDpp8("f", src_ref, sum(s << (3 * k) for k, s in enumerate(sels)))))
    if target.has("permlane16"):
        for cross, cls in ((False, Permlane16), (True, Permlanex16)):
            for n, sels in batch_group_selectors(provs, want.src, want.care, 16, cross)[:limit]:
                lo = sum(s << (4 * k) for k, s in enumerate(sels[:8]))
                hi = sum(s << (4 * k) for k, s in enumerate(sels[8:]))
                out.append((n, cls("f", src_ref, "undef", lo, hi, 0, 0)))
    return out


def _broadcast(wave: int, src_ref: str, lanes: list[int]) -> tuple[Step, ...]:
    if wave == 32 or lanes[0] == lanes[1]:
        return (Readlane("f", src_ref, lanes[0]),)
    hi_half = ((1 << 64) - 1) ^ ((1 << 32) - 1)
    return (Readlane("r0", src_ref, lanes[0]), Readlane("r1", src_ref, lanes[1]),
            Select("f", "r1", "r0", hi_half))


def two_steps(target: Target, values: list[PoolValue], want: LaneMap,
              keep: int = 8) -> list[tuple[Step, ...]]:
    """A pool value then one final DPP16/DPP8/permlane move (from the `keep` cheapest first moves
    that have one), vectorized over every first move; the final step is named "f"."""
    if not values:
        return []
    provs = np.array([v.prov for v in values])
    keep_x = _keep(np.arange(target.wave), want)
    finals: list[tuple[int, Step]] = []
    for n, sol in dpp16_after_many(target, provs, want.src, want.care, keep_x):
        old = sol.pop("old")
        finals.append((n, UpdateDpp("f", "SELF", old, **sol)))
    finals += selector_finals(target, provs, want, "SELF", limit=4)
    final_cost: dict[int, float] = {}
    for n, last in finals:
        c = values[n].cost + steps_cost(target, (last,))
        final_cost[n] = min(final_cost.get(n, c), c)
    keep_n = sorted(final_cost, key=final_cost.get)[:keep]            # a few cheapest first moves
    out = []
    for n, last in finals:
        if n not in keep_n:
            continue
        first, names = _rename(values[n].steps, "a")
        ref = names[values[n].ref]
        changes = {r: (ref if getattr(last, r) in ("SELF", "self") else getattr(last, r))
                   for r in last.refs if getattr(last, r) is not None}
        out.append(first + (replace(last, **changes),))
    return out


class Found:
    """The candidates found so far, and the cost to beat (each stage prunes against it)."""

    def __init__(self, target: Target):
        self.target = target
        self.items: list[Candidate] = []
        self._best = float("inf")

    def add(self, steps: tuple[Step, ...], ref: str, stage: str) -> None:
        cand = Candidate(steps, ref, steps_cost(self.target, steps), stage)
        self.items.append(cand)
        if not (self.target.lds_free_first and cand.uses_lds):
            self._best = min(self._best, cand.cost)

    @property
    def best(self) -> float:
        """The cost to beat: of the cheapest plan so far; with `--prefer lds-free`, of the cheapest
        LDS-free one (every stage then looks for LDS-free plans up to that cost)."""
        return self._best

    def best_uses_lds(self) -> bool:
        """Does the plan that ranks first so far go through the LDS (or is there none yet)?"""
        best = min(self.items, key=lambda c: (self.target.lds_free_first and c.uses_lds, c.cost), default=None)
        return best is None or best.uses_lds


def candidates(target: Target, want: LaneMap, report: SearchReport,
               single_step: bool = False) -> list[Candidate]:
    """Every plan the search finds for `want`, cheapest first: Souper's enumerative synthesis
    (lib/Infer/EnumerativeSynthesis.cpp) in its three stages, guess (`guesses`: the stages propose
    step sequences), add (Found.add prices each one; each stage prunes against the best so far),
    sort (`sort_guesses`). The caller proves them in this order; the first proven one wins."""
    return sort_guesses(guesses(target, want, report, single_step), target.lds_free_first)


def guesses(target: Target, want: LaneMap, report: SearchReport, single_step: bool = False) -> list[Candidate]:
    """The guesses in the order they were found (shflx.chains ranks them its own way).

    Stages, cheapest families first, each pruned by the cheapest plan so far: one step; two steps
    through the pool of first moves; two values merged by a select, or a cheap value fixed up on
    the lanes it gets wrong; a cross-row move, then stages 1-2 for the rest. `single_step`: the
    member mask is not a compile-time constant, so no intermediate lane may be relied on (DESIGN
    decision 3): only one-step plans, the exact fallback included."""
    found = Found(target)
    one_step(found, want, single_step)
    if not single_step:
        two_step(found, want, report)
        merged(found, want)
        shifted(found, want)
        written(found, want)
        composed(found, want)
    report.candidates = len(found.items)
    return found.items


def sort_guesses(items: list[Candidate], lds_free_first: bool = False) -> list[Candidate]:
    """Cheapest first (with `lds_free_first`, --prefer lds-free: plans without an LDS-crossbar op
    before any with one); among equally cheap plans, those relying on no unsettled reading of AMD's
    documents first (open_readings), then Candidate.rank. Stable: ties keep the order found."""
    return sorted(items, key=lambda c: (lds_free_first and c.uses_lds, c.cost, open_readings(c), c.rank))


def open_readings(cand: Candidate) -> int:
    """How many steps rely on a reading of AMD's documents that is not settled (ds_swizzle rotate
    at the group edge)."""
    return sum(isinstance(s, DsSwizzle) and rotate_wrap_relied_on(s.offset) for s in cand.steps)


def one_step(found: Found, want: LaneMap, single_step: bool) -> None:
    """Stage 1: nothing, one move, a readlane broadcast, the ds_bpermute fallback, variable permlanes."""
    target = found.target
    wave, ident = target.wave, np.arange(target.wave)
    if _keep(ident, want).all():
        found.add((), "x", "identity")
    for steps in final_steps(target, "x", ident, want, {"x": ident}, with_lds=True):
        found.add(steps, steps[-1].id, "one step")
    picks = solve_readlane(_acc(ident, want), want.care)
    if picks is not None and (wave == 32 or not single_step):
        steps = _broadcast(wave, "x", picks)
        found.add(steps, steps[-1].id, "broadcast")
    fallback = solve_any(_acc(ident, want), wave == 64 and target.has("ds_bpermute_half_wave64"))
    if fallback is not None:
        found.add((DsBpermute("f", "x", tuple(fallback)),), "f", "bpermute")
    var = var_permlanes(target, want)
    if var is not None and (len(var) == 1 or not single_step):
        found.add(var, "f", "var permlanes")


def two_step(found: Found, want: LaneMap, report: SearchReport) -> None:
    """Stage 2: a first move from the pool, then a final move (vectorized over every first move)."""
    target = found.target
    values = [v for v in pool(target) if v.cost + cheapest(target) < found.best]
    report.pool = len(values)
    for v in values:                     # a first move that is already right needs no final move
        if _keep(v.prov, want).all():    # (gfx950 permlane16.swap alone; was swap + identity DPP)
            steps, names = _rename(v.steps, "a")
            found.add(steps, names[v.ref], "pool move")
    for steps in two_steps(target, values, want):
        found.add(steps, "f", "two steps")


@lru_cache(maxsize=32)
def base_values(target: Target) -> tuple[tuple[PoolValue, ...], np.ndarray]:
    """x, the pool's first moves and the repeated shifts, with their provenances stacked (n, wave):
    the values a select or a fix-up starts from (memoized per target)."""
    ident = np.arange(target.wave)
    options = (PoolValue((), "x", ident, 0.0),) + pool(target) + repeated(target)
    return options, np.array([v.prov for v in options])


def merged(found: Found, want: LaneMap) -> None:
    """Stage 3: two values merged by a select, or a cheap value fixed up on the lanes it gets wrong."""
    target = found.target
    wave, ident = target.wave, np.arange(target.wave)
    sel_cost = target.cost("select")
    options, provs = base_values(target)
    good = (provs == want.src[None, :]) | ~want.care[None, :]
    costs = np.array([v.cost for v in options])
    gbits = lane_bits(good)
    full_bits = np.uint64((1 << wave) - 1)
    pair_cost = np.where((gbits[:, None] | gbits[None, :]) == full_bits,
                         costs[:, None] + costs[None, :] + sel_cost, np.inf)
    if np.isfinite(pair_cost).any():
        a, b = np.unravel_index(np.argmin(pair_cost), pair_cost.shape)
        if pair_cost[a, b] < found.best and a != b:
            va, vb = options[a], options[b]
            sa, na = _rename(va.steps, "a")
            sb, nb = _rename(vb.steps, "b")
            lanes = lanes_to_mask(good[a])
            found.add(sa + sb + (Select("f", na.get(va.ref, va.ref), nb.get(vb.ref, vb.ref), lanes),), "f",
                      "select of two")
    order = sorted(range(len(options)), key=lambda k: (-good[k].sum(), options[k].cost))[:FIXUP_TRIES]
    for k in order:
        v = options[k]
        if good[k].all() or v.cost + sel_cost + cheapest(target) >= found.best:
            continue
        rest = LaneMap(want.src, want.care & ~good[k])
        fixes = final_steps(target, "x", ident, rest, {"x": ident}, with_lds=False)
        _add_fix_ups(found, v, good[k], fixes)
        if found.best_uses_lds():     # a ds_swizzle fix-up, where the best plan still uses the LDS
            sol = solve_swizzle(target, rest)     # (first: its cost bounds the two-step budget)
            _add_fix_ups(found, v, good[k], [(DsSwizzle("f", "x", **sol),)] if sol else [])
        if not fixes and k in order[:FIXUP_TWO_STEP_TRIES] and found.best_uses_lds():
            budget = found.best - v.cost - sel_cost - cheapest(target)
            fixes = two_steps(target, [p for p in pool(target) if p.cost < budget], rest, keep=2)
            _add_fix_ups(found, v, good[k], fixes)


def _add_fix_ups(found: Found, base: PoolValue, good: np.ndarray, fixes: list[tuple[Step, ...]]) -> None:
    """base where it is already right (`good`), each fix elsewhere, merged by a select."""
    for fix in fixes:
        sa, na = _rename(base.steps, "a")
        sb, nb = _rename(fix, "b")
        found.add(sa + sb + (Select("f", na.get(base.ref, base.ref), nb[fix[-1].id], lanes_to_mask(good)),), "f",
                  "select fix-up")


MAX_WRITES = 8         # lanes a writelane fix-up may write (each costs a v_writelane, and a v_readlane per source)


def written(found: Found, want: LaneMap) -> None:
    """Stage 3c: a cheap value right on all but a few lanes, each of those written by v_writelane
    with its source lane read by v_readlane (an SGPR; one per distinct source lane; spec §11), while
    that beats the best plan so far (a value that is right on 60 of 64 lanes needs no select)."""
    target = found.target
    if not target.has("readlane"):
        return
    per_source, per_lane = target.cost("readlane"), target.cost("writelane")
    options, provs = base_values(target)
    wrong = (provs != want.src[None, :]) & want.care[None, :]
    count = wrong.sum(axis=1)
    for k in np.argsort(count, kind="stable"):
        n = int(count[k])
        if n > MAX_WRITES:
            break
        v, lanes = options[k], np.flatnonzero(wrong[k])
        sources = sorted(set(want.src[lanes].tolist()))
        if n == 0 or sources[0] < 0 or v.cost + len(sources) * per_source + n * per_lane > found.best:
            continue                       # (a lane wanting an injected 0, a chain's identity: no source lane)
        base, names = _rename(v.steps, "a")
        reads = tuple(Readlane(f"r{s}", "x", s) for s in sources)
        writes, prev = [], names.get(v.ref, v.ref)
        for lane in lanes.tolist():
            writes.append(Writelane(f"w{lane}", f"r{int(want.src[lane])}", lane, prev))
            prev = writes[-1].id
        found.add(base + reads + tuple(writes), prev, "writelane fix-up")


def shifted(found: Found, want: LaneMap) -> None:
    """Stage 3b: a shift across 16-lane rows on GFX8/9 as a per-row shift plus interleaved
    wave-shift chains (match.shifts), while it can beat the best plan so far."""
    target = found.target
    plans = shift_plans(target, want, found.best, lambda m: _in_row_move(target, m)) + \
        shift_pair_plans(target, want, found.best)
    for steps, ref in plans:
        found.add(steps, ref, "row-boundary chains")


def _in_row_move(target: Target, want: LaneMap) -> tuple[tuple[Step, ...], str] | None:
    """The cheapest LDS-free plan of one or two steps for a map (a permutation inside rows, match.shifts)."""
    sub = Found(target)
    for steps in final_steps(target, "x", np.arange(target.wave), want, {"x": np.arange(target.wave)}, False):
        sub.add(steps, steps[-1].id, "one step")
    if not sub.items:
        two_step(sub, want, SearchReport())
    if not sub.items:
        return None
    best = min(sub.items, key=lambda c: c.rank)
    steps, names = _rename(best.steps, "p")
    return steps, names[best.result]


# ------------------------------------------------ stage 4: a cross-row move, then a plan for the rest

DPP_OPS = frozenset({"update.dpp", "mov.dpp8"})


@lru_cache(maxsize=32)
def cross_row_bases(target: Target) -> tuple[PoolValue, ...]:
    """Values that move data between 16-lane rows without the LDS: the pool's first moves that are
    not DPP (permlanex16, each half of a gfx950 permlane16.swap) and the cheapest LDS-free row
    swap (lane i reads i ^ 16: on gfx950 both swap halves merged by a select), memoized per target.
    Empty on GFX8/9 before gfx950, where no such move exists (DPP crosses a row one lane at a time)."""
    bases = {v.prov.astype(np.int8).tobytes(): v for v in pool(target) if v.steps[0].op not in DPP_OPS}
    lanes = np.arange(target.wave)
    swap = Found(target)
    row_swap = LaneMap(lanes ^ 16, np.ones(target.wave, bool))
    one_step(swap, row_swap, False)
    two_step(swap, row_swap, SearchReport())
    merged(swap, row_swap)
    shifted(swap, row_swap)
    free = [c for c in swap.items if c.steps and not any(st.op in LDS_OPS for st in c.steps)]
    if free:
        best = min(free, key=lambda c: c.rank)
        steps, names = _rename(best.steps, "c")
        bases.setdefault((lanes ^ 16).astype(np.int8).tobytes(), PoolValue(steps, names[best.result], lanes ^ 16,
                                                                           best.cost))
    return tuple(sorted(bases.values(), key=lambda v: v.cost))


def residual(prov: np.ndarray, want: LaneMap) -> LaneMap | None:
    """The map that, read from a value with provenance `prov`, gives `want`: for each care lane a
    lane of that value holding its source (its own lane first, then its row, then its 32-lane
    half, then any); None when some source is not held anywhere."""
    wave = prov.shape[0]
    lanes = np.arange(wave)
    holds = prov[None, :] == want.src[:, None]                              # (i, j)
    score = holds * (4 + 3 * (lanes[:, None] == lanes[None, :]) + 2 * ((lanes[:, None] >> 4) == (lanes[None, :] >> 4))
                     + ((lanes[:, None] >> 5) == (lanes[None, :] >> 5)))
    pick = score.argmax(axis=1)
    ok = holds[lanes, pick] | ~want.care
    if not ok.all():
        return None
    return LaneMap(np.where(want.care, pick, lanes), want.care)


def composed(found: Found, want: LaneMap) -> None:
    """Stage 4, only while the best plan still uses the LDS: a cross-row base value (cross_row_bases),
    then the cheapest LDS-free plan of stages 1-3 for what is left, read from that value (gfx950:
    the row swap, then the two DPP moves of an in-row xor; issue 14), and the same with the row
    swap's select folded into the last DPP move (select_folded)."""
    target = found.target
    if not found.best_uses_lds():
        return
    for base in cross_row_bases(target):
        if base.cost + cheapest(target) >= found.best:
            continue
        rest = residual(base.prov, want)
        if rest is None:
            continue
        sub = Found(target)
        one_step(sub, rest, False)
        two_step(sub, rest, SearchReport())
        moves = [c for c in sub.items if c.steps and all(isinstance(st, UpdateDpp) for st in c.steps)]
        for cand in sorted(moves, key=lambda c: c.rank)[:FOLD_TRIES]:
            folded = select_folded(target, base, cand, want)
            if folded is not None:
                found.add(folded, "f1", "composed, select folded")
        for cand in sub.items:
            if not cand.steps or any(st.op in LDS_OPS for st in cand.steps) or base.cost + cand.cost >= found.best:
                continue
            first, names = _rename(base.steps, "c")
            then, later = _rename(cand.steps, "d")
            ref = names.get(base.ref, base.ref)
            then = tuple(replace(st, **{r: ref for r in st.refs if getattr(st, r) == "x"}) for st in then)
            found.add(first + then, later.get(cand.result, cand.result), "composed")


FOLD_TRIES = 4         # of the DPP-only plans for what the row swap leaves, the cheapest few tried folded


def select_folded(target: Target, base: PoolValue, cand: Candidate, want: LaneMap) -> tuple[Step, ...] | None:
    """A row swap made of the two halves of a v_permlane16_swap merged by a select (cross_row_bases,
    gfx950), followed by DPP moves `cand`, as: the moves but the last applied to x before the swap
    (a full-mask in-row move commutes with a row swap), the swap, and the last move applied to each
    half, the second written over the first on the rows the select took from it (row_mask, `old`)
    instead of the select: xor 20 on gfx950 is 44 instead of 52 (swap, select, quad_perm,
    row_half_mirror) and beats ds_swizzle's 50. None where the base is not that row swap or the
    result is not exactly `want` (checked lane by lane; the plan is proven like any other)."""
    *halves, sel = base.steps
    if not (isinstance(sel, Select) and len(halves) == 2 and all(isinstance(h, Permlane16Swap) for h in halves)):
        return None
    rows = [(sel.lanes >> (16 * r)) & 0xFFFF for r in range(target.wave // 16)]
    if any(m not in (0, 0xFFFF) for m in rows):
        return None
    *pre, last = cand.steps
    before, names = _rename(tuple(pre), "e")
    src = names.get(last.src, last.src)
    if src != "x" and src not in names.values():
        return None
    swap = {h.id: replace(h, id=f"h{h.take}", vdst_old=src, src0_old=src) for h in halves}
    if sel.a not in swap or sel.b not in swap:
        return None
    old = "undef" if last.old == "x" or last.old in names else last.old
    f0 = replace(last, id="f0", src=swap[sel.b].id, old=old)
    f1 = replace(last, id="f1", src=swap[sel.a].id, old="f0", row_mask=sum(1 << r for r, m in enumerate(rows) if m))
    steps = before + tuple(swap.values()) + (f0, f1)
    return steps if _keep(provenance(target, steps, "f1"), want).all() else None
