"""Hardware vs model: every AMD cross-lane primitive of each device's target (the GPU present, else
the emulated targets, see hw_devices.py), run and compared lane by lane with shflx.emulate (the
model that the prover and the matcher trust).

For each device's arch (for a GPU: gcnArchName without its feature suffix), every plan of
tests/amd_samples.py for every wave size the target runs (DPP16 controls, DPP8, ds_swizzle modes,
permlane*, readlane/writelane, ds_(b)permute, select, a reduction) is lowered with
shflx.amd.llvm_ir.kernel_ir, compiled by llvmlite, linked by ld.lld, loaded and launched as one
block of one wave on random uint32 inputs. Lanes whose model value is garbage or an open question
are not compared.

    pip install .[test] && pytest hw_tests/amd -v

Without a GPU or the emulator the tests skip with the reason (fail under CI=true); on a GPU whose
arch shflx does not know, they skip and name the known targets."""
from __future__ import annotations

import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

_TESTS = Path(__file__).resolve().parents[2] / "tests"
if str(_TESTS) not in sys.path:
    sys.path.insert(0, str(_TESTS))       # tests/amd_samples.py only: shflx itself is the installed one

from amd_samples import KNOWN_BUGS, defined_lanes, emulated, samples  # noqa: E402
from hw_devices import device_params, require  # noqa: E402
from shflx.amd.llvm_ir import kernel_ir  # noqa: E402
from shflx.codegen.link import link_hsaco  # noqa: E402
from shflx.codegen.llvm import compile_ir  # noqa: E402
from shflx.isa import amd_target  # noqa: E402

TRIALS = 4                      # random input vectors per plan
KERNEL = "shflx_hw"


def _cases(device):
    target = amd_target(device.arch)
    for wave in target.waves:
        for s in samples(target.name, wave):
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[s.name])] if s.name in KNOWN_BUGS else []
            yield f"w{wave}-{s.name}", (wave, s), marks


def _mismatch_report(device, plan, x, hw, model, lanes) -> str:
    rows = [f"{'lane':>4} {'input':>10} {'hardware':>10} {'model':>10}"]
    rows += [f"{i:>4} {x[i]:#010x} {hw[i]:#010x} {model[i]:#010x}" for i in lanes[:16]]
    more = f"\n... and {len(lanes) - 16} more lanes" if len(lanes) > 16 else ""
    return (f"{len(lanes)} lane(s) differ on {device.arch_full} ({device.name}) wave{plan.wave} for steps "
            f"{[s.op for s in plan.steps]}:\n" + "\n".join(rows) + more)


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_hardware_matches_model(device, case):
    require(device)
    wave, sample = case
    plan = sample.load()
    target = amd_target(device.arch)
    hsaco = link_hsaco(compile_ir(kernel_ir(plan, KERNEL), target.llvm_cpu, wave=wave, emit="obj"))
    compare = defined_lanes(plan)
    rng = np.random.default_rng(zlib.crc32(f"{sample.name}/{wave}".encode()))
    for _ in range(TRIALS):
        x = rng.integers(0, 2**32, wave, dtype=np.uint64).astype(np.uint32)
        hw = device.run_kernel(hsaco, KERNEL, [x], wave, np.uint32, block=(wave, 1, 1), grid=(1, 1, 1))
        model = emulated(plan, x)
        bad = np.flatnonzero(compare & (hw != model))
        if bad.size:
            pytest.fail(_mismatch_report(device, plan, x, hw, model, bad), pytrace=False)
