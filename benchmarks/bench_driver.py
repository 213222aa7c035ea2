"""What `shflx compile` costs per file against plain clang + ld.lld, and per extra shuffle site.

  python benchmarks/bench_driver.py [--arch gfx942] [--repeat 3] [--out benchmarks/results/driver.json]

Both sides run as a user runs them, in fresh processes, with a warm plan cache and byte-compiled
modules (as a pip install has them): `shflx compile F --offload-arch A -o F.hsaco` against the same
clang front end invocation emitting an object (the prelude and flags shflx uses, `-emit-obj`
instead of `-emit-llvm`) plus `ld.lld -shared`. Rows: the example kernels, then generated files
with N shuffle sites (17 distinct patterns repeated) for the per-site slope, then the batch row:
every example kernel plain clang compiles, in one `shflx compile A.cu B.cu ... -j 1` process (one
start-up, files one after another) against the sum of their clang + ld.lld medians. The `served`
column is the same command with SHFLX_SERVER=on, as a make or CMake build runs it: a fresh client
process per file, served by a compile server started once before the rows (its start is timed
apart). Median of --repeat runs; ratios are within one run of this script."""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shflx.frontend.clang import FrontendOptions, cc1_args  # noqa: E402
from shflx.frontend.toolchain import find_clang, host_cxx_args  # noqa: E402
from shflx.isa import amd_target  # noqa: E402

KERNELS = ROOT / "patterns" / "kernels"
PATTERNS = [("xor", k) for k in (1, 2, 4, 8, 16)] + [("down", k) for k in (1, 2, 4, 8, 16)] + \
           [("up", k) for k in (1, 2, 4, 8)] + [("idx", 0), ("idx", 5), ("idx", 31)]
CALL = {"xor": "__shfl_xor_sync", "down": "__shfl_down_sync", "up": "__shfl_up_sync", "idx": "__shfl_sync"}


def sites_file(n: int, path: Path) -> Path:
    """A kernel with n shuffle sites, cycling through the 17 distinct patterns."""
    body = []
    for k in range(n):
        mode, b = PATTERNS[k % len(PATTERNS)]
        body.append(f"  v += {CALL[mode]}(0xffffffff, v * {k + 3}, {b});")
    path.write_text('extern "C" __global__ void many(int *p) {\n  int v = p[threadIdx.x];\n'
                    + "\n".join(body) + "\n  p[threadIdx.x] = v;\n}\n")
    return path


def timed(cmd: list[str], env: dict) -> float | None:
    """Wall seconds, or None when the command fails (plain clang cannot compile inline PTX)."""
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return None if r.returncode else time.perf_counter() - t


def plain_clang(source: Path, arch: str, tmp: Path, env: dict) -> float:
    """clang (the front end shflx drives, emitting an object) + ld.lld, timed together."""
    target = amd_target(arch)
    wave = target.resolve_wave(None)
    obj, out = tmp / "plain.o", tmp / "plain.hsaco"
    tool = find_clang()
    args = [a if a != "-emit-llvm" else "-emit-obj" for a in
            cc1_args(source, target.llvm_cpu, wave, obj, FrontendOptions(), len(target.waves) > 1, host_cxx_args(tool), tmp)]
    lld = [*tool.command[:-1], "ld.lld"] if tool.origin == "ziglang" else [str(Path(tool.command[0]).parent / "ld.lld")]
    front = timed([*tool.command, *args], env)
    return None if front is None else front + (timed([*lld, "-shared", str(obj), "-o", str(out)], env) or 0.0)


