"""A module whose code is generated in parallel parts (codegen.partition) and linked into one code
object computes what the whole module computes: kernels of different parts read the same
`__device__`, `static __device__` and `__constant__` data (defined in one part, referenced from
the others), call the same non-inlined device function, use their own LDS and shuffle; each
kernel's results match numpy and the whole module's, on each AMD device (the GPU, else the
emulator of shared/amdemu).

  pytest hw_tests/amd/test_parallel_codegen_hw.py"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hw_devices import assert_bit_exact, device_params, require

SOURCE = r"""
__device__ int table[4] = {5, 6, 7, 8};
static __device__ int bias = 42;
__constant__ int scale[2] = {3, -2};
__device__ __noinline__ int mix(int a, int b) { return a * scale[0] + b * scale[1] + bias; }
#define KERNEL(NAME, K)                                                                  \
  extern "C" __global__ void NAME(const int *in, int *out) {                              \
    __shared__ int sm[64];                                                                \
    int t = threadIdx.x;                                                                  \
    if (in[t] == -424242) bias = t;        /* never taken: bias stays written by no one */ \
    sm[t] = in[t] + K;                                                                    \
    __syncthreads();                                                                      \
    int v = sm[63 - t] + __shfl_xor_sync(0xffffffffu, in[t], K);                           \
    out[t] = mix(v, table[t & 3]);                                                        \
  }
KERNEL(first, 1)
KERNEL(second, 2)
KERNEL(third, 4)
"""
KERNELS = {"first": 1, "second": 2, "third": 4}


def _reference(x: np.ndarray, k: int) -> np.ndarray:
    t = np.arange(64)
    v = x[63 - t] + k + x[t ^ k]         # k < 32: the lane of the same 32-lane warp
    return (v * 3 + np.array([5, 6, 7, 8])[t & 3] * -2 + 42).astype(np.int32)


@pytest.fixture(scope="module")
def code_objects(tmp_path_factory):
    """arch -> (the parallel parts' code object, the whole module's); the parts forced for this
    small module by lowering the size at which a module is split."""
    from shflx.driver import amd

    src = Path(tmp_path_factory.mktemp("parallel")) / "parts.cu"
    src.write_text(SOURCE)
    made = {}

    def build(arch):
        if arch not in made:
            saved, amd.PARALLEL_MIN_IR = amd.PARALLEL_MIN_IR, 0
            try:
                parts = amd.compile_file(src, arch, codegen_jobs=2)
            finally:
                amd.PARALLEL_MIN_IR = saved
            assert any(s.startswith("LLVM optimization + code generation (2 parts") for s in parts.times), parts.times
            made[arch] = (parts.output, amd.compile_file(src, arch).output)
        return made[arch]
    return build


def _cases(device):
    for name in KERNELS:
        yield name, name, ()


@pytest.mark.parametrize("device,kernel", device_params(_cases))
def test_parts_compute_what_the_whole_module_computes(device, kernel, code_objects):
    require(device)
    split, whole = code_objects(device.arch)
    x = np.random.default_rng(len(kernel)).integers(-1000, 1000, 64).astype(np.int32)
    got = device.run_kernel(split, kernel, [x], 64, np.int32, block=(64, 1, 1))
    want = _reference(x.astype(np.int64), KERNELS[kernel])
    assert_bit_exact(np.asarray(got), want, f"{kernel}, parallel parts ({device.arch})")
    assert_bit_exact(np.asarray(device.run_kernel(whole, kernel, [x], 64, np.int32, block=(64, 1, 1))), want,
                     f"{kernel}, whole module ({device.arch})")
