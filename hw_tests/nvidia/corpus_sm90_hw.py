"""Real corpus kernels on an NVIDIA GPU: shflx's sm_90 build against nvcc's build of the same,
unmodified source (issue 12, "Correctness of what compiles").

Each unit of ../shared/corpus named in UNITS is compiled twice to a cubin, by shflx
(`python -m shflx compile UNIT --offload-arch sm_90 --emit cubin -I...`) and by nvcc
(`nvcc -arch=sm_90 -cubin -O3 -I... <the manifest's nvcc_flags>`). On the GPU every CASE launches
one kernel (found by its mangled name, which both cubins must share) from each cubin with the
same generated inputs and the same initial output contents, and compares every buffer afterwards
byte for byte. The nvcc build is launched twice, so a difference that is only nondeterminism shows
up as `nvcc_repeat_identical: false`. Nothing is timed.

The cases (kernels, launch shapes, inputs) are hw_tests/corpus_cases.py's, shared with the AMD
check. A case may name a tolerance in ULP for float buffers (`ulp=`) where the math legitimately
differs; a difference within it is reported as `within N ulp` with the largest ULP distance seen,
anything else as `mismatch`.

With --outputs PREFIX the run also records nvcc's buffers after each launch, the reference of the
AMD check (hw_tests/amd/test_corpus_hw.py, benchmarks/bench_corpus_exec.py), which runs without an
NVIDIA GPU: PREFIX.json holds per case and buffer the SHA-256 of the input and of nvcc's output,
PREFIX.npz the output arrays of the cases whose changed buffers total at most STORE_LIMIT bytes.
A unit whose shflx cubin is missing (shflx cannot build it) still runs from nvcc's.

    PYTHONPATH=. python hw_tests/nvidia/corpus_sm90_hw.py --build DIR [--corpus DIR (default: $SHFLX_CORPUS, else ../shared/corpus)]
    python hw_tests/nvidia/corpus_sm90_hw.py --run DIR --json OUT.json [--outputs PREFIX]
                                                  (on the GPU machine: numpy, cuda-python)
    both take --units A,B (default: every unit); --build takes --variants shflx|nvcc (default: both),
    adding to DIR's build.json, so shflx's cubins can be built here and nvcc's on the GPU machine

--build needs shflx[cuda] and nvcc; --run needs only the cubins in DIR, numpy and cuda-python, and
skips cleanly (exit 0, `"skipped"` in the JSON) where there is no driver or GPU. This file is a
script, not a pytest module: CI collects tests/ and hw_tests/amd only."""
from __future__ import annotations

import argparse
import json
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1] / "tests"))
from corpus_location import corpus_dir  # noqa: E402
from corpus_cases import (CASES, UNITS, Buf, Case, buffers, check_reference, compare, digest,  # noqa: E402
                          host_inputs, include_dirs, manifest)

VARIANTS = ("shflx", "nvcc")
STORE_LIMIT = 256 * 1024      # bytes of changed buffers per case kept as arrays (else hashes only)

# --------------------------------------------------------------------------------------------
# Build (here: shflx[cuda] and nvcc)


