"""Reduction and scan chains (issue 5): what a chain computes, and its re-synthesized plan.

Every shape x operator x width in {4, 8, 16, 32} on the five issue targets: the plan is proven by
shflx and replayed by the independent reference (tests/reference, multiset semantics) on every
live lane; it never costs more than the chain lowered step by step; full-warp collectives never
cost more than the production sequences of spec/golden_sequences.yaml under the same cost model."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shflx.chains import ChainStep, chain_multisets, classify, synthesize
from shflx.cuda import intrinsic_operands
from shflx.match.cost import chain_cost
from shflx.pattern import Collective, parse_pattern
from shflx.plan import load_plan, plan_to_dict
from shflx.verify.api import prove
from tests.reference.golden import GOLDEN, _waves, golden_target_text, golden_to_plan, needs_golden
from tests.reference.judge import ref_judge

TARGETS = [("gfx90a", 64), ("gfx942", 64), ("gfx1030", 32), ("gfx1100", 32), ("gfx1100", 64), ("gfx1200", 32)]
WIDTHS = (4, 8, 16, 32)
FULL = 0xFFFFFFFF
LANE = np.arange(32)


def _mask(cond) -> int:
    return sum(1 << int(i) for i in np.flatnonzero(cond))


def xor_steps(fn, width, order):
    return tuple(ChainStep(intrinsic_operands("__shfl_xor_sync", d, width), fn) for d in order)


def down_tree(fn, width):
    d, out = width // 2, []
    while d:
        out.append(ChainStep(intrinsic_operands("__shfl_down_sync", d, width), fn))
        d //= 2
    return tuple(out)


def up_scan(fn, width, exclusive=False):
    """`t = __shfl_up_sync(m, v, d, w); if ((lane % w) >= d) v = op(v, t);`"""
    out, d = [], 1
    while d < width:
        out.append(ChainStep(intrinsic_operands("__shfl_up_sync", d, width), fn, _mask(LANE % width >= d)))
        d *= 2
    if exclusive:
        out.append(ChainStep(intrinsic_operands("__shfl_up_sync", 1, width), None, _mask(LANE % width >= 1)))
    return tuple(out)


def shapes(fn, width):
    """(name, chain, live lanes, the collective it must be recognized as)."""
    op = {"smin": "min", "smax": "max"}.get(fn, fn)
    bits = [1 << k for k in range(width.bit_length() - 1)]
    seg0 = _mask(LANE % width == 0)
    last = _mask(LANE % width == width - 1)
    yield "butterfly desc", xor_steps(fn, width, bits[::-1]), FULL, Collective("reduce", op, width)
    yield "butterfly asc", xor_steps(fn, width, bits), FULL, Collective("reduce", op, width)
    yield "down-tree", down_tree(fn, width), seg0, Collective("reduce", op, width, live=seg0)
    yield "up-scan", up_scan(fn, width), FULL, Collective("scan", op, width)
    yield "exclusive scan", up_scan(fn, width, True), FULL, Collective("scan", op, width, True)
    yield "scan total", up_scan(fn, width), last, Collective("reduce", op, width, live=last)


# ---------------------------------------------------------------------------- shape

@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("fn", ["add", "smax", "umin", "xor", "and", "fadd", "fmax"])
def test_every_shape_is_recognized(fn, width):
    for name, chain, live, want in shapes(fn, width):
        assert classify(chain, live) == want, name


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(WIDTHS), st.data())
def test_butterfly_in_any_order_is_a_reduction(width, data):
    bits = [1 << k for k in range(width.bit_length() - 1)]
    order = data.draw(st.permutations(bits))
    assert classify(xor_steps("add", width, order)) == Collective("reduce", "add", width)
    if len(order) > 1:        # a missing step or a repeated one is no reduction of non-idempotent add
        missing = classify(xor_steps("add", width, order[1:]))
        assert isinstance(missing, (str, Collective))
        assert missing != Collective("reduce", "add", width), (order, missing)
        doubled = classify(xor_steps("add", width, order + [order[0]]))
        assert isinstance(doubled, str)
        assert classify(xor_steps("smax", width, order + [order[0]])) == Collective("reduce", "max", width)


def test_what_is_not_a_collective_says_why():
    # a down-tree read by every lane: lane 31 holds 32 x its own value
    assert "live lanes" in classify(down_tree("add", 32), FULL)
    partial = (ChainStep(intrinsic_operands("__shfl_xor_sync", 1, 32, 0xFFFF), "add"),)
    assert "member mask" in classify(partial)
    mixed = (ChainStep(intrinsic_operands("__shfl_xor_sync", 1), "add"),
             ChainStep(intrinsic_operands("__shfl_xor_sync", 2), "smax"))
    assert "mixes" in classify(mixed)
    up_and_xor = (ChainStep(intrinsic_operands("__shfl_up_sync", 1), "add"),
                  ChainStep(intrinsic_operands("__shfl_xor_sync", 16), "add"))
    assert isinstance(classify(up_and_xor), str)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 31), st.data())
def test_a_butterfly_over_any_lane_bits_is_a_strided_reduction(bits, data):
    """Issue 14: xor steps over a subset of the lane bits (any order) reduce over exactly the lanes
    that differ in those bits; a low run of bits is a plain width; the group is checked lane by
    lane against a direct enumeration."""
    order = data.draw(st.permutations([1 << k for k in range(5) if bits >> k & 1]))
    got = classify(xor_steps("add", 32, order))
    if bits & (bits + 1) == 0:
        assert got == Collective("reduce", "add", bits + 1)
        return
    assert got == Collective("reduce", "add", 32, bits=bits)
    group = got.warp_multisets()
    for i in range(32):
        assert set(np.flatnonzero(group[i]).tolist()) == {i ^ s for s in range(32) if s & ~bits == 0}


@pytest.mark.parametrize("arch,wave", TARGETS)
@pytest.mark.parametrize("bits", [0x1C, 0x18, 0x5, 0x12, 0x1A])
def test_strided_reductions_are_synthesized_proven_and_replayed(arch, wave, bits):
    order = [1 << k for k in reversed(range(5)) if bits >> k & 1]
    chain = xor_steps("add", 32, order)
    coll = classify(chain)
    out = synthesize(coll, arch, wave, chain)
    assert prove(out.plan).proved, out.family
    assert "butterfly" in out.families and "butterfly" not in out.refuted
    verdict, lane = ref_judge(plan_to_dict(out.plan))
    assert verdict == "proved", (out.family, lane)
    assert out.plan.cost <= out.step_by_step_cost


def test_multisets_follow_cuda_out_of_range_rule():
    # down 16 at width 32: lanes 16..31 read their own value (CUDA keeps it), so they double it
    ms = chain_multisets((ChainStep(intrinsic_operands("__shfl_down_sync", 16), "add"),))
    assert ms[0, 0] == 1 and ms[0, 16] == 1 and ms[20, 20] == 2 and ms[20].sum() == 2


# ---------------------------------------------------------------------------- synthesis

def _cases():
    for (arch, wave), width in itertools.product(TARGETS, WIDTHS):
        for fn in ("add", "smax"):
            yield arch, wave, fn, width
    for fn in ("umin", "xor", "and", "fmax", "fadd", "or"):
        yield "gfx942", 64, fn, 32
        yield "gfx1100", 32, fn, 8


@pytest.mark.parametrize("arch,wave,fn,width", list(_cases()))
def test_chain_plans_are_proven_and_replayed_by_the_reference(arch, wave, fn, width):
    for name, chain, live, want in shapes(fn, width):
        coll = classify(chain, live)
        assert coll == want
        out = synthesize(coll, arch, wave, chain)
        plan = out.plan
        assert prove(plan).proved, (name, out.family)
        verdict, lane = ref_judge(plan_to_dict(plan))
        assert verdict == "proved", (name, out.family, lane)
        assert plan.cost <= out.step_by_step_cost, name
        assert plan.cost == pytest.approx(chain_cost(plan.on, plan.steps))
        assert out.step_by_step_cost < out.baseline_cost, name


def test_float_add_without_reassoc_keeps_the_chain_as_written():
    chain = xor_steps("fadd", 32, [16, 8, 4, 2, 1])
    coll = classify(chain)
    exact = synthesize(coll, "gfx942", 64, chain, reassoc=False)
    assert exact.family == "step by step" and set(exact.families) == {"step by step"}
    free = synthesize(coll, "gfx942", 64, chain, reassoc=True)
    assert free.plan.cost < exact.plan.cost            # row_bcast + readlane beats xor 16 via LDS


def test_refuted_family_is_never_chosen():
    out = synthesize(parse_pattern("scan add"), "gfx942")
    assert out.family in out.families
    assert prove(out.plan).proved


def test_down_tree_only_needs_lane_zero():
    chain = down_tree("add", 32)
    lane0 = synthesize(classify(chain, 1), "gfx942", 64, chain)
    every = synthesize(Collective("reduce", "add"), "gfx942", 64)
    assert lane0.plan.cost < every.plan.cost            # no broadcast back to the other lanes


# ---------------------------------------------------------------------------- vs production

def _golden_cases():
    seen = {}
    for vid, vec in GOLDEN.items():
        if vec.get("expect") == "mismatch":
            continue
        for arch in vec["targets"]:
            if arch not in {"gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1200"}:
                continue
            for wave in _waves(vec, arch):
                text = golden_target_text(vec, wave)
                if text and text.startswith(("reduce", "scan")):
                    seen.setdefault((arch, wave, text), []).append(vid)
    return sorted(seen.items())


@needs_golden
def test_never_costlier_than_the_production_sequences():
    checked = 0
    for (arch, wave, text), vids in _golden_cases():
        ours = synthesize(parse_pattern(text), arch, wave).plan.cost
        for vid in vids:
            plan = load_plan({**golden_to_plan(GOLDEN[vid], arch, wave, "add"), "target": text})
            if not prove(plan).proved:
                continue
            checked += 1
            assert ours <= chain_cost(plan.on, plan.steps), (vid, arch, wave, text)
    assert checked >= 100


# ---------------------------------------------------------------------------- exact order (terms)

def _terms_of(chain, fn):
    from shflx.chains.shape import chain_terms
    return lambda domain, wave: chain_terms(chain, fn, domain, wave)


@pytest.mark.parametrize("arch,wave", [("gfx942", 64), ("gfx1100", 32)])
@pytest.mark.parametrize("fn", ["fadd", "add", "fmax"])
def test_the_literal_lowering_is_the_chain_as_written_term_for_term(arch, wave, fn):
    """The Terms domain (each lane's expression tree, never re-associated) proves the step-by-step
    plan equal to the chain on every lane, for every shape; a re-associating family plan of a
    float sum is refuted there (its multiset proof says nothing about rounding)."""
    from shflx.chains.literal import literal_builder
    from shflx.target import resolve_target
    from shflx.verify.api import prove_terms
    target = resolve_target(arch, wave)
    every = np.ones(wave, bool)
    for name, chain, live, _ in shapes(fn, 32):
        plan = literal_builder(chain, fn, target).plan("reduce add")
        assert prove_terms(plan, lambda d: _terms_of(chain, fn)(d, wave), every).proved, name
    chain = xor_steps(fn, 32, [16, 8, 4, 2, 1])
    family = synthesize(classify(chain), arch, wave, chain)
    assert family.family != "step by step" or fn == "fadd" or arch == "gfx1100"
    if family.family in ("readlane", "carry"):
        assert not prove_terms(family.plan, lambda d: _terms_of(chain, fn)(d, wave), every).proved


def test_terms_tell_operand_trees_apart_but_not_operand_order():
    """(a + b) + c and a + (b + c) are different terms; a + b and b + a the same (IEEE add is
    commutative; LLVM swaps the operands of an fadd freely); garbage equals nothing."""
    from shflx.emulate import Terms
    t = Terms(4)
    x = t.input()
    ab_c = t.combine("fadd", t.combine("fadd", x, x[[1, 0, 3, 2]], "s"), x[[2, 3, 0, 1]], "s")
    a_bc = t.combine("fadd", x, t.combine("fadd", x[[1, 0, 3, 2]], x[[2, 3, 0, 1]], "s"), "s")
    assert (t.combine("fadd", x, x[[1, 0, 3, 2]], "s") == t.combine("fadd", x[[1, 0, 3, 2]], x, "s")).all()
    assert (ab_c != a_bc).all()
    g = t.constant("undef")
    assert (t.combine("fadd", g, x, "s") != t.combine("fadd", g, x, "s")).all()
