"""Shifts across 16-lane rows without the LDS on GFX8/9: a per-row DPP shift, and wave-shift
chains for the lanes whose source sits in the row before (issue 14).

CUDA's up/down d at width 32 reads lane i - d (i + d) inside each 32-lane half. GFX8/9 DPP moves
data between rows one lane per instruction (wave_shr/shl:1 and wave_ror/rol:1 cross each row
boundary with one lane; row_bcast:15/31 send one lane to whole rows: spec/amd_crosslane.md §3.2,
llvm/llvm-project llvm/lib/Target/AMDGPU/SIDefines.h `DppCtrl`), so the n = min(d, 32 - d) lanes
per row whose source is in the neighbouring row need n wave shifts. Split into groups of row
positions [lo, hi), each group is its own chain, and LLVM's scheduler interleaves independent
chains so that their DPP wait states are filled (amd.llvm_ir.emission_order, priced the same way):

    y = row_shr:(d - hi) x            (the group's sources moved to the top of their row)
    u = wave_shr:1 applied hi - lo times   (they cross into the next row)
    f = row_shr:lo u, written into the rows that need it (row_mask) over the groups before (`old`)

on top of a base that is right everywhere else: row_shr:d x keeping x where the row has no
source (d < 16), or x itself (d >= 16). Down d is the mirror image (row_shl, wave_shl:1), with
row positions counted from the row's end. Every plan is proven like any other (match.lower)."""
from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np

from ..emulate import Provenance, Trace, result
from ..lanes import LaneMap, lanes_to_mask
from ..plan import Plan, Select, Step, UpdateDpp
from ..target import Target
from .cost import steps_cost

# llvm/llvm-project llvm/lib/Target/AMDGPU/SIDefines.h, enum DppCtrl (spec/amd_crosslane.md §3.2)
ROW_SHL0, ROW_SHR0 = 0x100, 0x110
WAVE_SHL1, WAVE_SHR1 = 0x130, 0x138
MAX_GROUPS = 4        # more chains than this only add row shifts: 3 already fill both wait states
MAX_GROWTH = 2        # a group is at most this many lanes longer than the one before (ranked_cuts)
KEEP = 2              # the cheapest plans returned (the next one is proven if the first is not)


def segment_shift(want: LaneMap) -> int | None:
    """d > 0 when every care lane reads lane i - d or itself, -d when i + d or itself (1 <= d <= 31);
    None otherwise, or when no care lane moves."""
    lanes = np.arange(want.wave)
    moved = want.care & (want.src != lanes)
    if not moved.any():
        return None
    deltas = np.unique(lanes[moved] - want.src[moved].astype(np.int64))
    if deltas.size != 1 or not 1 <= abs(int(deltas[0])) <= 31:
        return None
    return int(deltas[0])


InRowMove = Callable[[LaneMap], "tuple[tuple[Step, ...], str] | None"]


def shift_plans(target: Target, want: LaneMap, budget: float,
                in_row: InRowMove | None = None) -> list[tuple[tuple[Step, ...], str]]:
    """The cheapest chain plans for a segment shift (segment_shift) costing at most `budget` (an
    LDS-free plan wins a tie with the best so far: Candidate.rank): [(steps, result)], cheapest
    first; empty where the target has no wave shifts (GFX10+, wave32). With `in_row` (the search's
    cheapest LDS-free one-step plan for a map that stays inside rows), also a shift of x permuted
    inside its rows first (xor m >= 16 at width 2 reads the previous row in another order)."""
    if not target.has("dpp_wave_shift") or target.wave != 64:
        return []
    shift = segment_shift(want)
    if shift is not None:
        return _shift_of(target, want, budget, shift, (), "x")
    if in_row is None:
        return []
    shift = row_shift(want)
    if shift is None:
        return []
    lanes = np.arange(want.wave)
    moved = want.care & (want.src != lanes)
    perm = np.arange(want.wave)
    perm[lanes[moved] - shift] = want.src[moved]
    first = in_row(LaneMap(perm, np.isin(lanes, lanes[moved] - shift)))
    if first is None:
        return []
    return _shift_of(target, want, budget - steps_cost(target, first[0]), shift, *first)