def row(name: str, src: Path, ns: argparse.Namespace, tmp: Path, env: dict, served_env: dict) -> dict:
    """One input: shflx in a fresh process, the same through the compile server, clang + ld.lld."""
    cmd = [sys.executable, "-m", "shflx", "compile", str(src), "--offload-arch", ns.arch, "-o", str(tmp / "x.hsaco")]
    if timed(cmd, env) is None or timed(cmd, served_env) is None:   # warm the plan cache, .pyc files, server
        raise SystemExit(f"shflx compile failed: {' '.join(cmd)}")
    shflx_s = statistics.median(timed(cmd, env) or 0.0 for _ in range(ns.repeat))
    served_s = statistics.median(timed(cmd, served_env) or 0.0 for _ in range(ns.repeat))
    plain = [plain_clang(src, ns.arch, tmp, env) for _ in range(ns.repeat)]
    out = {"input": name, "shflx_s": round(shflx_s, 3), "served_s": round(served_s, 3)}
    if None in plain:
        print(f"{name:<18} {shflx_s:>8.3f} {served_s:>8.3f} {'(inline PTX: plain clang cannot compile it)':>11}")
        return {**out, "clang_lld_s": None, "ratio": None, "served_ratio": None}
    plain_s = statistics.median(plain)
    print(f"{name:<18} {shflx_s:>8.3f} {served_s:>8.3f} {plain_s:>11.3f} {shflx_s / plain_s:>6.2f} "
          f"{served_s / plain_s:>6.2f}")
    return {**out, "clang_lld_s": round(plain_s, 3), "ratio": round(shflx_s / plain_s, 2),
            "served_ratio": round(served_s / plain_s, 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sites", type=int, nargs="+", default=[1, 64, 256, 1024])
    ap.add_argument("--out", help="write the results as JSON here; nothing is written without it")
    ns = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)          # an installed package has its .pyc files
    rows = []
    with tempfile.TemporaryDirectory(prefix="shflx-bench-") as t:
        tmp = Path(t)
        inputs = [(p.name, p / "kernel.cu") for p in sorted(KERNELS.iterdir()) if (p / "kernel.cu").exists()]
        inputs += [(f"{n} sites", sites_file(n, tmp / f"sites{n}.cu")) for n in ns.sites]
        served_env = {**env, "SHFLX_SERVER": "on", "SHFLX_SERVER_DIR": str(tmp / "srv")}
        start_s = timed([sys.executable, "-m", "shflx", "server", "start"], served_env)
        if start_s is None:
            raise SystemExit("shflx server start failed")
        print(f"compile server started in {start_s:.3f} s")
        print(f"{'input':<18} {'shflx s':>8} {'served s':>8} {'clang+lld s':>11} {'ratio':>6} {'served':>6}")
        try:
            for name, src in inputs:
                rows.append(row(name, src, ns, tmp, env, served_env))
        finally:
            timed([sys.executable, "-m", "shflx", "server", "stop"], served_env)
        batch = [src for (name, src), r in zip(inputs, rows) if not name.endswith(" sites") and r["ratio"]]
        plain_sum = sum(r["clang_lld_s"] for r in rows if not r["input"].endswith(" sites") and r["ratio"])
        cmd = [sys.executable, "-m", "shflx", "compile", *map(str, batch), "--offload-arch", ns.arch,
               "-o", str(tmp / "batch"), "-j", "1"]
        if timed(cmd, env) is None:
            raise SystemExit(f"shflx compile failed: {' '.join(cmd)}")
        batch_s = statistics.median(timed(cmd, env) or 0.0 for _ in range(ns.repeat))
        batch_row = {"input": f"batch of {len(batch)} (-j 1)", "shflx_s": round(batch_s, 3),
                     "clang_lld_s": round(plain_sum, 3), "ratio": round(batch_s / plain_sum, 2)}
        print(f"{batch_row['input']:<18} {batch_s:>8.3f} {plain_sum:>11.3f} {batch_s / plain_sum:>6.2f}")
    by_sites = {int(r["input"].split()[0]): r for r in rows if r["input"].endswith(" sites")}
    if len(by_sites) >= 2:
        lo, hi = min(by_sites), max(by_sites)
        extra = (by_sites[hi]["shflx_s"] - by_sites[lo]["shflx_s"]) / (hi - lo) * 1000
        extra_plain = (by_sites[hi]["clang_lld_s"] - by_sites[lo]["clang_lld_s"]) / (hi - lo) * 1000
        served_extra = (by_sites[hi]["served_s"] - by_sites[lo]["served_s"]) / (hi - lo) * 1000
        print(f"per extra site: shflx {extra:.2f} ms, served {served_extra:.2f} ms, clang+lld {extra_plain:.2f} ms "
              f"({lo} -> {hi} sites)")
    else:
        extra = extra_plain = served_extra = None
    examples = [r for r in rows if not r["input"].endswith(" sites") and r["ratio"] is not None]
    ratios = [r["ratio"] for r in examples]
    served = [r["served_ratio"] for r in examples]
    print(f"example kernels: median ratio {statistics.median(ratios):.2f}, max {max(ratios):.2f}; "
          f"served: median {statistics.median(served):.2f}, max {max(served):.2f}; "
          f"in one batch process: {batch_row['ratio']:.2f} per file")
    if ns.out:
        Path(ns.out).write_text(json.dumps({
            "machine": platform.platform(), "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d"),
            "arch": ns.arch, "repeat": ns.repeat, "rows": rows, "median_ratio_examples": statistics.median(ratios),
            "median_served_ratio_examples": statistics.median(served), "server_start_s": round(start_s, 3),
            "batch": batch_row, "ms_per_extra_site_served": served_extra,
            "ms_per_extra_site": extra, "ms_per_extra_site_clang_lld": extra_plain}, indent=1) + "\n")


if __name__ == "__main__":
    main()
