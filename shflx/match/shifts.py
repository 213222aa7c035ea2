"""Shifts across 16-lane rows without the LDS on GFX8/9: a per-row DPP shift, and wave-shift
chains for the lanes whose source sits in the row before (issue 14).

CUDA's up/down d at width 32 reads lane i - d (i + d) inside each 32-lane half. GFX8/9 DPP moves
data between rows one lane per instruction (wave_shr/shl:1 and wave_ror/rol:1 cross each row
boundary with one lane; row_bcast:15/31 send one lane to whole rows: spec/amd_crosslane.md §3.2,
llvm/llvm-project llvm/lib/Target/AMDGPU/SIDefines.h `DppCtrl`), so the n = min(d, 32 - d) lanes
per row whose source is in the neighbouring row need n wave shifts. Split into groups of row
positions [lo, hi), each group is its own chain, and LLVM's scheduler interleaves independent
chains so that their DPP wait states are filled (match.cost.fill_wait_states):

    y = row_shr:(d - hi) x            (the group's sources moved to the top of their row)
    u = wave_shr:1 applied hi - lo times   (they cross into the next row)
    f = row_shr:lo u, written into the rows that need it (row_mask) over the groups before (`old`)

on top of a base that is right everywhere else: row_shr:d x keeping x where the row has no
source (d < 16), or x itself (d >= 16). Down d is the mirror image (row_shl, wave_shl:1), with
row positions counted from the row's end. Every plan is proven like any other (match.lower)."""
from __future__ import annotations

from functools import lru_cache

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


def shift_plans(target: Target, want: LaneMap, budget: float) -> list[tuple[tuple[Step, ...], str]]:
    """The cheapest chain plans for a segment shift (segment_shift) costing at most `budget` (an
    LDS-free plan wins a tie with the best so far: Candidate.rank):
    [(steps, result)], cheapest first; empty where the target has no wave shifts (GFX10+, wave32)."""
    if not target.has("dpp_wave_shift") or target.wave != 64:
        return []
    shift = segment_shift(want)
    if shift is None:
        return []
    d, up = abs(shift), shift > 0
    lanes = np.arange(target.wave)
    src = want.src.astype(np.int64)
    crossing = want.care & (src != lanes) & ((src >> 4) != (lanes >> 4))
    if not crossing.any():
        return []                                          # an in-row shift: one DPP (search stage 1)
    if ranked_cuts(target, d)[0][0] > budget:
        return []
    row_mask = sum(1 << r for r in set((lanes[crossing] >> 4).tolist()))
    one_chain = _chains(d, up, (max(0, d - 16), min(d, 16)), row_mask)
    select = _select_lanes(target, *one_chain, want)         # every split computes the same map
    if select is None:
        return []
    out: list[tuple[tuple[Step, ...], str]] = []
    for cost, cuts in ranked_cuts(target, d):
        if cost > budget or len(out) == KEEP:
            break
        steps, ref = _chains(d, up, cuts, row_mask)
        if select:
            steps, ref = steps + (Select("f", ref, "x", select),), "f"
            if steps_cost(target, steps) > budget:
                continue
        out.append((steps, ref))
    return out


@lru_cache(maxsize=256)
def ranked_cuts(target: Target, d: int) -> tuple[tuple[float, tuple[int, ...]], ...]:
    """Every split of the crossing row positions [max(0, d - 16), min(d, 16)) into at most
    MAX_GROUPS groups of non-decreasing size (a group merged later may run longer), with the cost of
    its plan, cheapest first (the cost depends on neither the direction nor the rows written)."""
    first, last = max(0, d - 16), min(d, 16)
    out = []
    for sizes in _non_decreasing(last - first, MAX_GROUPS):
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


def _chains(d: int, up: bool, cuts: tuple[int, ...], row_mask: int) -> tuple[tuple[Step, ...], str]:
    row_move = ROW_SHR0 if up else ROW_SHL0
    cross = WAVE_SHR1 if up else WAVE_SHL1
    steps: list[Step] = []
    prev = "x"
    if d < 16:                              # the base: every row shifted, x kept where no source is in the row
        steps.append(UpdateDpp("c", "x", "x", row_move + d, 15, 15, 0))
        prev = "c"
    for g, (lo, hi) in enumerate(zip(cuts, cuts[1:])):
        cur, n = "x", 0

        def move(ctrl: int, merge: bool) -> None:
            nonlocal cur, n
            sid = f"g{g}.{n}"
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
