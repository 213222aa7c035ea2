"""steps_cost on a partial-EXEC DPP step: EXEC is written and restored (two exec_write), and the
EXEC -> DPP wait states are charged only where the target has them (GFX8/9; none on GFX10+,
which has no dpp_hazard_nop cost at all: this used to raise KeyError)."""
from __future__ import annotations

import pytest

from shflx.isa import amd_target
from shflx.match.cost import steps_cost
from shflx.plan import UpdateDpp
from shflx.target import resolve_target


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1200"])
def test_partial_exec_dpp_cost(arch):
    t = amd_target(arch)
    step = UpdateDpp("a", "x", "x", 0x1B, 15, 15, 1, exec=0xF)
    waits = t.hazards.get("dpp_after_exec_write", 0)
    want = 2 * t.cost("exec_write") + t.cost("dpp_mov") + (waits * t.cost("dpp_hazard_nop") if waits else 0)
    assert steps_cost(resolve_target(arch), (step,)) == want


@pytest.mark.parametrize("arch,waits", [("gfx950", True), ("gfx942", False)])
def test_a_permlane_swap_reading_a_valu_result_waits_where_the_target_needs_it(arch, waits):
    """A permlane16 swap whose operand a DPP move (a VALU op) just wrote, with no copy between them:
    gfx950's permlane_swap_after_vgpr_write wait states are added, once; other targets add none."""
    from shflx.match.cost import emitted_extras
    from shflx.plan import Permlane16Swap

    target = resolve_target(arch)
    dpp = UpdateDpp("a", "x", "undef", 0x111, 15, 15, 1)          # row_shl:1
    swap = Permlane16Swap("s", "a", "x", 0, 0, 0)               # each operand read once: no copy
    base = emitted_extras(target, (dpp,))
    wait = target.hazards.get("permlane_swap_after_vgpr_write", 0) * target.cost("dpp_hazard_nop")
    extra = emitted_extras(target, (dpp, swap)) - base
    assert (wait > 0) == waits
    assert extra == wait
