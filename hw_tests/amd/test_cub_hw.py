"""NVIDIA's CUB (the real CCCL headers of shflx[cuda], beneath the CUDA layer for AMD): warp and
block primitives compiled by shflx for each AMD device (the GPU, else the emulator of
shared/amdemu), wave64 and wave32, against numpy written from CUB's documented results. Float sums
are compared bit for bit with CUB's own order of operations (its shuffle steps: down-tree for
WarpReduce, Kogge-Stone up-sweep for WarpScan), which shflx keeps (no re-association unasked).
Partial warps and blocks (valid_items, logical warps of 16 and 8, 96-thread blocks) included.

  pytest hw_tests/amd/test_cub_hw.py"""
from __future__ import annotations

import os

import numpy as np
import pytest

from hw_devices import ROOT, assert_bit_exact, code_object, device_params, require, run_isolated

SOURCE = (ROOT / "hw_tests" / "amd" / "cub_kernels.cu").read_text()
IN_CI = os.environ.get("CI", "").lower() == "true"
M32 = 0xFFFFFFFF


def _need_cccl():
    from shflx.frontend.cuda_sdk import cccl_include
    if cccl_include() is None:
        (pytest.fail if IN_CI else pytest.skip)("CUB needs NVIDIA's CCCL headers: pip install 'shflx[cuda]'")


def _object(device, tmp_path_factory):
    _need_cccl()
    return code_object(SOURCE, "cub_kernels.cu", device.arch, str(tmp_path_factory.getbasetemp()))


# ------------------------------------------------------------------ references (CUB's definitions)

def _down_tree(v: np.ndarray, width: int, last: int, op) -> np.ndarray:
    """CUB WarpReduceShfl: steps offset 1, 2, 4, ..; lane i (of its logical warp) combines lane
    i+offset's value when i + offset <= last; lane 0 ends with the reduction of lanes 0..last."""
    out = v.copy()
    for seg in range(0, len(v), width):
        x = out[seg:seg + width].copy()
        off = 1
        while off < width:
            y = x.copy()
            for i in range(width):
                if i + off <= last:
                    y[i] = op(x[i], x[i + off])
            x = y
            off *= 2
        out[seg:seg + width] = x
    return out


def _up_scan(v: np.ndarray, width: int, op) -> np.ndarray:
    """CUB WarpScanShfl inclusive scan: steps offset 1, 2, 4, ..; lane i >= offset combines lane
    i-offset's partial (its left operand) with its own."""
    out = v.copy()
    for seg in range(0, len(v), width):
        x = out[seg:seg + width].copy()
        off = 1
        while off < width:
            y = x.copy()
            for i in range(off, width):
                y[i] = op(x[i - off], x[i])
            x = y
            off *= 2
        out[seg:seg + width] = x
    return out


def _lane0(result: np.ndarray, width: int) -> np.ndarray:
    """What the kernels store: the result at lane 0 of each logical warp, 0 elsewhere."""
    out = np.zeros_like(result)
    out[::width] = result[::width]
    return out


f32_add = lambda a, b: np.float32(np.float32(a) + np.float32(b))    # noqa: E731 (IEEE binary32, nearest even)

# ------------------------------------------------------------------ warp reductions

N_WARP = 128                            # two blocks of 64 threads: 4 CUDA warps


def _warp_reduce_cases(device):
    for kernel, width in (("warp_reduce_f32_w32", 32), ("warp_reduce_f32_w16", 16), ("warp_reduce_i32_w32", 32),
                          ("warp_reduce_i32_w8", 8)):
        for op, name in ((0, "sum"), (1, "max"), (2, "sum-valid")):
            for valid in ((width, width - 3, 1) if op == 2 else (width,)):
                yield f"{kernel}-{name}-{valid}", (kernel, width, op, valid), ()


