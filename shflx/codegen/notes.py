"""One metadata note for a code object linked from several objects (the parts of codegen.partition).

A code object describes its kernels in one NT_AMDGPU_METADATA note (LLVM's AMDGPUUsage, "Code
Object Metadata"); ld.lld keeps the note of every object it links, and a loader that reads the
first would not see the kernels of the others. `join_metadata_notes` makes them one, in place: the
kernels of every note (`amdhsa.kernels`, each copied as its bytes), and every other key (target,
version) as the first note has it, which must be the same in all. The note section keeps its size
and place; the bytes left over hold one note of a name no loader reads."""
from __future__ import annotations

import io
import struct

from ..errors import ToolchainError
from .inspect import NT_AMDGPU_METADATA
from .msgpack import Reader, array_header, map_header

KERNELS = "amdhsa.kernels"
FILLER_NAME = b"filler"


def join_metadata_notes(code_object: bytes) -> bytes:
    """`code_object` with the AMDGPU metadata notes of each note section joined into one."""
    from elftools.elf.elffile import ELFFile

    out = bytearray(code_object)
    for section in ELFFile(io.BytesIO(code_object)).iter_sections():
        if section["sh_type"] != "SHT_NOTE":
            continue
        raw = section.data()
        notes = _notes(raw)
        metadata = [desc for name, kind, desc in notes if (name, kind) == (b"AMDGPU", NT_AMDGPU_METADATA)]
        if len(metadata) < 2:
            continue
        body = _note(b"AMDGPU", NT_AMDGPU_METADATA, _joined(metadata)) + b"".join(
            _note(name, kind, desc) for name, kind, desc in notes if (name, kind) != (b"AMDGPU", NT_AMDGPU_METADATA))
        left = len(raw) - len(body) - len(_note(FILLER_NAME, 0, b""))
        if left < 0:
            raise ToolchainError("the joined AMDGPU metadata note does not fit its section")
        body += _note(FILLER_NAME, 0, bytes(left))
        start = section["sh_offset"]
        out[start:start + len(raw)] = body
    return bytes(out)


def _notes(raw: bytes) -> list[tuple[bytes, int, bytes]]:
    """(name, type, descriptor) of each note: namesz, descsz, type, then name and descriptor,
    each padded to 4 bytes (ELF's note layout, as AMDGPU code objects write it)."""
    out, pos = [], 0
    while pos + 12 <= len(raw):
        namesz, descsz, kind = struct.unpack_from("<III", raw, pos)
        pos += 12
        name = bytes(raw[pos:pos + namesz]).rstrip(b"\0")
        pos += (namesz + 3) & ~3
        out.append((name, kind, bytes(raw[pos:pos + descsz])))
        pos += (descsz + 3) & ~3
    if pos != len(raw):
        raise ToolchainError("a note section of the linked code object is not a sequence of notes")
    return out


def _note(name: bytes, kind: int, desc: bytes) -> bytes:
    named = name + b"\0"
    return (struct.pack("<III", len(named), len(desc), kind) + named + bytes(-len(named) % 4)
            + desc + bytes(-len(desc) % 4))


def _joined(descs: list[bytes]) -> bytes:
    """One metadata map from several: the kernel arrays concatenated, every other entry once."""
    maps = [_entries(d) for d in descs]
    first = maps[0]
    kernels = b""
    count = 0
    for entries in maps:
        if entries.keys() != first.keys():
            raise ToolchainError("the objects' AMDGPU metadata notes have different keys")
        for key, (_, value) in entries.items():
            if key != KERNELS and value != first[key][1]:
                raise ToolchainError(f"the objects' AMDGPU metadata notes differ in '{key}'")
        if KERNELS in entries:
            value = entries[KERNELS][1]
            reader = Reader(value)
            spans = reader.element_spans()
            kernels += b"".join(value[a:b] for a, b in spans)
            count += len(spans)
    out = map_header(len(first))
    for key, (key_bytes, value) in first.items():
        out += key_bytes + (array_header(count) + kernels if key == KERNELS else value)
    return out


def _entries(desc: bytes) -> dict[str, tuple[bytes, bytes]]:
    """key -> (its bytes, its value's bytes) of a metadata map, in order."""
    reader = Reader(desc)
    spans = reader.element_spans()
    if reader.pos != len(desc):
        raise ToolchainError("trailing bytes after an AMDGPU metadata map")
    out = {}
    for (ka, kb), (va, vb) in zip(spans[::2], spans[1::2]):
        out[Reader(desc[ka:kb]).read_all()] = (desc[ka:kb], desc[va:vb])
    return out
