"""Code generation of one large AMD module: whole (one process, as `shflx compile -j 1`) against its
parallel parts (codegen.partition, each part in a child process, as `shflx compile` on idle
cores), for each number of parts; LLVM optimization + code generation only (the stages the parts
change), the split's own time included. Interleaved, best of --repeat, on this machine's cores.

  shflx compile UNIT.cu --offload-arch gfx942 --emit llvm -o module.ll      # the module shflx lowered
  python benchmarks/bench_parallel_codegen.py module.ll [--parts 2 4 8 16] [--repeat 2] [--out JSON]

Only llvmlite and shflx's codegen package are needed here (no front end), so the module can be
made on one machine and measured on another with more cores."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shflx.codegen.llvm import compile_ir, compile_parts_in_parallel  # noqa: E402
from shflx.codegen.partition import kernel_names, split  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("module", help="LLVM IR of one module (shflx compile --emit llvm)")
    p.add_argument("--cpu", default="gfx942")
    p.add_argument("--parts", type=int, nargs="+", default=[2, 4, 8, 16])
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--out", help="write the table as JSON here")
    args = p.parse_args()
    ir = Path(args.module).read_text()
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        start = time.perf_counter()
        compile_ir(ir, args.cpu)
        best["whole"] = min(best.get("whole", 1e9), time.perf_counter() - start)
        for n in args.parts:
            start = time.perf_counter()
            texts, why = split(ir, n)
            if texts is None:
                print(f"the module stays whole: {why}", file=sys.stderr)
                return 2
            compile_parts_in_parallel(texts, args.cpu)
            best[f"{len(texts)} parts"] = min(best.get(f"{len(texts)} parts", 1e9), time.perf_counter() - start)
    rows = [{"codegen": k, "seconds": round(v, 2), "speedup": round(best["whole"] / v, 2)} for k, v in best.items()]
    print(f"{args.module}: {len(ir) / 1e6:.1f} MB of IR, {len(kernel_names(ir))} kernels, {args.cpu}, "
          f"{os.cpu_count()} CPUs, best of {args.repeat}")
    print(f"{'codegen':<12} {'seconds':>8} {'speedup':>8}")
    for r in rows:
        print(f"{r['codegen']:<12} {r['seconds']:>8.2f} {r['speedup']:>7.2f}x")
    if args.out:
        Path(args.out).write_text(json.dumps({
            "command": "python benchmarks/bench_parallel_codegen.py " + " ".join(sys.argv[1:]),
            "module": Path(args.module).name, "ir_mb": round(len(ir) / 1e6, 1), "kernels": len(kernel_names(ir)),
            "cpu": args.cpu, "cpus": os.cpu_count(), "repeat": args.repeat, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
