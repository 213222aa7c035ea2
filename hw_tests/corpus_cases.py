"""The corpus launch cases both hardware checks share (issue 12, "Correctness of what compiles"):
which kernel of which unit of ../shared/corpus, its launch shape, its generated inputs and, where
one exists, an independent numpy reference; and the comparison of two runs' buffers.

hw_tests/nvidia/corpus_sm90_hw.py launches every case on an NVIDIA GPU from shflx's sm_90 cubin and
from nvcc's, and records nvcc's buffers (benchmarks/results/h100_corpus_outputs.*);
hw_tests/amd/test_corpus_hw.py and benchmarks/bench_corpus_exec.py launch the same cases from
shflx's AMD code objects and compare with those recorded buffers. Each case's inputs come from its
own seed (a hash of what the case is), so adding a case changes no other case's inputs.

Units that do not compile for AMD yet say why in `Unit.amd_pending`: the AMD check expects their
compile to fail, and fails once it succeeds (move the unit into the checked set then)."""
from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

# --------------------------------------------------------------------------------------------
# The data: units, and how each kernel is launched.


@dataclass(frozen=True)
class Unit:
    """A corpus file (its MANIFEST.tsv unit id); `amd_pending`: why shflx cannot compile it for AMD
    yet (None: it compiles today)."""
    path: str
    amd_pending: str | None = None


UNITS = {
    "hipify_reduction": Unit("ROCm__HIPIFY/tests/unit_tests/samples/reduction.cu"),
    "hipify_vec_add": Unit("ROCm__HIPIFY/tests/unit_tests/samples/vec_add.cu"),
    "hipify_square": Unit("ROCm__HIPIFY/tests/unit_tests/samples/square.cu"),
    "hipify_axpy": Unit("ROCm__HIPIFY/tests/unit_tests/samples/axpy.cu"),
    "hipify_static_smem": Unit("ROCm__HIPIFY/tests/unit_tests/samples/static_shared_memory.cu"),
    "hipify_dynamic_smem": Unit("ROCm__HIPIFY/tests/unit_tests/samples/dynamic_shared_memory.cu"),
    "hipify_coalescing": Unit("ROCm__HIPIFY/tests/unit_tests/samples/coalescing.cu"),
    "hipify_math_functions": Unit("ROCm__HIPIFY/tests/unit_tests/device/math_functions.cu"),
    "samples_vote": Unit("NVIDIA__cuda-samples/Samples/0_Introduction/simpleVoteIntrinsics/simpleVoteIntrinsics.cu"),
    "samples_inline_ptx": Unit("NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/inlinePTX/inlinePTX.cu"),
    "samples_bitonic": Unit("NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu"),
    "samples_scan": Unit("NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/scan/scan.cu"),
    "samples_hist256": Unit("NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/histogram/histogram256.cu"),
    "samples_hist64": Unit("NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/histogram/histogram64.cu"),
    "samples_fp16_dot": Unit("NVIDIA__cuda-samples/Samples/0_Introduction/fp16ScalarProduct/fp16ScalarProduct.cu"),
    "samples_binary_partition_cg": Unit(
        "NVIDIA__cuda-samples/Samples/3_CUDA_Features/binaryPartitionCG/binaryPartitionCG.cu"),
    "samples_thread_fence_reduction": Unit(
        "NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/threadFenceReduction/threadFenceReduction.cu"),
    "trt_group_norm": Unit("NVIDIA__TensorRT/plugin/groupNormalizationPlugin/groupNormalizationKernel.cu"),
    "deepspeed_layer_norm": Unit("microsoft__DeepSpeed/csrc/transformer/inference/csrc/layer_norm.cu"),
    "deepspeed_rms_norm": Unit("microsoft__DeepSpeed/csrc/transformer/inference/csrc/rms_norm.cu"),
    "deepspeed_softmax": Unit("microsoft__DeepSpeed/csrc/transformer/inference/csrc/softmax.cu"),
    "deepspeed_quantize": Unit("microsoft__DeepSpeed/csrc/quantization/quantize.cu"),
    "cub_block_reduce": Unit("NVIDIA__cccl/cub/examples/block/example_block_reduce.cu"),
    "samples_reduction_multi_block_cg": Unit(
        "NVIDIA__cuda-samples/Samples/2_Concepts_and_Techniques/reductionMultiBlockCG/reductionMultiBlockCG.cu"),
    "samples_aw_barrier": Unit("NVIDIA__cuda-samples/Samples/0_Introduction/simpleAWBarrier/simpleAWBarrier.cu"),
    "samples_global_to_shmem": Unit(
        "NVIDIA__cuda-samples/Samples/3_CUDA_Features/globalToShmemAsyncCopy/globalToShmemAsyncCopy.cu"),
}