@pytest.mark.parametrize("device,case", device_params(_warp_reduce_cases))
def test_cub_warp_reduce(device, case, tmp_path_factory):
    require(device)
    kernel, width, op, valid = case
    hsaco = _object(device, tmp_path_factory)
    rng = np.random.default_rng(width * 10 + op + valid)
    floats = kernel.startswith("warp_reduce_f32")
    x = (rng.standard_normal(N_WARP).astype(np.float32) * 100) if floats else \
        rng.integers(-(1 << 28), 1 << 28, N_WARP).astype(np.int32)
    got = np.asarray(run_isolated(device, hsaco, kernel, [x], N_WARP, x.dtype, block=(64, 1, 1), grid=(2, 1, 1),
                                  scalars=[op, valid]))
    if op == 1:
        want = _lane0(_down_tree(x, width, width - 1, np.maximum), width)
    elif floats:
        want = _lane0(_down_tree(x, width, (valid if op == 2 else width) - 1, f32_add), width)
    else:                               # integer sums: exact in any order (two's complement wraps)
        sums = x.reshape(-1, width)[:, :valid if op == 2 else width].astype(np.int64).sum(1)
        want = np.zeros(N_WARP, np.int32)
        want[::width] = ((sums + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)
    assert_bit_exact(got, want.astype(x.dtype), f"{kernel} op {op} valid {valid} ({device.arch})")


# ------------------------------------------------------------------ warp scans

def _warp_scan_cases(device):
    for kernel, width in (("warp_scan_i32_w32", 32), ("warp_scan_i32_w8", 8), ("warp_scan_f32_w32", 32)):
        for op, name in ((0, "inclusive-sum"), (1, "exclusive-sum"), (2, "inclusive-max")):
            if kernel.startswith("warp_scan_f32") and op == 1:
                continue
            yield f"{kernel}-{name}", (kernel, width, op), ()


@pytest.mark.parametrize("device,case", device_params(_warp_scan_cases))
def test_cub_warp_scan(device, case, tmp_path_factory):
    require(device)
    kernel, width, op = case
    hsaco = _object(device, tmp_path_factory)
    rng = np.random.default_rng(100 + width + op)
    floats = kernel.startswith("warp_scan_f32")
    x = (rng.standard_normal(N_WARP).astype(np.float32) * 10) if floats else \
        rng.integers(-1000, 1000, N_WARP).astype(np.int32)
    got = np.asarray(run_isolated(device, hsaco, kernel, [x], N_WARP, x.dtype, block=(64, 1, 1), grid=(2, 1, 1),
                                  scalars=[op]))
    if floats:
        want = _up_scan(x, width, f32_add if op == 0 else np.maximum)
    else:
        seg = x.reshape(-1, width).astype(np.int64)
        if op == 0:
            want = np.cumsum(seg, 1)
        elif op == 1:                   # CUB's ExclusiveSum: 0 at the first lane of each logical warp
            want = np.cumsum(seg, 1) - seg
        else:
            want = np.maximum.accumulate(seg, 1)
        want = want.reshape(-1).astype(np.int32)
    assert_bit_exact(got, want.astype(x.dtype), f"{kernel} op {op} ({device.arch})")


# ------------------------------------------------------------------ block reductions and scans

def _block_reduce_cases(device):
    for kernel, threads in (("block_reduce_raking_128", 128), ("block_reduce_raking_96", 96),
                            ("block_reduce_commutative_128", 128), ("block_reduce_warp_reductions_128", 128),
                            ("block_reduce_warp_reductions_96", 96)):
        for op, name in ((0, "sum"), (1, "max"), (2, "sum-valid")):
            for valid in ((threads - 5, 33) if op == 2 else (threads,)):
                yield f"{kernel}-{name}-{valid}", (kernel, threads, op, valid), ()


@pytest.mark.parametrize("device,case", device_params(_block_reduce_cases))
def test_cub_block_reduce(device, case, tmp_path_factory):
    require(device)
    kernel, threads, op, valid = case
    hsaco = _object(device, tmp_path_factory)
    blocks = 2
    x = np.random.default_rng(threads + op + valid).integers(-(1 << 24), 1 << 24, threads * blocks).astype(np.int32)
    got = np.asarray(run_isolated(device, hsaco, kernel, [x], threads * blocks, np.int32, block=(threads, 1, 1),
                                  grid=(blocks, 1, 1), scalars=[op, valid]))
    want = np.zeros(threads * blocks, np.int64)
    for b in range(blocks):
        part = x[b * threads: b * threads + (valid if op == 2 else threads)].astype(np.int64)
        want[b * threads] = part.max() if op == 1 else part.sum()
    assert_bit_exact(got, want.astype(np.int32), f"{kernel} op {op} valid {valid} ({device.arch})")


def _block_scan_cases(device):
    for kernel, threads in (("block_scan_raking_128", 128), ("block_scan_warp_scans_128", 128),
                            ("block_scan_warp_scans_96", 96)):
        for op, name in ((0, "exclusive-sum"), (1, "inclusive-sum"), (2, "inclusive-max")):
            yield f"{kernel}-{name}", (kernel, threads, op), ()


@pytest.mark.parametrize("device,case", device_params(_block_scan_cases))
def test_cub_block_scan(device, case, tmp_path_factory):
    require(device)
    kernel, threads, op = case
    hsaco = _object(device, tmp_path_factory)
    blocks, items = 2, 4
    n = threads * items * blocks
    x = np.random.default_rng(threads + 7 * op).integers(-1000, 1000, n).astype(np.int32)
    got = np.asarray(run_isolated(device, hsaco, kernel, [x], n, np.int32, block=(threads, 1, 1), grid=(blocks, 1, 1),
                                  scalars=[op]))
    # blocked arrangement: thread t holds items 4t..4t+3, so the block's items in order are the array
    tiles = x.reshape(blocks, threads * items).astype(np.int64)
    if op == 0:
        want = np.cumsum(tiles, 1) - tiles
    elif op == 1:
        want = np.cumsum(tiles, 1)
    else:
        want = np.maximum.accumulate(tiles, 1)
    assert_bit_exact(got, want.reshape(-1).astype(np.int32), f"{kernel} op {op} ({device.arch})")


# ------------------------------------------------------------------ block radix sort

def _radix_sort_cases(device):
    for kernel in ("radix_sort_i32", "radix_sort_f32"):
        for op, name in ((0, "ascending"), (1, "descending")):
            yield f"{kernel}-{name}", (kernel, op), ()


@pytest.mark.parametrize("device,case", device_params(_radix_sort_cases))
def test_cub_block_radix_sort(device, case, tmp_path_factory):
    require(device)
    kernel, op = case
    hsaco = _object(device, tmp_path_factory)
    blocks, n_block = 2, 128 * 4
    rng = np.random.default_rng(11 + op)
    if kernel.endswith("f32"):          # with -0.0 and +0.0 (equal keys to CUB) and infinities
        x = (rng.standard_normal(blocks * n_block) * 1000).astype(np.float32)
        x[:6] = [-0.0, 0.0, np.inf, -np.inf, 1e-30, -1e-30]
    else:
        x = rng.integers(-(1 << 31), 1 << 31, blocks * n_block, dtype=np.int64).astype(np.int32)
        x[:4] = [-(1 << 31), (1 << 31) - 1, 0, -1]
    got = np.asarray(run_isolated(device, hsaco, kernel, [x], blocks * n_block, x.dtype, block=(128, 1, 1),
                                  grid=(blocks, 1, 1), scalars=[op]))
    tiles = x.reshape(blocks, n_block)
    if kernel.endswith("f32"):
        # CUB's key order: the twiddled bit patterns, with -0.0 taken as +0.0 (BaseDigitExtractor::
        # ProcessFloatMinusZero, cub/block/radix_rank_sort_operations.cuh), sorted stably both ways
        bits = tiles.view(np.uint32).astype(np.int64)
        bits = np.where(bits == 1 << 31, 0, bits)
        keys = np.where(bits >> 31, ~bits & M32, bits | (1 << 31))
        order = np.argsort(M32 - keys if op == 1 else keys, axis=1, kind="stable")
        want = np.take_along_axis(tiles, order, 1)
    else:
        want = np.sort(tiles, 1)[:, ::-1] if op == 1 else np.sort(tiles, 1)
    assert_bit_exact(got, np.ascontiguousarray(want).reshape(-1), f"{kernel} op {op} ({device.arch})")
