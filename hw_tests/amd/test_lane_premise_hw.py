"""Lanes read off threadIdx.x, run in 1-D and 2-D blocks: the plans shflx proves for the lanes a
`threadIdx.x % 32 == 0` or `lane >= d` (lane = threadIdx.x & 31) condition selects hold only where
the CUDA lane is threadIdx.x % 32; in a (16, 4) block lane 16 has threadIdx.x == 0. amd.guard's
run-time check must send such waves to the plan for every lane (or the chain as written), so every
block shape gives CUDA's result, bit for bit, against numpy references that apply the code's
conditions to threadIdx.x and the shuffles to the real lanes (the linear thread id % 32).

Two scans in one loop sharing one guard (both chains' calls after the same line, none lost).
Also the pair_chains and wide_chains families (multi-value chains, 64-bit and half2 values),
whose shuffles are lowered for the lanes the later steps use, in the same block shapes."""
from __future__ import annotations

import functools
import sys
import tempfile

import numpy as np
import pytest

from hw_devices import ROOT, assert_bit_exact, code_object, device_params, require

sys.path.insert(0, str(ROOT / "patterns" / "kernels"))
import references as R  # noqa: E402

BLOCKS = ((64, 1, 1), (16, 4, 1), (8, 8, 1), (32, 2, 1))
GRID = 4
N = GRID * 64

SOURCE = r"""
#include <cuda_runtime.h>
#include <cooperative_groups.h>
__device__ __forceinline__ int linear_id() {
  return (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
// A Hillis-Steele scan whose guard reads threadIdx.x (CUDA samples' `laneId >= i`).
extern "C" __global__ void scan_tid_guard(const int *in, int *out) {
  int i = linear_id();
  int lane = threadIdx.x & 31;
  int v = in[i];
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(0xffffffff, v, d);
    if (lane >= d) v += t;
  }
  out[i] = v;
}
// The same with a bounds check on the load and the store: clang computes the last step's guard
// inside the `i < n` branch, after the shuffles' block.
extern "C" __global__ void scan_tid_guard_bounded(const int *in, int *out, int n) {
  int i = linear_id();
  int lane = threadIdx.x & 31;
  int v = i < n ? in[i] : 0;
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += t;
  }
  if (i < n) out[i] = v;
}
// Two bounded scans sharing their guards: each chain computes the sunk last guard again (own name).
extern "C" __global__ void two_scans_bounded(const int *in, int *out, int n) {
  int i = linear_id();
  int lane = threadIdx.x & 31;
  int v = i < n ? in[i] : 0;
  int w = i < n ? in[i] * 5 + 1 : 0;
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += t;
  }
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(0xffffffffu, w, d);
    if (lane >= d) w ^= t;
  }
  if (i < n) out[i] = v + 7 * w;
}
// Two scans in one loop, one guard for both (the pair a BlockScan of two values makes): both
// chains' calls go after the guard's line; neither may be lost.
extern "C" __global__ void pair_scan_tid_guard(const int *in, int *out) {
  int i = linear_id();
  int lane = threadIdx.x & 31;
  int v = in[i], w = in[i] * 3 - 1;
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(0xffffffffu, v, d);
    int u = __shfl_up_sync(0xffffffffu, w, d);
    if (lane >= d) { v += t; w += u; }
  }
  out[i] = v * 11 + w;
}
// A down-tree over a cooperative-groups tile whose rank-0 thread stores (NVIDIA's thread_rank():
// the block's linear thread id & 31, exactly the lane in every block shape, no run-time check).
extern "C" __global__ void tile_rank0_sum(const int *in, int *out) {
  auto tile = cooperative_groups::tiled_partition<32>(cooperative_groups::this_thread_block());
  int i = linear_id();
  int v = in[i];
  for (int o = 16; o > 0; o >>= 1) v += tile.shfl_down(v, o);
  out[i] = tile.thread_rank() == 0 ? v : -1;
}
// A shuffle whose result a condition on the linear id's bit 5 and threadIdx.x selects: the premise
// (threadIdx.x % 32 is the lane) holds in a (32, 2) block on wave64, yet thread 33 has linear id 33
// and threadIdx.x 1, so lanes 1..31 use the result there (not lane 0 alone).
extern "C" __global__ void wide_linear_guard(const int *in, int *out) {
  unsigned r = cooperative_groups::this_thread_block().thread_rank();
  int i = blockIdx.x * 64 + r;
  int t = __shfl_down_sync(0xffffffffu, in[i], 16);
  out[i] = ((r & 32) < threadIdx.x) ? -1 : t;
}
// A down-tree whose result only `threadIdx.x % 32 == 0` stores (PyTorch's WarpReduceSum use).
extern "C" __global__ void lane0_sum_tid(const int *in, int *out) {
  int i = linear_id();
  int v = in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  out[i] = (threadIdx.x % 32 == 0) ? v : -1;
}
// The same, as a float sum (kept in order: each shuffle lowered for the lanes used).
extern "C" __global__ void lane0_fsum_tid(const float *in, float *out) {
  int i = linear_id();
  float v = in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x % 32 == 0) out[i] = v; else out[i] = 0.0f;
}
"""


def _tid_x(block_x: int) -> np.ndarray:
    return np.arange(N) % 64 % block_x


def scan_tid_guard(x, block_x):
    v, lane = x.view(np.int32), _tid_x(block_x) & 31
    for d in (1, 2, 4, 8, 16):
        v = np.where(lane >= d, v + R._shfl(v, "up", d), v).astype(np.int32)
    return v


