"""Pattern + target -> the cheapest proven plan (the synthesizer), with its cost and proof.

`lower(pattern, arch)` is the API behind `shflx lower`; search.py holds the search, solvers.py the
one-step solvers, cost.py the cost model, and shflx.driver.cache the persistent store around it."""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from ..errors import InputError
from ..pattern import Collective, Shuffle, format_pattern, parse_pattern
from ..plan import Plan
from ..target import Target, resolve_target
from .cost import bpermute_cost, fusable, fused_cost, uses_lds
from .search import Candidate, SearchReport, candidates, sort_guesses

SEARCH_VERSION = 10  # bump whenever the plan JSON or the search changes (it keys the cache)



def lower(pattern: str | Shuffle, arch: str | Target, wave: int | None = None, runtime_mask: bool = False,
          prefer: str | None = None) -> Plan:
    """The cheapest proven plan for `pattern` on `arch` (a name, resolved here, or a Target): search,
    rank, prove; the first proven candidate wins (the exact fallback always exists).

    `runtime_mask`: the member mask is not a compile-time constant: one-step plans only.
    `prefer`: "lds-free" ranks plans without an LDS-crossbar op first (target.PREFERENCES)."""
    p = parse_pattern(pattern) if isinstance(pattern, str) else pattern
    if isinstance(p, Collective):
        raise InputError(f"'{format_pattern(p)}' is a reduction/scan; `lower` takes shuffle patterns "
                         "(chains are synthesized by the compile pipeline)")
    from ..verify.api import prove

    target = resolve_target(arch, wave, prefer=prefer)
    text = format_pattern(p)
    want = p.lane_map(target.wave)
    t0 = time.perf_counter()
    report = SearchReport()
    found = candidates(target, want, report, runtime_mask)
    if target.lds_free_first and all(c.uses_lds for c in found):
        # No LDS-free plan: the cheapest one with the LDS, as the default search finds it (its stages
        # prune against the cheapest plan so far, which they cannot while chasing an LDS-free one).
        found = sort_guesses(found + candidates(target.with_prefer("cycles"), want, SearchReport(), runtime_mask))
    for cand in found:
        plan = Plan.made_for(target, text, cand.steps, cand.result, cand.cost)
        proof = prove(plan)
        if proof.status == "proved":
            return _finish(plan, proof, cand, report, time.perf_counter() - t0, runtime_mask)
    raise RuntimeError(f"internal error: no candidate for '{text}' on {target.name} was proved")


def _finish(plan: Plan, proof: Any, cand: Candidate, report: SearchReport, seconds: float,
            runtime_mask: bool) -> Plan:
    baseline = bpermute_cost(plan.on)
    extra = {
        "fusable": fusable(plan),
        "fused_cost": fused_cost(plan),
        "baseline_cost": baseline,
        "uses_lds": uses_lds(plan),
        "stage": cand.stage,
        "optimality": _optimality(plan, cand, runtime_mask),
        "search": {"candidates": report.candidates, "first_moves": report.pool,
                   "ms": round(seconds * 1e3, 2), "version": SEARCH_VERSION},
    }
    return replace(plan, proof=proof.to_json(), extra=tuple(extra.items()))


def _optimality(plan: Plan, cand: Candidate, runtime_mask: bool) -> dict[str, Any]:
    """What the search rules out (issue 3: 'optimal within k steps', or where it stopped).

    One-step plans are searched exhaustively (every DPP16 control, mask, BC and `old`; DPP8 and
    permlane16/x16 selectors by construction; every swizzle offset); two-step plans through the
    pool of cheap first moves; selects of two values or a value and a fix-up move."""
    target = plan.on
    cheapest = min(target.cost("dpp_mov"), target.cost("valu"))
    if runtime_mask:
        return {"optimal_within_steps": 1, "complete": True,
                "note": "runtime member mask: one-step plans only, all of them searched"}
    if len(plan.steps) <= 1 and plan.cost <= 2 * cheapest:
        return {"optimal_within_steps": None, "complete": True,
                "note": f"optimal: all one-step plans searched; any longer plan costs at least {2 * cheapest:g}"}
    if len(plan.steps) <= 1:
        return {"optimal_within_steps": 1, "complete": False,
                "note": "optimal among one-step plans; longer plans searched through the first-move pool"}
    return {"optimal_within_steps": 1, "complete": False,
            "note": "no cheaper one-step plan exists; two-step plans searched through the first-move pool "
                    "and selects of two, not exhaustively"}
