"""Hardware vs model: every AMD cross-lane primitive of the GPU's own target, run on the GPU and
compared lane by lane with shflx.emulate (the model that the prover and the matcher trust).

For the arch that hip-python reports (gcnArchName without its feature suffix), every plan of
tests/amd_samples.py for every wave size the target runs (DPP16 controls, DPP8, ds_swizzle modes,
permlane*, readlane/writelane, ds_(b)permute, select, a reduction) is lowered with
shflx.amd.llvm_ir.kernel_ir, compiled by llvmlite, linked by ld.lld, loaded with
hipModuleLoadData and launched as one block of one wave on random uint32 inputs. Lanes whose
model value is garbage or an open question are not compared.

With an AMD GPU and ROCm (the HIP runtime, libamdhip64) installed:

    pip install .[test] && pytest hw_tests/amd -v

Without a GPU, hip-python, or the HIP runtime, the module skips with the reason; on a GPU whose
arch shflx does not know, it skips and names the known targets."""
from __future__ import annotations

import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

_REPO = Path(__file__).resolve().parents[2]
for _p in (_REPO, _REPO / "tests"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from amd_samples import KNOWN_BUGS, defined_lanes, emulated, samples  # noqa: E402
from shflx.amd.llvm_ir import kernel_ir  # noqa: E402
from shflx.codegen.link import link_hsaco  # noqa: E402
from shflx.codegen.llvm import compile_ir  # noqa: E402
from shflx.errors import UsageError  # noqa: E402
from shflx.isa import amd_target, known_amd_targets  # noqa: E402
from shflx.runtime.hip import probe_hip  # noqa: E402

TRIALS = 4                      # random input vectors per plan
KERNEL = "shflx_hw"

DEVICE, _WHY = probe_hip()
if DEVICE is None:
    pytest.skip(f"no AMD GPU: {_WHY}", allow_module_level=True)
try:
    TARGET = amd_target(DEVICE.arch)
except UsageError:
    pytest.skip(f"the GPU is {DEVICE.arch_full} ({DEVICE.name}), which shflx does not model; known: "
                f"{', '.join(known_amd_targets())}", allow_module_level=True)


def _params() -> list:
    out = []
    for wave in TARGET.waves:
        for s in samples(TARGET.name, wave):
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[s.name])] if s.name in KNOWN_BUGS else []
            out.append(pytest.param(wave, s, id=f"{TARGET.name}-w{wave}-{s.name}", marks=marks))
    return out


def _mismatch_report(plan, x, hw, model, lanes) -> str:
    rows = [f"{'lane':>4} {'input':>10} {'hardware':>10} {'model':>10}"]
    rows += [f"{i:>4} {x[i]:#010x} {hw[i]:#010x} {model[i]:#010x}" for i in lanes[:16]]
    more = f"\n... and {len(lanes) - 16} more lanes" if len(lanes) > 16 else ""
    return (f"{len(lanes)} lane(s) differ on {DEVICE.arch_full} wave{plan.wave} for steps "
            f"{[s.op for s in plan.steps]}:\n" + "\n".join(rows) + more)


@pytest.mark.parametrize("wave,sample", _params())
def test_hardware_matches_model(wave, sample):
    plan = sample.load()
    hsaco = link_hsaco(compile_ir(kernel_ir(plan, KERNEL), TARGET.llvm_cpu, wave=wave, emit="obj"))
    compare = defined_lanes(plan)
    rng = np.random.default_rng(zlib.crc32(f"{sample.name}/{wave}".encode()))
    for _ in range(TRIALS):
        x = rng.integers(0, 2**32, wave, dtype=np.uint64).astype(np.uint32)
        hw = DEVICE.run_kernel(hsaco, KERNEL, [x], wave, np.uint32, block=(wave, 1, 1), grid=(1, 1, 1))
        model = emulated(plan, x)
        bad = np.flatnonzero(compare & (hw != model))
        if bad.size:
            pytest.fail(_mismatch_report(plan, x, hw, model, bad), pytrace=False)