BOUND = N - 45          # the bounded scan's n: the last CUDA warp is partly out of range


def scan_tid_guard_bounded(x, block_x):
    v, lane = np.where(np.arange(N) < BOUND, x.view(np.int32), 0).astype(np.int32), _tid_x(block_x) & 31
    for d in (1, 2, 4, 8, 16):
        v = np.where(lane >= d, v + R._shfl(v, "up", d), v).astype(np.int32)
    return np.where(np.arange(N) < BOUND, v, 0).astype(np.int32)      # out of range: never written (zeros)


def two_scans_bounded(x, block_x):
    inside = np.arange(N) < BOUND
    lane = _tid_x(block_x) & 31
    v = np.where(inside, x.view(np.int32), 0).astype(np.int32)
    w = np.where(inside, x.view(np.int32) * 5 + 1, 0).astype(np.int32)
    for d in (1, 2, 4, 8, 16):
        v = np.where(lane >= d, v + R._shfl(v, "up", d), v).astype(np.int32)
        w = np.where(lane >= d, w ^ R._shfl(w, "up", d), w).astype(np.int32)
    return np.where(inside, v + 7 * w, 0).astype(np.int32)


def pair_scan_tid_guard(x, block_x):
    lane = _tid_x(block_x) & 31
    v = x.view(np.int32)
    w = (v * 3 - 1).astype(np.int32)
    for d in (1, 2, 4, 8, 16):
        v, w = (np.where(lane >= d, v + R._shfl(v, "up", d), v).astype(np.int32),
                np.where(lane >= d, w + R._shfl(w, "up", d), w).astype(np.int32))
    return (v * 11 + w).astype(np.int32)


def lane0_sum_tid(x, block_x):
    v = x.view(np.int32)
    for o in (16, 8, 4, 2, 1):
        v = (v + R._shfl(v, "down", o)).astype(np.int32)
    return np.where(_tid_x(block_x) % 32 == 0, v, -1).astype(np.int32)


def tile_rank0_sum(x, block_x):
    v = x.view(np.int32)
    for o in (16, 8, 4, 2, 1):
        v = (v + R._shfl(v, "down", o)).astype(np.int32)
    return np.where(np.arange(N) % 32 == 0, v, -1).astype(np.int32)      # the linear id's lane 0


def wide_linear_guard(x, block_x):
    rank = np.arange(N) % 64
    return np.where((rank & 32) < _tid_x(block_x), -1, R._shfl(x.view(np.int32), "down", 16)).astype(np.int32)


def lane0_fsum_tid(x, block_x):
    v = x.astype(np.float32)
    for o in (16, 8, 4, 2, 1):
        v = (v + R._shfl(v, "down", o)).astype(np.float32)
    return np.where(_tid_x(block_x) % 32 == 0, v, np.float32(0)).astype(np.float32)


INLINE = {"scan_tid_guard": (lambda r: [R._small(r, N)], scan_tid_guard),
          "scan_tid_guard_bounded": (lambda r: [R._small(r, N)], scan_tid_guard_bounded),
          "two_scans_bounded": (lambda r: [R._small(r, N)], two_scans_bounded),
          "pair_scan_tid_guard": (lambda r: [R._small(r, N)], pair_scan_tid_guard),
          "lane0_sum_tid": (lambda r: [R._small(r, N)], lane0_sum_tid),
          "wide_linear_guard": (lambda r: [R._small(r, N)], wide_linear_guard),
          "tile_rank0_sum": (lambda r: [R._small(r, N)], tile_rank0_sum),
          "lane0_fsum_tid": (lambda r: [r.standard_normal(N).astype(np.float32)], lane0_fsum_tid)}
FAMILY = sorted(k for k, (family, _, _) in R.KERNELS.items() if family in ("pair_chains", "wide_chains"))


@functools.lru_cache(maxsize=None)
def _workdir() -> str:
    return tempfile.mkdtemp(prefix="shflx-premise-")


@functools.lru_cache(maxsize=None)
def _family_object(family: str, arch: str, baseline: bool) -> bytes:
    from shflx.driver.amd import compile_file
    return compile_file(ROOT / "patterns" / "kernels" / family / "kernel.cu", arch, baseline=baseline).output


def _cases(device):
    for kernel in [*INLINE, *FAMILY]:
        for block in BLOCKS:
            for baseline in (False, True):
                yield (f"{kernel}-{block[0]}x{block[1]}-{'baseline' if baseline else 'shflx'}",
                       (kernel, block, baseline), ())


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_every_block_shape_gives_cudas_result(device, case):
    require(device)
    kernel, block, baseline = case
    rng = np.random.default_rng(23)
    if kernel in INLINE:
        make, ref = INLINE[kernel]
        hsaco = code_object(SOURCE, "premise.cu", device.arch, _workdir(), baseline)
        ins = make(rng)
        want = ref(*ins, block[0])
    else:
        family, make, ref = R.KERNELS[kernel]
        hsaco = _family_object(family, device.arch, baseline)
        ins = make(rng, N)
        want = ref(*ins, block_x=block[0])
    scalars = [BOUND] if kernel in ("scan_tid_guard_bounded", "two_scans_bounded") else []
    got = device.run_kernel(hsaco, kernel, ins, N, want.dtype, block=block, grid=(GRID, 1, 1), scalars=scalars)
    assert_bit_exact(got, want, f"{kernel} in a {block} block ({'baseline' if baseline else 'shflx'}) on {device.arch}")
