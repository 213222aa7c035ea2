"""The example kernels of patterns/kernels compiled by nvcc and run on an NVIDIA GPU: every lane must
equal the numpy reference (this is what validates the references the AMD tests compare against).

  PYTHONPATH=. python hw_tests/nvidia/test_kernels_nvcc.py [--json OUT]     (needs nvcc + a GPU)"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "patterns" / "kernels"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import references as R  # noqa: E402
from test_shfl_sync_hw import gpu_device, open_device  # noqa: E402

BLOCKS = 4


def kernel_args(dev, inputs: list[np.ndarray], out_like: np.ndarray, scalars: list[int]):
    """Device copies of `inputs` and an output buffer like `out_like`: (pointers, output pointer,
    the launch parameter array, the arrays it points into: keep them alive while launching)."""
    cu = dev.cu
    ptrs = []
    for arr in inputs:
        d = dev.check(cu.cuMemAlloc(arr.nbytes))
        ptrs.append(d)
        dev.check(cu.cuMemcpyHtoD(d, np.ascontiguousarray(arr), arr.nbytes))
    out = dev.check(cu.cuMemAlloc(out_like.nbytes))
    ptrs.append(out)
    vals = [np.array([int(p)], dtype=np.uint64) for p in ptrs] + [np.array([s], dtype=np.int32) for s in scalars]
    return ptrs, out, np.array([v.ctypes.data for v in vals], dtype=np.uint64), vals


def run_kernel(dev, ptx: str, name: str, inputs: list[np.ndarray], out_like: np.ndarray, scalars: list[int],
               fn=None):
    """Run kernel `name` (from `ptx`, or the already loaded `fn`) once over BLOCKS blocks."""
    cu = dev.cu
    fn = fn if fn is not None else dev.function(dev.load(ptx), name)
    ptrs, out, params, _keep = kernel_args(dev, inputs, out_like, scalars)
    try:
        dev.check(cu.cuLaunchKernel(fn, BLOCKS, 1, 1, R.BLOCK, 1, 1, 0, 0, params.ctypes.data, 0))
        dev.check(cu.cuCtxSynchronize())
        host = np.empty_like(out_like)
        dev.check(cu.cuMemcpyDtoH(host, out, host.nbytes))
        return host
    finally:
        for p in ptrs:
            cu.cuMemFree(p)


def check(dev) -> dict:
    rng = np.random.default_rng(3)
    n = BLOCKS * R.BLOCK
    results, ptx_cache = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (family, make, ref) in R.KERNELS.items():
            if family not in ptx_cache:
                out = Path(tmp) / f"{family}.ptx"
                subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-O3", "-o", str(out),
                                str(ROOT / "patterns" / "kernels" / family / "kernel.cu")], check=True)
                ptx_cache[family] = out.read_text()
            ins = make(rng, n)
            scalars = R.EXTRA_ARGS.get(name, [])
            want = ref(*ins, *scalars)
            got = run_kernel(dev, ptx_cache[family], name, ins, np.zeros(n, want.dtype), scalars)
            ok = np.allclose(got, want, rtol=1e-5, atol=1e-5) if want.dtype.kind == "f" else np.array_equal(got, want)
            results[name] = {"ok": bool(ok), "lanes": n,
                             "first_bad": None if ok else int(np.flatnonzero(got != want)[0])}
    return {"kernels": len(results), "ok": sum(r["ok"] for r in results.values()), "results": results}


def test_examples_match_references_on_nvidia():
    import pytest

    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found")
    with gpu_device() as dev:
        res = check(dev)
    assert res["ok"] == res["kernels"], {k: v for k, v in res["results"].items() if not v["ok"]}


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ns = ap.parse_args()
    dev = open_device()
    res = check(dev)
    res["device"] = dev.info()
    dev.close()
    print(json.dumps({k: v for k, v in res.items() if k != "results"}),
          {k: v for k, v in res["results"].items() if not v["ok"]})
    if ns.json:
        Path(ns.json).write_text(json.dumps(res, indent=1) + "\n")