@dataclass(frozen=True)
class Buf:
    """A device buffer: `n` elements of `dtype`, filled by `gen(rng, n)` (inputs) or with `fill`
    bytes (outputs); every buffer is compared after the launch, inputs included, unless `compare`
    is False (a buffer whose contents differ from run to run, such as clock() readings)."""
    dtype: str
    n: int
    gen: Callable[[np.random.Generator, int], np.ndarray] | None = None
    what: str = "zeros"
    fill: int = 0
    compare: bool = True


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

    @property
    def key(self) -> str:
        """A short name that stays the case's own when others are added (output files use it)."""
        return hashlib.sha256(f"{self.unit}|{self.kernel}|{self.label}".encode()).hexdigest()[:12]

    @property
    def seed(self) -> int:
        return int(self.key, 16) % (1 << 32)

    @property
    def threads(self) -> int:
        return int(np.prod(self.grid)) * int(np.prod(self.block))


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


def u8(v):
    return Val("uint8", v)


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


def _ref_quant_params(bits: int, asym: bool):
    """DeepSpeed's quantization parameters per group, in float32 as the kernel computes them:
    1 / scale (and the offset), scale = 2^bits / (2 max|x|) or 2^bits / (max - min)."""
    def r(h):
        groups, elems = h[3], h[4]
        x = h[2][:groups * elems].astype(np.float32).reshape(groups, elems)
        one, two = np.float32(1), np.float32(2)
        if not asym:
            return {1: (one / (np.float32(1 << bits) / (two * np.abs(x).max(1)))).astype(np.float32)}
        hi, lo = x.max(1), x.min(1)
        scale = np.float32(1 << bits) / (hi - lo)
        return {1: np.stack([one / scale, (hi + lo) / two], 1).ravel().astype(np.float32)}
    return r


def _fma32(a, b, c) -> np.ndarray:
    """float32 fma(a, b, c), rounded once: the product is exact in float64, the sum exact as TwoSum's
    (s, e); s rounds to float32 correctly unless it is a float32 midpoint, where e breaks the tie."""
    p = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    c = np.asarray(c, np.float64)
    s = p + c
    bv = s - p
    e = (p - (s - bv)) + (c - bv)
    r = s.astype(np.float32)
    other = np.nextafter(r, np.where(s > r, np.float32(np.inf), np.float32(-np.inf))).astype(np.float32)
    tie = (r.astype(np.float64) != s) & (s - r.astype(np.float64) == other.astype(np.float64) - s) & (e != 0)
    up = np.where(e > 0, np.maximum(r, other), np.minimum(r, other))
    return np.where(tie, up, r).astype(np.float32)


