"""What the AMD emulator (amdemu) is given to run, for two of its gaps: instructions it cannot
decode although they change nothing in its model are replaced by `s_nop 0` in the copy it runs,
and kernels that address memory through an aperture, which it would turn into a crash of the
whole process, are named so the launch can refuse them. A GPU runs the code object as built.

Stand-ins: amdemu has no caches (every memory access is seen at once by every wave; its README,
"Known gaps": memory operations finish at once), so a cache invalidate does nothing there. Without
them every gfx11 kernel that passes a `__syncthreads()` stops at its `buffer_gl0_inv` with
"unknown rdna3 format" (tinygrad's RDNA3 decoder has no MUBUF format).

Refused kernels: a kernel is refused when it, or any non-kernel function of the object, has
- a read of an aperture register: a generic pointer into `__shared__` (or private) memory is a
  FLAT access whose address lies in the LDS (scratch) aperture, read from src_shared_base
  (src_private_base); amdemu computes FLAT addresses as host addresses and reads its aperture
  registers as 0, so the access lands on an unmapped host page (conservative: reading it only to
  compare pointers is refused too);
- a GFX9 SDWA instruction with an abs or neg source modifier (`v_cmp_lt_f16_sdwa s[4:5], |v5|, v9
  src0_sel:WORD_1`): amdemu's SDWA path (tinygrad's emu.py, _compile_sdwa) selects the word but
  never applies the modifiers, so the comparison sees -x for |x| (DeepSpeed's absmax quantization
  missed every negative maximum in a high half).

The code is walked instruction by instruction from every function symbol with amdemu's decoder,
so only whole instructions are looked at; a walk ends at the first word the decoder does not know
(the zero padding after a function, or an instruction the emulator will itself report)."""
from __future__ import annotations

import io
from collections import Counter
from functools import lru_cache
from typing import Callable

import numpy as np

# amdemu's model ("rdna3", ...) -> the instruction's bytes (little-endian words) -> its name.
# RDNA3 MUBUF: bits 31:26 = 0x38, opcode in bits 25:18, the second word all operands (none here):
# BUFFER_GL0_INV is opcode 43, BUFFER_GL1_INV 44 ("RDNA3" Instruction Set Architecture Reference
# Guide, AMD 2023, §16.12 MUBUF Instructions); LLVM emits them for workgroup- and agent-scope acquire
# (LLVM AMDGPUUsage, "Memory Model GFX10-GFX11": buffer_gl0_inv after s_barrier in WGP mode).
STAND_INS: dict[str, dict[bytes, str]] = {
    "rdna3": {
        (0xE0AC0000).to_bytes(4, "little") + bytes(4): "buffer_gl0_inv",
        (0xE0B00000).to_bytes(4, "little") + bytes(4): "buffer_gl1_inv",
    },
}
# SOPP (bits 31:23 = 0x17F), opcode 0 = S_NOP, SIMM16 0 (same guide, §16.5 SOPP Instructions)
S_NOP_0 = (0xBF800000).to_bytes(4, "little")

# Scalar source operand codes of the aperture registers, the same on GFX9 and GFX11 (AMD "AMD
# Instinct MI300" ISA Reference Guide §3.6.1 and the RDNA3 guide §3.6.1, "SSRC" operand table):
# SRC_SHARED_BASE 235, SRC_SHARED_LIMIT 236, SRC_PRIVATE_BASE 237, SRC_PRIVATE_LIMIT 238.
APERTURE_OPERANDS = {235: "src_shared_base", 236: "src_shared_limit", 237: "src_private_base",
                     238: "src_private_limit"}
SOP1_ENCODING = 0b101111101      # bits 31:23 of a SOP1 word (s_mov_b64 sdst, src_shared_base), GFX9 and GFX11
# GFX9 SDWA: the first word's SRC0 field is 0xF9 (VOP1/VOP2/VOPC), the second holds SRC0_NEG/ABS
# (bits 20, 21) and SRC1_NEG/ABS (bits 28, 29) ("AMD Instinct MI300" ISA Reference Guide, §13.3
# "VOP_SDWA"); amdemu's decoder names them as below
SDWA_SRC0 = 0xF9
SDWA_MODIFIER_BITS = (1 << 20) | (1 << 21) | (1 << 28) | (1 << 29)
SDWA_MODIFIERS = ("src0_neg", "src0_abs", "src1_neg", "src1_abs")

Decoder = Callable[[bytes, str], object]     # amdemu's decode_inst(bytes, model) -> an instruction with .size()


class EmulatorGap(Exception):
    """amdemu cannot run this kernel faithfully (it would crash or compute something else)."""


