"""Real corpus kernels on an NVIDIA GPU: shflx's sm_90 build against nvcc's build of the same,
unmodified source (issue 12, "Correctness of what compiles").

Each unit of ../shared/corpus named in UNITS is compiled twice to a cubin, by shflx
(`python -m shflx compile UNIT --offload-arch sm_90 --emit cubin -I...`) and by nvcc
(`nvcc -arch=sm_90 -cubin -O3 -I... <the manifest's nvcc_flags>`). On the GPU every CASE launches
one kernel (found by its mangled name, which both cubins must share) from each cubin with the
same generated inputs and the same initial output contents, and compares every buffer afterwards
byte for byte. The nvcc build is launched twice, so a difference that is only nondeterminism shows
up as `nvcc_repeat_identical: false`. Nothing is timed.

A case may name a tolerance in ULP for float buffers (`ulp=`) where the math legitimately differs
between clang+libdevice and nvcc; a difference within it is reported as `within N ulp` with the
largest ULP distance seen, anything else as `mismatch`. (None of the cases below names one: they
use no libdevice math, so bit-identity is expected everywhere.)

    PYTHONPATH=. python hw_tests/nvidia/corpus_sm90_hw.py --build DIR [--corpus ../shared/corpus]
    python3 corpus_sm90_hw.py --run DIR --json OUT.json      (on the GPU machine: numpy, cuda-python)

--build needs shflx[cuda] and nvcc; --run needs only the cubins in DIR, numpy and cuda-python, and
skips cleanly (exit 0, `"skipped"` in the JSON) where there is no driver or GPU. This file is a
script, not a pytest module: CI collects tests/ and hw_tests/amd only."""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parents[1].parent / "shared" / "corpus"

# --------------------------------------------------------------------------------------------
# The data: units, and how each kernel is launched.

UNITS = {
    "hipify_reduction": "ROCm__HIPIFY/tests/unit_tests/samples/reduction.cu",
    "hipify_vec_add": "ROCm__HIPIFY/tests/unit_tests/samples/vec_add.cu",
    "hipify_square": "ROCm__HIPIFY/tests/unit_tests/samples/square.cu",
    "hipify_axpy": "ROCm__HIPIFY/tests/unit_tests/samples/axpy.cu",
    "hipify_static_smem": "ROCm__HIPIFY/tests/unit_tests/samples/static_shared_memory.cu",
    "hipify_dynamic_smem": "ROCm__HIPIFY/tests/unit_tests/samples/dynamic_shared_memory.cu",
    "hipify_coalescing": "ROCm__HIPIFY/tests/unit_tests/samples/coalescing.cu",
    "hipify_math_functions": "ROCm__HIPIFY/tests/unit_tests/device/math_functions.cu",
    "samples_vote": "NVIDIA__cuda-samples/Samples/0_Introduction/simpleVoteIntrinsics/simpleVoteIntrinsics.cu",
    "samples_inline_ptx": "NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/inlinePTX/inlinePTX.cu",
    "samples_bitonic": "NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu",
    "samples_scan": "NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/scan/scan.cu",
    "samples_hist256": "NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/histogram/histogram256.cu",
    "samples_hist64": "NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/histogram/histogram64.cu",
    "samples_fp16_dot": "NVIDIA__cuda-samples/Samples/0_Introduction/fp16ScalarProduct/fp16ScalarProduct.cu",
    "samples_binary_partition_cg": "NVIDIA__cuda-samples/Samples/3_CUDA_Features/binaryPartitionCG/binaryPartitionCG.cu",
    "trt_group_norm": "NVIDIA__TensorRT/plugin/groupNormalizationPlugin/groupNormalizationKernel.cu",
    # compiles with shflx since the __CUDACC_VER_MAJOR__ fix (after the committed H100 run)
    "deepspeed_layer_norm": "microsoft__DeepSpeed/csrc/transformer/inference/csrc/layer_norm.cu",
}


@dataclass(frozen=True)
class Buf:
    """A device buffer: `n` elements of `dtype`, filled by `gen(rng, n)` (inputs) or with `fill`
    bytes (outputs); every buffer is compared after the launch, inputs included."""
    dtype: str
    n: int
    gen: Callable[[np.random.Generator, int], np.ndarray] | None = None
    what: str = "zeros"
    fill: int = 0


