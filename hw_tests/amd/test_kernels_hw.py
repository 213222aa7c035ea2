"""The example kernels compiled by `shflx compile` for each AMD device (the GPU present, else the
emulated targets, see hw_devices.py), run and compared bit for bit with the numpy references
(which nvcc-compiled runs on an H100 confirmed).

  pip install ".[test]" && pytest hw_tests/amd -v     (GPU, else shared/amdemu; skips without both)

Every kernel runs twice: shflx's lowering and --baseline (plain ds_bpermute); both must match.
Every reference is exact: integer math, or float math in the kernel's own order of operations,
each step rounded to the kernel's type, so the comparison is bitwise, floats included.
benchmarks/bench_emulated.py runs the same on every emulated target with timings."""
from __future__ import annotations

import functools
import sys

import numpy as np
import pytest

from hw_devices import ROOT, assert_bit_exact, device_params, require

sys.path.insert(0, str(ROOT / "patterns" / "kernels"))
import references as R  # noqa: E402

BLOCKS = 4


# Kernels the emulator cannot run on a target family, with the reason; each is an expected failure
# (strict: it must fail there, so a fixed emulator shows up) only on the emulator, never on a GPU.
EMULATOR_GAPS = {
    ("block_reduce_two_level", "gfx12"): "amdemu cannot compile global_inv, the cache invalidate that "
                                         "__syncthreads() emits on gfx12 (tinygrad's rdna4 pcode)",
}


def _cases(device):
    emulated = type(device).__module__.startswith("shflx.runtime.emulator")
    for kernel in sorted(R.KERNELS):
        gap = next((why for (k, family), why in EMULATOR_GAPS.items()
                    if emulated and k == kernel and device.arch.startswith(family)), None)
        marks = (pytest.mark.xfail(reason=gap, strict=True),) if gap else ()
        for baseline in (False, True):
            yield f"{kernel}-{'baseline' if baseline else 'shflx'}", (kernel, baseline), marks


@functools.lru_cache(maxsize=None)
def _code_object(family: str, arch: str, baseline: bool) -> bytes:
    from shflx.driver.amd import compile_file
    return compile_file(ROOT / "patterns" / "kernels" / family / "kernel.cu", arch, baseline=baseline).output


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_kernel_matches_reference(device, case):
    require(device)
    kernel, baseline = case
    family, make, ref = R.KERNELS[kernel]
    hsaco = _code_object(family, device.arch, baseline)
    rng = np.random.default_rng(11)
    n = BLOCKS * R.BLOCK
    ins = make(rng, n)
    scalars = R.EXTRA_ARGS.get(kernel, [])
    want = ref(*ins, *scalars)
    got = device.run_kernel(hsaco, kernel, ins, n, want.dtype, block=(R.BLOCK, 1, 1),
                            grid=(BLOCKS, 1, 1), scalars=scalars)
    assert_bit_exact(got, want, f"{kernel} ({'baseline' if baseline else 'shflx'}) on {device.arch}")