def row_shift(want: LaneMap) -> int | None:
    """d when every care lane that moves reads a lane of the row of lane i - d (a shift after a
    permutation inside rows), with d >= 1 the smallest such (fewest lanes cross); None otherwise."""
    lanes = np.arange(want.wave)
    moved = want.care & (want.src != lanes)
    if not moved.any():
        return None
    i, src_row = lanes[moved].astype(np.int64), want.src[moved].astype(np.int64) >> 4
    lo, hi = int((i - 16 * src_row - 15).max()), int((i - 16 * src_row).min())   # (i - d) >> 4 == src_row
    ok = [d for d in range(max(lo, 1), min(hi, 31) + 1) if ((i - d) >> 4 == src_row).all()]
    return min(ok, key=lambda d: min(d, 32 - d)) if ok else None


def _shift_of(target: Target, want: LaneMap, budget: float, shift: int, first: tuple[Step, ...],
              src: str) -> list[tuple[tuple[Step, ...], str]]:
    """Chain plans shifting `src` (made by the steps `first`) by `shift` lanes into `want`."""
    d, up = abs(shift), shift > 0
    lanes = np.arange(target.wave)
    crossing = want.care & (want.src != lanes) & (((lanes - shift) >> 4) != (lanes >> 4))
    if not crossing.any() or ranked_cuts(target, d)[0][0] > budget:
        return []                                          # an in-row shift is one DPP (search stage 1)
    row_mask = sum(1 << r for r in set((lanes[crossing] >> 4).tolist()))
    one_chain = _chains(d, up, (max(0, d - 16), min(d, 16)), row_mask, src=src)
    select = _select_lanes(target, first + one_chain[0], one_chain[1], want)  # every split: the same map
    if select is None:
        return []
    out: list[tuple[tuple[Step, ...], str]] = []
    for cost, cuts in ranked_cuts(target, d):
        if cost > budget or len(out) == KEEP:
            break
        steps, ref = _chains(d, up, cuts, row_mask, src=src)
        steps = first + steps
        if select:
            steps, ref = steps + (Select("f", ref, "x", select),), "f"
        if steps_cost(target, steps) > budget + steps_cost(target, first):
            continue
        out.append((steps, ref))
    return out


def shift_pair_plans(target: Target, want: LaneMap, budget: float) -> list[tuple[tuple[Step, ...], str]]:
    """Two segment shifts of at least 16 lanes on different rows (the row swap, xor 16, is up 16 on
    rows 1 and 3 and down 16 on rows 0 and 2): the second written over the first, whose rows it
    leaves alone (d >= 16 has no per-row base), as the cheapest splits of each."""
    if not target.has("dpp_wave_shift") or target.wave != 64:
        return []
    lanes = np.arange(target.wave)
    src = want.src.astype(np.int64)
    moved = want.care & (src != lanes)
    deltas = np.unique(lanes[moved] - src[moved])
    if deltas.size != 2 or (np.abs(deltas) < 16).any() or (np.abs(deltas) > 31).any():
        return []
    parts = [moved & (lanes - src == delta) for delta in deltas.tolist()]
    rows = [set((lanes[p] >> 4).tolist()) for p in parts]
    if rows[0] & rows[1] or (want.care & ~moved).any():
        return []                                  # a row with both shifts, or lanes kept: not this shape
    cheapest = [ranked_cuts(target, abs(int(delta)))[0] for delta in deltas.tolist()]
    if sum(c for c, _ in cheapest) > budget:
        return []
    steps: tuple[Step, ...] = ()
    ref = "x"
    for k, (delta, (_, cuts), part_rows) in enumerate(zip(deltas.tolist(), cheapest, rows)):
        more, ref = _chains(abs(int(delta)), delta > 0, cuts, sum(1 << r for r in part_rows), ref, f"s{k}.")
        steps += more
    prov = result(Plan.made_for(target, "", steps, ref, 0.0), Provenance(target.wave), Trace())
    if not ((prov == want.src) | ~want.care).all() or steps_cost(target, steps) > budget:
        return []
    return [(steps, ref)]