@dataclass(frozen=True)
class Val:
    """A by-value kernel argument: numpy dtype name and value."""
    dtype: str
    value: float | int


@dataclass(frozen=True)
class Case:
    unit: str
    kernel: str
    label: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple
    smem: int = 0
    cooperative: bool = False
    ulp: int | None = None  # tolerance for float buffers; None: bit-identical required
    # independent numpy reference: (host inputs) -> {arg index: expected buffer}; checked on both builds
    ref: Callable[[list], dict[int, np.ndarray]] | None = None


def ints(lo: int, hi: int, dtype: str = "int32"):
    def g(rng, n):
        return rng.integers(lo, hi, size=n, endpoint=False).astype(dtype)
    return g


def u32s(rng, n):
    return rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32)


def floats(lo: float, hi: float, dtype: str = "float32"):
    def g(rng, n):
        return rng.uniform(lo, hi, size=n).astype(dtype)
    return g


def half2_ints(rng, n):
    """n half2 as 2n float16 values in {0,1,2,3} (the sample's own input)."""
    return rng.integers(0, 4, size=n).astype(np.float16)


def half2_uniform(rng, n):
    return rng.uniform(-1, 1, size=n).astype(np.float16)


def vote_pattern(rng, n):
    """Per warp: all zero, one lane set, random, all set, ... (any/all both ways)."""
    out = np.zeros(n, np.uint32)
    for w in range(n // 32):
        kind = w % 4
        if kind == 1:
            out[w * 32 + rng.integers(32)] = rng.integers(1, 1 << 31)
        elif kind == 2:
            out[w * 32:(w + 1) * 32] = rng.integers(0, 2, 32)
        elif kind == 3:
            out[w * 32:(w + 1) * 32] = rng.integers(1, 1 << 31, 32)
    return out


def odd_even(rng, n):
    return rng.integers(-1000, 1000, size=n).astype(np.int32)


def I(lo, hi, n, dtype="int32"):
    return Buf(dtype, n, ints(lo, hi, dtype), f"uniform ints [{lo},{hi})")


def U(n):
    return Buf("uint32", n, u32s, "uniform uint32")


def F(lo, hi, n):
    return Buf("float32", n, floats(lo, hi), f"uniform float32 [{lo},{hi})")


def OUT(dtype, n, fill=0xA5):
    return Buf(dtype, n, None, f"output, bytes 0x{fill:02X}", fill)


def i32(v):
    return Val("int32", v)


def u32(v):
    return Val("uint32", v)


def u64(v):
    return Val("uint64", v)


def f32(v):
    return Val("float32", v)


def _excl_scan(x: np.ndarray, seg: int) -> np.ndarray:
    s = x.reshape(-1, seg).astype(np.uint64)
    return ((np.cumsum(s, axis=1) - s) & 0xFFFFFFFF).astype(np.uint32).ravel()


def _ref_reduce(h):
    return {1: np.array([h[0].astype(np.int64).sum()], np.int32)}


def _ref_vote(op):
    def r(h):
        w = (h[0] != 0).reshape(-1, 32)
        return {1: np.repeat(getattr(w, op)(axis=1), 32).astype(np.uint32)}
    return r


def _ref_lanes(block: int):
    """%laneid of element i < n: its thread's index in the block, mod 32 (not i mod 32, which the
    sample's own check assumes and which holds only for blocks of whole warps)."""
    def r(h):
        n = h[1]
        want = h[0].copy()
        want[:n] = np.arange(n) % block % 32
        return {0: want}
    return r


def _ref_reverse(h):
    n = h[1]
    return {0: h[0][:n][::-1].copy()}


def _ref_bitonic_1024(h):
    keys = h[2].reshape(-1, 1024)
    order = np.argsort(keys, axis=1, kind="stable")
    return {0: np.take_along_axis(keys, order, axis=1).ravel()}


def _ref_hist256(h):
    want = np.bincount(h[1].view(np.uint8), minlength=256).astype(np.uint32)
    return {"sum0": want}


def _ref_odd_even(h):
    x = h[0].astype(np.int64)
    odd = (x & 1) != 0
    return {1: np.array([odd.sum()], np.int32), 2: np.array([x[odd].sum(), x[~odd].sum()], np.int32)}


def _cases() -> list[Case]:
    c: list[Case] = []
    # HIPIFY samples --------------------------------------------------------------------------
    for k, mult in (("_Z23atomic_reduction_kernelPiS_i", 1), ("_Z24atomic_reduction_kernel2PiS_i", 16),
                    ("_Z24atomic_reduction_kernel3PiS_i", 4)):
        for grid, block, n in ((8, 256, 160000), (3, 100, 16 * 257)):
            n = n - n % mult
            c.append(Case("hipify_reduction", k, f"grid {grid} x {block}, N={n}", (grid, 1, 1), (block, 1, 1),
                          (I(-1000, 1000, n), OUT("int32", 1, 0), i32(n)), ref=_ref_reduce))
    for n in (10, 1000):
        c.append(Case("hipify_vec_add", "_Z6vecAddPfS_S_", f"{n} threads", (1, 1, 1), (n, 1, 1),
                      (OUT("float32", n), OUT("float32", n), OUT("float32", n))))
    for grid, block, n in ((7, 96, 100001), (64, 256, 1 << 16)):
        c.append(Case("hipify_square", "_Z13vector_squareIfEvPT_PKS0_m", f"grid {grid} x {block}, N={n}",
                      (grid, 1, 1), (block, 1, 1), (OUT("float32", n), F(-1e3, 1e3, n), u64(n)),
                      ref=lambda h: {0: h[1] * h[1]}))
    for n in (33, 1024):
        c.append(Case("hipify_axpy", "_Z4axpyIfEvT_PS0_S1_", f"{n} threads", (1, 1, 1), (n, 1, 1),
                      (f32(0.3), F(-10, 10, n), OUT("float32", n))))
    for n in (64, 50):
        c.append(Case("hipify_static_smem", "_Z13staticReversePii", f"n={n}", (1, 1, 1), (n, 1, 1),
                      (I(-1 << 30, 1 << 30, n), i32(n)), ref=_ref_reverse))
    for n in (64, 1000):
        c.append(Case("hipify_dynamic_smem", "_Z14dynamicReversePii", f"n={n}", (1, 1, 1), (n, 1, 1),
                      (I(-1 << 30, 1 << 30, n), i32(n)), smem=4 * n, ref=_ref_reverse))
    for n, b in ((64, 16), (40, 8)):
        c.append(Case("hipify_coalescing", "_Z10gpu_ComputPiii", f"N={n}, block {b}x{b}", (n // b, n // b, 1),
                      (b, b, 1), (OUT("int32", n * n), i32(n), i32(3))))
    for u1, u2 in ((33, 34), (0xFFFFFFF0, 7)):
        c.append(Case("hipify_math_functions", "_Z11uint_arithmPfS_S_jj", f"u1={u1}, u2={u2}", (2, 1, 1),
                      (512, 1, 1), (OUT("float32", 512), OUT("float32", 512), OUT("float32", 512), u32(u1), u32(u2))))
    # cuda-samples ----------------------------------------------------------------------------
    vote = Buf("uint32", 128, vote_pattern, "per warp: none / one / random / all lanes set")
    for k, op in (("_Z14VoteAnyKernel1PjS_i", "any"), ("_Z14VoteAllKernel2PjS_i", "all")):
        c.append(Case("samples_vote", k, "4 warps", (1, 1, 1), (128, 1, 1), (vote, OUT("uint32", 128), i32(128)),
                      ref=_ref_vote(op)))
    c.append(Case("samples_vote", "_Z14VoteAnyKernel3Pbi", "3 warps (the sample's launch)", (1, 1, 1), (96, 1, 1),
                  (OUT("uint8", 96 * 3, 0), i32(32))))
    for grid, block, n in ((4, 256, 1000), (3, 100, 297)):
        c.append(Case("samples_inline_ptx", "_Z12sequence_gpuPii", f"grid {grid} x {block}, length {n}",
                      (grid, 1, 1), (block, 1, 1), (OUT("int32", grid * block), i32(n)), ref=_ref_lanes(block)))
    for length, d, blocks in ((1024, 1, 4), (64, 0, 2)):
        n = 1024 * blocks
        c.append(Case("samples_bitonic", "_Z17bitonicSortSharedPjS_S_S_jj", f"arrayLength {length}, dir {d}",
                      (blocks, 1, 1), (512, 1, 1),
                      (OUT("uint32", n), OUT("uint32", n), U(n), I(0, 1 << 30, n, "uint32"), u32(length), u32(d)),
                      ref=_ref_bitonic_1024 if (length, d) == (1024, 1) else None))
    c.append(Case("samples_bitonic", "_Z18bitonicSortShared1PjS_S_S_", "4 blocks", (4, 1, 1), (512, 1, 1),
                  (OUT("uint32", 4096), OUT("uint32", 4096), U(4096), I(0, 1 << 30, 4096, "uint32"))))
    c.append(Case("samples_bitonic", "_Z18bitonicMergeGlobalPjS_S_S_jjjj", "arrayLength 4096, size 4096, stride 1024",
                  (8, 1, 1), (256, 1, 1), (OUT("uint32", 4096), OUT("uint32", 4096), U(4096),
                                           I(0, 1 << 30, 4096, "uint32"), u32(4096), u32(4096), u32(1024), u32(1))))
    c.append(Case("samples_bitonic", "_Z18bitonicMergeSharedPjS_S_S_jjj", "arrayLength 4096, size 2048",
                  (4, 1, 1), (512, 1, 1), (OUT("uint32", 4096), OUT("uint32", 4096), U(4096),
                                           I(0, 1 << 30, 4096, "uint32"), u32(4096), u32(2048), u32(1))))
    for size, blocks in ((1024, 4), (64, 2)):
        n = 1024 * blocks
        c.append(Case("samples_scan", "_Z19scanExclusiveSharedP5uint4S0_j", f"size {size}, {blocks} blocks",
                      (blocks, 1, 1), (256, 1, 1), (OUT("uint32", n), I(0, 1 << 20, n, "uint32"), u32(size)),
                      ref=lambda h, size=size: {0: _excl_scan(h[1], size)}))
    for nseg, grid in ((200, 1), (700, 3)):
        c.append(Case("samples_scan", "_Z20scanExclusiveShared2PjS_S_jj", f"N={nseg} (partial block), arrayLength 256",
                      (grid, 1, 1), (256, 1, 1), (OUT("uint32", nseg), I(0, 1 << 20, 1024 * nseg, "uint32"),
                                                   I(0, 1 << 20, 1024 * nseg, "uint32"), u32(nseg), u32(256))))
    c.append(Case("samples_scan", "_Z13uniformUpdateP5uint4Pj", "4 blocks", (4, 1, 1), (256, 1, 1),
                  (U(4096), U(4))))
    c.append(Case("samples_hist256", "_Z18histogram256KernelPjS_j", "240 x 192, 100003 words", (240, 1, 1),
                  (192, 1, 1), (OUT("uint32", 240 * 256), U(100003), u32(100003)), ref=_ref_hist256))
    c.append(Case("samples_hist256", "_Z23mergeHistogram256KernelPjS_j", "256 x 256, 240 partials", (256, 1, 1),
                  (256, 1, 1), (OUT("uint32", 256), I(0, 1 << 20, 240 * 256, "uint32"), u32(240))))
    c.append(Case("samples_hist64", "_Z17histogram64KernelPjP5uint4j", "32 x 64, 20001 uint4", (32, 1, 1),
                  (64, 1, 1), (OUT("uint32", 32 * 64), U(4 * 20001), u32(20001))))
    c.append(Case("samples_hist64", "_Z22mergeHistogram64KernelPjS_j", "64 x 256, 300 partials", (64, 1, 1),
                  (256, 1, 1), (OUT("uint32", 64), I(0, 1 << 20, 300 * 64, "uint32"), u32(300))))
    for k in ("_Z30scalarProductKernel_intrinsicsPK7__half2S1_Pfm", "_Z26scalarProductKernel_nativePK7__half2S1_Pfm"):
        for gen, what in ((half2_ints, "half2 in {0..3} (the sample's input)"), (half2_uniform, "half2 uniform [-1,1)")):
            n = 128 * 128 * 4 + 77
            c.append(Case("samples_fp16_dot", k, f"128 x 128, {n} half2, {what.split(' (')[0]}", (128, 1, 1),
                          (128, 1, 1), (Buf("float16", 2 * n, gen, what), Buf("float16", 2 * n, gen, what),
                                        OUT("float32", 128), u64(n))))
    for grid, n in ((8, 102400), (5, 10016)):
        c.append(Case("samples_binary_partition_cg", "_Z20oddEvenCountAndSumCGPiS_S_j",
                      f"cooperative {grid} x 256, size {n}", (grid, 1, 1), (256, 1, 1),
                      (Buf("int32", n, odd_even, "uniform ints [-1000,1000)"), OUT("int32", 1, 0), OUT("int32", 2, 0),
                       u32(n)), cooperative=True, ref=_ref_odd_even))
    # TensorRT --------------------------------------------------------------------------------
    for ld, ch, b in ((1000, 3, 2), (256, 2, 1)):
        c.append(Case("trt_group_norm", "_ZN8nvinfer16plugin31scaleShiftChannelsInplaceKernelIfLj256EEEvPT_iPKfS5_",
                      f"ld {ld}, C {ch}, B {b}", ((ld + 255) // 256, ch, b), (256, 1, 1),
                      (F(-100, 100, ld * ch * b), i32(ld), F(-2, 2, ch), F(-2, 2, ch))))
    # DeepSpeed (added after the committed H100 run: not run on a GPU yet) ----------------------
    # launch_fused_ln's own schedule: T_per_load = 16 / sizeof(T); threads = next_pow2(elems /
    # h_per_step) up to 256; rows of <= 128 elements run 256 / threads rows per block.
    ln = "_Z8fused_lnI{t}Li{u}ELi{g}ELi256EEvPT_PKS{s}_S{p}_S{p}_fi"
    for t, dt, u, g, elems, rows, block, grid in (
            ("f", "float32", 4, 256, 1000, 8, (64, 1, 1), 8),          # 63 active of 64 threads: partial
            ("f", "float32", 1, 16, 64, 40, (16, 16, 1), 3),           # sub-block: 16 rows a block
            ("6__half", "float16", 4, 256, 6000, 4, (256, 1, 1), 4),   # external unroll 2
            ("6__half", "float16", 1, 8, 64, 70, (8, 32, 1), 3)):      # sub-block: 32 rows a block
        sym = ln.format(t=t, u=u, g=g, s=0 if t == "f" else 1, p=3 if t == "f" else 4)
        n = elems * block[1] * grid                                     # the last block's rows past `rows` too
        c.append(Case("deepspeed_layer_norm", sym, f"{dt}, {rows} rows x {elems}", (grid, 1, 1), block,
                      (OUT(dt, n), Buf(dt, n, floats(-2, 2, dt), "uniform [-2,2)"),
                       Buf(dt, elems, floats(0.5, 1.5, dt), "uniform [0.5,1.5)"),
                       Buf(dt, elems, floats(-0.5, 0.5, dt), "uniform [-0.5,0.5)"), f32(1e-5), i32(elems))))
    return c


CASES = _cases()
VARIANTS = ("shflx", "nvcc")

# --------------------------------------------------------------------------------------------
# Build (here: shflx[cuda] and nvcc)


def _manifest(corpus: Path) -> dict[str, dict[str, str]]:
    lines = (corpus / "MANIFEST.tsv").read_text().splitlines()
    head = lines[0].split("\t")
    return {r[0]: dict(zip(head, r)) for r in (ln.split("\t") for ln in lines[1:] if ln.strip())}


def build(out: Path, corpus: Path) -> dict:
    """Both cubins of every unit into `out`, and build.json (commands, return codes, messages)."""
    out.mkdir(parents=True, exist_ok=True)
    man = _manifest(corpus)
    info: dict = {"corpus": str(corpus), "units": {}}
    for name, uid in UNITS.items():
        row = man[uid]
        incs = [f"-I{corpus / d}" for d in row.get("include_dirs", "").split(",") if d]
        src = str(corpus / uid)
        cmds = {
            "shflx": [sys.executable, "-m", "shflx", "compile", src, "--offload-arch", "sm_90", "--emit", "cubin",
                      *incs, "-o", str(out / f"{name}.shflx.cubin")],
            "nvcc": ["nvcc", "-arch=sm_90", "-cubin", "-O3", *incs, *shlex.split(row.get("nvcc_flags", "")), src,
                     "-o", str(out / f"{name}.nvcc.cubin")],
        }
        rec = {"unit": uid}
        for v, cmd in cmds.items():
            t0 = time.time()
            p = subprocess.run(cmd, capture_output=True, text=True)
            rec[v] = {"command": shlex.join(cmd).replace(str(corpus), "$CORPUS"), "rc": p.returncode,
                      "seconds": round(time.time() - t0, 1),
                      "message": (p.stderr.strip().splitlines() or [""])[-1] if p.returncode else ""}
            print(f"{name:28s} {v:5s} rc={p.returncode} {rec[v]['message']}", flush=True)
        info["units"][name] = rec
    nv = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    info["nvcc_version"] = nv[-1] if nv else None
    try:
        from importlib.metadata import version
        info["shflx_version"] = version("shflx")
    except Exception:
        info["shflx_version"] = None
    (out / "build.json").write_text(json.dumps(info, indent=1) + "\n")
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


def host_inputs(case: Case, seed: int) -> list:
    rng = np.random.default_rng(seed)
    host = []
    for a in case.args:
        if isinstance(a, Buf):
            if a.gen is None:
                h = np.full(a.n * np.dtype(a.dtype).itemsize, a.fill, np.uint8).view(a.dtype)
            else:
                h = np.ascontiguousarray(a.gen(rng, a.n), dtype=a.dtype)
            host.append(h)
        else:
            host.append(a.value)
    return host


def ulp_distance(x: np.ndarray, y: np.ndarray) -> int:
    """Largest distance in units in the last place between two float arrays (NaN == NaN)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[x.dtype.itemsize]
    def ordered(a):
        i = a.view(bits).astype(np.int64)
        return np.where(i < 0, np.int64(np.iinfo(bits).min) - i, i)
    both_nan = np.isnan(x) & np.isnan(y)
    d = np.abs(ordered(x) - ordered(y))
    d[both_nan] = 0
    return int(d.max()) if d.size else 0


def compare(case: Case, got: dict[str, list[np.ndarray]]) -> dict:
    bufs = [a for a in case.args if isinstance(a, Buf)]
    per_buf, verdict, max_ulp = [], "bit-identical", 0
    for i, (a, s, n) in enumerate(zip(bufs, got["shflx"], got["nvcc"])):
        same = s.tobytes() == n.tobytes()
        rec = {"arg": case.args.index(a), "dtype": a.dtype, "n": a.n, "identical": same}
        if not same:
            diff = np.flatnonzero(s.view(np.uint8) != n.view(np.uint8)) // s.itemsize
            rec["elements_differing"] = int(np.unique(diff).size)
            j = int(diff[0])
            rec["first"] = {"index": j, "shflx": s[j].item(), "nvcc": n[j].item()}
            if s.dtype.kind == "f":
                u = ulp_distance(s, n)
                rec["max_ulp"] = u
                max_ulp = max(max_ulp, u)
                if case.ulp is not None and u <= case.ulp and verdict != "mismatch":
                    verdict = f"within {case.ulp} ulp"
                else:
                    verdict = "mismatch"
            else:
                verdict = "mismatch"
        per_buf.append(rec)
    return {"result": verdict, "max_ulp": max_ulp, "buffers": per_buf}


def check_reference(case: Case, host: list, got: list[np.ndarray]) -> bool:
    """True where every buffer the reference names equals it (key "sum0": the column sums of
    buffer 0 viewed as rows of the reference's length, for per-block partial results)."""
    want = case.ref(host)
    buf_index = [i for i, a in enumerate(case.args) if isinstance(a, Buf)]
    ok = True
    for k, w in want.items():
        if k == "sum0":
            g = got[0].reshape(-1, w.size).astype(np.uint64).sum(axis=0)
            ok &= bool(np.array_equal(g, w.astype(np.uint64)))
        else:
            g = got[buf_index.index(k)]
            ok &= bool(np.array_equal(g[:w.size], w))
    return ok


def run(build_dir: Path) -> dict:
    try:
        dev = Device()
    except NoGPU as e:
        return {"skipped": str(e)}
    mods: dict = {}
    results = []
    for idx, case in enumerate(CASES):
        rec = {"unit": case.unit, "corpus_unit": UNITS[case.unit], "kernel": case.kernel, "launch": case.label,
               "grid": case.grid, "block": case.block, "smem": case.smem, "cooperative": case.cooperative,
               "inputs": [a.what if isinstance(a, Buf) else f"{a.dtype} {a.value}" for a in case.args],
               "tolerance_ulp": case.ulp}
        try:
            fns = {}
            for v in VARIANTS:
                key = (case.unit, v)
                if key not in mods:
                    mods[key] = dev.load((build_dir / f"{case.unit}.{v}.cubin").read_bytes())
                fns[v] = dev.check(dev.cu.cuModuleGetFunction(mods[key], case.kernel.encode()))
            host = host_inputs(case, seed=1000 + idx)
            got = {v: dev.launch(fns[v], case, host) for v in VARIANTS}
            again = dev.launch(fns["nvcc"], case, host)
            rec.update(compare(case, got))
            rec["nvcc_repeat_identical"] = all(a.tobytes() == b.tobytes() for a, b in zip(got["nvcc"], again))
            bufs = [h for h in host if isinstance(h, np.ndarray)]
            # the kernel did something: some buffer differs from what was copied in (else equality is empty)
            rec["elements_written"] = int(sum(np.count_nonzero(g.view(np.uint8) != h.view(np.uint8))
                                              for g, h in zip(got["shflx"], bufs)))
            if case.ref is not None:
                rec["reference"] = {v: check_reference(case, host, got[v]) for v in VARIANTS}
        except Exception as e:  # one broken case must not hide the rest
            rec.update({"result": "error", "error": f"{type(e).__name__}: {e}"})
        results.append(rec)
        print(f"{case.unit:28s} {case.kernel[:44]:44s} {case.label[:40]:40s} {rec['result']}", flush=True)
    summary: dict = {}
    for r in results:
        summary[r["result"]] = summary.get(r["result"], 0) + 1
    refd = [r for r in results if "reference" in r]
    summary["reference_checked"] = len(refd)
    summary["reference_ok_both"] = sum(all(r["reference"].values()) for r in refd)
    summary["wrote_nothing"] = sum(r.get("elements_written", 1) == 0 for r in results)
    out = {"device": dev.info(), "host": platform.node(), "launches": len(results),
           "kernels": len({(r["unit"], r["kernel"]) for r in results}), "units": len({r["unit"] for r in results}),
           "summary": summary, "results": results}
    bj = build_dir / "build.json"
    if bj.exists():
        out["build"] = json.loads(bj.read_text())
    for mod in dev.modules:
        dev.cu.cuModuleUnload(mod)
    dev.cu.cuDevicePrimaryCtxRelease(dev.dev)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--build", metavar="DIR", help="build both cubins of every unit into DIR")
    g.add_argument("--run", metavar="DIR", help="launch every case from the cubins in DIR (GPU)")
    ap.add_argument("--corpus", default=os.environ.get("SHFLX_CORPUS", str(DEFAULT_CORPUS)))
    ap.add_argument("--json", help="write the run's results here")
    ns = ap.parse_args(argv)
    if ns.build:
        info = build(Path(ns.build), Path(ns.corpus))
        bad = [n for n, r in info["units"].items() if any(r[v]["rc"] for v in VARIANTS)]
        print(f"built {len(info['units']) - len(bad)} of {len(info['units'])} units; failed: {bad}")
        return 1 if bad else 0
    res = run(Path(ns.run))
    if ns.json:
        Path(ns.json).write_text(json.dumps(res, indent=1, default=list) + "\n")
    if "skipped" in res:
        print(f"SKIP: {res['skipped']}")
        return 0
    print(json.dumps(res["summary"]), f"{res['launches']} launches, {res['kernels']} kernels, {res['units']} units")
    return 0 if all(r["result"] not in ("mismatch", "error") and all(r.get("reference", {}).values())
                    and r.get("elements_written", 1) for r in res["results"]) else 1


if __name__ == "__main__":
    sys.exit(main())