def build(out: Path, corpus: Path, units: list[str], variants: tuple[str, ...] = VARIANTS) -> dict:
    """The cubins of `variants` of `units` into `out`, and build.json (commands, return codes,
    messages), added to what an earlier build into `out` recorded (shflx's cubins may be built
    where shflx is installed, nvcc's on the GPU machine)."""
    out.mkdir(parents=True, exist_ok=True)
    man = manifest(corpus)
    bj = out / "build.json"
    info: dict = json.loads(bj.read_text()) if bj.exists() else {"corpus": str(corpus), "units": {}}
    for name in units:
        unit = UNITS[name]
        uid = unit.path
        row = man[uid]
        incs = [f"-I{d}" for d in include_dirs(corpus, row)]
        src = str(corpus / uid)
        cmds = {
            "shflx": [sys.executable, "-m", "shflx", "compile", src, "--offload-arch", "sm_90", "--emit", "cubin",
                      *incs, "-o", str(out / f"{name}.shflx.cubin")],
            "nvcc": ["nvcc", "-arch=sm_90", "-cubin", "-O3", *incs, *shlex.split(row.get("nvcc_flags", "")), src,
                     "-o", str(out / f"{name}.nvcc.cubin")],
        }
        rec = info["units"].setdefault(name, {"unit": uid})
        for v in variants:
            cmd = cmds[v]
            t0 = time.time()
            p = subprocess.run(cmd, capture_output=True, text=True)
            rec[v] = {"command": shlex.join(cmd).replace(str(corpus), "$CORPUS"), "rc": p.returncode,
                      "seconds": round(time.time() - t0, 1),
                      "message": (p.stderr.strip().splitlines() or [""])[-1] if p.returncode else ""}
            print(f"{name:28s} {v:5s} rc={p.returncode} {rec[v]['message']}", flush=True)
    if "nvcc" in variants:
        nv = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()
        info["nvcc_version"] = nv[-1] if nv else None
    if "shflx" in variants:
        try:
            from importlib.metadata import version
            info["shflx_version"] = version("shflx")
        except Exception:
            info["shflx_version"] = None
    bj.write_text(json.dumps(info, indent=1) + "\n")
    return info


# --------------------------------------------------------------------------------------------
# Run (the GPU machine)


class NoGPU(Exception):
    pass


class Device:
    def __init__(self) -> None:
        try:
            from cuda.bindings import driver as cu  # type: ignore
        except Exception as e:
            raise NoGPU(f"cuda.bindings.driver not importable ({type(e).__name__}: {e})") from e
        self.cu = cu
        try:
            err, = cu.cuInit(0)
        except Exception as e:
            raise NoGPU(f"cuInit raised {type(e).__name__}: {e}") from e
        if err != cu.CUresult.CUDA_SUCCESS:
            raise NoGPU(f"cuInit failed: {err}")
        err, count = cu.cuDeviceGetCount()
        if err != cu.CUresult.CUDA_SUCCESS or count == 0:
            raise NoGPU("no CUDA device")
        self.dev = self.check(cu.cuDeviceGet(0))
        self.ctx = self.check(cu.cuDevicePrimaryCtxRetain(self.dev))
        self.check(cu.cuCtxSetCurrent(self.ctx))
        name = self.check(cu.cuDeviceGetName(128, self.dev))
        self.name = name.split(b"\0")[0].decode()
        at = cu.CUdevice_attribute
        self.cc = (self.check(cu.cuDeviceGetAttribute(at.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.dev)),
                   self.check(cu.cuDeviceGetAttribute(at.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.dev)))
        self.driver = self.check(cu.cuDriverGetVersion())
        self.modules: list = []

    def check(self, res):
        if not isinstance(res, tuple):
            res = (res,)
        if res[0] != self.cu.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"CUDA driver call failed: {res[0]}")
        rest = res[1:]
        return None if not rest else rest[0] if len(rest) == 1 else rest

    def load(self, image: bytes):
        mod = self.check(self.cu.cuModuleLoadData(image))
        self.modules.append(mod)
        return mod

    def launch(self, fn, case: Case, host: list) -> list[np.ndarray]:
        """Copy `host` (arrays for Buf, numpy scalars for Val) in, launch, return every buffer."""
        cu = self.cu
        ptrs, vals = [], []
        try:
            for a, h in zip(case.args, host):
                if isinstance(a, Buf):
                    d = self.check(cu.cuMemAlloc(max(h.nbytes, 4)))
                    ptrs.append(d)
                    self.check(cu.cuMemcpyHtoD(d, h, h.nbytes))
                    vals.append(np.array([int(d)], dtype=np.uint64))
                else:
                    vals.append(np.array([a.value], dtype=a.dtype))
            params = np.array([v.ctypes.data for v in vals], dtype=np.uint64)
            launch = cu.cuLaunchCooperativeKernel if case.cooperative else \
                (lambda *x: cu.cuLaunchKernel(*x, 0))
            self.check(launch(fn, *case.grid, *case.block, case.smem, 0, params.ctypes.data))
            self.check(cu.cuCtxSynchronize())
            outs, k = [], 0
            for a, h in zip(case.args, host):
                if isinstance(a, Buf):
                    r = np.empty_like(h)
                    self.check(cu.cuMemcpyDtoH(r, ptrs[k], r.nbytes))
                    outs.append(r)
                    k += 1
            return outs
        finally:
            for p in ptrs:
                cu.cuMemFree(p)

    def info(self) -> dict:
        try:
            from importlib.metadata import version
            b = version("cuda-bindings")
        except Exception:
            b = None
        return {"name": self.name, "compute_capability": f"{self.cc[0]}.{self.cc[1]}",
                "driver_cuda_version": self.driver, "cuda_bindings": b}


