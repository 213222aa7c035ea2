"""The warp-uniform broadcast (`__shfl_sync(full, v, b)`, b uniform at run time) is a family of proven
plans, and the one helper emitted for it reads back as the right instance for every b (issue 13)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from shflx.cuda import shfl_sync
from shflx.emulate import Provenance, result
from shflx.ir.rewrite import INLINE_ATTRS
from shflx.match.broadcast import LANE_PARAM, helper_differences, helper_ir, instance, uniform_broadcast
from shflx.target import resolve_target

TARGETS = [("gfx942", 64), ("gfx90a", 64), ("gfx1100", 32), ("gfx1100", 64), ("gfx1200", 32)]


@pytest.mark.parametrize("arch,wave", TARGETS)
def test_every_instance_is_proven_and_is_cuda_idx_of_b(arch, wave):
    family = uniform_broadcast(resolve_target(arch, wave))
    assert len(family.instances) == 32
    hw = np.arange(wave)
    for b in range(64):                         # b's bit 5 and up do not matter to CUDA (b[4:0])
        plan = family.instances[b & 31]
        assert plan.proof["status"] == "proved", (arch, wave, b)
        cuda_src, _ = shfl_sync("idx", b, 0x1F)  # the CUDA model: the lane each CUDA lane reads
        want = (hw & 32) + cuda_src[hw & 31]
        got = result(plan, Provenance(wave))    # the source lane each hardware lane ends up with
        assert list(got) == list(want), (arch, wave, b)


@pytest.mark.parametrize("arch,wave", TARGETS)
def test_the_emitted_helper_reads_back_as_every_instance(arch, wave):
    family = uniform_broadcast(resolve_target(arch, wave))
    text, needed = helper_ir(family, "f", INLINE_ATTRS)
    assert f"i32 {LANE_PARAM})" in text.splitlines()[0] and "readlane" in needed
    assert helper_differences(family, text) == []


def test_a_wrong_helper_is_caught():
    family = uniform_broadcast(resolve_target("gfx942", 64))
    text, _ = helper_ir(family, "f", INLINE_ATTRS)
    halves = text.replace("i32 %b.lo)", "i32 %TMP)").replace("i32 %b.hi)", "i32 %b.lo)").replace("i32 %TMP)", "i32 %b.hi)")
    assert halves != text and helper_differences(family, halves)
    no_mask = text.replace(f"and i32 {LANE_PARAM}, 31", f"and i32 {LANE_PARAM}, 63")
    assert no_mask != text and "with b = 32" in helper_differences(family, no_mask)[0]


def test_a_wrong_instance_is_refuted():
    from shflx.plan import Plan, Select
    from shflx.verify.api import prove
    good = instance(resolve_target("gfx942", 64), 5)
    sel = good.steps[-1]
    assert isinstance(sel, Select)
    swapped = Plan(good.arch, good.wave, good.target, good.steps[:-1] + (Select(id=sel.id, a=sel.b, b=sel.a, lanes=sel.lanes),),
                   good.result)
    proof = prove(swapped)
    assert proof.status == "refuted" and re.search(r"receives x\[37\]", proof.reason)
