"""MessagePack, the subset LLVM writes in an AMDGPU code object's metadata note
(https://github.com/msgpack/msgpack/blob/master/spec.md; LLVM's AMDGPUUsage, "Code Object V3
Metadata" and later): read into Python values, and the container headers written back when
codegen.notes joins the notes of several objects (their elements are copied as bytes, never
re-encoded). msgpack is not a shflx dependency for this much."""
from __future__ import annotations

import struct
from typing import Any


class Reader:
    """Decoder for the MessagePack subset in AMDGPU metadata: nil, bool, ints, floats, str, bin,
    arrays and maps (https://github.com/msgpack/msgpack/blob/master/spec.md)."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def read_all(self) -> Any:
        value = self.read()
        if self.pos != len(self.data):
            raise ValueError("trailing bytes after the metadata map")
        return value

    def _take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ValueError("truncated msgpack")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def _unpack(self, fmt: str) -> Any:
        return struct.unpack(">" + fmt, self._take(struct.calcsize(">" + fmt)))[0]

    def read(self) -> Any:
        b = self._take(1)[0]
        if b <= 0x7F:
            return b
        if b >= 0xE0:
            return b - 0x100
        if 0x80 <= b <= 0x8F:
            return self._map(b & 0x0F)
        if 0x90 <= b <= 0x9F:
            return [self.read() for _ in range(b & 0x0F)]
        if 0xA0 <= b <= 0xBF:
            return self._take(b & 0x1F).decode()
        fixed = {0xC0: None, 0xC2: False, 0xC3: True}
        if b in fixed:
            return fixed[b]
        sized = {0xC4: ("B", "bin"), 0xC5: ("H", "bin"), 0xC6: ("I", "bin"),
                 0xD9: ("B", "str"), 0xDA: ("H", "str"), 0xDB: ("I", "str"),
                 0xDC: ("H", "array"), 0xDD: ("I", "array"), 0xDE: ("H", "map"), 0xDF: ("I", "map")}
        if b in sized:
            fmt, kind = sized[b]
            n = self._unpack(fmt)
            if kind == "bin":
                return self._take(n)
            if kind == "str":
                return self._take(n).decode()
            if kind == "array":
                return [self.read() for _ in range(n)]
            return self._map(n)
        scalars = {0xCA: "f", 0xCB: "d", 0xCC: "B", 0xCD: "H", 0xCE: "I", 0xCF: "Q",
                   0xD0: "b", 0xD1: "h", 0xD2: "i", 0xD3: "q"}
        if b in scalars:
            return self._unpack(scalars[b])
        raise ValueError(f"msgpack type byte {b:#04x} is outside the AMDGPU metadata subset")

    def _map(self, n: int) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for _ in range(n):
            key = self.read()
            out[key if not isinstance(key, (list, dict)) else repr(key)] = self.read()
        return out

    def element_spans(self) -> list[tuple[int, int]]:
        """(start, end) of each element of the container at the current position (an array's
        values; a map's keys and values in turn), the position left after it."""
        b = self._take(1)[0]
        if 0x80 <= b <= 0x8F or 0x90 <= b <= 0x9F:
            n = (b & 0x0F) * (2 if b <= 0x8F else 1)
        elif b in (0xDC, 0xDE):
            n = self._unpack("H") * (2 if b == 0xDE else 1)
        elif b in (0xDD, 0xDF):
            n = self._unpack("I") * (2 if b == 0xDF else 1)
        else:
            raise ValueError(f"msgpack type byte {b:#04x} is not an array or a map")
        spans = []
        for _ in range(n):
            start = self.pos
            self.read()
            spans.append((start, self.pos))
        return spans


def map_header(n: int) -> bytes:
    """The header of a map of `n` key/value pairs."""
    return bytes([0x80 | n]) if n < 16 else struct.pack(">BH", 0xDE, n) if n < 1 << 16 else struct.pack(">BI", 0xDF, n)


def array_header(n: int) -> bytes:
    """The header of an array of `n` values."""
    return bytes([0x90 | n]) if n < 16 else struct.pack(">BH", 0xDC, n) if n < 1 << 16 else struct.pack(">BI", 0xDD, n)
