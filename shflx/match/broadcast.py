"""The warp-uniform broadcast `__shfl_sync(full mask, v, b)` with b a runtime value the same on every
lane (width 32): a family of plans, one per value of b's lane bits, each proven like any other plan.

CUDA reads lane `b & 31` of the lane's own warp (pseudocode with c = 0x1f: j = b[4:0], always in
range), so the lowering is `v_readlane` of lane b & 31 (wave32), and on wave64 a second readlane of
lane (b & 31) | 32 with a select on the upper half. The lane operand is a runtime SGPR, so no single
constant plan covers it: instead the 32 instances (b & 31 = 0..31) are proven against `idx k`, and
the one emitted helper, whose readlanes take `%b.lo` / `%b.hi` from the prologue below, is read back
as each instance for every b in 0..63 (verify.readback)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..amd.llvm_ir import function_ir, local_name
from ..plan import Plan, Readlane, Select
from ..target import Target
from ..verify.api import prove
from ..verify.readback import emitted_differences
from .cost import steps_cost

UPPER_HALF = ((1 << 32) - 1) << 32
LANE_PARAM = "%b"
# the helper's prologue: how the readlanes' lane operands are computed from the runtime b
PROLOGUE = (f"  %b.lo = and i32 {LANE_PARAM}, 31", "  %b.hi = or i32 %b.lo, 32")
LANE_OPERANDS = {"lo": "%b.lo", "hi": "%b.hi"}


@dataclass(frozen=True)
class BroadcastFamily:
    """The proven instances (index k: the plan for b & 31 == k) and what they assume."""
    instances: tuple[Plan, ...]
    assumptions: tuple[str, ...]

    @property
    def template(self) -> Plan:
        """The instance the helper is emitted from (its readlane lanes are replaced by LANE_OPERANDS)."""
        return self.instances[0]

    @property
    def cost(self) -> float:
        return self.template.cost


def instance(target: Target, k: int) -> Plan:
    """The plan for b & 31 == k: each CUDA warp reads lane k of itself."""
    if target.wave == 32:
        steps: tuple = (Readlane(id="lo", src="x", lane=k),)
        result = "lo"
    else:
        steps = (Readlane(id="lo", src="x", lane=k), Readlane(id="hi", src="x", lane=k | 32),
                 Select(id="r", a="hi", b="lo", lanes=UPPER_HALF))
        result = "r"
    return Plan.made_for(target, f"idx {k}", steps, result, steps_cost(target, steps))


@lru_cache(maxsize=None)
def uniform_broadcast(target: Target) -> BroadcastFamily:
    """All 32 instances, each proven against `idx k`; a refuted instance is a shflx bug and raises."""
    plans, assumptions = [], []
    for k in range(32):
        plan = instance(target, k)
        proof = prove(plan)
        if not proof.proved:
            raise RuntimeError(f"internal: the uniform broadcast for b & 31 = {k} on {target.name} wave{target.wave} is "
                             f"{proof.status}: {proof.reason}")
        plans.append(Plan.made_for(target, plan.target, plan.steps, plan.result, plan.cost, proof.to_json()))
        assumptions += [a for a in proof.assumptions if a not in assumptions]
    return BroadcastFamily(tuple(plans), tuple(assumptions))


def helper_ir(family: BroadcastFamily, name: str, attrs: str) -> tuple[str, set[str]]:
    """`i32 @name(i32 %x, i32 %b)`: the template's steps with their lanes read from `%b`."""
    return function_ir(family.template, name, attrs, params=(LANE_PARAM,), prologue=PROLOGUE,
                       lane_operands=LANE_OPERANDS)


def helper_differences(family: BroadcastFamily, text: str) -> list[str]:
    """Where the emitted helper, with b bound to each of 0..63, is not the proven instance for b & 31."""
    for b in range(64):
        wrong = emitted_differences(family.instances[b & 31], text, local_name, {LANE_PARAM: b})
        if wrong:
            return [f"with b = {b}: {wrong[0]}"]
    return []
