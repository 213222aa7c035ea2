"""match.shifts: shifts across 16-lane rows on GFX8/9 without the LDS, and `--prefer lds-free`.

Every plan is checked lane by lane against CUDA's map (numpy emulation, all 64 lanes) and a sample
is proven by Z3; the split search is checked against an exhaustive one; the search is checked to
reach these plans where they are cheapest."""
from __future__ import annotations

import pickle
from itertools import combinations

import numpy as np
import pytest

from shflx.driver.cache import key
from shflx.emulate import Provenance, Trace, result
from shflx.errors import UsageError
from shflx.match import lower
from shflx.match.cost import steps_cost
from shflx.match.shifts import _chains, ranked_cuts, row_shift, segment_shift, shift_pair_plans, shift_plans
from shflx.pattern import parse_pattern
from shflx.plan import Plan
from shflx.target import resolve_target
from shflx.verify.api import prove

GFX942 = resolve_target("gfx942")


def realizes(target, steps, ref, text) -> bool:
    want = parse_pattern(text).lane_map(target.wave)
    prov = result(Plan.made_for(target, text, steps, ref), Provenance(target.wave), Trace())
    return bool(((prov == want.src) | ~want.care).all())


@pytest.mark.parametrize("kind", ["up", "down"])
def test_segment_shift_reads_the_distance(kind):
    for d in range(1, 32):
        want = parse_pattern(f"{kind} {d}").lane_map(64)
        assert segment_shift(want) == (d if kind == "up" else -d)
    assert segment_shift(parse_pattern("xor 1").lane_map(64)) is None
    assert segment_shift(parse_pattern("idx 0").lane_map(64)) is None


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx803"])
@pytest.mark.parametrize("kind", ["up", "down"])
def test_every_shift_at_width_32_has_a_chain_plan_that_realizes_it(arch, kind):
    target = resolve_target(arch)
    for d in range(1, 32):
        text = f"{kind} {d}"
        plans = shift_plans(target, parse_pattern(text).lane_map(64), float("inf"))
        assert plans, text
        for steps, ref in plans:
            assert realizes(target, steps, ref, text), (text, steps)
            assert not any(s.op.startswith("ds.") for s in steps)


@pytest.mark.parametrize("text", ["up 5", "down 7", "up 27", "down 16", "up 31"])
def test_chain_plans_are_proven(text):
    steps, ref = shift_plans(GFX942, parse_pattern(text).lane_map(64), float("inf"))[0]
    assert prove(Plan.made_for(GFX942, text, steps, ref, steps_cost(GFX942, steps))).status == "proved"


def test_no_wave_shifts_no_chain_plans():
    for arch in ("gfx1030", "gfx1100", "gfx1200"):
        assert shift_plans(resolve_target(arch), parse_pattern("up 5").lane_map(32), float("inf")) == []
    assert shift_plans(resolve_target("gfx1100", 64), parse_pattern("up 5").lane_map(64), float("inf")) == []


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942"])
@pytest.mark.parametrize("d", [3, 5, 7, 8, 9, 12, 15, 16, 20, 26])
def test_growing_splits_reach_the_exhaustive_optimum(arch, d):
    """ranked_cuts tries only group sizes that grow by at most MAX_GROWTH (a later-merged group may
    run longer); every split into at most 4 groups is no cheaper."""
    target = resolve_target(arch)
    first, last = max(0, d - 16), min(d, 16)
    best = min(steps_cost(target, _chains(d, True, (first, *inner, last), 0b1010)[0])
               for k in range(1, 5) for inner in combinations(range(first + 1, last), k - 1))
    assert ranked_cuts(target, d)[0][0] == best


def test_chains_interleave_to_fill_wait_states():
    """Two chains cost less than one (each wave_shr:1 of a lone chain waits two wait states)."""
    one = steps_cost(GFX942, _chains(6, True, (0, 6), 0b1010)[0])
    two = steps_cost(GFX942, _chains(6, True, (0, 3, 6), 0b1010)[0])
    assert two < one


@pytest.mark.parametrize("text", ["up 1", "up 4", "up 5", "up 7", "down 6", "up 28", "down 30", "down 31"])
def test_the_search_takes_the_chains_where_they_are_cheapest(text):
    plan = lower(text, "gfx942")
    assert not any(s.op.startswith("ds.") for s in plan.steps), plan.steps
    assert plan.cost < 62, plan.cost            # ds_swizzle (50) + select (12) on gfx942


@pytest.mark.parametrize("text", ["up 12", "down 20"])
def test_the_search_keeps_the_swizzle_where_the_chains_cost_more(text):
    plan = lower(text, "gfx942")
    assert [s.op for s in plan.steps] == ["ds.swizzle", "select"] and plan.cost == 62


