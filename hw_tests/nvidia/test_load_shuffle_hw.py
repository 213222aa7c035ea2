"""Load->shuffle rewrites on an NVIDIA GPU: every stencil-suite kernel rewritten at every proven
opportunity (cost model off, so every rewrite is exercised) must give outputs bit-identical to the
original PTX, on random inputs, at sizes that leave warps incomplete and with block shapes whose
x extent is not a multiple of 32 (the corner-case path). Skips cleanly without a GPU.

    PYTHONPATH=. python hw_tests/nvidia/test_load_shuffle_hw.py [--json OUT]

Reads benchmarks/nvidia/build/NAME.{orig,model,all}.ptx (made by `bench_stencils.py --build`; built here
when missing and nvcc + z3 are available)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "nvidia"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import stencil_suite as S  # noqa: E402
from test_shfl_sync_hw import gpu_device, open_device  # noqa: E402

SIZES = {1: [(37, 1, 1), (1000, 1, 1), (4099, 1, 1)],
         2: [(67, 45, 1), (129, 33, 1), (300, 7, 1)],
         3: [(37, 19, 11), (70, 20, 9), (130, 6, 5)]}
BLOCKS = {1: [(32, 1, 1), (128, 1, 1), (48, 1, 1), (100, 1, 1)],
          2: [(32, 4, 1), (128, 1, 1), (16, 4, 1), (48, 2, 1)],
          3: [(32, 2, 2), (64, 2, 1), (16, 4, 2), (40, 3, 1)]}


def _ensure_built() -> None:
    if all((S.BUILD / f"{n}.{v}.ptx").exists() for n in S.SUITE for v in S.VARIANTS):   # check() loads each
        return
    S.build()


def check(dev) -> dict:
    _ensure_built()
    rng = np.random.default_rng(11)
    results, bad = {}, []
    for name, spec in S.SUITE.items():
        f_orig = dev.function(dev.load(S.ptx(name, "orig")), spec.kernel)
        f_all = dev.function(dev.load(S.ptx(name, "all")), spec.kernel)
        f_model = dev.function(dev.load(S.ptx(name, "model")), spec.kernel)
        runs = 0
        sizes = SIZES[spec.dims] if spec.elems == "grid" else [(64, 37, 1), (33, 100, 1)]
        for ext in sizes:
            for block in BLOCKS[spec.dims]:
                L = S.Launcher(dev, spec, ext, S.make_inputs(spec, ext, rng))
                try:
                    ref = L.run(f_orig, block)
                    for label, fn in (("all", f_all), ("model", f_model)):
                        got = L.run(fn, block)
                        runs += 1
                        if got != ref:
                            bad.append(f"{name} {label} ext={ext} block={block}")
                finally:
                    L.close()
        results[name] = runs
    return {"runs": results, "mismatches": bad, "ok": not bad}


def test_load_shuffle_bit_identical():
    with gpu_device() as dev:
        res = check(dev)
    assert res["ok"], res["mismatches"]


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    dev = open_device()
    res = check(dev)
    res["device"] = dev.info()
    print(json.dumps({k: v for k, v in res.items()}, indent=1))
    if a.json:
        a.json.write_text(json.dumps(res, indent=1))
    sys.exit(0 if res["ok"] else 1)