def run(build_dir: Path, units: list[str]) -> tuple[dict, dict[str, np.ndarray]]:
    """(the results of the cases of `units`, nvcc's changed output buffers by "<case key>.<arg>")."""
    try:
        dev = Device()
    except NoGPU as e:
        return {"skipped": str(e)}, {}
    mods: dict = {}
    results = []
    arrays: dict[str, np.ndarray] = {}
    for case in (c for c in CASES if c.unit in units):
        rec = {"key": case.key, "unit": case.unit, "corpus_unit": UNITS[case.unit].path, "kernel": case.kernel,
               "launch": case.label, "grid": case.grid, "block": case.block, "smem": case.smem,
               "cooperative": case.cooperative,
               "inputs": [a.what if isinstance(a, Buf) else f"{a.dtype} {a.value}" for a in case.args],
               "tolerance_ulp": case.ulp}
        try:
            fns = {}
            for v in VARIANTS:
                cubin = build_dir / f"{case.unit}.{v}.cubin"
                if not cubin.exists():
                    continue
                if (case.unit, v) not in mods:
                    mods[case.unit, v] = dev.load(cubin.read_bytes())
                fns[v] = dev.check(dev.cu.cuModuleGetFunction(mods[case.unit, v], case.kernel.encode()))
            if "nvcc" not in fns:
                raise FileNotFoundError(f"no nvcc cubin for {case.unit} in {build_dir}")
            host = host_inputs(case)
            got = {v: dev.launch(fns[v], case, host) for v in fns}
            again = dev.launch(fns["nvcc"], case, host)
            if "shflx" in got:
                rec.update(compare(case, got["shflx"], got["nvcc"], VARIANTS))
            else:
                rec["result"] = "no shflx build"
            rec["nvcc_repeat_identical"] = all(a.tobytes() == b.tobytes() for (_, buf), a, b in
                                               zip(buffers(case), got["nvcc"], again) if buf.compare)
            bufs = [h for h in host if isinstance(h, np.ndarray)]
            # the kernel did something: some buffer differs from what was copied in (else equality is empty)
            rec["elements_written"] = int(sum(np.count_nonzero(g.view(np.uint8) != h.view(np.uint8))
                                              for g, h in zip(got["nvcc"], bufs)))
            if case.ref is not None:
                rec["reference"] = {v: check_reference(case, host, got[v]) for v in got}
            rec["nvcc_outputs"] = record_outputs(case, bufs, got["nvcc"], arrays)
        except Exception as e:  # one broken case must not hide the rest
            rec.update({"result": "error", "error": f"{type(e).__name__}: {e}"})
        results.append(rec)
        print(f"{case.unit:28s} {case.kernel[:44]:44s} {case.label[:40]:40s} {rec['result']}", flush=True)
    summary: dict = {}
    for r in results:
        summary[r["result"]] = summary.get(r["result"], 0) + 1
    refd = [r for r in results if "reference" in r]
    summary["reference_checked"] = len(refd)
    summary["reference_ok_all"] = sum(all(r["reference"].values()) for r in refd)
    summary["wrote_nothing"] = sum(r.get("elements_written", 1) == 0 for r in results)
    out = {"device": dev.info(), "host": platform.node(), "numpy": np.__version__, "launches": len(results),
           "kernels": len({(r["unit"], r["kernel"]) for r in results}), "units": len({r["unit"] for r in results}),
           "summary": summary, "results": results}
    bj = build_dir / "build.json"
    if bj.exists():
        out["build"] = json.loads(bj.read_text())
    for mod in dev.modules:
        dev.cu.cuModuleUnload(mod)
    dev.cu.cuDevicePrimaryCtxRelease(dev.dev)
    return out, arrays


