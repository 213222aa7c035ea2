"""Speed of the prover and the emulator (issue 2's 'Must show'); prints a table, records JSON.

  python benchmarks/bench_verify.py [--out benchmarks/results/verify_speed.json]

Proving a 1-3 step plan for one 32-lane target should take well under a second; replaying a
plan on numpy microseconds. Timings are wall-clock medians on this machine; not a test."""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shflx.emulate import Concrete, Trace, result  # noqa: E402
from shflx.plan import load_plan  # noqa: E402
from shflx.verify.api import prove  # noqa: E402


def dpp(i, src, ctrl, old="undef", bc=1):
    return {"id": i, "op": "update.dpp", "src": src, "old": old, "dpp_ctrl": ctrl, "row_mask": 15,
            "bank_mask": 15, "bound_ctrl": bc}


CASES = {
    "1 step: xor 1 (gfx942 wave64)": ("gfx942", 64, "xor 1", [dpp("s", "x", 0xB1)]),
    "1 step: xor 5 row_xmask (gfx1100 wave32)": ("gfx1100", 32, "xor 5", [dpp("s", "x", 0x165)]),
    "1 step: down 1 width 16 (gfx1030)": ("gfx1030", 32, "down 1 width 16", [dpp("s", "x", 0x101, "x", 0)]),
    "2 steps: xor 5 (gfx90a)": ("gfx90a", 64, "xor 5", [dpp("t", "x", 0x141), dpp("s", "t", 0x4E)]),
    "3 steps: bcast lane 0 via readlane+select (gfx942)": ("gfx942", 64, "idx 0", [
        {"id": "a", "op": "readlane", "src": "x", "lane": 0}, {"id": "b", "op": "readlane", "src": "x", "lane": 32},
        {"id": "s", "op": "select", "a": "b", "b": "a", "lanes": 0xFFFFFFFF00000000}]),
    "3 steps: xor 7 (gfx1200 wave32)": ("gfx1200", 32, "xor 7", [dpp("a", "x", 0xB1), dpp("b", "a", 0x4E),
                                                                  dpp("s", "b", 0x164)]),
    "5 steps: reduce add width 4 (gfx942)": ("gfx942", 64, "reduce add width 4", [
        dpp("t1", "x", 0xB1), {"id": "r1", "op": "combine", "fn": "add", "a": "x", "b": "t1"},
        dpp("t2", "r1", 0x4E), {"id": "r2", "op": "combine", "fn": "add", "a": "r1", "b": "t2"}]),
}


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="write the results as JSON here (e.g. benchmarks/results/verify_speed.json); nothing is written without it")
    ap.add_argument("--repeat", type=int, default=20)
    ns = ap.parse_args()
    prove(load_plan({"arch": "gfx942", "wave": 64, "target": "xor 1", "steps": [dpp("s", "x", 0xB1)], "result": "s"}))  # warm
    rows = []
    print(f"{'case':<52} {'prove (ms)':>11} {'replay (us)':>12}")
    for name, (arch, wave, target, steps) in CASES.items():
        plan = load_plan({"arch": arch, "wave": wave, "target": target, "steps": steps, "result": steps[-1]["id"]})
        assert prove(plan).status == "proved", name
        t_prove = median_time(lambda: prove(plan), ns.repeat)
        fn = "add" if "reduce" in target else None
        dom = Concrete(wave, fn, trials=1)
        t_replay = median_time(lambda: result(plan, dom, Trace()), ns.repeat * 10)
        rows.append({"case": name, "prove_ms": round(t_prove * 1e3, 2), "replay_us": round(t_replay * 1e6, 1)})
        print(f"{name:<52} {t_prove * 1e3:>11.2f} {t_replay * 1e6:>12.1f}")
    out = {"machine": platform.platform(), "python": platform.python_version(), "repeat": ns.repeat,
           "date": time.strftime("%Y-%m-%d"), "rows": rows}
    if ns.out:
        Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
        Path(ns.out).write_text(json.dumps(out, indent=1) + "\n")
        print(f"recorded {ns.out}")


if __name__ == "__main__":
    main()
