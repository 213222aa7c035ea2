"""The stencil suite (our kernels modelled on the KernelGen suite PTXASW used): what each kernel
takes, how to build its PTX (original, cost-model rewrite, rewrite of every proven opportunity),
and how to launch it through cuda-python. Shared by benchmarks/nvidia/bench_stencils.py and
hw_tests/nvidia/test_load_shuffle_hw.py.

Every kernel has the signature (buffers..., int nx, int ny, int nz); a buffer is "in" (random
data), "out" (pre-filled with a pattern, compared) or "inout" (random data, compared)."""
from __future__ import annotations

import json
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
KERNEL_DIR = HERE / "kernels"
BUILD = HERE / "build"
SM = 90
VARIANTS = ("orig", "model", "all")   # original; cost model on; every proven opportunity rewritten


@dataclass(frozen=True)
class Spec:
    name: str
    buffers: tuple[tuple[str, str], ...]   # (role, numpy dtype)
    dims: int
    bench: tuple[int, int, int]            # (nx, ny, nz) that fills an H100
    elems: str = "grid"                    # "grid": nx*ny*nz per buffer; "matvec": A is nx*ny

    @property
    def file(self) -> Path:
        return KERNEL_DIR / f"{self.name}.cu"

    @property
    def kernel(self) -> str:
        return "sincos_k" if self.name == "sincos" else self.name

    def sizes(self, nx: int, ny: int, nz: int) -> list[int]:
        if self.elems == "matvec":   # A (ny x nx), x (nx), y (ny)
            return [nx * ny, nx, ny]
        return [nx * ny * nz] * len(self.buffers)

    def grid_extent(self, nx: int, ny: int, nz: int) -> tuple[int, int, int]:
        if self.elems == "matvec":
            return (ny, 1, 1)
        return (nx, ny if self.dims >= 2 else 1, nz if self.dims >= 3 else 1)


F, D, I = "float32", "float64", "int32"
SUITE = {s.name: s for s in [
    Spec("vecadd", (("in", F), ("in", F), ("out", F)), 1, (1 << 26, 1, 1)),
    Spec("sincos", (("in", F), ("in", F), ("out", F)), 1, (1 << 26, 1, 1)),
    Spec("stencil1d5", (("in", F), ("out", F)), 1, (1 << 26, 1, 1)),
    Spec("stencil1d3_f64", (("in", D), ("out", D)), 1, (1 << 25, 1, 1)),
    Spec("jacobi", (("in", F), ("out", F)), 2, (8192, 8192, 1)),
    Spec("gaussblur", (("in", F), ("out", F)), 2, (8192, 8192, 1)),
    Spec("life", (("in", I), ("out", I)), 2, (8192, 8192, 1)),
    Spec("laplacian", (("in", F), ("out", F)), 3, (512, 512, 256)),
    Spec("gradient", (("in", F), ("out", F), ("out", F), ("out", F)), 3, (512, 512, 128)),
    Spec("divergence", (("in", F), ("in", F), ("in", F), ("out", F)), 3, (512, 512, 128)),
    Spec("wave13pt", (("in", F), ("in", F), ("out", F)), 3, (512, 512, 256)),
    Spec("tricubic", (("in", F), ("in", F), ("in", F), ("in", F), ("out", F)), 3, (512, 512, 128)),
    Spec("uxx1", (("in", F), ("in", F), ("in", F), ("in", F), ("inout", F)), 3, (512, 512, 128)),
    Spec("matvec", (("in", F), ("in", F), ("out", F)), 1, (4096, 16384, 1), elems="matvec"),
]}


# ------------------------------------------------------------------------------ build (no GPU)

def nvcc_ptx(spec: Spec, out: Path) -> None:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise RuntimeError("nvcc not found")
    subprocess.run([nvcc, "-ptx", f"-arch=sm_{SM}", "-O3", "-o", str(out), str(spec.file)], check=True)


