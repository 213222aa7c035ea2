"""Why the default search keeps the LDS for some gfx9 shuffles (issue 14's LDS-free row), per pattern.

  python benchmarks/bench_lds_free_bound.py [--arch gfx942 ...] [--max-groups 4]
                                            [--out benchmarks/results/lds_free_bound.json]

For each of the 231 distinct power-of-two-width CUDA shuffles (bench_patterns_asm.distinct_patterns)
whose default plan uses an LDS op: the default plan's modeled cost, the cheapest LDS-free plan
shflx's search finds (`--prefer lds-free`), and two measures of what any LDS-free plan could cost
under shflx's own model (shflx.match.cost, isa/amd; nothing re-priced here):

row-entry bound (a proof, for targets without a permlane): on GFX8/9/CDNA up to gfx94x, the only
LDS-free ops that move data between 16-lane rows carry one value into a row per instruction:
DPP16 wave_shl/rol/shr/ror:1 (one lane crosses each row boundary), row_bcast:15/31 (one source
lane), v_readlane/v_readfirstlane (one lane into an SGPR), v_writelane (one lane, from an SGPR);
quad_perm, row_shl/shr/ror, row_mirror, row_half_mirror and row_newbcast stay inside the row and a
select stays in its lane (spec/amd_crosslane.md §2, §3.2 table, §11, §15: gfx90a/94x add only
row_newbcast and 64-bit DPP restricted to it, §3.6; tests/test_lds_free_bound.py checks it on
random plans). So a plan has at least n steps, n the most distinct values some row must receive
from other rows, each costing at least the target's cheapest LDS-free step c. With n >= 2 and at
most one of those values one DPP move away from x, a plan of exactly n steps pays more: each step
must bring a new value, so a readlane's value reaches the result through a VGPR copy (match.cost
emitted_extras) or a step that brings none, and of DPP-only plans the second step must read the
first one's result and wait its DPP wait states (spec §13.1); the bound is then n*c plus the least
of c, that copy and those wait states. Where the bound exceeds the LDS plan's cost, no LDS-free
plan can win (an LDS-free plan wins ties: match.search.Candidate.rank), whatever the search.

chain family (a bounded exhaustive search, for the segment shifts up/down d the bound leaves open):
every plan of match.shifts' shape (a per-row base shift keeping x, then the crossing row positions
split into at most --max-groups contiguous groups, each an in-row shift, wave_shr/shl:1 repeated,
an in-row shift merged by row_mask into the value before) for every split, in every merge order
for up to 3 groups and in group order for more; priced by match.cost.steps_cost (its emission
order fills DPP wait states by interleaving the chains), the cheapest checked lane by lane.

Writes JSON only with --out. Not a test: a measurement (about a minute per target on 2 cores)."""
from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

TARGETS = ("gfx90a", "gfx942", "gfx950")
# features of an LDS-free op moving many values between rows (permlanes): the row-entry bound
# does not hold there (spec/amd_crosslane.md §7-§10, §15)
MANY_VALUE_CROSSINGS = ("permlane16", "permlane64", "permlane_var", "permlane_swap", "permlane_group")
# the LDS-free step kinds of a GFX8/9 plan (amd.primitives cost kinds; match.cost adds only extras >= 0)
STEP_KINDS = ("dpp_mov", "valu", "readlane", "readfirstlane", "writelane", "select")
# llvm/llvm-project llvm/lib/Target/AMDGPU/SIDefines.h, enum DppCtrl (spec/amd_crosslane.md §3.2)
ROW_SHL0, ROW_SHR0, WAVE_SHL1, WAVE_SHR1 = 0x100, 0x110, 0x130, 0x138


