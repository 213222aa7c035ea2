"""`shflx compile --offload-arch sm_90` on an NVIDIA GPU: every example kernel of patterns/kernels,
built by shflx (CUDA -> clang -> shflx rewrites -> llvmlite NVPTX -> PTX) and by shflx --baseline
(the same front end, every shuffle as written), must equal the numpy reference on every lane, and
the two builds must be bit-identical (the rewrites are exact). Kernels where shflx rewrote
something are then timed against the baseline (CUDA events, median of --reps launches over 2^24
threads). Skips cleanly without a GPU.

    PYTHONPATH=. python hw_tests/nvidia/test_compile_sm90_hw.py --build      (here: needs the toolchain)
    PYTHONPATH=. python hw_tests/nvidia/test_compile_sm90_hw.py --json OUT   (on the GPU machine)

--build writes hw_tests/nvidia/build/<family>.{shflx,baseline}.ptx and rewrites.json; the GPU run
reads them (carry that folder to a GPU machine that has no shflx toolchain)."""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "patterns" / "kernels"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import references as R  # noqa: E402
from test_kernels_nvcc import kernel_args, run_kernel  # noqa: E402
from test_shfl_sync_hw import gpu_device, open_device  # noqa: E402

BUILD = Path(__file__).resolve().parent / "build"
VARIANTS = ("shflx", "baseline")
BLOCKS = 4
BENCH_THREADS = 1 << 24


def build() -> dict:
    """PTX of every family, both variants, and which kernels shflx changed (from its report)."""
    from shflx.driver.nvidia import compile_cuda

    BUILD.mkdir(parents=True, exist_ok=True)
    changed: dict[str, list[str]] = {}
    for family in sorted({f for f, _, _ in R.KERNELS.values()}):
        src = ROOT / "patterns" / "kernels" / family / "kernel.cu"
        for variant in VARIANTS:
            res = compile_cuda(src, "sm_90", emit="ptx", baseline=variant == "baseline")
            (BUILD / f"{family}.{variant}.ptx").write_text(res.output)
            if variant == "shflx":
                for r in res.sites:
                    if r.proof.startswith("proved"):
                        changed.setdefault(r.function, []).append(f"{r.location}: {r.lowering[0]}")
                for c in res.chains:
                    if c.cost is not None:
                        changed.setdefault(c.function, []).append(f"{c.location}: {'; '.join(c.lowering)}")
    (BUILD / "rewrites.json").write_text(json.dumps(changed, indent=1) + "\n")
    return changed


def _timed(dev, fn, ins, out_like, scalars, reps: int) -> float:
    """Median ms of `reps` launches of `fn` over BENCH_THREADS threads (CUDA events)."""
    cu = dev.cu
    ptrs, _, params, _keep = kernel_args(dev, ins, out_like, scalars)
    try:
        grid = BENCH_THREADS // R.BLOCK
        ev0, ev1 = dev.check(cu.cuEventCreate(0)), dev.check(cu.cuEventCreate(0))
        times = []
        for k in range(reps + 3):
            dev.check(cu.cuEventRecord(ev0, 0))
            dev.check(cu.cuLaunchKernel(fn, grid, 1, 1, R.BLOCK, 1, 1, 0, 0, params.ctypes.data, 0))
            dev.check(cu.cuEventRecord(ev1, 0))
            dev.check(cu.cuEventSynchronize(ev1))
            if k >= 3:
                times.append(dev.check(cu.cuEventElapsedTime(ev0, ev1)))
        cu.cuEventDestroy(ev0)
        cu.cuEventDestroy(ev1)
        return statistics.median(times)
    finally:
        for p in ptrs:
            cu.cuMemFree(p)


def check(dev, reps: int = 30) -> dict:
    if not (BUILD / "rewrites.json").exists():
        build()
    changed = json.loads((BUILD / "rewrites.json").read_text())
    rng = np.random.default_rng(5)
    n = BLOCKS * R.BLOCK
    results, timings, mods = {}, {}, {}
    for name, (family, make, ref) in R.KERNELS.items():
        fns = {}
        for v in VARIANTS:
            if (family, v) not in mods:
                mods[(family, v)] = dev.load((BUILD / f"{family}.{v}.ptx").read_text())
            fns[v] = dev.function(mods[(family, v)], name)
        ins = make(rng, n)
        scalars = R.EXTRA_ARGS.get(name, [])
        want = ref(*ins, *scalars)
        got = {v: run_kernel(dev, "", name, ins, np.zeros(n, want.dtype), scalars, fn=fns[v]) for v in VARIANTS}
        close = (lambda a: np.allclose(a, want, rtol=1e-5, atol=1e-5)) if want.dtype.kind == "f" else \
            (lambda a: np.array_equal(a, want))
        results[name] = {"reference": {v: bool(close(got[v])) for v in VARIANTS},
                         "bit_identical": bool(got["shflx"].tobytes() == got["baseline"].tobytes()),
                         "rewrites": changed.get(name, [])}
        if name in changed:
            big = make(rng, BENCH_THREADS)
            like = np.zeros(BENCH_THREADS, want.dtype)
            ms = {v: _timed(dev, fns[v], big, like, scalars, reps) for v in VARIANTS}
            timings[name] = {"median_ms": {v: round(t, 5) for v, t in ms.items()},
                             "speedup": round(ms["baseline"] / ms["shflx"], 4), "rewrites": changed[name]}
    ok = all(all(r["reference"].values()) and r["bit_identical"] for r in results.values())
    return {"kernels": len(results), "ok": ok, "results": results, "timings": timings,
            "threads_timed": BENCH_THREADS, "reps": reps}


def test_shflx_sm90_builds_match_references_and_baseline():
    with gpu_device() as dev:
        res = check(dev, reps=5)
    assert res["ok"], {k: v for k, v in res["results"].items()
                       if not (all(v["reference"].values()) and v["bit_identical"])}


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", action="store_true", help="only build the PTX (no GPU needed)")
    ap.add_argument("--json")
    ap.add_argument("--reps", type=int, default=30)
    ns = ap.parse_args()
    if ns.build:
        print(json.dumps(build(), indent=1))
        sys.exit(0)
    dev = open_device()
    res = check(dev, ns.reps)
    res["device"] = dev.info()
    dev.close()
    print(json.dumps({k: v for k, v in res.items() if k != "results"}, indent=1))
    print("failures:", {k: v for k, v in res["results"].items()
                        if not (all(v["reference"].values()) and v["bit_identical"])})
    if ns.json:
        Path(ns.json).write_text(json.dumps(res, indent=1) + "\n")
    sys.exit(0 if res["ok"] else 1)
