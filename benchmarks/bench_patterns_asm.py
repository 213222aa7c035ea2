"""The 231 distinct power-of-two-width CUDA shuffles compiled to real assembly (issue 14's table).

  python benchmarks/bench_patterns_asm.py [--arch gfx942 ...] [--prefer cycles|lds-free ...] [--coverage]
                                          [--out benchmarks/results/patterns_asm.json]

Patterns: xor 1..31, up/down 1..w-1, idx 0..w-1 for each width w in 2, 4, 8, 16, 32, full mask,
deduplicated by their 32-lane map (with care-set): 231 maps (xor m >= w at width w leaves the
segment: CUDA keeps or crosses lanes per spec/cuda_ptx_shfl.md, hence maps of their own). Each is lowered by shflx (plan cache off), put in
the test kernel of `shflx lower --llvm` and compiled by llvmlite's AMDGPU backend at -O2.

What is counted: the instructions the plan adds to the kernel, i.e. the kernel's instruction
multiset (one per mnemonic line between the kernel label and s_endpgm) minus that of the same
kernel with an empty plan (return x). VALU = mnemonics starting `v_` (v_readlane/v_readfirstlane
included: they are VOP3 encodings issued by the vector ALU); SALU `s_*` (s_nop wait states
included) is not VALU; LDS = `ds_*`; memory = global_/buffer_/flat_/scratch_/s_load/s_buffer_load.
Columns: no ds_bpermute, LDS-free (no ds_* at all), <=3 VALU (and LDS-free, no memory load), and
the sum of the plans' modeled costs. `--prefer lds-free` measures the plans of `shflx lower --prefer
lds-free` (the cheapest LDS-free plan wherever the search finds one) as rows of their own.
`--coverage` adds the 4,236-map coverage of shflx.driver.coverage per target and preference
(minutes on 2 cores). Writes JSON only with --out. Not a test: a measurement."""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGETS = ("gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1200")
WIDTHS = (2, 4, 8, 16, 32)
MEMORY = ("global_", "buffer_", "flat_", "scratch_", "s_load", "s_buffer_load")


def distinct_patterns() -> list[str]:
    """The power-of-two-width CUDA shuffles, one text per distinct 32-lane map (first spelling kept)."""
    from shflx.pattern import parse_pattern

    texts = []
    for w in WIDTHS:
        suffix = "" if w == 32 else f" width {w}"
        texts += [f"xor {m}{suffix}" for m in range(1, 32)]
        texts += [f"up {d}{suffix}" for d in range(1, w)]
        texts += [f"down {d}{suffix}" for d in range(1, w)]
        texts += [f"idx {k}{suffix}" for k in range(w)]
    seen: dict[bytes, str] = {}
    for t in texts:
        seen.setdefault(parse_pattern(t).warp_map().key(), t)
    return list(seen.values())


def kernel_instructions(asm: str, kernel: str = "shflx_test") -> Counter:
    """Mnemonic multiset of the kernel body (from its label to s_endpgm)."""
    out: Counter = Counter()
    inside = False
    for line in asm.splitlines():
        s = line.split(";")[0].strip()
        if s == f"{kernel}:":
            inside = True
            continue
        if not inside or not s or s.startswith(".") or s.endswith(":"):
            continue
        mnemonic = s.split()[0]
        out[mnemonic] += 1
        if mnemonic == "s_endpgm":
            break
    return out


def classify(extra: Counter) -> dict[str, int]:
    valu = sum(n for m, n in extra.items() if m.startswith("v_"))
    salu = sum(n for m, n in extra.items() if m.startswith("s_") and not m.startswith(MEMORY))
    lds = sum(n for m, n in extra.items() if m.startswith("ds_"))
    mem = sum(n for m, n in extra.items() if m.startswith(MEMORY))
    bperm = sum(n for m, n in extra.items() if m.startswith("ds_bpermute"))
    return {"valu": valu, "salu": salu, "lds": lds, "memory": mem, "bpermute": bperm}


