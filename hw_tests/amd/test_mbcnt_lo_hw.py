"""A shuffle whose source lane is mbcnt.lo(~0, 0) alone (the lane count of the wave's low 32 lanes):
on wave64 it is 32 in every lane of the upper half, so there every lane reads CUDA lane
(32 ^ 1) & 31 = 1 of its warp, not its neighbour; on wave32 it is the lane. Compared bit for bit
with CUDA's shfl.sync on those source lanes, in shflx's build and the baseline."""
from __future__ import annotations

import tempfile

import numpy as np
import pytest

from hw_devices import assert_bit_exact, code_object, device_params, require

N = 4 * 64
SOURCE = r"""
extern "C" __global__ void shfl_by_mbcnt_lo(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int src = __builtin_amdgcn_mbcnt_lo(~0u, 0u) ^ 1;
  out[i] = __shfl_sync(0xffffffffu, in[i], src);
}
"""


def reference(x: np.ndarray, wave: int) -> np.ndarray:
    i = np.arange(N)
    src = (np.minimum(i % wave, 32) ^ 1) & 31                 # shfl.sync reads b[4:0]
    return x[i - i % 32 + src]


def _cases(device):
    for baseline in (False, True):
        yield "baseline" if baseline else "shflx", baseline, ()


@pytest.mark.parametrize("device,baseline", device_params(_cases))
def test_a_shuffle_by_mbcnt_lo_reads_cudas_lanes(device, baseline):
    require(device)
    from shflx.target import resolve_target
    hsaco = code_object(SOURCE, "mbcnt_lo.cu", device.arch, tempfile.mkdtemp(prefix="shflx-lo-"), baseline)
    x = np.random.default_rng(3).integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
    got = device.run_kernel(hsaco, "shfl_by_mbcnt_lo", [x], N, np.int32, block=(64, 1, 1), grid=(4, 1, 1))
    assert_bit_exact(got, reference(x, resolve_target(device.arch).wave), f"mbcnt.lo shuffle on {device.arch}")
