"""Speed of the synthesizer (issue 3's 'Must show'); prints a table and records JSON.

  python benchmarks/bench_lower.py [--prefer cycles|lds-free] [--arch gfx942 ...] [--out benchmarks/results/lower_speed.json]

Cold lowering of one pattern (tables warm, plan cache off): p50 / p99 over random CUDA patterns
per target; a cached lookup; `shflx lower` end to end as a fresh process (start-up included),
cold and cached. Wall-clock on this machine; not a test."""
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

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shflx.driver.cache import lower  # noqa: E402
from shflx.match import lower as lower_uncached  # noqa: E402

TARGETS = [("gfx90a", 64), ("gfx942", 64), ("gfx950", 64), ("gfx1030", 32), ("gfx1100", 32), ("gfx1100", 64),
           ("gfx1200", 32)]


def random_patterns(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        kind = ["idx", "up", "down", "xor"][int(rng.integers(0, 4))]
        out.append(f"{kind} {int(rng.integers(0, 32))} width {[2, 4, 8, 16, 32][int(rng.integers(0, 5))]}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="write the results as JSON here (e.g. benchmarks/results/lower_speed.json); nothing is written without it")
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--prefer", choices=("cycles", "lds-free"), default="cycles", help="the search's preference")
    ap.add_argument("--arch", action="append", help="only these targets (repeatable; default: all of TARGETS)")
    ns = ap.parse_args()
    pats = random_patterns(ns.n)
    rows = []
    print(f"{'target':<12} {'tables ms':>9} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'cached ms':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SHFLX_CACHE_DIR"] = tmp
        for arch, wave in TARGETS:
            if ns.arch and arch not in ns.arch:
                continue
            t0 = time.perf_counter()
            lower_uncached("xor 1", arch, wave, prefer=ns.prefer)           # builds the per-target tables
            tables = (time.perf_counter() - t0) * 1e3
            times = []
            for p in pats:
                t0 = time.perf_counter()
                lower_uncached(p, arch, wave, prefer=ns.prefer)
                times.append((time.perf_counter() - t0) * 1e3)
            lower("xor 5", arch, wave, prefer=ns.prefer)
            t0 = time.perf_counter()
            for _ in range(20):
                lower("xor 5", arch, wave, prefer=ns.prefer)
            cached = (time.perf_counter() - t0) * 1e3 / 20
            row = {"target": f"{arch} w{wave}", "tables_ms": round(tables, 1),
                   "p50_ms": round(statistics.median(times), 1), "p99_ms": round(float(np.percentile(times, 99)), 1),
                   "max_ms": round(max(times), 1), "cached_ms": round(cached, 3)}
            rows.append(row)
            print(f"{row['target']:<12} {tables:>9.1f} {row['p50_ms']:>7} {row['p99_ms']:>7} {row['max_ms']:>7} {cached:>9.3f}")
    cli = {}
    with tempfile.TemporaryDirectory() as fresh:                # a cache that has never seen 'xor 5'
        for label in ("cold", "cached"):
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "shflx", "lower", "xor 5", "--arch", "gfx942"],
                               capture_output=True, text=True, env=dict(os.environ, SHFLX_CACHE_DIR=fresh), cwd=ROOT)
            cli[label] = round((time.perf_counter() - t0) * 1e3, 1)
            assert r.returncode == 0, r.stderr
        print(f"`shflx lower 'xor 5' --arch gfx942` end to end: cold {cli['cold']} ms, cached {cli['cached']} ms")
    out = {"machine": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
           "date": time.strftime("%Y-%m-%d"), "patterns": ns.n, "prefer": ns.prefer, "rows": rows,
           "cli_end_to_end_ms": cli}
    if ns.out:
        Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
        Path(ns.out).write_text(json.dumps(out, indent=1) + "\n")
        print(f"recorded {ns.out}")


if __name__ == "__main__":
    main()
