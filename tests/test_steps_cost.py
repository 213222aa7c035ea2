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
