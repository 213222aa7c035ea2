"""Pattern + target -> the cheapest proven plan (the synthesizer), with its cost and proof.

`lower(pattern, arch)` is the API behind `shflx lower`; search.py holds the search, solvers.py the
one-step solvers, cost.py the cost model, and shflx.cache the persistent store around it."""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from ..errors import InputError, UsageError
from ..isa import amd_target
from ..pattern import Collective, Shuffle, format_pattern, parse_pattern
from ..plan import Plan
from .cost import bpermute_cost, fusable, fused_cost, uses_lds
from .search import Candidate, SearchReport, candidates

SEARCH_VERSION = 1


def _wave(arch: str, wave: int | None) -> int:
    target = amd_target(arch)
    if wave is None:
        return target.default_wave
    if wave not in target.waves:
        raise UsageError(f"{arch} runs wave{'/'.join(map(str, target.waves))}, not wave{wave}")
    return wave


def lower_uncached(pattern: str | Shuffle, arch: str, wave: int | None = None) -> Plan:
    """Search, rank, prove; the first proven candidate wins (the exact fallback always exists)."""
    from ..verify.api import prove

    p = parse_pattern(pattern) if isinstance(pattern, str) else pattern
    if isinstance(p, Collective):
        raise InputError(f"'{format_pattern(p)}' is a reduction/scan; `lower` takes shuffle patterns "
                         "(chains are synthesized by the compile pipeline)")
    wave = _wave(arch, wave)
    text = format_pattern(p)
    want = p.lane_map(wave)
    t0 = time.perf_counter()
    report = SearchReport()
    found = sorted(candidates(arch, wave, want, report), key=lambda c: c.rank)
    for cand in found:
        plan = Plan(arch, wave, text, cand.steps, cand.result, cand.cost)
        proof = prove(plan)
        if proof.status == "proved":
            return _finish(plan, proof, cand, found, report, time.perf_counter() - t0)
    raise RuntimeError(f"internal error: no candidate for '{text}' on {arch} was proved")


def _finish(plan: Plan, proof: Any, cand: Candidate, found: list[Candidate], report: SearchReport,
            seconds: float) -> Plan:
    baseline = bpermute_cost(plan.arch)
    extra = {
        "fusable": fusable(plan),
        "fused_cost": fused_cost(plan),
        "baseline_cost": baseline,
        "uses_lds": uses_lds(plan),
        "stage": cand.stage,
        "optimality": _optimality(plan, cand),
        "search": {"candidates": report.candidates, "first_moves": report.pool,
                   "ms": round(seconds * 1e3, 2), "version": SEARCH_VERSION},
    }
    return replace(plan, proof=proof.to_json(), extra=tuple(extra.items()))


def _optimality(plan: Plan, cand: Candidate) -> str:
    """What the search rules out (issue 3: 'optimal within k steps' or 'stopped early')."""
    target = amd_target(plan.arch)
    cheapest_step = min(target.cost("dpp_mov"), target.cost("valu"))
    if len(plan.steps) <= 1 or plan.cost <= cheapest_step:
        return "optimal: every cheaper plan has fewer steps, and all one-step plans were searched"
    if plan.cost <= 2 * cheapest_step:
        return ("optimal within 2 steps: all one-step plans and all two-step plans through the "
                "first-move pool were searched; longer plans cost more")
    return ("best found: one-step plans exhaustively, two-step plans through the first-move pool and "
            "selects of two; longer sequences were not searched")


def lower(pattern: str, arch: str, wave: int | None = None, *, cache: bool = True) -> Plan:
    """The cheapest proven plan for `pattern` on `arch` (cached across runs and processes)."""
    wave = _wave(arch, wave)
    if not cache:
        return lower_uncached(pattern, arch, wave)
    from ..cache import cached_lower

    return cached_lower(pattern, arch, wave, lower_uncached)