def _ref_matmul(b_at_a_offsets: bool):
    """C = A B in 16 x 16 tiles, each element one fma chain over k in order (nvcc's -fmad contraction
    of `Csub += As[ty][k] * Bs[k][tx]`). The LargeChunk kernels fill Bs from B at A's offsets
    (`B[a + wA * ty + t4x]`, the sample's own indexing): Bs[k][tx] = B[wA 16 by + 16 s + wA k + tx]."""
    def r(h):
        a, b, wa, wb = h[1], h[2], h[3], h[4]
        ha = a.size // wa
        rows, cols = np.arange(ha)[:, None], np.arange(wb)[None, :]
        acc = np.zeros((ha, wb), np.float32)
        for kk in range(wa):
            s, k = divmod(kk, 16)
            bv = b[wa * 16 * (rows // 16) + 16 * s + wa * k + cols % 16] if b_at_a_offsets else b.reshape(wa, wb)[kk][None, :]
            acc = _fma32(a.reshape(ha, wa)[:, kk][:, None], bv, acc)
        return {0: acc.ravel()}
    return r


def _tile_sum(x: np.ndarray) -> float:
    """Lane 0 of `v += tile32.shfl_down(v, o)` for o = 16, 8, 4, 2, 1 (float64, in that order)."""
    x = x.copy()
    for o in (16, 8, 4, 2, 1):
        x = x + np.concatenate([x[o:], x[32 - o:]])
    return x[0]


def _block_sum(v: np.ndarray) -> float:
    """simpleAWBarrier's reduceBlockData: each warp's tile sum, then warp 0 sums those (0 past them)."""
    tmp = [_tile_sum(w) for w in v.reshape(-1, 32)]
    return _tile_sum(np.array(tmp + [0.0] * (32 - len(tmp))))


def _ref_aw_barrier(grid: int, block: int):
    """normVecByDotProductAWBarrier: per thread the grid-stride sum of double(float(a b)), per block
    reduceBlockData, block 0 reduces the partial sums to sqrt(dot); a and b are divided by it."""
    def r(h):
        a, b, n = h[0], h[1], h[3]
        threads = grid * block
        sums = np.zeros(threads)
        prod = (a[:n] * b[:n]).astype(np.float64)
        for j in range(0, n, threads):
            part = prod[j:j + threads]
            sums[:part.size] += part
        partial = np.array([_block_sum(sums[k * block:(k + 1) * block]) for k in range(grid)])
        first = np.zeros(block)
        first[:grid] = partial
        partial[0] = np.sqrt(_block_sum(first))
        return {0: (a.astype(np.float64) / partial[0]).astype(np.float32),
                1: (b.astype(np.float64) / partial[0]).astype(np.float32), 2: partial}
    return r


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
    for k, block, grid, n in (("_Z16reduceSinglePassILj128ELb1EEvPKfPfj", 128, 4, 8192),
                              ("_Z16reduceSinglePassILj64ELb0EEvPKfPfj", 64, 3, 1000)):
        c.append(Case("samples_thread_fence_reduction", k, f"grid {grid} x {block}, n={n}", (grid, 1, 1),
                      (block, 1, 1), (F(-1, 1, n), OUT("float32", grid), u32(n)), smem=4 * block))
    # DeepSpeed -----------------------------------------------------------------------------------
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
    # launch_rms_norm's schedule (as launch_fused_ln's; internal unroll 4 for float, 2 for half)
    rms = "_Z8rms_normI{t}Li{u}ELi{g}ELi256EEvPT_PKS{s}_S{p}_fi"
    for t, dt, u, g, elems, rows, block, grid in (
            ("f", "float32", 4, 256, 1000, 8, (64, 1, 1), 8),
            ("f", "float32", 1, 16, 64, 40, (16, 16, 1), 3),
            ("6__half", "float16", 2, 256, 4000, 3, (256, 1, 1), 3)):
        sym = rms.format(t=t, u=u, g=g, s=0 if t == "f" else 1, p=3 if t == "f" else 4)
        n = elems * block[1] * grid
        c.append(Case("deepspeed_rms_norm", sym, f"{dt}, {rows} rows x {elems}", (grid, 1, 1), block,
                      (OUT(dt, n), Buf(dt, n, floats(-2, 2, dt), "uniform [-2,2)"),
                       Buf(dt, elems, floats(0.5, 1.5, dt), "uniform [0.5,1.5)"), f32(1e-5), i32(elems))))
    # launch_quant's schedule: groups of <= 128 halves run 256 / threads groups a block (block.y);
    # larger ones one group a block of next_pow2(elems / 16) threads (at most 256) and
    # ceil(elems / (threads * 16)) external unrolls. Its float max (and min) reductions over the
    # group's threads are chains shflx re-synthesizes (exact: max/min do not round).
    qk = "_Z19cached_quantizationILi{bits}ELN8quantize4TypeE{asym}ELi{u}ELi{iu}ELi{tpg}ELi256EEvPaPfPK6__halfii"
    for bits, asym, u, iu, tpg, elems, groups, block, grid in (
            (8, 0, 1, 1, 8, 64, 40, (8, 32, 1), 2),         # sub-block: 8 threads a group
            (4, 1, 1, 1, 16, 128, 20, (16, 16, 1), 2),      # sub-block: 16 threads a group
            (8, 1, 1, 2, 256, 1000, 5, (64, 1, 1), 5),      # 63 of 64 threads load
            (4, 0, 3, 2, 256, 3000, 3, (256, 1, 1), 3)):    # external unroll 3
        launched = grid * block[1]                          # groups the launch covers, past `groups` too
        c.append(Case("deepspeed_quantize", qk.format(bits=bits, asym=asym, u=u, iu=iu, tpg=tpg),
                      f"int{bits} {'asymmetric' if asym else 'symmetric'}, {groups} groups x {elems}",
                      (grid, 1, 1), block,
                      (OUT("int8", launched * elems * bits // 8), OUT("float32", launched * (2 if asym else 1)),
                       Buf("float16", launched * elems, floats(-2, 2, "float16"), "uniform [-2,2)"),
                       i32(groups), i32(elems)), ref=_ref_quant_params(bits, bool(asym))))
    # launch_attn_softmax_v2's schedule: reduce_width = next_pow2(seq / 4) clamped to [32, 256],
    # iterations = that / reduce_width, 256 / reduce_width rows a block of 256 threads. __expf
    # differs: nvcc's is the hardware approximation (CUDA bound 2 + floor(1.173 |x|) ulp, |x| <= 2.5
    # here: 4), shflx's the precise expf (2, docs/cuda-layer.md); each e = exp(x - max) may differ by
    # 6 ulp, so the positive sum by 6 and e / sum by 6 + 6 + 1 (its own rounding): 13 ulp; 1 ulp of
    # the result type for __half outputs, where the rounding to half absorbs the rest.
    sm = "_Z15attn_softmax_v2I{t}Li{it}EEvPT_S{s}_S{s}_fbbbiiiiiiiii"
    for t, dt, it, seq, heads, num_seq, tri, grid, tol in (
            ("f", "float32", 1, 100, 2, 8, 0, 2, 13),          # reduce width 32: one warp a row
            ("f", "float32", 1, 64, 1, 64, 1, 8, 13),          # triangular (causal) rows
            ("f", "float32", 1, 300, 2, 3, 0, 3, 13),          # reduce width 128: warps meet in smem
            ("6__half", "float16", 2, 1500, 1, 2, 0, 2, 1)):   # reduce width 256, 2 iterations
        total = heads * num_seq
        masks = Buf(dt, num_seq * seq, mask_pattern(dt), "0 (80%) or -10000")
        c.append(Case("deepspeed_softmax", sm.format(t=t, it=it, s=1 if t == "f" else 2),
                      f"{dt}, {heads} heads x {num_seq} rows x {seq}{', triangular' if tri else ''}",
                      (grid, 1, 1), (256, 1, 1),
                      (Buf(dt, total * seq, floats(-4, 4, dt), "uniform [-4,4)"), masks,
                       Buf(dt, heads * seq, floats(-1, 0, dt), "uniform [-1,0)"), f32(0.125), u8(tri), u8(0),
                       u8(0), i32(0), i32(total), i32(heads), i32(seq), i32(num_seq), i32(0), i32(num_seq), i32(1),
                       i32(min(max(next_pow2((seq + 3) // 4), 32), 256))), ulp=tol))
    # CUB (NVIDIA's CCCL beneath the CUDA layer) and a grid-wide barrier ----------------------------
    c.append(Case("cub_block_reduce",
                  "_Z17BlockReduceKernelILi128ELi8ELN3cub17CUB_300001_SM_90020BlockReduceAlgorithmE2EEvPiS3_Pl",
                  "128 threads x 8 items, BLOCK_REDUCE_WARP_REDUCTIONS", (1, 1, 1), (128, 1, 1),
                  (I(-1000, 1000, 1024), OUT("int32", 1), Buf("int64", 1, None, "clock cycles (not compared)", 0,
                                                              compare=False)), ref=_ref_reduce))
    for grid, block, n in ((4, 128, 10000), (3, 64, 777)):
        c.append(Case("samples_reduction_multi_block_cg", "reduceSinglePassMultiBlockCG",
                      f"cooperative {grid} x {block}, n={n}", (grid, 1, 1), (block, 1, 1),
                      (F(-1, 1, n), OUT("float32", grid), u32(n)), smem=8 * block, cooperative=True))
    # mbarrier objects: cuda::barrier in shared memory, between grid-wide barriers; the dynamic shared
    # memory is the sample's, a double per warp and one more
    for grid, block, n in ((4, 128, 10000), (3, 256, 777)):
        c.append(Case("samples_aw_barrier", "_Z28normVecByDotProductAWBarrierPfS_Pdi",
                      f"cooperative {grid} x {block}, size {n}", (grid, 1, 1), (block, 1, 1),
                      (F(0, 1, n), F(0, 1, n), OUT("float64", grid), i32(n)), smem=8 * (block // 32 + 1),
                      cooperative=True, ref=_ref_aw_barrier(grid, block)))
    # C (hA x wB) = A (hA x wA) B (wA x wB) in 16 x 16 tiles: cuda::barrier (AWBarrier), cuda::pipeline
    # with a shared state and a producer warp (16 x 18 threads), and thread-scope pipelines (cp.async);
    # the AWBarrier kernel reads B at A's offsets (the sample's own indexing), so B is not smaller than A
    ha, wa, wb = 32, 64, 48
    for name, block, at_a in (("37MatrixMulAsyncCopyLargeChunkAWBarrier", (16, 16, 1), True),
                              ("39MatrixMulAsyncCopyMultiStageSharedState", (16, 18, 1), False),
                              ("38MatrixMulAsyncCopyMultiStageLargeChunk", (16, 16, 1), True),
                              ("28MatrixMulAsyncCopyMultiStage", (16, 16, 1), False)):
        c.append(Case("samples_global_to_shmem", f"_Z{name}ILi16EEvPfPKfS2_ii", f"{ha} x {wa} times {wa} x {wb}",
                      (wb // 16, ha // 16, 1), block,
                      (OUT("float32", ha * wb), F(-1, 1, ha * wa), F(-1, 1, wa * wb), i32(wa), i32(wb)),
                      ref=_ref_matmul(at_a)))
    return c


def next_pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def mask_pattern(dtype: str):
    def g(rng, n):
        return np.where(rng.random(n) < 0.8, 0.0, -10000.0).astype(dtype)
    return g




CASES = _cases()

# --------------------------------------------------------------------------------------------
# Sources, inputs and comparison


def manifest(corpus: Path) -> dict[str, dict[str, str]]:
    """MANIFEST.tsv of the corpus: unit id -> its row."""
    with (corpus / "MANIFEST.tsv").open() as f:
        return {r["unit_id"]: r for r in csv.DictReader(f, delimiter="\t")}


def include_dirs(corpus: Path, row: dict[str, str]) -> list[Path]:
    return [corpus / d for d in row.get("include_dirs", "").split(",") if d]


def host_inputs(case: Case) -> list:
    """One array per Buf (generated from the case's seed, or `fill` bytes), the value per Val."""
    rng = np.random.default_rng(case.seed)
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


def buffers(case: Case) -> list[tuple[int, Buf]]:
    """(argument index, Buf) of every buffer argument, in order."""
    return [(i, a) for i, a in enumerate(case.args) if isinstance(a, Buf)]


def digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


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


def compare(case: Case, got: list[np.ndarray], want: list[np.ndarray], names: tuple[str, str]) -> dict:
    """Every compared buffer of `got` against `want` (one array per Buf, in order): "bit-identical",
    "within N ulp" (float buffers, N = the case's tolerance), or "mismatch"; the largest ULP distance
    of the float buffers that differ, and per buffer what differs (`names`: the two sides)."""
    per_buf, verdict, max_ulp = [], "bit-identical", 0
    for (arg, a), g, w in zip(buffers(case), got, want):
        rec = {"arg": arg, "dtype": a.dtype, "n": a.n, "compared": a.compare}
        if not a.compare:
            per_buf.append(rec)
            continue
        same = g.tobytes() == w.tobytes()
        rec["identical"] = same
        if not same:
            diff = np.flatnonzero(g.view(np.uint8) != w.view(np.uint8)) // g.itemsize
            rec["elements_differing"] = int(np.unique(diff).size)
            j = int(diff[0])
            rec["first"] = {"index": j, names[0]: g[j].item(), names[1]: w[j].item()}
            if g.dtype.kind == "f":
                u = ulp_distance(g, w)
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
    buf_index = [i for i, _ in buffers(case)]
    ok = True
    for k, w in want.items():
        if k == "sum0":
            g = got[0].reshape(-1, w.size).astype(np.uint64).sum(axis=0)
            ok &= bool(np.array_equal(g, w.astype(np.uint64)))
        else:
            g = got[buf_index.index(k)]
            ok &= bool(np.array_equal(g[:w.size], w))
    return ok
