"""benchmarks/bench_lds_free_bound.py: the row-entry lower bound on LDS-free plans for gfx9 (issue 14).

The bound rests on one fact: on gfx90a/gfx94x every LDS-free step shflx can emit brings at most one
value into a 16-lane row that no value computed before held in that row. It is checked here on
random plans of every such step (all legal DPP16 controls, masks, BC and `old`; v_readlane,
v_readfirstlane, v_writelane, selects), lane by lane with the provenance emulator, and shown to
fail for gfx950's permlane16 swap (why the bound is not applied there); the bound is checked
against maps counted by hand and against the LDS-free plans the search proves."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shflx.match import lower
from shflx.match.search import provenance
from shflx.match.solvers import dpp_table
from shflx.pattern import parse_pattern
from shflx.plan import Permlane16Swap, Readfirstlane, Readlane, Select, UpdateDpp, Writelane
from shflx.target import resolve_target

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_lds_free_bound import chain_family_best, row_entry_bound  # noqa: E402

GFX9 = [resolve_target("gfx90a"), resolve_target("gfx942")]


def row_holdings(target, steps) -> list[list[set[int]]]:
    """After each step: per 16-lane row, the input lanes from other rows held there by x or any
    value computed so far (the provenance of each step's result, all 64 lanes)."""
    lanes = np.arange(target.wave)
    rows = target.wave // 16
    held = [set() for _ in range(rows)]
    out = []
    for k, s in enumerate(steps):
        prov = provenance(target, tuple(steps[:k + 1]), s.id)
        for r in range(rows):
            here = prov[(lanes >> 4) == r]
            held[r] |= {int(v) for v in here if v >= 0 and v >> 4 != r}
        out.append([set(h) for h in held])
    return out


@st.composite
def lds_free_plans(draw, target):
    """A random straight-line plan of the LDS-free steps a gfx9 plan is made of."""
    ctrls = dpp_table(target).ctrls.tolist()
    names, scalars = ["x"], []           # values; readlane results (a v_writelane writes one of those)
    steps = []
    for k in range(draw(st.integers(1, 6))):
        sid = f"s{k}"
        kind = draw(st.sampled_from(["dpp", "dpp", "dpp", "readlane", "select"] + ["writelane"] * bool(scalars)))
        src = draw(st.sampled_from(names))
        if kind == "dpp":
            steps.append(UpdateDpp(sid, src, draw(st.sampled_from(names + ["undef"])), draw(st.sampled_from(ctrls)),
                                   draw(st.integers(0, 15)), draw(st.integers(0, 15)), draw(st.integers(0, 1))))
        elif kind == "readlane":
            steps.append(Readlane(sid, src, draw(st.integers(0, 63))) if draw(st.booleans())
                         else Readfirstlane(sid, src))
            scalars.append(sid)
        elif kind == "writelane":
            steps.append(Writelane(sid, draw(st.sampled_from(scalars)), draw(st.integers(0, 63)),
                                   draw(st.sampled_from(names))))
        else:
            steps.append(Select(sid, src, draw(st.sampled_from(names)), draw(st.integers(0, (1 << 64) - 1))))
        names.append(sid)
    return steps


@pytest.mark.parametrize("target", GFX9, ids=lambda t: t.name)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_each_lds_free_step_brings_at_most_one_value_into_a_row(target, data):
    steps = data.draw(lds_free_plans(target))
    before = [set() for _ in range(4)]
    for after in row_holdings(target, steps):
        assert all(len(a - b) <= 1 for a, b in zip(after, before)), steps
        before = after


def test_wave_shifts_and_broadcasts_do_bring_one():
    """The bound is tight per step: wave_shr:1 and row_bcast:15 each bring one value into rows 1-3."""
    target = GFX9[1]
    for ctrl in (0x138, 0x142):
        (held,) = row_holdings(target, [UpdateDpp("s0", "x", "undef", ctrl, 15, 15, 1)])
        assert [len(h) for h in held[1:]] == [1, 1, 1]


def test_a_permlane_swap_brings_many():
    """gfx950's v_permlane16_swap moves 16 values into a row in one step: the lemma fails there,
    and the bound is not applied (None)."""
    target = resolve_target("gfx950")
    (held,) = row_holdings(target, [Permlane16Swap("s0", "x", "x", 0, 0, 0)])
    assert max(len(h) for h in held) == 16
    assert row_entry_bound(target, parse_pattern("xor 16").lane_map(64)) is None


@pytest.mark.parametrize("text,values,one_move", [
    ("xor 16", 16, 1),         # row 0 reads all of row 1 (only lane 16 is one wave_shl away), and back
    ("xor 17 width 2", 16, 1),  # row 1 reads all of row 0 (lanes < 16 keep their own value)
    ("down 16", 16, 1),        # row 0 reads row 1, row 1 keeps x
    ("up 15", 15, 1),          # lanes 16-30 read 1-15: lane 15 is one wave_shr away
    ("up 8", 8, 1),            # lanes 16-23 read 8-15
    ("up 25", 7, 0),           # lanes 25-31 read 0-6: none is one move away
    ("up 1", 1, 1),            # lane 16 reads 15: one step (wave_shr) can do it
    ("xor 8", 0, 0),           # stays in its row
])
def test_bound_counts_the_values_a_row_receives(text, values, one_move):
    """n values at 4 cycles a step (isa/amd/_gfx8.toml: dpp_mov, valu, readlane, writelane); with
    n >= 2 and at most one of them one move from x, one more step or 2 wait states (4 cycles)."""
    for target in GFX9:
        extra = 4 if values >= 2 and one_move <= 1 else 0
        assert row_entry_bound(target, parse_pattern(text).lane_map(64)) == 4 * values + extra


def test_two_values_one_move_away_need_no_extra():
    """Row 1 reading lane 15 (one wave_shr from x) at lane 16 and lane 32 (one wave_shl) at lane 31:
    two steps may read x alone, so the bound is the two steps, no extra."""
    from shflx.lanes import LaneMap

    lanes = np.arange(64)
    src = lanes.copy()
    src[16], src[31] = 15, 32
    want = LaneMap(src, (lanes == 16) | (lanes == 31))
    assert row_entry_bound(GFX9[1], want) == 8
    src[31] = 14                                     # lane 14 is two moves away: the extra applies
    assert row_entry_bound(GFX9[1], LaneMap(src, want.care)) == 12


@pytest.mark.parametrize("text", ["xor 16", "xor 17 width 2", "down 16", "up 8", "up 15", "down 25", "up 2"])
def test_bound_never_exceeds_a_proven_lds_free_plan(text):
    target = GFX9[1]
    plan = lower(text, target.name, prefer="lds-free")
    assert not dict(plan.extra)["uses_lds"] and plan.proof["status"] == "proved"
    assert row_entry_bound(target, parse_pattern(text).lane_map(64)) <= plan.cost


def test_chain_family_matches_the_search_on_shifts():
    """The exhaustive chain-family search finds no plan cheaper than the search's own LDS-free one,
    and its best plan is exact (up 8 and down 25 on gfx942)."""
    target = GFX9[1]
    for text in ("up 8", "down 25"):
        fam = chain_family_best(target, parse_pattern(text).lane_map(64), 3)
        assert fam["exact"] and fam["plans_tried"] > 1
        assert fam["cost"] == lower(text, target.name, prefer="lds-free").cost
    assert chain_family_best(target, parse_pattern("xor 16").lane_map(64), 3) is None
