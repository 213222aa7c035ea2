"""redux.sync rewrites on an NVIDIA GPU: each kernel of redux_kernels.cu, as nvcc wrote it, as
`shflx ptx` rewrote it, and as `shflx compile --offload-arch sm_90` built it from the source (clang,
IR-level redux.sync), must give bit-identical outputs on random 32-bit inputs at sizes that leave
the last warp incomplete, and the *_2d kernels also in 2-D blocks where lane != threadIdx.x % 32
(the rewrites of lane-0 reductions are guarded for those shapes); then a shuffle reduction and its
redux.sync forms are timed (CUDA events, median of many runs, a grid that fills the GPU).

    PYTHONPATH=. python hw_tests/nvidia/test_redux_hw.py [--json benchmarks/results/h100_redux.json]

The PTX comes from hw_tests/nvidia/build/redux.{orig,shflx,compiled}.ptx (+ .report.json), built with
nvcc and shflx when missing (`--build` forces it), so the GPU machine needs neither. Skips cleanly
without a GPU."""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILD = HERE / "build"
SRC = HERE / "redux_kernels.cu"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from test_shfl_sync_hw import gpu_device, open_device  # noqa: E402

SIZES = [32, 37, 1000, 4099, 64 * 1024 + 5]
BLOCK = 128
# *_2d kernels also run in 2-D blocks: (16, 8) and (48, 2) make lane != threadIdx.x % 32
BLOCKS_2D = [(128, 1), (16, 8), (48, 2), (32, 4)]
TIMED = ("time_bfly_add", "time_down_max")


def build(force: bool = False) -> dict:
    """nvcc -ptx, then shflx's rewrite; returns the report (the entry `shflx ptx --report json` prints in a list)."""
    orig, new, rep = BUILD / "redux.orig.ptx", BUILD / "redux.shflx.ptx", BUILD / "redux.report.json"
    compiled = BUILD / "redux.compiled.ptx"
    if force or not (orig.exists() and new.exists() and rep.exists() and compiled.exists()):
        BUILD.mkdir(exist_ok=True)
        subprocess.run(["nvcc", "-ptx", "-O3", "-arch=sm_90", str(SRC), "-o", str(orig)], check=True)
        from shflx.driver.nvidia import compile_cuda
        from shflx.nvidia.ptxpass import run
        r = run(orig.read_text(), "redux.orig.ptx", load_shuffle=False)
        new.write_text(r.text)
        rep.write_text(json.dumps(r.to_json(), indent=1))
        compiled.write_text(compile_cuda(SRC, "sm_90", emit="ptx").output)
    return json.loads(rep.read_text())


def kernels(ptx: str) -> list[str]:
    return re.findall(r"\.entry\s+(\w+)\(", ptx)


def _run(dev, fn, x: np.ndarray, n: int, extra: tuple = (), block: tuple[int, int] = (BLOCK, 1)) -> np.ndarray:
    cu = dev.cu
    nthreads = max(n, 1)
    per_block = block[0] * block[1]
    grid = (nthreads + per_block - 1) // per_block
    total = grid * per_block
    d_in = dev.check(cu.cuMemAlloc(max(x.nbytes, 4)))
    d_out = dev.check(cu.cuMemAlloc(total * 4))
    try:
        dev.check(cu.cuMemcpyHtoD(d_in, x, x.nbytes))
        dev.check(cu.cuMemsetD32(d_out, 0xDEADBEEF, total))
        args = [np.array([int(d_in)], np.uint64), np.array([int(d_out)], np.uint64), np.array([n], np.int32),
                *[np.array([e], np.int32) for e in extra]]
        params = np.array([a.ctypes.data for a in args], np.uint64)
        dev.check(cu.cuLaunchKernel(fn, grid, 1, 1, block[0], block[1], 1, 0, 0, params.ctypes.data, 0))
        dev.check(cu.cuCtxSynchronize())
        out = np.empty(total, np.uint32)
        dev.check(cu.cuMemcpyDtoH(out, d_out, out.nbytes))
        return out
    finally:
        cu.cuMemFree(d_in)
        cu.cuMemFree(d_out)


