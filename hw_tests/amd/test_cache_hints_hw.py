"""CUDA's cache-hinted loads and stores (the shflx CUDA layer) on each AMD device (the GPU, else the
emulator of shared/amdemu): the values are those of plain accesses, bit for bit, through each form
the layer writes differently (nontemporal scalars, the volatile whole-value __ldcv, plain vector and
class types), with a store's value converted to the pointer's type as CUDA's overloads convert it.

  pytest hw_tests/amd/test_cache_hints_hw.py"""
from __future__ import annotations

import numpy as np
import pytest

from hw_devices import assert_bit_exact, code_object, device_params, require

SOURCE = r"""
#include <cuda_fp16.h>
extern "C" __global__ void hints(const unsigned *a, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;        // each thread copies its own 16 bytes
  const unsigned *s = a + 4 * i; unsigned *d = out + 4 * i;
  switch (i % 8) {
    case 0: __stcs((uint4 *)d, __ldcv((const uint4 *)s)); break;
    case 1: for (int k = 0; k < 4; ++k) __stcs(d + k, __ldcs(s + k)); break;
    case 2: for (int k = 0; k < 2; ++k) __stcg((unsigned long long *)d + k, __ldlu((const unsigned long long *)s + k)); break;
    case 3: for (int k = 0; k < 8; ++k) __stcs((__half *)d + k, __ldcs((const __half *)s + k)); break;
    case 4: for (int k = 0; k < 4; ++k) __stwb((uchar4 *)d + k, __ldca((const uchar4 *)s + k)); break;
    case 5: for (int k = 0; k < 2; ++k) __stwt((double *)d + k, __ldcv((const double *)s + k)); break;
    case 6: for (int k = 0; k < 4; ++k) __stcs((short2 *)d + k, __ldcg((const short2 *)s + k)); break;
    case 7: __stcs((int *)d, 7); __stcs((unsigned char *)(d + 1), 300); __stwt((long long *)(d + 2), -1); break;
  }
}
"""
THREADS = 64


def _cases(device):
    yield "hints", "cache hints", ()


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_cache_hints_move_values_bit_for_bit(device, case, tmp_path_factory):
    require(device)
    rng = np.random.default_rng(25)
    a = rng.integers(0, 1 << 32, 4 * THREADS, dtype=np.uint64).astype(np.uint32)
    a[:8] = [0x7FC00001, 0xFFFFFFFF, 0x80000000, 0, 0x7F800000, 0xFF800001, 1, 0x3C00FBFF]
    hsaco = code_object(SOURCE, "cache_hints.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    got = device.run_kernel(hsaco, "hints", [a], 4 * THREADS, np.uint32, block=(THREADS, 1, 1), grid=(1, 1, 1))
    want = a.copy().reshape(THREADS, 4)
    for t in range(7, THREADS, 8):     # case 7: 7; 300 as unsigned char (the other bytes stay 0); -1
        want[t] = [7, 300 & 0xFF, 0xFFFFFFFF, 0xFFFFFFFF]
    assert_bit_exact(np.asarray(got), want.reshape(-1), f"cache hints ({device.arch})")
