"""Immutable module constants as little-endian byte images, and the addresses that loads from them
compute: what a lookup table indexed by lane bits holds (`const int perm[4] = {...}; perm[lane & 3]`,
a 2-D table, a table inside a struct, a switch that LLVM turned into `@switch.table`).

Only `constant` globals count (not `externally_initialized` ones: the host can rewrite a
__constant__ variable). Integer, array and struct initializers are read with LLVM's layout for
AMDGPU and NVPTX (LangRef "Data Layout": natural alignment of i8..i64, arrays packed, structs padded
to each field's alignment); anything else (floats, pointers, vectors) leaves the global out."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

_GLOBAL = re.compile(r"^@([\w.$\-]+) = (?:(?:private|internal|dso_local|hidden|unnamed_addr|local_unnamed_addr)\s+)*"
                     r"(?:addrspace\(\d+\)\s+)?constant (.*?)(?:, align \d+)?$")
_STRUCT_TYPE = re.compile(r"^(%[\w.$\-]+) = type (<?\{.*\}>?)$")
_GEP = re.compile(r"^getelementptr (?:inbounds )?(?:nuw )?(?:nusw )?(?:inrange\(\S+\) )?(.+?), "
                  r"ptr(?: addrspace\(\d+\))? (@[\w.$\-]+|%[\w.\-]+)((?:, i\d+ \S+)*)$")


@dataclass(frozen=True)
class Layout:
    """Sizes and alignments of the module's types (the named struct types it defines)."""

    structs: dict[str, str]

    def fields(self, ty: str) -> list[str]:
        body = self.structs.get(ty, ty).strip()
        inner = body.strip("<>").strip()[1:-1]
        return split_top(inner) if inner.strip() else []

    def packed(self, ty: str) -> bool:
        return self.structs.get(ty, ty).strip().startswith("<")

    def size_align(self, ty: str) -> tuple[int, int]:
        ty = ty.strip()
        m = re.fullmatch(r"i(\d+)", ty)
        if m:
            n = max(1, (int(m.group(1)) + 7) // 8)
            if n & (n - 1):
                raise ValueError(f"integer type {ty}")
            return n, n
        m = re.fullmatch(r"\[(\d+) x (.+)\]", ty)
        if m:
            size, align = self.size_align(m.group(2))
            return int(m.group(1)) * size, align
        if ty.startswith(("{", "<{", "%")):
            offset, align = 0, 1
            for f in self.fields(ty):
                size, a = self.size_align(f)
                a = 1 if self.packed(ty) else a
                offset = (offset + a - 1) // a * a + size
                align = max(align, a)
            return (offset + align - 1) // align * align, align
        raise ValueError(f"type {ty}")

    def field_offset(self, ty: str, index: int) -> int:
        offset = 0
        for k, f in enumerate(self.fields(ty)):
            size, a = self.size_align(f)
            a = 1 if self.packed(ty) else a
            offset = (offset + a - 1) // a * a
            if k == index:
                return offset
            offset += size
        raise ValueError(f"field {index} of {ty}")


def split_top(text: str) -> list[str]:
    """`text` split at the commas outside brackets, braces and quotes."""
    out, depth, cur, quoted = [], 0, "", False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "[{<(":
            depth += 1
        elif not quoted and ch in "]}>)":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _split_typed(text: str) -> tuple[str, str]:
    """`TYPE VALUE` -> (TYPE, VALUE), the type possibly bracketed."""
    text = text.strip()
    if text[0] in "[{<":
        close = {"[": "]", "{": "}", "<": ">"}[text[0]]
        depth = 0
        for k, ch in enumerate(text):
            depth += ch == text[0]
            depth -= ch == close
            if depth == 0:
                return text[:k + 1], text[k + 1:].strip()
    head, _, rest = text.partition(" ")
    return head, rest.strip()


def _image(layout: Layout, ty: str, value: str) -> bytes:
    """The bytes of constant `value` of type `ty`; ValueError for anything but integers,
    arrays and structs of them."""
    size, _ = layout.size_align(ty)
    if value in ("zeroinitializer", "undef", "poison"):
        return bytes(size)
    m = re.fullmatch(r"i(\d+)", ty)
    if m:
        if value in ("true", "false"):
            value = str(int(value == "true"))
        return (int(value) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    arr = re.fullmatch(r"\[(\d+) x (.+)\]", ty)
    if arr and value.startswith('c"'):
        raw = value[2:-1]
        data = bytes(int(t[1:], 16) if t.startswith("\\") else ord(t) for t in re.findall(r"\\[0-9A-Fa-f]{2}|[^\\]", raw))
        if len(data) != size:
            raise ValueError("string length")
        return data
    if arr:
        items = split_top(value.strip()[1:-1])
        if len(items) != int(arr.group(1)):
            raise ValueError("array length")
        return b"".join(_image(layout, *_split_typed(it)) for it in items)
    if ty.startswith(("{", "<{", "%")):
        items = split_top(value.strip().strip("<>").strip()[1:-1])
        out = bytearray(size)
        for k, it in enumerate(items):
            fty, fval = _split_typed(it)
            data = _image(layout, fty, fval)
            off = layout.field_offset(ty, k)
            out[off:off + len(data)] = data
        return bytes(out)
    raise ValueError(f"constant of type {ty}")


def module_layout(lines: list[str]) -> Layout:
    return Layout({m.group(1): m.group(2) for m in map(_STRUCT_TYPE.match, lines) if m})


@dataclass(frozen=True)
class ModuleConstants:
    """The module's type layout and the byte image of each immutable integer constant (by name,
    without the @)."""

    layout: Layout
    images: dict[str, bytes]


NO_CONSTANTS = ModuleConstants(Layout({}), {})


def module_constants(lines: list[str]) -> ModuleConstants:
    layout = module_layout(lines)
    return ModuleConstants(layout, constant_images(lines, layout))


def constant_images(lines: list[str], layout: Layout) -> dict[str, bytes]:
    """@name (without the @) -> the byte image of every immutable integer-valued global constant."""
    out = {}
    for line in lines:
        m = _GLOBAL.match(line) if line.startswith("@") else None
        if not m or "externally_initialized" in line:
            continue
        try:
            out[m.group(1)] = _image(layout, *_split_typed(m.group(2)))
        except (ValueError, IndexError):
            continue
    return out


@dataclass(frozen=True)
class TableRead:
    """A load of `width` bytes at byte `offset + sum(value(token) * scale)` of constant `table`
    (each token an index of `bits` bits, read as signed, as getelementptr does)."""

    table: str
    offset: int
    terms: tuple[tuple[str, int, int], ...]      # (index token, bytes per step, index bits)
    width: int

    def address(self, value: Callable[[str], int]) -> int:
        """The byte offset read, given each index token's value."""
        at = self.offset
        for tok, scale, bits in self.terms:
            v = value(tok) & ((1 << bits) - 1)
            at += (v - (1 << bits) if v >> (bits - 1) else v) * scale
        return at


def table_read(defs: dict[str, str], constants: ModuleConstants, load: str) -> TableRead | None:
    """The constant-table read `load` does (through a chain of geps), or None."""
    layout, images = constants.layout, constants.images
    m = re.match(r"^load (i\d+), ptr(?: addrspace\(\d+\))? (%[\w.\-]+|@[\w.$\-]+)", load)
    if not m:
        return None
    try:
        width, _ = layout.size_align(m.group(1))
    except ValueError:
        return None
    ptr, offset, terms = m.group(2), 0, []
    for _ in range(16):
        if ptr.startswith("@"):
            name = ptr[1:]
            return TableRead(name, offset, tuple(terms), width) if name in images else None
        g = _GEP.match(defs.get(ptr, "").split(", !")[0])
        if not g:
            return None
        ty, base, idx = g.group(1), g.group(2), [i.split() for i in g.group(3).split(",")[1:]]
        try:
            size, _ = layout.size_align(ty)
            offset, terms = _gep_offset(layout, ty, size, idx, offset, terms)
        except ValueError:
            return None
        ptr = base
    return None


def _gep_offset(layout: Layout, ty: str, size: int, idx: list[list[str]], offset: int,
                terms: list[tuple[str, int, int]]) -> tuple[int, list[tuple[str, int, int]]]:
    """The byte offset a gep over `ty` adds: the first index scales by the type's size, the next
    ones step into arrays (any index) and structs (constant field numbers)."""
    steps = [(idx[0], size)] if idx else []
    inner = ty
    for typed in idx[1:]:
        arr = re.fullmatch(r"\[(\d+) x (.+)\]", inner)
        if arr:
            inner = arr.group(2)
            steps.append((typed, layout.size_align(inner)[0]))
        elif inner.startswith(("{", "<{", "%")) and re.fullmatch(r"-?\d+", typed[-1]):
            offset += layout.field_offset(inner, int(typed[-1]))
            inner = layout.fields(inner)[int(typed[-1])]
        else:
            raise ValueError("gep index")
    for (ity, tok), scale in steps:
        if re.fullmatch(r"-?\d+", tok):
            offset += int(tok) * scale
        else:
            terms = terms + [(tok, scale, int(ity[1:]))]
    return offset, terms


def read_image(image: bytes, at: int, width: int) -> int:
    """The little-endian integer of `width` bytes at byte `at`; IndexError outside the table."""
    if at < 0 or at + width > len(image):
        raise IndexError(f"table read at byte {at} outside {len(image)} bytes")
    return int.from_bytes(image[at:at + width], "little")
