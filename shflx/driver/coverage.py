"""`shflx coverage`: how every uniform shfl.sync map, and every catalog pattern, lowers per target.

For each target: the 4,236 distinct 32-lane maps that uniform shfl.sync operands can produce
(spec/cuda_ptx_shfl.md §1.5) plus the catalog of common patterns; per map the proven plan, its
cost against ds_bpermute, whether it needs LDS, and the solve time. Runs in parallel processes."""
from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

DEFAULT_TARGETS = ("gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1200")


def _uniform_patterns() -> list[str]:
    from ..cuda import uniform_table

    return ["map " + ",".join(str(int(v)) for v in np.frombuffer(k, np.int8)) for k in sorted(uniform_table())]


def _lower_chunk(args: tuple[Any, list[str]]) -> list[dict[str, Any]]:
    from ..match import lower

    target, patterns = args              # a Target (it pickles as its name, wave, features and preference)
    out = []
    for text in patterns:
        t0 = time.perf_counter()
        plan = lower(text, target)
        extra = dict(plan.extra)
        out.append({"pattern": text, "cost": plan.cost, "steps": [s.op for s in plan.steps],
                    "lds": extra["uses_lds"], "bpermute": any(s.op == "ds.bpermute" for s in plan.steps),
                    "baseline": extra["baseline_cost"], "ms": (time.perf_counter() - t0) * 1e3,
                    "stage": extra["stage"]})
    return out


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    costs = np.array([r["cost"] for r in rows])
    base = np.array([r["baseline"] for r in rows])
    ms = np.array([r["ms"] for r in rows])
    stages: dict[str, int] = {}
    for r in rows:
        stages[r["stage"]] = stages.get(r["stage"], 0) + 1
    return {"maps": len(rows), "without_lds": int(sum(not r["lds"] for r in rows)),
            "without_bpermute": int(sum(not r["bpermute"] for r in rows)),
            "avg_cost": round(float(costs.mean()), 2), "worst_cost": float(costs.max()),
            "bpermute_cost": float(base[0]), "avg_cost_ratio": round(float((costs / base).mean()), 3),
            "solve_ms_p50": round(float(np.median(ms)), 1), "solve_ms_p99": round(float(np.percentile(ms, 99)), 1),
            "stages": stages}


def coverage_report(archs: list[str], limit: int | None = None, workers: int | None = None,
                    progress: Any = None, prefer: str | None = None) -> dict[str, Any]:
    """`progress`: an object with plan(group, units) and advance(group, units) (driver.progress.Progress), in maps;
    `prefer`: the search's preference (target.PREFERENCES)."""
    from ..catalog import catalog
    from ..target import resolve_target

    targets = {arch: resolve_target(arch, prefer=prefer) for arch in archs}     # the edge: each name resolved once
    uniform = _uniform_patterns()[:limit] if limit else _uniform_patterns()
    cat = [e.text for e in catalog()]
    jobs = []
    for arch in archs:
        for part, texts in (("uniform", uniform), ("catalog", cat)):
            step = max(1, len(texts) // 8)
            for k in range(0, len(texts), step):
                jobs.append(((arch, part), (targets[arch], texts[k:k + step])))
    t0 = time.perf_counter()
    results: dict[tuple[str, str], list[dict[str, Any]]] = {}
    if progress is not None:                 # counted in maps (a chunk holds several)
        for key, (_, texts) in jobs:
            progress.plan(" ".join(key), len(texts))
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        for (key, _), rows in zip(jobs, pool.map(_lower_chunk, [a for _, a in jobs])):
            results.setdefault(key, []).extend(rows)
            if progress is not None:
                progress.advance(" ".join(key), len(rows))
    report: dict[str, Any] = {"seconds": round(time.perf_counter() - t0, 1), "prefer": prefer or "cycles",
                              "targets": {}}
    names = {e.text: e.name for e in catalog()}
    for arch in archs:
        report["targets"][arch] = {
            "wave": targets[arch].wave,
            "uniform": _summary(results[(arch, "uniform")]),
            "catalog": _summary(results[(arch, "catalog")]),
            "catalog_plans": {names[r["pattern"]]: {"cost": r["cost"], "steps": r["steps"]}
                              for r in results[(arch, "catalog")]},
        }
    return report


def format_table(report: dict[str, Any]) -> str:
    head = (f"{'target':<8} {'set':<8} {'maps':>5} {'no LDS':>7} {'no bperm':>8} {'avg cost':>8} "
            f"{'worst':>6} {'bperm':>6} {'ratio':>6} {'p50 ms':>7} {'p99 ms':>7}")
    lines = [head, "-" * len(head)]
    for arch, t in report["targets"].items():
        for part in ("uniform", "catalog"):
            s = t[part]
            lines.append(f"{arch:<8} {part:<8} {s['maps']:>5} {s['without_lds']:>7} {s['without_bpermute']:>8} "
                         f"{s['avg_cost']:>8} {s['worst_cost']:>6g} {s['bpermute_cost']:>6g} "
                         f"{s['avg_cost_ratio']:>6} {s['solve_ms_p50']:>7} {s['solve_ms_p99']:>7}")
    lines.append(f"({report['seconds']} s)")
    return "\n".join(lines)
