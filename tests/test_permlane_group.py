"""gfx1250's v_permlane_bcast/up/down/xor_b32 (shflx/amd/permlane_group.py): every kind, group width
and selector under several EXEC masks against the independent reference (tests/reference/amd_ref.py,
per-lane loops), legality, proofs, both emitters, the read-back check and LLVM 22.1's codegen."""
from __future__ import annotations

import re

import numpy as np
import pytest

from shflx.amd.llvm_ir import function_ir, kernel_ir, local_name
from shflx.codegen.llvm import compile_ir
from shflx.emulate import Provenance, Trace, result
from shflx.errors import IllegalOp, ToolchainError
from shflx.lanes import OPEN, UNDEF
from shflx.plan import Plan, plan_to_dict
from shflx.steps import PermlaneBcast, PermlaneDown, PermlaneUp, PermlaneXor
from shflx.verify.api import prove
from shflx.verify.readback import emitted_differences
from tests.reference import amd_ref

KINDS = {"bcast": PermlaneBcast, "up": PermlaneUp, "down": PermlaneDown, "xor": PermlaneXor}
WIDTHS = (1, 2, 4, 8, 16, 32)
FULL = (1 << 32) - 1
EXECS = (FULL, 0x0F0F00FF, 0xAAAAAAAB, 1 << 17)


def _plan(kind: str, sel: int, width: int, exec_: int | None = None, target: str = "") -> Plan:
    return Plan("gfx1250", 32, target, (KINDS[kind]("f", "x", sel, width, exec=exec_),), "f")


def _ref_lanes(plan: Plan) -> list[int]:
    """The reference's provenance in shflx's encoding (input lane, UNDEF or OPEN)."""
    out = []
    for v in amd_ref.ref_replay(plan_to_dict(plan)):
        out.append(v[1] if v[0] == "x" else UNDEF if v == amd_ref.UNDEF else OPEN if v[0] == "open" else None)
    return out


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_width_selector_and_exec_agrees_with_the_reference(kind):
    checked = 0
    for width in WIDTHS:
        for sel in [*range(64), *((0x12345678, 0xFFFFFFFF) if kind == "bcast" else ())]:
            for ex in EXECS:
                plan = _plan(kind, sel, width, None if ex == FULL else ex)
                got = [int(v) for v in result(plan, Provenance(32), Trace())]
                assert got == _ref_lanes(plan), (kind, width, sel, hex(ex))
                checked += 1
    assert checked == len(WIDTHS) * (64 + 2 * (kind == "bcast")) * len(EXECS)


@pytest.mark.parametrize("kind, sel, width, want", [
    ("bcast", 5, 8, [(i & ~7) | 5 for i in range(32)]),
    ("bcast", 0x45, 16, [(i & ~15) | 5 for i in range(32)]),          # sel[5:0] & (width - 1)
    ("up", 3, 16, [i - 3 if i % 16 >= 3 else i for i in range(32)]),
    ("up", 40, 8, list(range(32))),                                   # past the group: every lane keeps
    ("down", 1, 4, [i + 1 if i % 4 < 3 else i for i in range(32)]),
    ("xor", 5, 16, [i ^ 5 for i in range(32)]),
    ("xor", 8, 16, [i ^ 8 for i in range(32)]),
    ("xor", 40, 8, list(range(32))),                                  # sel >= the wave: every lane keeps
])
def test_documented_examples(kind, sel, width, want):
    """Examples worked by hand from HIP's comments (the __shfl* fallbacks compute the same lanes)."""
    assert [int(v) for v in result(_plan(kind, sel, width), Provenance(32))] == want


def test_xor_into_a_lower_group_is_an_open_question_and_never_proved():
    plan = _plan("xor", 16, 16, target="xor 16")
    got = np.asarray(result(plan, Provenance(32)))
    assert (got[:16] == np.arange(16)).all() and (got[16:] == OPEN).all()   # above: keep; below: open
    trace = Trace()
    result(plan, Provenance(32), trace)
    assert any("lower lane group" in q for q in trace.questions)
    assert prove(plan).status != "proved"
    assert prove(_plan("xor", 16, 32, target="xor 16")).status == "proved"  # inside the group: settled


def test_reading_an_inactive_lane_is_open():
    plan = _plan("bcast", 0, 8, exec_=FULL & ~1)
    got = np.asarray(result(plan, Provenance(32)))
    assert got[0] == UNDEF and (got[1:8] == OPEN).all() and (got[8:16] == 8).all()


@pytest.mark.parametrize("arch, wave, step, fragment", [
    ("gfx1200", 32, PermlaneXor("f", "x", 1, 16), "v_permlane_xor_b32 does not exist on gfx1200"),
    ("gfx1250", 32, PermlaneBcast("f", "x", 1, 12), "width 12 is not modeled"),
    ("gfx1250", 32, PermlaneUp("f", "x", 64, 16), "sel 64 is not modeled"),
    ("gfx1250", 32, PermlaneBcast("f", "x", 1 << 32, 16), "does not fit its 32-bit field"),
])
def test_illegal_steps_name_the_reason(arch, wave, step, fragment):
    with pytest.raises(IllegalOp) as e:
        result(Plan(arch, wave, "", (step,), "f"), Provenance(wave))
    assert fragment in str(e.value)


@pytest.mark.parametrize("pattern, kind, sel, width", [
    ("idx 5 width 8", "bcast", 5, 8), ("up 3 width 16", "up", 3, 16), ("down 1 width 4", "down", 1, 4),
    ("xor 5", "xor", 5, 32), ("xor 9 width 16", "xor", 9, 16),
])
def test_cuda_shuffles_are_proved(pattern, kind, sel, width):
    assert prove(_plan(kind, sel, width, target=pattern)).proved


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_emitted_ir_reads_back_and_llvm_emits_the_instruction(kind):
    plan = _plan(kind, 5, 16)
    fn, needed = function_ir(plan, "f")
    assert emitted_differences(plan, fn, local_name) == []
    assert f"call i32 @llvm.amdgcn.permlane.{kind}(i32 %x, i32 5, i32 16)" in fn and needed == {f"permlane.{kind}"}
    swapped = fn.replace("i32 5, i32 16", "i32 16, i32 5")
    assert emitted_differences(plan, swapped, local_name)        # the check reads LLVM's operand order
    asm = compile_ir(kernel_ir(plan), "gfx1250", wave=32, emit="asm")
    assert re.search(rf"^\s*v_permlane_{kind}_b32 v\d+, v\d+, 5, 16$", asm, re.M), asm


def test_gfx1250_runs_wave32_only_in_llvm():
    """The isa/amd/gfx1250.toml wave fact: LLVM 22.1 compiles gfx1250 in wave32; its wave64 probe
    kernel comes out with no wavefront size 64 (shflx.codegen.llvm checks the probe)."""
    ir = kernel_ir(_plan("xor", 1, 32))
    assert ".wavefront_size: 32" in compile_ir(ir, "gfx1250", wave=32, emit="asm")
    with pytest.raises(ToolchainError, match="cannot compile wave64 code for gfx1250"):
        compile_ir(ir.replace("+wavefrontsize32", "+wavefrontsize64"), "gfx1250", wave=64, emit="asm")