def test_row_shift_finds_the_shift_after_a_permutation_inside_rows():
    want = parse_pattern("xor 20 width 2").lane_map(64)      # row 1 reads row 0 at position ^ 4
    assert segment_shift(want) is None and row_shift(want) == 16


def test_the_row_swap_is_two_shifts():
    want = parse_pattern("xor 16").lane_map(64)
    (steps, ref), = shift_pair_plans(GFX942, want, float("inf"))
    assert realizes(GFX942, steps, ref, "xor 16")
    assert shift_pair_plans(GFX942, want, 100) == []          # it costs more than that


@pytest.mark.parametrize("text", ["xor 16", "xor 17", "xor 31", "xor 20 width 2", "xor 31 width 2", "up 12",
                                  "down 16", "down 24"])
def test_prefer_lds_free_gives_an_lds_free_plan(text):
    cycles, free = lower(text, "gfx942"), lower(text, "gfx942", prefer="lds-free")
    assert any(s.op.startswith("ds.") for s in cycles.steps)
    assert not any(s.op.startswith("ds.") for s in free.steps), free.steps
    assert free.proof["status"] == "proved" and free.cost > cycles.cost
    assert dict(free.extra)["baseline_cost"] == dict(cycles.extra)["baseline_cost"]


def test_prefer_keeps_the_cheapest_plan_when_it_is_lds_free():
    for text in ("xor 1", "up 5", "idx 3"):
        assert lower(text, "gfx942", prefer="lds-free").steps == lower(text, "gfx942").steps


def test_prefer_lds_free_without_an_lds_free_plan_is_no_costlier_than_the_default():
    """A map no LDS-free plan was found for (the coverage run's: rows of 4-lane xor blocks, then a
    tail): the default search's ds_swizzle + select (62), not the ds_bpermute fallback (78)."""
    text = "map " + ",".join(map(str, [5, 4, 7, 6, 1, 0, 3, 2, 13, 12, 15, 14, 9, 8, 11, 10, 21, 20, 23, 22,
                                       17, 16, 19, 18, 24, 25, 26, 27, 28, 24, 30, 26]))
    cycles, free = lower(text, "gfx942"), lower(text, "gfx942", prefer="lds-free")
    assert any(s.op.startswith("ds.") for s in free.steps)
    assert [s.op for s in cycles.steps] == ["ds.swizzle", "select"]
    assert free.cost == cycles.cost < dict(free.extra)["baseline_cost"] and free.proof["status"] == "proved"


def test_the_preference_is_part_of_the_target_and_of_the_cache_key():
    free = resolve_target("gfx942", prefer="lds-free")
    assert free.lds_free_first and not GFX942.lds_free_first and free != GFX942
    assert pickle.loads(pickle.dumps(free)) == free
    assert key("xor 16", free) != key("xor 16", GFX942)
    with pytest.raises(UsageError, match="unknown preference 'fast'"):
        resolve_target("gfx942", prefer="fast")


def test_a_few_wrong_lanes_are_written_by_writelane():
    """A value right on all lanes but four (two per CUDA warp): 4 v_readlane + 4 v_writelane (32
    cycles) instead of ds_swizzle + select (62)."""
    text = "map " + ",".join(str({23: 4, 31: 12}.get(i, i)) for i in range(32))
    plan = lower(text, "gfx942")
    assert sorted(s.op for s in plan.steps) == ["readlane"] * 4 + ["writelane"] * 4
    assert plan.proof["status"] == "proved" and plan.cost == 32


@pytest.mark.parametrize("text, prefer", [("up 5", "cycles"), ("down 27", "cycles"), ("xor 16", "lds-free"),
                                          ("xor 20 width 2", "lds-free"),
                                          ("map " + ",".join(str({23: 4, 31: 12}.get(i, i)) for i in range(32)),
                                           "cycles")])
def test_the_emitted_helper_reads_back_as_the_plan(text, prefer):
    """verify.readback (its own transcription of the intrinsics) finds every step in the emitted
    LLVM IR, masks and tied `old` operands included."""
    from shflx.amd.llvm_ir import function_ir, local_name
    from shflx.verify.readback import emitted_differences

    plan = lower(text, "gfx942", prefer=prefer)
    assert emitted_differences(plan, function_ir(plan)[0], local_name) == []
    broken = plan.steps[0]
    if hasattr(broken, "row_mask"):                  # the check can fail: a step emitted with another mask
        ir = function_ir(plan)[0].replace(f"i32 {broken.row_mask}, i32 {broken.bank_mask}",
                                          f"i32 {broken.row_mask ^ 1}, i32 {broken.bank_mask}", 1)
        assert emitted_differences(plan, ir, local_name)
