"""`shflx compile --offload-arch sm_90` on the example kernels: what it changes against --baseline
(the same clang front end, every shuffle as written) and what each stage costs.

    python benchmarks/nvidia/bench_compile_sm90.py [--arch sm_90] [--out benchmarks/results/compile_sm90.json]

Per family: shuffle sites, sites given immediate operands, chains rewritten to redux.sync (and how
many behind the block-shape guard), shfl.sync / redux.sync instructions in the PTX (shflx vs
baseline), the estimated shuffle cost (isa/nvidia cycles), registers of the cubin (ptxas -v, when
ptxas is installed), and the time of each stage: clang front end, shflx (recognize, synthesize,
rewrite), LLVM NVPTX codegen, the PTX pass, ptxas."""
from __future__ import annotations

import argparse
import json
import platform
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shflx.codegen.nvptx import compile_to_ptx, ptx_version  # noqa: E402
from shflx.errors import ToolchainError  # noqa: E402
from shflx.frontend.clang import FrontendOptions  # noqa: E402
from shflx.driver.nvidia import (_version_tuple, assemble, device_ir, lower_reductions,  # noqa: E402
                                 lower_shuffles, nvidia_arch)
from shflx.nvidia.ptxpass import run  # noqa: E402

KERNELS = ROOT / "patterns" / "kernels"


def count(ptx: str, opcode: str) -> int:
    return len(re.findall(rf"^\s*(@%?!?\w+\s+)?{re.escape(opcode)}", ptx, flags=re.M))


def one(src: Path, arch: str, baseline: bool) -> dict:
    """The compile pipeline of shflx.driver.nvidia.compile_cuda, stage by stage, timed."""
    target = nvidia_arch(arch)
    t = {}
    t0 = time.perf_counter()
    ir = device_ir(src, target, FrontendOptions())
    t["frontend_ms"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    chains = []
    if not baseline:
        ir, chains = lower_reductions(ir, target, _version_tuple(ptx_version(arch)))
    lowered, sites = lower_shuffles(ir, target, baseline)
    t["shflx_ms"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    ptx = compile_to_ptx(lowered, arch, opt=3, source=str(src))
    t["codegen_ms"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    passed = run(ptx, str(src), sm=arch, load_shuffle=not baseline, redux_sync=False)
    t["ptx_pass_ms"] = time.perf_counter() - t0
    regs = None
    try:
        t0 = time.perf_counter()
        _, info = assemble(passed.text, arch)
        t["ptxas_ms"] = time.perf_counter() - t0
        regs = {k: v.get("registers") for k, v in info.items()}
    except ToolchainError:
        pass
    done = [c for c in chains if c.cost is not None]
    return {"sites": len(sites), "synthesized": sum(s.proof.startswith("proved") for s in sites),
            "chains": len(chains), "redux": len(done), "guarded": sum("threadIdx.x" in c.reason for c in done),
            "shfl": count(passed.text, "shfl.sync"), "redux_sync": count(passed.text, "redux.sync"),
            "cost": round(sum(s.cost for s in sites) + sum(c.cost for c in done), 1),
            "cost_as_written": round(sum(s.baseline_cost for s in sites) + sum(c.step_by_step_cost for c in done), 1),
            "registers": regs, "ms": {k: round(v * 1000, 1) for k, v in t.items()}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "compile_sm90.json"))
    ns = ap.parse_args()
    families = sorted(p.name for p in KERNELS.iterdir() if (p / "kernel.cu").exists())
    rows = {}
    print(f"{'family':<18} {'sites':>5} {'imm':>4} {'redux':>5} {'guard':>5} {'shfl':>9} {'cost':>13} "
          f"{'regs+':>5} {'front':>6} {'shflx':>6} {'llvm':>6} {'pass':>6} {'ptxas':>6}  (ms)")
    for fam in families:
        src = KERNELS / fam / "kernel.cu"
        ours, base = one(src, ns.arch, False), one(src, ns.arch, True)
        rows[fam] = {"shflx": ours, "baseline": base}
        regs = "-"
        if ours["registers"] and base["registers"]:
            regs = str(sum(ours["registers"].values()) - sum(base["registers"].values()))
        ms = ours["ms"]
        print(f"{fam:<18} {ours['sites']:5d} {ours['synthesized']:4d} {ours['redux']:5d} {ours['guarded']:5d} "
              f"{ours['shfl']:4d}/{base['shfl']:<4d} {ours['cost']:6g}/{base['cost']:<6g} {regs:>5} "
              f"{ms['frontend_ms']:6.0f} {ms['shflx_ms']:6.0f} {ms['codegen_ms']:6.0f} {ms['ptx_pass_ms']:6.0f} "
              f"{ms.get('ptxas_ms', float('nan')):6.0f}")
    out = {"arch": ns.arch, "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
           "cpus": __import__("os").cpu_count(), "families": rows,
           "note": "shfl: shfl.sync instructions in the final PTX, shflx/baseline; cost: isa/nvidia cycles of the "
                   "shuffles and rewritten chains, shflx/as written; regs+: registers over all kernels, shflx minus "
                   "baseline (ptxas -v); ms: one compile, stage by stage (cold plan and table caches on the first)"}
    Path(ns.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {ns.out}")


if __name__ == "__main__":
    main()
