"""Every example kernel, shflx and --baseline builds, on every emulated AMD target: bit-exact
agreement with the numpy references, and what the emulator costs (the CI budget of hw_tests/amd).

  python benchmarks/bench_emulated.py [--targets gfx1100 gfx942 gfx90a gfx1200] [--kernel K ...]
        [--out benchmarks/results/emulated.json]

Same inputs, launch and comparison as hw_tests/amd/test_kernels_hw.py (4 blocks of 64 threads, rng
seed 11, bitwise). Needs the AMD emulator (shflx.runtime.emulator: amdemu importable, SHFLX_AMDEMU,
or ../shared/amdemu beside the checkout). Results are written only with --out. Exit 1 on any
mismatch or error."""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "patterns" / "kernels"))

import references as R  # noqa: E402

from shflx.driver.amd import compile_file  # noqa: E402
from shflx.runtime.emulator import probe_emulator  # noqa: E402

BLOCKS = 4


def differing(got: np.ndarray, want: np.ndarray) -> int:
    """How many elements differ bitwise (a dtype or shape difference counts as all)."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return int(want.size)
    bits = np.dtype(f"u{want.dtype.itemsize}")
    return int(np.count_nonzero(got.view(bits) != want.view(bits)))


def run_one(device, kernel: str, baseline: bool, compiled: dict) -> dict:
    family, make, ref = R.KERNELS[kernel]
    row = {"kernel": kernel, "target": device.arch, "build": "baseline" if baseline else "shflx"}
    key = (family, baseline)
    t0 = time.perf_counter()
    if key not in compiled:
        compiled[key] = compile_file(ROOT / "patterns" / "kernels" / family / "kernel.cu", device.arch,
                                     baseline=baseline).output
    row["compile_s"] = round(time.perf_counter() - t0, 3)
    n = BLOCKS * R.BLOCK
    ins = make(np.random.default_rng(11), n)
    scalars = R.EXTRA_ARGS.get(kernel, [])
    want = ref(*ins, *scalars)
    t1 = time.perf_counter()
    try:
        got = device.run_kernel(compiled[key], kernel, ins, n, want.dtype, block=(R.BLOCK, 1, 1),
                                grid=(BLOCKS, 1, 1), scalars=scalars)
    except Exception as e:  # noqa: BLE001 - recorded per run, the sweep goes on
        row.update(status="error", error=f"{type(e).__name__}: {e}")
        return row
    row["run_s"] = round(time.perf_counter() - t1, 3)
    row["mismatches"] = differing(got, want)
    row["status"] = "ok" if row["mismatches"] == 0 else "MISMATCH"
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", nargs="+", default=["gfx1100", "gfx942", "gfx90a", "gfx1200"])
    ap.add_argument("--kernel", action="append", help="only these kernels (default: all)")
    ap.add_argument("--out", help="write the rows and totals as JSON")
    ns = ap.parse_args()
    kernels = ns.kernel or sorted(R.KERNELS)
    rows, t_start = [], time.perf_counter()
    for arch in ns.targets:
        device, why = probe_emulator(arch, [ROOT.parent / "shared" / "amdemu"])
        if device is None:
            print(f"no emulator for {arch}: {why}", file=sys.stderr)
            return 2
        compiled: dict = {}
        for kernel in kernels:
            for baseline in (False, True):
                row = run_one(device, kernel, baseline, compiled)
                rows.append(row)
                print(f"{row['kernel']:<22} {arch:<8} {row['build']:<8} {row['status']:<8} "
                      f"compile {row['compile_s']:6.2f} s  run {row.get('run_s', float('nan')):6.2f} s "
                      f"{row.get('error', '')}", flush=True)
    wall = time.perf_counter() - t_start
    ok = sum(r["status"] == "ok" for r in rows)
    totals = {"runs": len(rows), "ok": ok, "kernels": len(kernels), "targets": ns.targets, "builds": 2,
              "wall_s": round(wall, 1), "compile_s": round(sum(r["compile_s"] for r in rows), 1),
              "emulation_s": round(sum(r.get("run_s", 0) for r in rows), 1)}
    print(f"\n{ok}/{len(rows)} runs bit-exact ({len(kernels)} kernels x 2 builds x {len(ns.targets)} targets); "
          f"wall {totals['wall_s']} s, compile {totals['compile_s']} s, emulation {totals['emulation_s']} s")
    if ns.out:
        meta = {"machine": platform.machine(), "python": platform.python_version(), "cpus": os.cpu_count(),
                "readings": dict(device.readings)}
        body = ",\n  ".join(json.dumps(r) for r in rows)          # one run per line
        Path(ns.out).write_text(f'{{"meta": {json.dumps(meta)},\n "totals": {json.dumps(totals)},\n "rows": [\n  {body}\n]}}\n')
    return 0 if ok == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