def build(names: list[str] | None = None, build_dir: Path = BUILD) -> dict:
    """nvcc -> PTX -> shflx load->shuffle rewrite (cost model on, and everything proven); writes
    NAME.{orig,model,all}.ptx and analysis.json into build_dir; returns the analysis."""
    import sys
    sys.path.insert(0, str(HERE.parents[1]))
    from shflx.nvidia import ptxir
    from shflx.nvidia.load_shuffle import rewrite
    build_dir.mkdir(parents=True, exist_ok=True)
    analysis = {}
    for name in names or list(SUITE):
        spec = SUITE[name]
        orig = build_dir / f"{name}.orig.ptx"
        nvcc_ptx(spec, orig)
        text = orig.read_text()
        row = {}
        for variant, model in (("model", True), ("all", False)):
            t0 = time.perf_counter()
            mod, entries = rewrite(ptxir.parse(text, str(orig)), SM, cost_model=model)
            ms = (time.perf_counter() - t0) * 1000
            (build_dir / f"{name}.{variant}.ptx").write_text(ptxir.unparse(mod))
            row[variant] = {"analysis_ms": round(ms, 1),
                            "rewritten": sum(e.status == "rewritten" for e in entries),
                            "shuffles": sum(e.shuffles for e in entries),
                            "entries": [e.as_json() for e in entries]}
        row["opportunities"] = len(row["all"]["entries"])
        row["deltas"] = sorted(e["delta"] for e in row["all"]["entries"])
        row["nsw_assumed"] = sum(bool(e["assumptions"]) for e in row["all"]["entries"])
        analysis[name] = row
    (build_dir / "analysis.json").write_text(json.dumps(analysis, indent=1))
    return analysis


def ptx(name: str, variant: str, build_dir: Path = BUILD) -> str:
    return (build_dir / f"{name}.{variant}.ptx").read_text()


# ------------------------------------------------------------------------------ launch (GPU)

def make_inputs(spec: Spec, ext: tuple[int, int, int], rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for (role, dt), n in zip(spec.buffers, spec.sizes(*ext)):
        if role == "out":
            out.append(np.frombuffer(np.full(n * np.dtype(dt).itemsize, 0xA5, np.uint8).tobytes(), dtype=dt).copy())
        elif dt == I:
            out.append(rng.integers(0, 2, n, dtype=np.int32))
        elif spec.name == "tricubic" and len(out) in (1, 2, 3):
            out.append(rng.random(n, dtype=np.float64).astype(dt))   # fractional offsets in [0, 1)
        elif spec.name == "uxx1" and len(out) == 0:
            out.append((rng.random(n) + 1.0).astype(dt))             # densities away from zero
        else:
            out.append(rng.standard_normal(n).astype(dt))
    return out


class Launcher:
    """Device buffers for one (kernel, size); launches any PTX variant of the kernel on them."""

    def __init__(self, dev, spec: Spec, ext: tuple[int, int, int], inputs: list[np.ndarray]):
        self.dev, self.spec, self.ext, self.inputs = dev, spec, ext, inputs
        cu = dev.cu
        self.ptrs = []
        for a in inputs:
            d = dev.check(cu.cuMemAlloc(max(a.nbytes, 4)))
            self.ptrs.append(d)
        self.reset()
        self.fns: dict[str, object] = {}

    def reset(self) -> None:
        for d, a in zip(self.ptrs, self.inputs):
            self.dev.check(self.dev.cu.cuMemcpyHtoD(d, np.ascontiguousarray(a), a.nbytes))

    def function(self, key: str, ptx_text: str):
        if key not in self.fns:
            self.fns[key] = self.dev.function(self.dev.load(ptx_text), self.spec.kernel)
        return self.fns[key]

    def launch(self, fn, block: tuple[int, int, int], stream=0) -> None:
        cu = self.dev.cu
        gx, gy, gz = self.spec.grid_extent(*self.ext)
        grid = tuple((g + b - 1) // b for g, b in zip((gx, gy, gz), block))
        vals = [np.array([int(p)], dtype=np.uint64) for p in self.ptrs]
        vals += [np.array([v], dtype=np.int32) for v in self.ext]
        params = np.array([v.ctypes.data for v in vals], dtype=np.uint64)
        self.dev.check(cu.cuLaunchKernel(fn, *grid, *block, 0, stream, params.ctypes.data, 0))
        self._keep = (vals, params)

    def outputs(self) -> list[bytes]:
        self.dev.check(self.dev.cu.cuCtxSynchronize())
        res = []
        for (role, _), d, a in zip(self.spec.buffers, self.ptrs, self.inputs):
            if role in ("out", "inout"):
                host = np.empty_like(a)
                self.dev.check(self.dev.cu.cuMemcpyDtoH(host, d, host.nbytes))
                res.append(host.tobytes())
        return res

    def run(self, fn, block) -> list[bytes]:
        self.reset()
        self.launch(fn, block)
        return self.outputs()

    def close(self) -> None:
        for d in self.ptrs:
            self.dev.cu.cuMemFree(d)