def check(dev, report: dict) -> dict:
    """Every kernel, every size, 3 random inputs (plus all-extreme inputs): bit-identical."""
    orig = (BUILD / "redux.orig.ptx").read_text()
    m_orig = dev.load(orig)
    m_new, m_comp = dev.load((BUILD / "redux.shflx.ptx").read_text()), dev.load((BUILD / "redux.compiled.ptx").read_text())
    rng = np.random.default_rng(5)
    status = {c["function"]: c["status"] for c in report["chains"]}
    bad, runs = [], 0
    for name in kernels(orig):
        if name in TIMED:
            continue
        f0, f1, f2 = dev.function(m_orig, name), dev.function(m_new, name), dev.function(m_comp, name)
        for n in SIZES:
            inputs = [rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32) for _ in range(3)]
            inputs += [np.full(n, v, np.uint32) for v in (0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)]
            inputs.append(rng.integers(0, 4, n).astype(np.uint32))           # ties everywhere
            for x in inputs:
                for block in (BLOCKS_2D if name.endswith("_2d_r") else [(BLOCK, 1)]):
                    a = _run(dev, f0, x, n, block=block)
                    for label, f in (("shflx ptx", f1), ("shflx compile", f2)):
                        b = _run(dev, f, x, n, block=block)
                        runs += 1
                        if not np.array_equal(a, b):
                            bad.append(f"{name} ({label}) n={n} block={block} first differing index "
                                       f"{int(np.flatnonzero(a != b)[0])}")
    return {"kernels": len(kernels(orig)) - len(TIMED), "runs": runs, "mismatches": bad,
            "rewritten": sorted(k for k, v in status.items() if v == "rewritten"),
            "unchanged": sorted(k for k, v in status.items() if v != "rewritten")}


def timing(dev, reps: int = 30, iters: int = 4096) -> dict:
    cu = dev.cu
    m_orig = dev.load((BUILD / "redux.orig.ptx").read_text())
    m_new = dev.load((BUILD / "redux.shflx.ptx").read_text())
    m_comp = dev.load((BUILD / "redux.compiled.ptx").read_text())
    n = dev.sms * 2048                         # 64 warps per SM: fills the GPU
    x = np.random.default_rng(9).integers(0, 1 << 31, n).astype(np.uint32)
    d_in = dev.check(cu.cuMemAlloc(x.nbytes))
    d_out = dev.check(cu.cuMemAlloc(x.nbytes))
    dev.check(cu.cuMemcpyHtoD(d_in, x, x.nbytes))
    start = dev.check(cu.cuEventCreate(0))
    stop = dev.check(cu.cuEventCreate(0))
    out = {}
    try:
        for name in TIMED:
            row = {}
            for label, mod in (("shuffles", m_orig), ("redux", m_new), ("compiled", m_comp)):
                fn = dev.function(mod, name)
                args = [np.array([int(d_in)], np.uint64), np.array([int(d_out)], np.uint64),
                        np.array([n], np.int32), np.array([iters], np.int32)]
                params = np.array([a.ctypes.data for a in args], np.uint64)
                times = []
                for k in range(reps + 3):
                    dev.check(cu.cuEventRecord(start, 0))
                    dev.check(cu.cuLaunchKernel(fn, n // 256, 1, 1, 256, 1, 1, 0, 0, params.ctypes.data, 0))
                    dev.check(cu.cuEventRecord(stop, 0))
                    dev.check(cu.cuEventSynchronize(stop))
                    if k >= 3:
                        times.append(dev.check(cu.cuEventElapsedTime(start, stop)))
                res = np.empty(n, np.uint32)
                dev.check(cu.cuMemcpyDtoH(res, d_out, res.nbytes))
                row[label] = {"median_ms": float(np.median(times)), "min_ms": float(np.min(times)),
                              "max_ms": float(np.max(times)), "checksum": int(res.astype(np.uint64).sum())}
            row["speedup"] = row["shuffles"]["median_ms"] / row["redux"]["median_ms"]
            row["speedup_compiled"] = row["shuffles"]["median_ms"] / row["compiled"]["median_ms"]
            row["bit_identical"] = row["shuffles"]["checksum"] == row["redux"]["checksum"] == \
                row["compiled"]["checksum"]
            row["reductions_per_warp"] = iters
            row["warps"] = n // 32
            out[name] = row
    finally:
        cu.cuMemFree(d_in)
        cu.cuMemFree(d_out)
    return out


def test_redux_rewrites_bit_identical_and_faster():
    with gpu_device() as dev:
        report = build()
        res = check(dev, report)
        assert not res["mismatches"], res["mismatches"]
        assert all(k.endswith("_r") or k.startswith("time_") for k in res["rewritten"]), res
        assert all(k.endswith("_keep") for k in res["unchanged"]), res
        t = timing(dev, reps=10, iters=1024)
        for name, row in t.items():
            assert row["bit_identical"], name
            assert row["speedup"] > 1.0, (name, row)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", type=Path)
    ap.add_argument("--build", action="store_true", help="rebuild the PTX pair with nvcc + shflx")
    a = ap.parse_args()
    report = build(a.build)
    if a.build and not a.json:
        print(json.dumps(report["summary"]))
        sys.exit(0)
    dev = open_device()
    res = check(dev, report)
    res["timing"] = timing(dev)
    res["device"] = dev.info()
    res["ok"] = not res["mismatches"] and all(r["bit_identical"] for r in res["timing"].values())
    res["command"] = "PYTHONPATH=. python hw_tests/nvidia/test_redux_hw.py --json benchmarks/results/h100_redux.json"
    print(json.dumps(res, indent=1))
    if a.json:
        a.json.write_text(json.dumps(res, indent=1) + "\n")
    sys.exit(0 if res["ok"] else 1)
