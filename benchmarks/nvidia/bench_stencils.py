"""Load->shuffle synthesis on the stencil suite: opportunities per kernel (as PTXASW's Table 2),
shuffles inserted, analysis time; on a GPU, original vs rewritten time and bit-identical output.

    python benchmarks/nvidia/bench_stencils.py --build            # here: nvcc + shflx (needs z3)
    python benchmarks/nvidia/bench_stencils.py --gpu --json OUT   # on the GPU: reads build/

`--gpu` times, per kernel, the original, a second copy of the original (the A/A pair gives the
run-to-run noise), the cost-model rewrite and the rewrite of every proven opportunity, interleaved
round by round, each a median of `--reps` CUDA-event timings of one launch at a size that fills
the GPU; it first checks that each rewrite's outputs are bit-identical to the original's."""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "hw_tests" / "nvidia"))

import stencil_suite as S  # noqa: E402

BLOCK = (128, 1, 1)


def time_variants(dev, spec, fns: dict, reps: int) -> dict:
    cu = dev.cu
    ext = spec.bench
    rng = np.random.default_rng(7)
    L = S.Launcher(dev, spec, ext, S.make_inputs(spec, ext, rng))
    try:
        ev0 = dev.check(cu.cuEventCreate(0))
        ev1 = dev.check(cu.cuEventCreate(0))
        same = {}
        ref = L.run(fns["orig"], BLOCK)
        for k in fns:
            same[k] = L.run(fns[k], BLOCK) == ref
        times = {k: [] for k in fns}
        for k in fns:   # warm-up
            for _ in range(3):
                L.launch(fns[k], BLOCK)
        dev.check(cu.cuCtxSynchronize())
        for _ in range(reps):
            for k, fn in fns.items():
                dev.check(cu.cuEventRecord(ev0, 0))
                L.launch(fn, BLOCK)
                dev.check(cu.cuEventRecord(ev1, 0))
                dev.check(cu.cuEventSynchronize(ev1))
                times[k].append(dev.check(cu.cuEventElapsedTime(ev0, ev1)))
        cu.cuEventDestroy(ev0)
        cu.cuEventDestroy(ev1)
        med = {k: statistics.median(v) for k, v in times.items()}
        return {"median_ms": {k: round(v, 5) for k, v in med.items()}, "bit_identical": same,
                "speedup": {k: round(med["orig"] / med[k], 4) for k in med if k != "orig"}}
    finally:
        L.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--json", type=Path, default=HERE.parents[0] / "results" / "h100_stencils.json")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--extra", nargs="*", default=[], help="more variants to time: build/NAME.<variant>.ptx "
                    "made by hand (e.g. an older rewrite, for an A/B comparison)")
    a = ap.parse_args()
    names = a.only or list(S.SUITE)
    if a.build:
        S.build(names)
    analysis = json.loads((S.BUILD / "analysis.json").read_text())
    print(f"{'kernel':16s} {'opps':>5s} {'deltas':>22s} {'rw(model)':>9s} {'shfl(all)':>9s} {'ms(all)':>8s}")
    for n in names:
        r = analysis[n]
        ds = ",".join(map(str, sorted(set(r["deltas"])))) or "-"
        print(f"{n:16s} {r['opportunities']:5d} {ds:>22s} {r['model']['rewritten']:9d} "
              f"{r['all']['shuffles']:9d} {r['all']['analysis_ms']:8.0f}")
    result = {"analysis": analysis}
    if a.gpu:
        from test_shfl_sync_hw import open_device
        dev = open_device()
        result["device"] = dev.info()
        result["block"] = BLOCK
        result["reps"] = a.reps
        rows = {}
        print(f"\n{'kernel':16s} {'orig ms':>9s} {'A/A':>7s} {'model':>7s} {'all':>7s}  identical")
        for n in names:
            spec = S.SUITE[n]
            fns = {"orig": dev.function(dev.load(S.ptx(n, "orig")), spec.kernel),
                   "orig2": dev.function(dev.load(S.ptx(n, "orig")), spec.kernel),
                   "model": dev.function(dev.load(S.ptx(n, "model")), spec.kernel),
                   "all": dev.function(dev.load(S.ptx(n, "all")), spec.kernel),
                   **{v: dev.function(dev.load(S.ptx(n, v)), spec.kernel) for v in a.extra}}
            t0 = time.time()
            r = time_variants(dev, spec, fns, a.reps)
            r["wall_s"] = round(time.time() - t0, 2)
            rows[n] = r
            sp = r["speedup"]
            extra = "".join(f" {v}={sp[v]:.3f}" for v in a.extra)
            print(f"{n:16s} {r['median_ms']['orig']:9.4f} {sp['orig2']:7.3f} {sp['model']:7.3f} {sp['all']:7.3f}  "
                  f"{all(r['bit_identical'].values())}{extra}", flush=True)
        result["timing"] = rows
        noise = [abs(rows[n]["speedup"]["orig2"] - 1) for n in rows]
        result["noise_max_abs"] = round(max(noise), 4) if noise else None
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(result, indent=1))
    print(f"wrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