@lru_cache(maxsize=256)
def ranked_cuts(target: Target, d: int) -> tuple[tuple[float, tuple[int, ...]], ...]:
    """The splits of the crossing row positions [max(0, d - 16), min(d, 16)) into at most
    MAX_GROUPS groups whose sizes grow by 0 to MAX_GROWTH (a group merged later may run longer by
    about the wait states it has left), with the cost of each plan, cheapest first (the cost depends
    on neither the direction nor the rows written). At most 14 splits instead of 64; every split
    into at most 4 groups is no cheaper (tests/test_shifts.py checks it against all of them)."""
    first, last = max(0, d - 16), min(d, 16)
    out = []
    for sizes in _non_decreasing(last - first, MAX_GROUPS):
        if any(b - a > MAX_GROWTH for a, b in zip(sizes, sizes[1:])):
            continue
        cuts = tuple(first + sum(sizes[:k]) for k in range(len(sizes) + 1))
        out.append((steps_cost(target, _chains(d, True, cuts, 0b1010)[0]), cuts))
    return tuple(sorted(out))


def _non_decreasing(n: int, parts: int, least: int = 1) -> list[tuple[int, ...]]:
    """Non-decreasing tuples of at most `parts` positive integers >= `least` summing to n."""
    out = [(n,)] if n >= least else []
    if parts > 1:
        for head in range(least, n // 2 + 1):
            out += [(head,) + rest for rest in _non_decreasing(n - head, parts - 1, head)]
    return out


def _chains(d: int, up: bool, cuts: tuple[int, ...], row_mask: int, base: str = "x",
            prefix: str = "", src: str = "x") -> tuple[tuple[Step, ...], str]:
    """The plan for these group cuts, shifting the value `src` (x, or x permuted inside its rows);
    `base`: the value the rows outside `row_mask` keep when d >= 16 (x, or another half of a
    plan); step ids start with `prefix`."""
    row_move = ROW_SHR0 if up else ROW_SHL0
    cross = WAVE_SHR1 if up else WAVE_SHL1
    steps: list[Step] = []
    prev = base
    if d < 16:                              # the base: every row shifted, x kept where no source is in the row
        steps.append(UpdateDpp(f"{prefix}c", src, "x", row_move + d, 15, 15, 0))
        prev = f"{prefix}c"
    for g, (lo, hi) in enumerate(zip(cuts, cuts[1:])):
        cur, n = src, 0

        def move(ctrl: int, merge: bool) -> None:
            nonlocal cur, n
            sid = f"{prefix}g{g}.{n}"
            n += 1
            steps.append(UpdateDpp(sid, cur, prev, ctrl, row_mask, 15, 0) if merge
                         else UpdateDpp(sid, cur, "undef", ctrl, 15, 15, 1))
            cur = sid
        if d - hi:
            move(row_move + d - hi, False)
        for k in range(hi - lo):
            move(cross, lo == 0 and k == hi - lo - 1)
        if lo:
            move(row_move + lo, True)
        prev = cur
    return tuple(steps), prev


def _select_lanes(target: Target, steps: tuple[Step, ...], ref: str, want: LaneMap) -> int | None:
    """0 when the chains realize `want`; else the lanes to take from them in a select with x, where
    x is right on the rest (a care lane keeping its own value where the base shifted it); else None."""
    prov = result(Plan.made_for(target, "", steps, ref, 0.0), Provenance(target.wave), Trace())
    good = (prov == want.src) | ~want.care
    if good.all():
        return 0
    own = (want.src == np.arange(want.wave)) | ~want.care
    return lanes_to_mask(good) if (good | own).all() else None
