"""The AMD devices hw_tests/amd run on (shflx.runtime.amd: the GPU, else the emulator in
`<checkout>/../shared/amdemu`), their pytest parameters, and the bit-exact comparison.

No device: the tests skip with the reason, except under CI=true, where they fail (CI sets up the
emulator, so a missing one is a broken CI, not a missing GPU). SHFLX_TEST_INSTALLED=1 asserts
that shflx is imported from an installed package, not from this checkout."""
from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from shflx.frontend.toolchain import find_clang
from shflx.isa import known_amd_targets
from shflx.runtime.amd import AmdDevices, amd_devices

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # hw_tests/: the shared emulator worker
from emulator_worker import EmulatorCrash, EmulatorWorker  # noqa: E402,F401 (EmulatorCrash: for the tests)

ROOT = Path(__file__).resolve().parents[2]
SHARED_AMDEMU = ROOT.parent / "shared" / "amdemu"
IN_CI = os.environ.get("CI", "").lower() == "true"


@functools.lru_cache(maxsize=None)
def selected() -> AmdDevices:
    # shflx finds its clang before the emulator is imported: amdemu puts a `clang` wrapper first on
    # PATH for tinygrad's CPU backend (amdemu/_env.py), which has no host C++ headers to offer a HIP
    # device compile (<cstddef> in CCCL then misses stddef.h)
    find_clang()
    return amd_devices(search=[SHARED_AMDEMU])


def no_device_reason() -> str:
    return selected().why or "no AMD device"


def device_params(cases) -> list:
    """pytest params `(device, *case)` for every device and every case `cases(device)` yields,
    ids `<arch>-<case id>`; one failing (CI) or skipping param when there is no usable device."""
    sel = selected()
    params = []
    for dev in sel.devices:
        if dev.arch not in known_amd_targets():
            params.append(pytest.param(None, None, id=f"{dev.arch}-unknown", marks=pytest.mark.skip(
                reason=f"the GPU is {dev.arch_full} ({dev.name}), which shflx does not model; known: "
                       f"{', '.join(known_amd_targets())}")))
            continue
        for case_id, case, marks in cases(dev):
            params.append(pytest.param(dev, case, id=f"{dev.arch}-{case_id}", marks=marks))
    if not sel.devices:
        params.append(pytest.param(None, None, id="no-device"))
    return params


def require(device) -> None:
    """Called first by every test: no device fails under CI=true, else skips, with the reason."""
    if device is None:
        (pytest.fail if IN_CI else pytest.skip)(f"no AMD device to run on: {no_device_reason()}"
                                                 + (" (CI=true: the emulator must be set up)" if IN_CI else ""))


def assert_bit_exact(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """Every element of `got` has the bit pattern of `want` (floats included: both sides round the
    same operations in the same order, so any difference, even in an f64's low word, is a bug)."""
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    bits = np.dtype(f"u{want.dtype.itemsize}")
    g, w = got.view(bits), want.view(bits)
    bad = np.flatnonzero(g != w)
    if bad.size:
        digits = 2 * want.dtype.itemsize
        rows = [f"{i:>5} {int(g[i]):#0{digits + 2}x} {int(w[i]):#0{digits + 2}x}  {got[i]!r} vs {want[i]!r}"
                for i in bad[:16]]
        pytest.fail(f"{what}: {bad.size} of {want.size} elements differ (bitwise)\n"
                    f"{'index':>5} {'got':>{digits + 2}} {'want':>{digits + 2}}\n" + "\n".join(rows), pytrace=False)


@functools.lru_cache(maxsize=None)
def code_object(source: str, name: str, arch: str, workdir: str, baseline: bool = False) -> bytes:
    """`source` (CUDA text) written to `workdir/name` and compiled by shflx for `arch`, once per
    process (the tests of one file share it across their cases)."""
    from shflx.driver.amd import compile_file
    src = Path(workdir) / name
    src.write_text(source)
    return compile_file(src, arch, baseline=baseline).output



def _run_kernel(device, args: tuple, kwargs: dict):
    return device.run_kernel(*args, **kwargs)


_WORKER = EmulatorWorker()


def run_isolated(device, *args, **kwargs):
    """`device.run_kernel(*args, **kwargs)`; on the emulator in a worker process
    (hw_tests/emulator_worker.py: a crash is EmulatorCrash for one case). A GPU runs in this process."""
    if selected().kind != "emulator":
        return device.run_kernel(*args, **kwargs)
    return _WORKER.call(f"{args[1]} on {device.arch}", _run_kernel, device, args, kwargs)
