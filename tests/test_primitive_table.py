"""Every row of the primitive table (shflx.amd.primitives) is emitted as its instruction by both
emitters that read it: the LLVM IR path (llvmlite) and the HIP path (clang compiling the
`__builtin_amdgcn_*` text), on a target that has the primitive."""
from __future__ import annotations

import re
import subprocess

import pytest

from shflx.amd.hip import function_hip
from shflx.amd.llvm_ir import kernel_ir
from shflx.amd.primitives import PRIMITIVES
from shflx.codegen.llvm import compile_ir
from shflx.frontend.toolchain import find_clang
from shflx.plan import (DsBpermute, DsPermute, DsSwizzle, MovDpp8, Permlane16, Permlane16Swap, Permlane16Var,
                        Permlane32Swap, Permlane64, Permlanex16, Permlanex16Var, Plan, Readfirstlane, Readlane,
                        Select, UpdateDpp, Writelane)
from shflx.steps import DsBpermuteFi, PermlaneBcast, PermlaneDown, PermlaneUp, PermlaneXor

REVERSE = tuple(31 - i for i in range(32))
# op -> (target, wave, steps, result): one small plan that uses the primitive
SAMPLES = {
    "update.dpp": ("gfx942", 64, (UpdateDpp("a", "x", "x", 0x141, 15, 15, 1),), "a"),
    "mov.dpp8": ("gfx1100", 32, (MovDpp8("a", "x", 0o01234567),), "a"),
    "ds.swizzle": ("gfx942", 64, (DsSwizzle("a", "x", 0x041F),), "a"),
    "permlane16": ("gfx1100", 32, (Permlane16("a", "x", "x", 0x01234567, 0x89ABCDEF, 0, 0),), "a"),
    "permlanex16": ("gfx1100", 32, (Permlanex16("a", "x", "x", 0x76543210, 0xFEDCBA98, 0, 0),), "a"),
    "permlane16.var": ("gfx1200", 32, (Permlane16Var("a", "x", "x", tuple(i % 16 for i in REVERSE), 0, 0),), "a"),
    "permlanex16.var": ("gfx1200", 32, (Permlanex16Var("a", "x", "x", tuple(i % 16 for i in REVERSE), 0, 0),), "a"),
    "permlane64": ("gfx1100", 64, (Permlane64("a", "x"),), "a"),
    "permlane16.swap": ("gfx950", 64, (Permlane16Swap("a", "x", "x", 0, 0, 0),), "a"),
    "permlane32.swap": ("gfx950", 64, (Permlane32Swap("a", "x", "x", 0, 0, 1),), "a"),
    "readlane": ("gfx942", 64, (Readlane("a", "x", 5),), "a"),
    "readfirstlane": ("gfx942", 64, (Readfirstlane("a", "x"),), "a"),
    "writelane": ("gfx942", 64, (Readlane("s", "x", 3), Writelane("a", "s", 7, "x")), "a"),
    "ds.bpermute": ("gfx942", 64, (DsBpermute("a", "x", REVERSE + REVERSE),), "a"),
    "ds.permute": ("gfx942", 64, (DsPermute("a", "x", REVERSE + REVERSE),), "a"),
    "select": ("gfx942", 64, (Readlane("s", "x", 3), Select("a", "s", "x", 0xF0F0)), "a"),
    "ds.bpermute.fi": ("gfx1250", 32, (DsBpermuteFi("a", "x", REVERSE),), "a"),
    "permlane.bcast": ("gfx1250", 32, (PermlaneBcast("a", "x", 5, 8),), "a"),
    "permlane.up": ("gfx1250", 32, (PermlaneUp("a", "x", 3, 16),), "a"),
    "permlane.down": ("gfx1250", 32, (PermlaneDown("a", "x", 1, 4),), "a"),
    "permlane.xor": ("gfx1250", 32, (PermlaneXor("a", "x", 5, 16),), "a"),
}
UNSAMPLED: set[str] = set()
HIP_PRELUDE = ("#define __device__ __attribute__((device))\n#define __global__ __attribute__((global))\n"
               "#define __forceinline__ inline __attribute__((always_inline))\n")
KERNEL = ('extern "C" __global__ void k(int *p) {\n  int i = __builtin_amdgcn_workitem_id_x();\n'
          '  p[i] = shflx_shuffle(p[i]);\n}\n')


def test_every_primitive_has_a_sample():
    assert set(SAMPLES) | UNSAMPLED == set(PRIMITIVES)


def _hip_asm(plan: Plan, tmp_path) -> str:
    src = tmp_path / "k.hip"
    src.write_text(HIP_PRELUDE + function_hip(plan) + KERNEL)
    wave = ["-mwavefrontsize64" if plan.wave == 64 else "-mno-wavefrontsize64"] if plan.arch.startswith("gfx1") else []
    r = subprocess.run([*find_clang().command, "-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc",
                        f"--offload-arch={plan.arch}", *wave, "-O2", "-S", "-o", "-", str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def _mnemonic_count(asm: str, mnemonic: str) -> int:
    return len(re.findall(rf"^\s*{mnemonic}(?:_e32|_e64)?\b", asm, re.M))


@pytest.mark.parametrize("op", sorted(SAMPLES))
def test_both_emitters_emit_the_table_instruction(op, tmp_path):
    arch, wave, steps, result = SAMPLES[op]
    plan = Plan(arch, wave, "", steps, result)
    prim = PRIMITIVES[op]
    ir_asm = compile_ir(kernel_ir(plan), arch, wave=wave, emit="asm")
    hip_asm = _hip_asm(plan, tmp_path)
    mnemonic = "v_cndmask_b32" if op == "select" else prim.mnemonic
    if op in ("update.dpp", "mov.dpp8"):
        mnemonic = r"v_\w+_dpp"            # LLVM may fold the move into its consumer
    assert _mnemonic_count(ir_asm, mnemonic) >= 1, ir_asm
    assert _mnemonic_count(hip_asm, mnemonic) == _mnemonic_count(ir_asm, mnemonic), hip_asm
