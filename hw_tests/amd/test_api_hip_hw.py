"""Plan.to_hip on the device: the HIP text of a lowered plan, for 32- and 64-bit C types, compiled
by clang (HIP device code to LLVM IR, then shflx's codegen and ld.lld), run on the GPU or the
emulator, against the CUDA shuffle as the independent reference (tests/reference/judge.py) reads
it. 64-bit types go through the plan once per 32-bit half; a swapped or lost half shows here."""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hw_devices import assert_bit_exact, device_params, require

import shflx
from shflx.codegen.link import link_hsaco
from shflx.codegen.llvm import compile_ir
from shflx.frontend.toolchain import find_clang
from shflx.isa import amd_target
from reference.judge import Target

PATTERNS = ("xor 5", "down 1 width 16", "idx 3 width 8")
TYPES = {"int": np.int32, "float": np.float32, "double": np.float64, "unsigned long long": np.uint64}
PRELUDE = ("#define __device__ __attribute__((device))\n#define __global__ __attribute__((global))\n"
           "#define __forceinline__ inline __attribute__((always_inline))\n")


def _cases(device):
    for pattern in PATTERNS:
        for ctype in TYPES:
            yield f"{pattern.replace(' ', '_')}-{ctype.replace(' ', '_')}", (pattern, ctype), ()


def _hsaco(source: str, arch: str, wave: int) -> bytes:
    target = amd_target(arch)
    with tempfile.TemporaryDirectory(prefix="shflx-hip-") as tmp:
        src, ll = Path(tmp) / "k.hip", Path(tmp) / "k.ll"
        src.write_text(source)
        flags = ["-mwavefrontsize64" if wave == 64 else "-mno-wavefrontsize64"] if arch.startswith("gfx1") else []
        r = subprocess.run([*find_clang().command, "-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc",
                            f"--offload-arch={arch}", *flags, "-O2", "-S", "-emit-llvm", "-o", str(ll), str(src)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-2000:]
        return link_hsaco(compile_ir(ll.read_text(), target.llvm_cpu, wave=wave, emit="obj"))


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_to_hip_moves_every_type_like_the_cuda_shuffle(device, case):
    require(device)
    pattern, ctype = case
    plan = shflx.lower(pattern, device.arch)
    kernel = (f'extern "C" __global__ void k({ctype} *in, {ctype} *out) {{\n'
              f'  int i = __builtin_amdgcn_workitem_id_x();\n  out[i] = f(in[i]);\n}}\n')
    hsaco = _hsaco(PRELUDE + plan.to_hip("f", ctype) + kernel, device.arch, plan.wave)
    dtype = TYPES[ctype]
    bits = np.random.default_rng(5).integers(0, 2**63, plan.wave, dtype=np.uint64)
    x = bits.astype(np.uint32).view(np.int32) if dtype in (np.int32, np.float32) else bits
    x = x.view(dtype).copy()
    got = device.run_kernel(hsaco, "k", [x], plan.wave, dtype, block=(plan.wave, 1, 1), grid=(1, 1, 1))
    t = Target(pattern)
    want = np.array([x[lane - lane % 32 + t.src[lane % 32]] for lane in range(plan.wave)], dtype)
    assert_bit_exact(got, want, f"{ctype} {pattern} on {device.arch}")
