"""The CUDA single-precision math of hw_tests/amd/test_cuda_math_hw.py compiled by nvcc and run on an
NVIDIA GPU, against the same numpy double-precision references, and against shflx on the AMD emulator.

On the NVIDIA machine (nvcc, CuPy, a GPU):

    python benchmarks/nvidia/bench_math_nvcc.py --run-on-gpu --npz $OUT/h200_math_nvcc.npz

compiles the test's `math1` kernel with `nvcc -O3 -arch=sm_90 -cubin` (default flags: precise math,
no --use_fast_math, denormals kept), runs every function of the test's FUNCS table over the test's
own inputs (`FUNCS[fn][3](np.random.default_rng(fn))`, N = 1024), and saves inputs and nvcc's outputs
(float32) in the .npz (committed as benchmarks/results/h200_math_nvcc.npz).

Here (shflx, the emulator):

    PYTHONPATH=. SHFLX_AMD_DEVICE=emulator SHFLX_EMULATED_TARGETS=gfx942,gfx1100 \\
        python benchmarks/nvidia/bench_math_nvcc.py [--npz ...] [--json benchmarks/results/h200_math_nvcc.json]

checks the .npz's inputs are the ones the test generates, runs shflx's compile of the same kernel
on each emulated AMD device (as the test does), and per function reports: nvcc's maximum error
against the reference, shflx's, and the maximum distance between shflx's and nvcc's results, in
float ULPs as the test defines them (`ulp_error`, over the inputs the test keeps: finite, normal or
zero references). The bounds are the CUDA C Programming Guide's (appendix "Mathematical
Functions", "Single Precision Floating-Point Functions", maximum ulp error), as the test states
them.

The test module imports pytest and the AMD device helpers; `load_test_defs()` takes only its
definitions (SOURCE, N, FUNCS, ulp_error, ...) from the file's syntax tree, so the NVIDIA machine
and the fast record test (tests/test_math_nvcc_record.py) need numpy alone."""
from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
TEST_FILE = ROOT / "hw_tests" / "amd" / "test_cuda_math_hw.py"
RESULTS = ROOT / "benchmarks" / "results"
NVCC_FLAGS = ["-O3", "-arch=sm_90", "-cubin"]
POW_FNS = (8, 21)                   # the two-argument functions: the reference takes (x, y)


def load_test_defs(path: Path = TEST_FILE) -> SimpleNamespace:
    """The test file's imports of math and numpy, its top-level assignments and its non-test
    functions, executed without pytest or the device helpers."""
    tree = ast.parse(path.read_text(), str(path))
    keep = []
    for node in tree.body:
        if isinstance(node, ast.Import) and all(a.name in ("math", "numpy") for a in node.names):
            keep.append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            keep.append(node)
        elif isinstance(node, ast.FunctionDef) and not node.name.startswith(("test", "_")):
            keep.append(node)
    ns: dict = {"__name__": "cuda_math_defs"}
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(path), "exec"), ns)
    return SimpleNamespace(**{k: v for k, v in ns.items() if not k.startswith("__")})


def inputs(mod: SimpleNamespace, fn: int) -> tuple[np.ndarray, np.ndarray]:
    """The test's inputs for `fn`, as float32 (the test's own code, copied: seed = fn)."""
    x, y = mod.FUNCS[fn][3](np.random.default_rng(fn))
    return x.astype(np.float32), (y if y is not None else np.zeros(mod.N)).astype(np.float32)


