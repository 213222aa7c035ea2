"""llvmlite adapter for NVIDIA: NVPTX LLVM IR text -> PTX text (STYLE "one thin adapter per tool").

The PTX ISA version is the one LLVM itself picks for the processor (its minimum for that sm:
8.6 for sm_100a, ...), read from a probe module once per processor, but at least what NVIDIA's own
headers need there (8.0 for sm_90: _PTX_FLOOR); the front end
is given the same `+ptxNN` feature so clang allows exactly the builtins codegen can emit."""
from __future__ import annotations

import functools
import re
from typing import Any

from ..errors import ToolchainError
from .llvm import binding_for, optimized_module, version

TRIPLE = "nvptx64-nvidia-cuda"
_PROBE_IR = f'target triple = "{TRIPLE}"\ndefine ptx_kernel void @shflx_probe() {{\n  ret void\n}}\n'


def _binding() -> Any:
    return binding_for(TRIPLE, "NVPTX")


@functools.lru_cache(maxsize=None)
def _target_machine(sm: str, opt: int) -> tuple[Any, str]:
    """(target machine, PTX ISA version) for `sm`. LLVM only warns on a processor it does not know
    and falls back to PTX ISA 3.2; every target shflx lists (sm_70+) needs 6.0 or later, so an
    older version means this LLVM does not know `sm`."""
    llvm = _binding()
    tm = llvm.Target.from_triple(TRIPLE).create_target_machine(cpu=sm, opt=opt)
    probe = tm.emit_assembly(llvm.parse_assembly(_PROBE_IR))
    emitted = re.search(r"^\.version\s+(\d+)\.(\d+)", probe, flags=re.M)
    if not emitted or int(emitted.group(1)) < 6:
        raise ToolchainError(f"LLVM {version(llvm)} (llvmlite) does not know the NVIDIA processor '{sm}'")
    floor = _PTX_FLOOR.get(sm.rstrip("af"))
    if floor and (int(emitted.group(1)), int(emitted.group(2))) < floor:
        tm = llvm.Target.from_triple(TRIPLE).create_target_machine(cpu=sm, opt=opt, features=f"+ptx{floor[0]}{floor[1]}")
        return tm, f"{floor[0]}.{floor[1]}"
    return tm, f"{emitted.group(1)}.{emitted.group(2)}"


# The PTX ISA at least, per processor, where LLVM's minimum is older than what NVIDIA's headers write in
# inline asm there. LLVM's minimum for sm_90 is PTX 7.8 (llvm/lib/Target/NVPTX/NVPTX.td: `Proc<"sm_90",
# [SM90, PTX78]>`, CUDA 11.8), but crt/device_functions.hpp writes the DPX forms (add/min/max .s16x2,
# .relu), which the PTX ISA introduces in 8.0 (CUDA 12.0): ptxas of CUDA 11.8 would refuse that PTX.
_PTX_FLOOR = {"sm_90": (8, 0)}


def ptx_version(sm: str) -> str:
    """The PTX ISA version the PTX for `sm` declares ("8.0" for sm_90: _PTX_FLOOR)."""
    return _target_machine(sm, 2)[1]


def ptx_feature(sm: str) -> str:
    """The `+ptxNN` target feature for clang's front end (see the module docstring)."""
    return "+ptx" + ptx_version(sm).replace(".", "")


def compile_to_ptx(ir_text: str, sm: str, *, opt: int = 3, source: str = "<ir>", header_warnings: bool = False) -> str:
    """PTX text for a complete NVPTX module: parsed, verified, optimized at `opt`, then emitted
    (LLVM's warnings located in CUDA/CCCL headers dropped unless `header_warnings`)."""
    from .diagnostics import llvm_warnings

    llvm = _binding()
    tm, _ = _target_machine(sm, opt)
    with llvm_warnings(header_warnings):
        module = optimized_module(llvm, tm, ir_text, TRIPLE, opt, source)
        try:
            return tm.emit_assembly(module)
        except RuntimeError as e:
            raise ToolchainError(f"LLVM PTX generation for {sm} failed: {' '.join(str(e).split())}") from None
