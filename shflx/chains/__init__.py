"""Reduction and scan chains: what a chain computes (shape), and its cheapest proven plan (synth).

`synthesize(collective, arch)` builds every family's plan plus the step-by-step lowering of the
chain as written, proves each with the multiset semantics, and returns the cheapest proven one
with the costs it was compared against (DESIGN decision 5 decides when only the literal lowering
is allowed: float add/mul without `reassoc`)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from ..combine import FNS
from ..match.cost import bpermute_cost
from ..pattern import Collective, format_pattern
from ..plan import Plan
from ..target import Target, resolve_target
from .literal import canonical_chain, literal_builder
from .shape import ChainStep, chain_multisets, classify
from .synth import family_plans

__all__ = ["ChainStep", "ChainPlan", "classify", "chain_multisets", "synthesize", "canonical_chain",
           "reassociation_allowed"]


@dataclass(frozen=True)
class ChainPlan:
    """The chosen plan and what it was weighed against (costs in the isa/ cost model)."""

    collective: Collective
    plan: Plan
    family: str
    step_by_step_cost: float
    baseline_cost: float                 # every shuffle of the chain as ds_bpermute
    families: dict[str, float] = field(default_factory=dict)   # proven family -> cost
    refuted: tuple[str, ...] = ()        # families whose plan did not prove (reported, never used)
    ms: float = 0.0
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"collective": format_pattern(self.collective), "family": self.family,
                "cost": self.plan.cost, "step_by_step_cost": self.step_by_step_cost,
                "baseline_cost": self.baseline_cost, "families": self.families,
                "refuted_families": list(self.refuted), "steps": len(self.plan.steps),
                "ms": round(self.ms, 2)}


def reassociation_allowed(fn: str, fp_reassoc: bool) -> bool:
    """DESIGN decision 5: integer ops and float min/max always; float add/mul only when allowed."""
    return not FNS[fn].is_float or FNS[fn].idempotent or fp_reassoc


def synthesize(coll: Collective, arch: str | Target, wave: int | None = None,
               chain: tuple[ChainStep, ...] | None = None, reassoc: bool = True) -> ChainPlan:
    """The cheapest proven plan for `coll` on `arch` (a name, resolved here, or a Target). `chain`:
    the steps as the user wrote them (default: the canonical CUDA form); its literal lowering is always a candidate, and the only
    one when `reassoc` is False. Memoized in-process; shflx.driver.cache.synthesize adds the
    persistent store around it."""
    target = resolve_target(arch, wave)
    chain = chain if chain is not None else canonical_chain(coll)
    return _synthesize(coll, target, chain, reassoc)


@lru_cache(maxsize=4096)
def _synthesize(coll: Collective, target: Target, chain: tuple[ChainStep, ...], reassoc: bool) -> ChainPlan:
    from ..verify.api import prove

    t0 = time.perf_counter()
    text = format_pattern(coll)
    literal = literal_builder(chain, coll.fn, target).plan(text)
    options = [("step by step", literal)]
    if reassoc:
        options += family_plans(coll, target)
    proven: dict[str, tuple[float, Plan]] = {}
    refuted = []
    for name, plan in sorted(options, key=lambda o: o[1].cost):
        proof = prove(plan)
        if proof.status == "proved":
            proven.setdefault(name, (plan.cost, replace(plan, proof=proof.to_json())))
        else:
            refuted.append(name)
    if "step by step" not in proven:
        raise RuntimeError(f"internal error: the step-by-step lowering of '{text}' on {target.name} did not prove")
    family, (cost, plan) = min(proven.items(), key=lambda kv: (kv[1][0], kv[0] != "step by step"))
    steps = len(chain)
    baseline = steps * (bpermute_cost(target) + target.cost("valu"))
    baseline += sum(target.cost("select") for s in chain if s.guard != 0xFFFFFFFF)
    return ChainPlan(coll, plan, family, literal.cost, baseline,
                     {k: v[0] for k, v in proven.items()}, tuple(refuted), (time.perf_counter() - t0) * 1e3)
