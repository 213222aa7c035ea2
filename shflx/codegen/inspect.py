"""What an AMDGPU code object holds (pyelftools): target, kernels, the metadata note.

Field meanings follow LLVM's AMDGPUUsage ("ELF Code Object", "Code Object Metadata") and
llvm/include/llvm/BinaryFormat/ELF.h (EF_AMDGPU_*); the metadata note is MessagePack, read
here by codegen.msgpack."""
from __future__ import annotations

import io
import struct
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from .msgpack import Reader

EM_AMDGPU = 224
ELFOSABI_AMDGPU_HSA = 64
NT_AMDGPU_METADATA = 32
EF_AMDGPU_MACH = 0x0FF
EF_AMDGPU_FEATURE_XNACK_V4 = 0x300
EF_AMDGPU_FEATURE_SRAMECC_V4 = 0xC00
EF_AMDGPU_GENERIC_VERSION_SHIFT = 24

# EF_AMDGPU_MACH_AMDGCN_* (ELF.h); each value checked against LLVM 22's output except gfx940/941,
# which LLVM 22 no longer knows.
MACHINES: dict[int, str] = {
    0x020: "gfx600", 0x021: "gfx601", 0x022: "gfx700", 0x023: "gfx701", 0x024: "gfx702",
    0x025: "gfx703", 0x026: "gfx704", 0x028: "gfx801", 0x029: "gfx802", 0x02A: "gfx803",
    0x02B: "gfx810", 0x02C: "gfx900", 0x02D: "gfx902", 0x02E: "gfx904", 0x02F: "gfx906",
    0x030: "gfx908", 0x031: "gfx909", 0x032: "gfx90c", 0x033: "gfx1010", 0x034: "gfx1011",
    0x035: "gfx1012", 0x036: "gfx1030", 0x037: "gfx1031", 0x038: "gfx1032", 0x039: "gfx1033",
    0x03A: "gfx602", 0x03B: "gfx705", 0x03C: "gfx805", 0x03D: "gfx1035", 0x03E: "gfx1034",
    0x03F: "gfx90a", 0x040: "gfx940", 0x041: "gfx1100", 0x042: "gfx1013", 0x043: "gfx1150",
    0x044: "gfx1103", 0x045: "gfx1036", 0x046: "gfx1101", 0x047: "gfx1102", 0x048: "gfx1200",
    0x049: "gfx1250", 0x04A: "gfx1151", 0x04B: "gfx941", 0x04C: "gfx942", 0x04E: "gfx1201",
    0x04F: "gfx950", 0x051: "gfx9-generic", 0x052: "gfx10-1-generic", 0x053: "gfx10-3-generic",
    0x054: "gfx11-generic", 0x055: "gfx1152", 0x058: "gfx1153", 0x059: "gfx12-generic",
    0x05A: "gfx1251", 0x05F: "gfx9-4-generic",
}
_FEATURE_STATE = {0: None, 1: "any", 2: "off", 3: "on"}   # v4+: unsupported / any / off / on


@dataclass(frozen=True)
class CodeObject:
    machine: str | None               # e.g. "gfx942"; None when e_flags names no known processor
    target_id: str | None             # e.g. "gfx90a:xnack+" (features only when set on or off)
    e_flags: int
    code_object_version: int | None   # EI_ABIVERSION + 2 for the HSA OS ABI (v4 = 2 ... v6 = 4)
    kernels: tuple[str, ...]          # function symbols that have a `<name>.kd` descriptor
    has_metadata_note: bool
    metadata_size: int = 0
    metadata: dict[str, Any] | None = field(default=None, compare=False)  # None if undecodable


def inspect_code_object(data: bytes) -> CodeObject:
    """Read an AMDGPU ELF (relocatable object or .hsaco); InputError if it is not one."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    if data[:4] != b"\x7fELF":
        raise InputError("not an ELF file (no \\x7fELF magic)")
    try:
        elf = ELFFile(io.BytesIO(data))
        header = elf.header
        if elf.elfclass != 64:
            raise InputError(f"an AMDGPU code object is ELF64, this is ELF{elf.elfclass}")
        machine = header["e_machine"]
        if machine not in ("EM_AMDGPU", EM_AMDGPU):
            raise InputError(f"not an AMDGPU code object: e_machine is {machine} (want EM_AMDGPU = {EM_AMDGPU})")
        flags = int(header["e_flags"])
        ident = header["e_ident"]
        osabi = ident["EI_OSABI"]
        # pyelftools names 64 after ARM (ELFOSABI_ARM_AEABI shares the number)
        hsa = osabi in (ELFOSABI_AMDGPU_HSA, "ELFOSABI_ARM_AEABI", "ELFOSABI_AMDGPU_HSA")
        version = int(ident["EI_ABIVERSION"]) + 2 if hsa else None
        kernels = _kernels(elf)
        note = _metadata_note(elf)
    except ELFError as e:
        raise InputError(f"malformed ELF: {e}") from None
    metadata = None
    if note is not None:
        try:
            metadata = Reader(note).read_all()
        except (ValueError, IndexError, struct.error, UnicodeDecodeError):
            metadata = None
    name = MACHINES.get(flags & EF_AMDGPU_MACH)
    return CodeObject(name, _target_id(name, flags), flags, version, kernels, note is not None,
                      len(note) if note is not None else 0,
                      metadata if isinstance(metadata, dict) else None)


def _target_id(name: str | None, flags: int) -> str | None:
    """The target ID string (AMDGPUUsage "Target ID"): features appear only when on or off."""
    if name is None:
        return None
    out = name
    sramecc = _FEATURE_STATE[(flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10]
    xnack = _FEATURE_STATE[(flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8]
    for feature, state in (("sramecc", sramecc), ("xnack", xnack)):
        if state in ("on", "off"):
            out += f":{feature}{'+' if state == 'on' else '-'}"
    return out


def _kernels(elf: Any) -> tuple[str, ...]:
    names: dict[str, str] = {}
    for section_name in (".symtab", ".dynsym"):
        table = elf.get_section_by_name(section_name)
        if table is None:
            continue
        for sym in table.iter_symbols():
            if sym.name:
                names.setdefault(sym.name, sym["st_info"]["type"])
    return tuple(sorted(n for n, kind in names.items()
                        if kind in ("STT_FUNC", "STT_AMDGPU_HSA_KERNEL", "STT_GNU_IFUNC", 10)
                        and f"{n}.kd" in names))


def _metadata_note(elf: Any) -> bytes | None:
    """The descriptor of the 'AMDGPU' note of type NT_AMDGPU_METADATA, parsed by hand (pyelftools
    does not know the type); notes are 4-byte aligned: namesz, descsz, type, name, desc."""
    for section in elf.iter_sections():
        if section["sh_type"] != "SHT_NOTE":
            continue
        raw = section.data()
        pos = 0
        while pos + 12 <= len(raw):
            namesz, descsz, ntype = struct.unpack_from("<III", raw, pos)
            pos += 12
            name = raw[pos:pos + namesz].rstrip(b"\0")
            pos += (namesz + 3) & ~3
            desc = raw[pos:pos + descsz]
            pos += (descsz + 3) & ~3
            if name == b"AMDGPU" and ntype == NT_AMDGPU_METADATA:
                return bytes(desc)
    return None