def record_outputs(case: Case, inputs: list[np.ndarray], outputs: list[np.ndarray],
                   arrays: dict[str, np.ndarray]) -> list[dict]:
    """Per compared buffer: the SHA-256 of what went in and of what nvcc's build left there; the
    changed buffers go into `arrays` when the case's total is within STORE_LIMIT."""
    changed = [(arg, o) for (arg, b), i, o in zip(buffers(case), inputs, outputs)
               if b.compare and i.tobytes() != o.tobytes()]
    keep = sum(o.nbytes for _, o in changed) <= STORE_LIMIT
    recs = []
    for (arg, b), i, o in zip(buffers(case), inputs, outputs):
        if not b.compare:
            continue
        rec = {"arg": arg, "input_sha256": digest(i), "output_sha256": digest(o),
               "unchanged": i.tobytes() == o.tobytes()}
        rec["stored"] = keep and not rec["unchanged"]
        if rec["stored"]:
            arrays[f"{case.key}.{arg}"] = o
        recs.append(rec)
    return recs


def write_outputs(prefix: Path, res: dict, arrays: dict[str, np.ndarray]) -> None:
    """PREFIX.npz (the arrays) and PREFIX.json (how they were made, and every case's hashes)."""
    np.savez_compressed(prefix.with_suffix(".npz"), **arrays)
    meta = {"what": "nvcc's buffers after each launch of hw_tests/corpus_cases.py's cases (the AMD check's reference)",
            "device": res["device"], "numpy": res["numpy"], "store_limit_bytes": STORE_LIMIT,
            "nvcc_version": res.get("build", {}).get("nvcc_version"),
            "nvcc_commands": {u: r["nvcc"]["command"] for u, r in res.get("build", {}).get("units", {}).items()},
            "cases": {r["key"]: {k: r.get(k) for k in ("unit", "kernel", "launch", "nvcc_repeat_identical",
                                                       "nvcc_outputs", "error")}
                      for r in res["results"]}}
    prefix.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--build", metavar="DIR", help="build both cubins of every unit into DIR")
    g.add_argument("--run", metavar="DIR", help="launch every case from the cubins in DIR (GPU)")
    ap.add_argument("--corpus", default=str(corpus_dir()))
    ap.add_argument("--json", help="write the run's results here")
    ap.add_argument("--outputs", metavar="PREFIX", help="write nvcc's buffers to PREFIX.npz and PREFIX.json")
    ap.add_argument("--units", default=",".join(UNITS), help="comma-separated units (default: all)")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="which cubins --build makes (default: both)")
    ns = ap.parse_args(argv)
    units, variants = ns.units.split(","), tuple(ns.variants.split(","))
    if set(units) - set(UNITS) or set(variants) - set(VARIANTS):
        ap.error(f"unknown units or variants: {sorted(set(units) - set(UNITS)) + sorted(set(variants) - set(VARIANTS))}")
    if ns.build:
        info = build(Path(ns.build), Path(ns.corpus), units, variants)
        bad = [n for n in units if any(info["units"][n][v]["rc"] for v in variants)]
        print(f"built {len(units) - len(bad)} of {len(units)} units; failed: {bad}")
        return 1 if bad else 0
    res, arrays = run(Path(ns.run), units)
    if ns.json:
        Path(ns.json).write_text(json.dumps(res, indent=1, default=list) + "\n")
    if "skipped" in res:
        print(f"SKIP: {res['skipped']}")
        return 0
    if ns.outputs:
        write_outputs(Path(ns.outputs), res, arrays)
    print(json.dumps(res["summary"]), f"{res['launches']} launches, {res['kernels']} kernels, {res['units']} units")
    return 0 if all(r["result"] not in ("mismatch", "error", "no shflx build") and all(r.get("reference", {}).values())
                    and r.get("elements_written", 1) for r in res["results"]) else 1


if __name__ == "__main__":
    sys.exit(main())
