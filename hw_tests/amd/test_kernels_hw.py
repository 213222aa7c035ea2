"""The example kernels compiled by `shflx compile` for the AMD GPU present, run through hip-python,
compared lane by lane with the numpy references (which nvcc-compiled runs on an H100 confirmed).

  pip install ".[test]" && pytest hw_tests/amd -v          (skips cleanly without an AMD GPU)

Every kernel runs twice: shflx's lowering and --baseline (plain ds_bpermute); both must match."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "patterns" / "kernels"))

import references as R  # noqa: E402

from shflx.runtime.hip import hip_device  # noqa: E402

BLOCKS = 4


@pytest.fixture(scope="module")
def device():
    dev = hip_device()
    if dev is None:
        pytest.skip("no AMD GPU (hip-python could not open a device)")
    from shflx.isa import known_amd_targets
    if dev.arch not in known_amd_targets():
        pytest.skip(f"GPU {dev.arch} is not a shflx target")
    return dev


@pytest.mark.parametrize("baseline", [False, True], ids=["shflx", "baseline"])
@pytest.mark.parametrize("kernel", sorted(R.KERNELS))
def test_kernel_matches_reference(device, kernel, baseline):
    from shflx.driver.amd import compile_file

    family, make, ref = R.KERNELS[kernel]
    res = compile_file(ROOT / "patterns" / "kernels" / family / "kernel.cu", device.arch, baseline=baseline)
    rng = np.random.default_rng(11)
    n = BLOCKS * R.BLOCK
    ins = make(rng, n)
    scalars = R.EXTRA_ARGS.get(kernel, [])
    want = ref(*ins, *scalars)
    got = device.run_kernel(res.output, kernel, ins, n, want.dtype, block=(R.BLOCK, 1, 1),
                            grid=(BLOCKS, 1, 1), scalars=scalars)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, want)