def replaced(hsaco: bytes, model: str, decode: Decoder) -> tuple[bytes, dict[str, int]]:
    """The code object with every stand-in instruction of `model` replaced by s_nop 0 (as often as
    it fills the instruction), and how many of each were replaced."""
    table = STAND_INS.get(model, {})
    if not any(word in hsaco for word in table):
        return hsaco, {}
    return _replaced(hsaco, model, decode)


def unrunnable(hsaco: bytes, model: str, decode: Decoder) -> dict[str, str]:
    """Function symbol -> what in it amdemu cannot run (its first such instruction), per function."""
    words = np.frombuffer(hsaco[:len(hsaco) // 4 * 4], dtype="<u4")
    aperture = ((words >> 23) == SOP1_ENCODING) & np.isin(words & 0xFF, list(APERTURE_OPERANDS))
    sdwa = ((words[:-1] & 0x1FF) == SDWA_SRC0) & ((words[1:] & SDWA_MODIFIER_BITS) != 0)
    if not aperture.any() and not sdwa.any():     # a cheap first look over every aligned word; the walk decides
        return {}
    return _unrunnable(hsaco, model, decode)


def _why(inst) -> str:
    for field in ("ssrc0", "ssrc1", "src0", "src1", "src2"):
        reg = getattr(inst, field, None)
        if getattr(reg, "offset", None) in APERTURE_OPERANDS:
            return (f"reads {APERTURE_OPERANDS[reg.offset]} (a generic pointer into __shared__ or private memory, a "
                    f"FLAT access through an aperture): amdemu would take the aperture address for a host address "
                    f"and crash")
    if "_SDWA" in type(inst).__name__ and any(getattr(inst, f, 0) for f in SDWA_MODIFIERS):
        return (f"has an SDWA operand with an abs/neg modifier ({inst!r}), which amdemu ignores (it would "
                f"compute with the unmodified operand)")
    return ""


def _functions(hsaco: bytes):
    """(name, file offset of its first byte, of the end of its range, is a kernel) per function."""
    from elftools.elf.elffile import ELFFile

    elf = ELFFile(io.BytesIO(hsaco))
    text, symtab = elf.get_section_by_name(".text"), elf.get_section_by_name(".symtab")
    if text is None or symtab is None:
        return []
    base, offset, size = text["sh_addr"], text["sh_offset"], text["sh_size"]
    funcs = sorted((s["st_value"], s.name) for s in symtab.iter_symbols()
                   if s["st_info"]["type"] == "STT_FUNC" and base <= s["st_value"] < base + size)
    kernels = {s.name[:-3] for s in symtab.iter_symbols() if s.name.endswith(".kd")}
    starts = [a for a, _ in funcs] + [base + size]
    return [(name, offset + a - base, offset + starts[k + 1] - base, name in kernels)
            for k, (a, name) in enumerate(funcs)]


def _walk(code: bytes | bytearray, start: int, end: int, model: str, decode: Decoder, table: dict[bytes, str]):
    """(file offset, instruction or the stand-in's name) of every instruction from `start`."""
    pc = start
    while pc < end:
        word = bytes(code[pc:pc + 8])
        if word in table:
            yield pc, table[word]
            pc += 8
            continue
        try:
            inst = decode(bytes(code[pc:pc + 16]), model)
        except Exception:        # padding, or a word the emulator will itself report when it gets there
            return
        yield pc, inst
        pc += inst.size()


@lru_cache(maxsize=16)
def _replaced(hsaco: bytes, model: str, decode: Decoder) -> tuple[bytes, dict[str, int]]:
    table = STAND_INS[model]
    out = bytearray(hsaco)
    counts: Counter[str] = Counter()
    for _name, start, end, _kernel in _functions(hsaco):
        if not any(word in out[start:end] for word in table):
            continue
        for pc, inst in list(_walk(out, start, end, model, decode, table)):
            if isinstance(inst, str):
                out[pc:pc + 8] = S_NOP_0 * 2
                counts[inst] += 1
    return bytes(out), dict(counts)


@lru_cache(maxsize=16)
def _unrunnable(hsaco: bytes, model: str, decode: Decoder) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, start, end, _kernel in _functions(hsaco):
        for _pc, inst in _walk(hsaco, start, end, model, decode, STAND_INS.get(model, {})):
            why = "" if isinstance(inst, str) else _why(inst)
            if why:
                found[name] = why
                break
    return found


def refusal(hsaco: bytes, kernel: str, model: str, decode: Decoder) -> str:
    """Why amdemu cannot run `kernel` of the code object ("" when it can)."""
    found = unrunnable(hsaco, model, decode)
    if not found:
        return ""
    kernels = {name for name, *_rest, is_kernel in _functions(hsaco) if is_kernel}
    why = {f: r for f, r in found.items() if f == kernel or f not in kernels}
    if not why:
        return ""
    f, reason = next(iter(why.items()))
    who = kernel if f == kernel else f"{kernel}: {f} in the same code object"
    return f"amdemu cannot run {who}: it {reason}"
