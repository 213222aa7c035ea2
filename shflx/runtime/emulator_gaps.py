"""What the AMD emulator (amdemu) still cannot run, named by instruction: a target's instruction
that amdemu's decoder does not know. A GPU runs the code object as built.

amdemu decodes GFX9 code with tinygrad's CDNA3 tables only, so a gfx90a instruction that CDNA3
dropped stops a run with the word it could not decode (its README, "Known gaps": `v_mad_f32`,
VOP3 opcode 0x1c1, seen in cvta-shared-round-trip). The run is what finds it (a kernel whose other
paths never reach the instruction still runs); `undecoded` turns amdemu's error into the name of
the instruction, so a test can expect exactly that gap and nothing else."""
from __future__ import annotations

import re

# target -> (encoding mask, value) -> the instruction amdemu's tables lack there.
# GFX9 VOP3A: bits 31:26 = 0b110100, opcode in bits 25:16 ("AMD Instinct MI200" ISA Reference Guide,
# §12.13 "VOP3A"; LLVM llvm/lib/Target/AMDGPU/VOP3Instructions.td, `V_MAD_F32 : VOP3_Real_vi <0x1c1>`).
VOP3A = 0xFFFF0000
UNDECODED: dict[str, dict[tuple[int, int], str]] = {
    "gfx90a": {(VOP3A, 0xD1C10000): "v_mad_f32"},
}

# amdemu's decoder error (tinygrad's emu.py via amdemu.xlane): "unknown cdna format word=0xd1c10005"
_UNKNOWN_WORD = re.compile(r"unknown \w+ format word=(0x[0-9a-fA-F]+)")


class EmulatorGap(Exception):
    """amdemu cannot run this kernel faithfully (an instruction of the target it does not decode)."""


def undecoded(arch: str, error: BaseException) -> str:
    """The instruction of `arch` that amdemu stopped on with `error`, when it is a known gap ("" for
    any other error, which then stands as the failure it is)."""
    found = _UNKNOWN_WORD.search(str(error))
    if not found:
        return ""
    word = int(found.group(1), 16)
    return next((name for (mask, value), name in UNDECODED.get(arch, {}).items() if word & mask == value), "")