def row_entry_bound(target, want) -> float | None:
    """A lower bound on the cost of any LDS-free plan for `want` (module docstring); None where the
    target has an op that moves many values between rows."""
    from shflx.match.solvers import dpp_table

    if any(target.has(f) for f in MANY_VALUE_CROSSINGS):
        return None
    step = min(target.cost(k) for k in STEP_KINDS)
    waits = target.hazards.get("dpp_after_vgpr_write", 0) * target.cost("dpp_hazard_nop")
    second = min(step, target.cost("valu"), waits)      # what an n-step plan pays over n * step
    lanes = np.arange(want.wave)
    table = dpp_table(target)
    bound = 0.0
    for row in range(want.wave // 16):
        here = want.care & (lanes >> 4 == row) & (want.src >= 0)
        need = {int(s) for s in want.src[here] if s >> 4 != row}
        into = table.valid & (lanes[None, :] >> 4 == row) & (table.src >> 4 != row)
        one_move = {int(s) for s in table.src[into]}        # lanes of x one DPP move brings into the row
        extra = second if len(need) >= 2 and len(need & one_move) <= 1 else 0.0
        bound = max(bound, len(need) * step + extra)
    return bound


def chain_plan(d: int, up: bool, cuts: tuple[int, ...], order: tuple[int, ...], row_mask: int):
    """The chain-family plan: base (d < 16), then each group of crossing row positions [lo, hi)
    as in-row shift d - hi, hi - lo one-lane wave shifts, in-row shift lo merged over the value
    before (row_mask: the rows that receive), merged in `order`."""
    from shflx.plan import UpdateDpp

    row_move, cross = (ROW_SHR0, WAVE_SHR1) if up else (ROW_SHL0, WAVE_SHL1)
    steps, prev = [], "x"
    if d < 16:
        steps.append(UpdateDpp("c", "x", "x", row_move + d, 15, 15, 0))
        prev = "c"
    bodies = []
    for g, (lo, hi) in enumerate(zip(cuts, cuts[1:])):
        ctrls = ([row_move + d - hi] if d - hi else []) + [cross] * (hi - lo) + ([row_move + lo] if lo else [])
        bodies.append([(f"g{g}.{k}", c) for k, c in enumerate(ctrls)])
    for g in order:
        src = "x"
        for k, (sid, ctrl) in enumerate(bodies[g]):
            last = k == len(bodies[g]) - 1
            steps.append(UpdateDpp(sid, src, prev, ctrl, row_mask, 15, 0) if last
                         else UpdateDpp(sid, src, "undef", ctrl, 15, 15, 1))
            src = sid
        prev = src
    return tuple(steps), prev


def chain_family_best(target, want, max_groups: int) -> dict | None:
    """The cheapest chain-family plan for a segment shift (None for other maps), checked lane by lane."""
    from shflx.match.cost import steps_cost
    from shflx.match.search import provenance
    from shflx.match.shifts import segment_shift

    shift = segment_shift(want)
    if shift is None or not target.has("dpp_wave_shift"):
        return None
    d, up = abs(shift), shift > 0
    lanes = np.arange(want.wave)
    crossing = want.care & (want.src != lanes) & (((lanes - shift) >> 4) != (lanes >> 4))
    row_mask = sum(1 << r for r in set((lanes[crossing] >> 4).tolist()))
    first, last = max(0, d - 16), min(d, 16)
    best, tried = None, 0
    for groups in range(1, min(max_groups, last - first) + 1):
        for inner in itertools.combinations(range(first + 1, last), groups - 1):
            cuts = (first, *inner, last)
            orders = itertools.permutations(range(groups)) if groups <= 3 else [tuple(range(groups))]
            for order in orders:
                steps, ref = chain_plan(d, up, cuts, order, row_mask)
                cost = steps_cost(target, steps)
                tried += 1
                if best is None or cost < best[0]:
                    best = (cost, cuts, order, steps, ref)
    cost, cuts, order, steps, ref = best
    prov = provenance(target, steps, ref)
    exact = bool(((prov == want.src) | ~want.care).all())
    return {"cost": cost, "cuts": list(cuts), "merge_order": list(order), "plans_tried": tried, "exact": exact}


def measure(arch: str, patterns: list[str], max_groups: int) -> dict:
    from shflx.match import lower
    from shflx.pattern import parse_pattern
    from shflx.target import resolve_target

    target = resolve_target(arch)
    rows = []
    lds_free_default = 0
    for text in patterns:
        plan = lower(text, arch)
        if not dict(plan.extra)["uses_lds"]:
            lds_free_default += 1
            continue
        free = lower(text, arch, prefer="lds-free")
        want = parse_pattern(text).lane_map(target.wave)
        bound = row_entry_bound(target, want)
        family = chain_family_best(target, want, max_groups)
        free_cost = None if dict(free.extra)["uses_lds"] else free.cost
        if bound is not None and bound > plan.cost:
            verdict = "LDS-bound (proof)"
        elif free_cost is not None and free_cost <= plan.cost:
            verdict = "LDS-free plan found"
        else:
            verdict = "open (none found)"
        rows.append({"pattern": text, "lds_plan": [s.op for s in plan.steps], "lds_cost": plan.cost,
                     "lds_free_found": free_cost, "lds_free_steps": len(free.steps),
                     "row_entry_bound": bound, "chain_family": family, "verdict": verdict})
    proved = sum(r["verdict"] == "LDS-bound (proof)" for r in rows)
    return {"patterns": len(patterns), "lds_free_default": lds_free_default, "uses_lds": len(rows),
            "proved_lds_bound": proved, "lds_free_limit": len(patterns) - proved, "rows": rows}


def main() -> None:
    from bench_patterns_asm import distinct_patterns

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", action="append", help=f"target (repeatable; default {', '.join(TARGETS)})")
    ap.add_argument("--max-groups", type=int, default=4, help="chain family: most groups (default 4)")
    ap.add_argument("--out", help="write the results as JSON here")
    ns = ap.parse_args()
    pats = distinct_patterns()
    report: dict = {"machine": platform.platform(), "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d"),
                    "patterns": len(pats), "max_groups": ns.max_groups, "targets": {}}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SHFLX_CACHE_DIR"] = tmp
        for arch in ns.arch or TARGETS:
            t0 = time.perf_counter()
            r = measure(arch, pats, ns.max_groups)
            r["seconds"] = round(time.perf_counter() - t0, 1)
            report["targets"][arch] = r
            print(f"{arch}: {r['uses_lds']} of {r['patterns']} default plans use the LDS")
            print(f"  {'pattern':<20} {'LDS plan':<18} {'cost':>5} {'LDS-free found':>14} {'bound':>6} "
                  f"{'chain family':>12}  verdict")
            for row in r["rows"]:
                fam = row["chain_family"]
                print(f"  {row['pattern']:<20} {'+'.join(row['lds_plan']):<18} {row['lds_cost']:>5g} "
                      f"{_num(row['lds_free_found']):>14} {_num(row['row_entry_bound']):>6} "
                      f"{_num(fam and fam['cost']):>12}  {row['verdict']}")
            print(f"  LDS-free by default: {r['lds_free_default']}; proved LDS-bound: {r['proved_lds_bound']}; "
                  f"so at most {r['lds_free_limit']} of {r['patterns']} can be LDS-free by the default "
                  f"under this model ({r['seconds']} s)", flush=True)
    if ns.out:
        Path(ns.out).write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {ns.out}")


def _num(v) -> str:
    return "-" if v is None else f"{v:g}"


if __name__ == "__main__":
    main()