def plan_asm_counts(plan, cpu: str) -> Counter:
    """The plan's added instructions in the compiled test kernel (see module docstring)."""
    from dataclasses import replace

    from shflx.amd.llvm_ir import kernel_ir
    from shflx.codegen.llvm import compile_ir

    base = compile_ir(kernel_ir(replace(plan, steps=(), result="x")), cpu, wave=plan.wave, emit="asm")
    full = compile_ir(kernel_ir(plan), cpu, wave=plan.wave, emit="asm")
    return kernel_instructions(full) - kernel_instructions(base)


GOALS = {"gfx90a": (231, 200), "gfx942": (231, 200), "gfx950": (231, 215)}   # issue 14: no bpermute / LDS-free
GOAL_ALL = (231, 231)                                                          # gfx10+: LDS-free / <=3 VALU


def measure(arch: str, patterns: list[str], prefer: str = "cycles") -> dict:
    from shflx.match import lower            # the search itself (the plan cache wraps it in driver.cache)

    rows = []
    for text in patterns:
        plan = lower(text, arch, prefer=prefer)
        extra = plan_asm_counts(plan, arch)
        c = classify(extra)
        rows.append({"pattern": text, "steps": [s.op for s in plan.steps], "cost": plan.cost, **c,
                     "asm": dict(sorted(extra.items()))})
    n = len(rows)
    return {
        "patterns": n,
        "no_bpermute": sum(r["bpermute"] == 0 for r in rows),
        "lds_free": sum(r["lds"] == 0 for r in rows),
        "valu_le3": sum(r["lds"] == 0 and r["memory"] == 0 and r["valu"] <= 3 for r in rows),
        "cost_sum": sum(r["cost"] for r in rows),
        "rows": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", action="append", help=f"target (repeatable; default {', '.join(TARGETS)})")
    ap.add_argument("--prefer", action="append", choices=("cycles", "lds-free"),
                    help="the search's preference (repeatable; default cycles)")
    ap.add_argument("--coverage", action="store_true", help="also the 4,236-map coverage per target")
    ap.add_argument("--out", help="write the results as JSON here")
    ns = ap.parse_args()
    archs = ns.arch or list(TARGETS)
    prefers = ns.prefer or ["cycles"]
    pats = distinct_patterns()
    report: dict = {"machine": platform.platform(), "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d"),
                    "patterns": len(pats), "targets": {}}
    print(f"{len(pats)} distinct patterns; counts are of the plan's instructions in real asm (llvmlite -O2)")
    print(f"{'target':<8} {'prefer':<9} {'no bperm':>8} {'LDS-free':>8} {'<=3 VALU':>8} {'cost sum':>9} {'goal':>9} {'sec':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SHFLX_CACHE_DIR"] = tmp
        for prefer in prefers:
            key = "targets" if prefer == "cycles" else f"prefer_{prefer.replace('-', '_')}"
            report.setdefault(key, {})
            for arch in archs:
                t0 = time.perf_counter()
                r = measure(arch, pats, prefer)
                r["seconds"] = round(time.perf_counter() - t0, 1)
                report[key][arch] = r
                goal = GOALS.get(arch, GOAL_ALL)
                print(f"{arch:<8} {prefer:<9} {r['no_bpermute']:>8} {r['lds_free']:>8} {r['valu_le3']:>8} "
                      f"{r['cost_sum']:>9g} {'%d/%d' % goal:>9} {r['seconds']:>6}", flush=True)
    print("goal: no bpermute / LDS-free (gfx90a/942/950), LDS-free / <=3 VALU (gfx10+)")
    if ns.coverage:
        from shflx.driver.coverage import coverage_report, format_table

        report["coverage"] = {}
        for prefer in prefers:
            cov = coverage_report(archs, prefer=prefer)
            print(f"coverage, prefer {prefer}:")
            print(format_table(cov))
            report["coverage"][prefer] = {a: {"uniform": t["uniform"], "catalog": t["catalog"]}
                                          for a, t in cov["targets"].items()}
    if ns.out:
        Path(ns.out).write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {ns.out}")


if __name__ == "__main__":
    main()