def reference(mod: SimpleNamespace, fn: int, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the double reference, the mask of inputs the test keeps)."""
    ref_fn = mod.FUNCS[fn][1]
    with np.errstate(all="ignore"):
        ref = ref_fn(x.astype(np.float64), y.astype(np.float64)) if fn in POW_FNS else ref_fn(x.astype(np.float64))
    f32 = np.finfo(np.float32)
    keep = np.isfinite(ref) & (np.abs(ref) < f32.max) & ((np.abs(ref) >= f32.tiny) | (ref == 0))
    return ref, keep


def max_ulp(mod: SimpleNamespace, got: np.ndarray, ref: np.ndarray, keep: np.ndarray) -> float:
    with np.errstate(all="ignore"):
        return float(mod.ulp_error(got[keep], ref[keep]).max())


def nvcc_errors(mod: SimpleNamespace, data) -> dict[int, tuple[float, int]]:
    """fn -> (nvcc's max ulp against the reference, inputs kept), from the saved .npz."""
    out = {}
    for fn in sorted(mod.FUNCS):
        x, y = data[f"x{fn}"], data[f"y{fn}"]
        ref, keep = reference(mod, fn, x, y)
        out[fn] = (max_ulp(mod, data[f"nvcc{fn}"], ref, keep), int(keep.sum()))
    return out


# --- the NVIDIA machine -----------------------------------------------------------------------

def run_on_gpu(npz: Path) -> None:
    import cupy as cp

    mod = load_test_defs()
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        src, cubin = Path(tmp) / "cuda_math.cu", Path(tmp) / "cuda_math.cubin"
        src.write_text(mod.SOURCE)
        subprocess.run(["nvcc", *NVCC_FLAGS, "-o", str(cubin), str(src)], check=True)
        kernel = cp.RawModule(path=str(cubin)).get_function("math1")
        return _launch_all(cp, mod, kernel, version, npz)


def _launch_all(cp, mod: SimpleNamespace, kernel, version: str, npz: Path) -> None:
    gpu = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    saved = {"nvcc_version": np.array(version.strip().splitlines()[-1]), "gpu": np.array(gpu),
             "nvcc_flags": np.array(" ".join(NVCC_FLAGS))}
    for fn in sorted(mod.FUNCS):
        x, y = inputs(mod, fn)
        dx, dy = cp.asarray(x), cp.asarray(y)
        dout = cp.zeros(mod.N, dtype=cp.float32)
        kernel((mod.N // 64,), (64,), (dx, dy, dout, np.int32(fn)))
        cp.cuda.runtime.deviceSynchronize()
        saved[f"x{fn}"], saved[f"y{fn}"], saved[f"nvcc{fn}"] = x, y, cp.asnumpy(dout)
    npz.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(npz, **saved)
    errs = nvcc_errors(mod, np.load(npz))
    print(f"{gpu}, {saved['nvcc_version']}, nvcc {' '.join(NVCC_FLAGS)}")
    for fn, (e, kept) in errs.items():
        print(f"{mod.FUNCS[fn][0]:>20}: nvcc max {e:.3f} ulp over {kept} inputs (bound {mod.FUNCS[fn][2]})")


# --- here: shflx on the emulator --------------------------------------------------------------

def shflx_outputs(mod: SimpleNamespace, data) -> dict[str, dict[int, np.ndarray]]:
    """arch -> fn -> shflx's results, each AMD device hw_devices selects (the test's launch)."""
    sys.path.insert(0, str(ROOT / "hw_tests" / "amd"))
    from hw_devices import code_object, no_device_reason, selected

    devices = selected().devices
    if not devices:
        raise SystemExit(f"no AMD device: {no_device_reason()}")
    out: dict[str, dict[int, np.ndarray]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for dev in devices:
            hsaco = code_object(mod.SOURCE, "cuda_math.cu", dev.arch, tmp)
            out[dev.arch] = {}
            for fn in sorted(mod.FUNCS):
                x, y = data[f"x{fn}"], data[f"y{fn}"]
                out[dev.arch][fn] = np.asarray(dev.run_kernel(hsaco, "math1", [x, y], mod.N, np.float32,
                                                              block=(64, 1, 1), grid=(mod.N // 64, 1, 1),
                                                              scalars=[fn]))
                print(f"  {dev.arch} {mod.FUNCS[fn][0]} done", file=sys.stderr, flush=True)
    return out


def compare(npz: Path, json_out: Path) -> dict:
    mod = load_test_defs()
    data = np.load(npz)
    for fn in sorted(mod.FUNCS):
        x, y = inputs(mod, fn)
        if not (np.array_equal(x, data[f"x{fn}"]) and np.array_equal(y, data[f"y{fn}"])):
            raise SystemExit(f"{npz}: the inputs of {mod.FUNCS[fn][0]} are not the test's (numpy's generator changed?)")
    nv = nvcc_errors(mod, data)
    amd = shflx_outputs(mod, data)
    rows = {}
    for fn in sorted(mod.FUNCS):
        name, _, bound, _ = mod.FUNCS[fn]
        x, y, got_nv = data[f"x{fn}"], data[f"y{fn}"], data[f"nvcc{fn}"]
        ref, keep = reference(mod, fn, x, y)
        row = {"fn": fn, "cuda_bound_ulp": bound, "inputs_kept": nv[fn][1], "nvcc_max_ulp": round(nv[fn][0], 4),
               "shflx_max_ulp": {}, "shflx_vs_nvcc_max_ulp": {}, "shflx_bitwise_equal_nvcc": {}}
        for arch, res in amd.items():
            got = res[fn]
            row["shflx_max_ulp"][arch] = round(max_ulp(mod, got, ref, keep), 4)
            # distance to nvcc's float in ULPs at nvcc's value (the test's ulp_error with nvcc as reference)
            row["shflx_vs_nvcc_max_ulp"][arch] = round(max_ulp(mod, got, got_nv.astype(np.float64), keep), 4)
            row["shflx_bitwise_equal_nvcc"][arch] = int((got[keep].view(np.uint32) == got_nv[keep].view(np.uint32)).sum())
        rows[name] = row
    result = {
        "what": "max float ULP error per CUDA single-precision math function over the inputs of "
                "hw_tests/amd/test_cuda_math_hw.py (N=1024, rng seed = function number), against numpy double "
                "references; nvcc on an NVIDIA GPU vs shflx on the AMD emulator",
        "script": "benchmarks/nvidia/bench_math_nvcc.py",
        "npz": str(npz.resolve().relative_to(ROOT)) if ROOT in npz.resolve().parents else str(npz),
        "gpu": str(data["gpu"]), "nvcc_version": str(data["nvcc_version"]), "nvcc_flags": str(data["nvcc_flags"]),
        "shflx_devices": sorted(amd), "amd_device_kind": os.environ.get("SHFLX_AMD_DEVICE", ""),
        "host": platform.machine(),
        "bounds": "CUDA C Programming Guide, appendix Mathematical Functions, Single Precision Floating-Point "
                  "Functions (maximum ulp error)",
        "functions": rows,
    }
    json_out.write_text(json.dumps(result, indent=1) + "\n")
    archs = sorted(amd)
    print(f"{result['gpu']}, {result['nvcc_version']}, nvcc {result['nvcc_flags']}; shflx on {', '.join(archs)}")
    print(f"{'function':>20} {'bound':>5} {'nvcc':>7} " + " ".join(f"{'shflx ' + a:>13}" for a in archs)
          + " " + " ".join(f"{'vs nvcc ' + a:>15}" for a in archs) + "  bitwise==nvcc")
    for name, r in rows.items():
        print(f"{name:>20} {r['cuda_bound_ulp']:>5} {r['nvcc_max_ulp']:>7.3f} "
              + " ".join(f"{r['shflx_max_ulp'][a]:>13.3f}" for a in archs) + " "
              + " ".join(f"{r['shflx_vs_nvcc_max_ulp'][a]:>15.3f}" for a in archs) + "  "
              + ", ".join(f"{r['shflx_bitwise_equal_nvcc'][a]}/{r['inputs_kept']}" for a in archs))
    over = [(n, a) for n, r in rows.items() for a in archs if r["shflx_max_ulp"][a] > max(r["cuda_bound_ulp"], 0.5) + 1e-9]
    print("shflx over CUDA's bound: " + (", ".join(f"{n} ({a})" for n, a in over) if over else "none"))
    print(f"wrote {json_out}")
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run-on-gpu", action="store_true", help="compile with nvcc and run on the NVIDIA GPU")
    ap.add_argument("--npz", type=Path, default=RESULTS / "h200_math_nvcc.npz")
    ap.add_argument("--json", type=Path, default=RESULTS / "h200_math_nvcc.json")
    ns = ap.parse_args()
    if ns.run_on_gpu:
        run_on_gpu(ns.npz)
    else:
        compare(ns.npz, ns.json)


if __name__ == "__main__":
    main()
