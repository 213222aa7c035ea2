"""The cost model against the assembly LLVM really emits (issue 14: price what is emitted).

For every catalog pattern and the 231 distinct power-of-two-width CUDA shuffles, on one target of
every ISA family in isa/amd (GFX8, GFX9, CDNA1-4, RDNA1-4, RDNA3.5) and on RDNA in wave64 too: the
plan's cost from shflx.match.cost on one side; on the other, the instructions the plan adds to the
test kernel of `shflx lower --llvm` compiled by llvmlite (kernel minus the same kernel with an empty
plan), priced here per instruction class from the target's isa/ unit costs: v_* one VALU issue,
SALU one SALU issue (costs.exec_write, "one SALU issue"), s_nop N N+1 wait states, ds_bpermute/
ds_swizzle their LDS cost; waits and delays are inside those (s_waitcnt, s_delay_alu, s_clause), and
a global_load of a constant lane table is free (its latency is off the shuffled value's path: an
assumption of the model).

The bound (stated, and checked both ways): asm - model lies in [-2 VALU, +2 VALU] issue costs for
every plan. The model may over-charge a little (permlane selectors that are inline constants, the
wave32 lane table's mbcnt_hi) and under-charge up to two wait states on GFX8/9: the s_nop LLVM puts
between the kernel's load of x and a first DPP (a producer the plan cannot see), and one where
LLVM's scheduler orders independent steps otherwise than the model's list schedule
(llvm_ir.emission_order). Plans searched with `--prefer lds-free` (long DPP chains and writelane
fix-ups) are held to [-2 VALU, +3 VALU] on GFX9. The ds_bpermute fallback is priced with its index
table (3 VALU + 3 SALU), as any per-lane table, so it is held to the same bound."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from functools import lru_cache

import pytest

from shflx.amd.llvm_ir import kernel_ir
from shflx.catalog import catalog
from shflx.codegen.llvm import compile_ir
from shflx.isa import amd_target, known_amd_targets
from shflx.match import lower
from shflx.pattern import parse_pattern
from shflx.target import resolve_target

FREE = ("s_waitcnt", "s_delay_alu", "s_wait_", "s_clause", "global_load", "flat_load")   # GFX8 has no global_*


WELL_KNOWN = ("gfx803", "gfx900", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1030", "gfx1100", "gfx1150",
              "gfx1200")


def one_per_family() -> list[str]:
    """One target of each ISA family whose cross-lane features differ (the well-known one where the
    family has it, else the first in LLVM's order)."""
    seen: dict[tuple, list[str]] = {}
    for name in known_amd_targets():
        t = amd_target(name)
        seen.setdefault((t.family, t.features), []).append(name)
    return [next((n for n in names if n in WELL_KNOWN), names[0]) for names in seen.values()]


FAMILIES = one_per_family()
CASES = [(a, amd_target(a).waves[0]) for a in FAMILIES] + \
        [(a, 64) for a in FAMILIES if 64 in amd_target(a).waves and amd_target(a).waves[0] != 64]


def test_every_family_is_checked():
    assert len(FAMILIES) >= 11 and {"gfx803", "gfx900", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100",
                                    "gfx1200"} <= set(FAMILIES), FAMILIES


def distinct_231() -> list[str]:
    texts = []
    for w in (2, 4, 8, 16, 32):
        texts += [f"xor {m} width {w}" for m in range(1, 32)]
        texts += [f"{k} {d} width {w}" for k in ("up", "down") for d in range(1, w)]
        texts += [f"idx {k} width {w}" for k in range(w)]
    seen: dict[bytes, str] = {}
    for t in texts:
        seen.setdefault(parse_pattern(t).warp_map().key(), t)
    return list(seen.values())


def body(asm: str) -> Counter:
    """(mnemonic, s_nop count) multiset of the test kernel's instructions."""
    out: Counter = Counter()
    lines = asm[asm.index("shflx_test:"):asm.index("s_endpgm")].splitlines()[1:]
    for line in lines:
        s = line.split(";")[0].strip()
        if s and not s.startswith(".") and not s.endswith(":"):
            m = s.split()
            out[(m[0], int(m[1]) if m[0] == "s_nop" else 0)] += 1
    return out


@lru_cache(maxsize=None)
def empty_kernel(arch: str, wave: int) -> Counter:
    plan = lower("xor 1", arch, wave)
    return body(compile_ir(kernel_ir(replace(plan, steps=(), result="x")), arch, wave=wave, emit="asm"))


def asm_minus_model(plan) -> tuple[float, Counter]:
    extra = body(compile_ir(kernel_ir(plan), plan.arch, wave=plan.wave, emit="asm")) - empty_kernel(plan.arch, plan.wave)
    return asm_cost(extra, plan.arch) - plan.cost, extra


def asm_cost(extra: Counter, arch: str) -> float:
    t = amd_target(arch)
    total = 0.0
    for (m, n), k in extra.items():
        if m.startswith(FREE):
            continue
        if m.startswith("v_"):
            total += k * t.cost("valu")
        elif m == "s_nop":
            total += k * (n + 1) * t.cost("dpp_hazard_nop")
        elif m.startswith("ds_bpermute"):
            total += k * t.cost("ds_bpermute")
        elif m.startswith("ds_swizzle"):
            total += k * t.cost("ds_swizzle")
        elif m.startswith("s_"):
            total += k * t.cost("exec_write")
        else:
            raise AssertionError(f"unclassified instruction {m}")
    return total


def patterns() -> list[str]:
    pats = list(dict.fromkeys(distinct_231() + [e.text for e in catalog()]))
    assert len(pats) >= 231
    return pats


@pytest.mark.parametrize("arch, wave", CASES, ids=[f"{a}-w{w}" for a, w in CASES])
def test_model_cost_matches_the_emitted_asm(arch, wave):
    valu = amd_target(arch).cost("valu")
    bad = []
    for text in patterns():
        plan = lower(text, arch, wave)
        assert not any(is_identity_move(s, plan.wave) for s in plan.steps), (text, plan.steps)
        diff, extra = asm_minus_model(plan)
        if not -2 * valu <= diff <= 2 * valu:
            bad.append((text, plan.cost, diff, [s.op for s in plan.steps], dict(extra)))
    assert not bad, bad[:5]


def is_identity_move(step, wave: int) -> bool:
    """A DPP move that writes every lane with its own value: a wasted instruction (issue 14 found two
    gfx950 plans carrying one)."""
    import numpy as np

    from shflx.amd.dpp import dpp16_source
    from shflx.plan import UpdateDpp

    if not isinstance(step, UpdateDpp) or (step.row_mask, step.bank_mask) != (15, 15):
        return False
    lanes = np.arange(wave)
    src, valid = dpp16_source(step.dpp_ctrl, lanes, wave)
    return bool((np.broadcast_to(valid, lanes.shape) & (np.broadcast_to(src, lanes.shape) == lanes)).all())


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942"])
def test_lds_free_plans_are_priced_as_emitted(arch):
    """`--prefer lds-free` plans: long interleaved DPP chains, row swaps, writelane fix-ups."""
    valu = amd_target(arch).cost("valu")
    bad = []
    for text in patterns():
        plan = lower(text, arch, prefer="lds-free")
        diff, extra = asm_minus_model(plan)
        if not -2 * valu <= diff <= 3 * valu:
            bad.append((text, plan.cost, diff, [s.op for s in plan.steps], dict(extra)))
    assert not bad, bad[:5]


def test_asm_pricing_sees_a_wasteful_select():
    """The check can fail: the 8-instruction `lshr i64 mask, lane` select LLVM emitted before
    issue 14 is outside the bound."""
    arch = "gfx942"
    plan = lower("up 1", arch)
    assert any(s.op == "select" for s in plan.steps)
    old_form = ("  %lane.lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)\n"
                "  %lane = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lane.lo)\n"
                "  %s.f.l64 = zext i32 %lane to i64\n"
                "  %s.f.sh = lshr i64 \\1, %s.f.l64\n"
                "  %s.f.bit = trunc i64 %s.f.sh to i1")
    ir, n = re.subn(r"  %s\.f\.bit = call i1 @llvm\.amdgcn\.inverse\.ballot\.i64\(i64 (-?\d+)\)", old_form,
                    kernel_ir(plan))
    assert n == 1
    ir = ir.replace("declare i32 @llvm.amdgcn.workitem.id.x()", "declare i32 @llvm.amdgcn.workitem.id.x()\n"
                    "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)\ndeclare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)")
    extra = body(compile_ir(ir, arch, wave=64, emit="asm")) - empty_kernel(arch, 64)
    diff = asm_cost(extra, arch) - plan.cost
    assert diff > amd_target(arch).cost("valu"), (diff, dict(extra))


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_the_bpermute_fallback_is_priced_as_emitted(arch):
    """A map no single cheap move realizes, under a runtime member mask (one-step plans only),
    falls back to ds_bpermute; its index table is in the model (it was once left out)."""
    text = "map " + ",".join(str((i * 7 + 3) % 32) for i in range(32))
    plan = lower(text, arch, runtime_mask=True)
    assert [s.op for s in plan.steps] == ["ds.bpermute"]
    extra = body(compile_ir(kernel_ir(plan), arch, wave=plan.wave, emit="asm")) - empty_kernel(arch, plan.wave)
    valu = amd_target(arch).cost("valu")
    assert -2 * valu <= asm_cost(extra, arch) - plan.cost <= valu, dict(extra)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("second_old, shared_wait", [("c", False), ("undef", True)])
def test_dpp_wait_states_are_those_llvm_inserts(arch, second_old, shared_wait):
    """Two DPP moves read one select result: the second waits again only when its tied `old` is the
    first's result (LLVM checks every VGPR a DPP reads); otherwise the first's wait covers both.
    The model's wait states equal the asm's s_nop wait states, less at most the one LLVM puts after
    the kernel's load of x (where no SALU op fills it)."""
    from shflx.plan import Plan, Select, UpdateDpp
    from shflx.match.cost import steps_cost
    from shflx.verify.api import prove

    steps = (UpdateDpp("a", "x", "undef", 0x138, 15, 15, 1), Select("s", "a", "x", 0xFFFF0000FFFF0000),
             UpdateDpp("c", "s", "undef", 0x114, 15, 15, 1), UpdateDpp("e", "s", second_old, 0x104, 15, 0x5, 0))
    if shared_wait:
        steps += (Select("f", "c", "e", 0xF0F0F0F0F0F0F0F0),)
    plan = Plan(arch, 64, "", steps, steps[-1].id, steps_cost(resolve_target(arch, 64), steps))
    extra = body(compile_ir(kernel_ir(plan), arch, wave=64, emit="asm")) - empty_kernel(arch, 64)
    asm_waits = sum((n + 1) * k for (m, n), k in extra.items() if m == "s_nop")
    t = amd_target(arch)
    issue = sum(t.cost("select" if s.op == "select" else "dpp_mov") for s in steps)
    model_waits = (plan.cost - issue) / t.cost("dpp_hazard_nop")
    assert model_waits == (2 if shared_wait else 4), plan.cost
    assert asm_waits - model_waits in (0, 1), dict(extra)
