"""`shflx compile` on the example kernels: what it buys against --baseline, and what it costs.

  python benchmarks/bench_compile.py [--targets gfx942 gfx1100 ...] [--out benchmarks/results/compile.json]

Per family and target: shuffle sites; ds_bpermute instructions in the final asm (shflx vs the
baseline, i.e. HIP's plain ds_bpermute lowering); the estimated shuffle cost (sum of plan costs
vs sum of ds_bpermute costs, isa/ cycles). Compile overhead with a warm plan cache: the shflx
stage (recognize + lower + rewrite) against clang front end + LLVM codegen of the same kernel."""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shflx.codegen.llvm import compile_ir  # noqa: E402
from shflx.driver.amd import compile_file, device_ir  # noqa: E402
from shflx.driver.lowering import lower_module  # noqa: E402
from shflx.driver.report import instruction_counts
from shflx.isa import amd_target  # noqa: E402
from shflx.target import resolve_target  # noqa: E402

KERNELS = ROOT / "patterns" / "kernels"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", nargs="+", default=["gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1200"])
    ap.add_argument("--out", help="write the results as JSON here (e.g. benchmarks/results/compile.json); nothing is written without it")
    ns = ap.parse_args()
    families = sorted(p.name for p in KERNELS.iterdir() if (p / "kernel.cu").exists())
    rows = []
    print(f"{'family':<18} {'target':<8} {'sites':>5} {'bperm':>5} {'base':>5} {'cost':>7} {'base cost':>9} "
          f"{'dpp':>4} {'fold':>4} {'overhead':>8}")
    for arch in ns.targets:
        t = amd_target(arch)
        for fam in families:
            src = KERNELS / fam / "kernel.cu"
            ours = compile_file(src, arch, emit="asm")
            base = compile_file(src, arch, emit="asm", baseline=True)
            c_ours, c_base = instruction_counts(ours.output), instruction_counts(base.output)
            folded = sum(1 for line in ours.output.splitlines()
                         if "_dpp" in line and not line.strip().startswith(("v_mov_b32_dpp", ";")))
            # overhead: the shflx stage, warm cache, against front end + codegen
            t0 = time.perf_counter()
            ir = device_ir(src, resolve_target(arch))
            t1 = time.perf_counter()
            lowered, _ = lower_module(ir, resolve_target(arch))
            t2 = time.perf_counter()
            compile_ir(lowered, t.llvm_cpu, wave=t.default_wave, emit="obj")
            t3 = time.perf_counter()
            overhead = (t2 - t1) / ((t1 - t0) + (t3 - t2))
            row = {"family": fam, "target": arch, "sites": len(ours.sites),
                   "ds_bpermute": c_ours["ds_bpermute"], "ds_bpermute_baseline": c_base["ds_bpermute"],
                   "shuffle_cost": sum(s.cost for s in ours.sites),
                   "baseline_cost": sum(s.baseline_cost for s in ours.sites),
                   "dpp": c_ours["dpp"], "dpp_folded": folded, "overhead": round(overhead, 3),
                   "frontend_s": round(t1 - t0, 3), "shflx_s": round(t2 - t1, 3), "codegen_s": round(t3 - t2, 3)}
            rows.append(row)
            print(f"{fam:<18} {arch:<8} {row['sites']:>5} {row['ds_bpermute']:>5} {row['ds_bpermute_baseline']:>5} "
                  f"{row['shuffle_cost']:>7g} {row['baseline_cost']:>9g} {row['dpp']:>4} {folded:>4} {overhead:>8.1%}")
    totals = {}
    for arch in ns.targets:
        r = [x for x in rows if x["target"] == arch]
        totals[arch] = {"ds_bpermute": sum(x["ds_bpermute"] for x in r),
                        "ds_bpermute_baseline": sum(x["ds_bpermute_baseline"] for x in r),
                        "shuffle_cost": sum(x["shuffle_cost"] for x in r),
                        "baseline_cost": sum(x["baseline_cost"] for x in r),
                        "median_overhead": sorted(x["overhead"] for x in r)[len(r) // 2]}
        print(f"TOTAL {arch}: ds_bpermute {totals[arch]['ds_bpermute']} vs {totals[arch]['ds_bpermute_baseline']}, "
              f"cost {totals[arch]['shuffle_cost']:g} vs {totals[arch]['baseline_cost']:g}, "
              f"median overhead {totals[arch]['median_overhead']:.1%}")
    out = {"machine": platform.platform(), "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d"),
           "rows": rows, "totals": totals}
    if ns.out:
        Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
        Path(ns.out).write_text(json.dumps(out, indent=1) + "\n")
        print(f"recorded {ns.out}")


if __name__ == "__main__":
    main()
