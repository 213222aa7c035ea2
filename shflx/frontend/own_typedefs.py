"""A file's own `typedef unsigned long long uint64_t;` read as nvcc reads it, on AMD targets.

nvcc's implicit headers declare no uint8_t ... uint64_t (glibc's <sys/types.h>, which its <stdlib.h>
brings, has only the signed intN_t), so the typedef compiles there and uint64_t is the file's
`unsigned long long` everywhere (kernel names mangle it `y`). The AMD device pass's C++ library,
libc++, declares them in every file through headers nvcc also brings (<math.h>, <cstdlib>:
<type_traits> includes <cstdint>), as glibc's `unsigned long`, and clang stops at the file's
typedef. The file's meaning is kept by giving the library's typedef (the one clang's note names as
the previous definition, in a header) the file's type: one name, one type, the file's, in every
header after it as in the file. Only where the file's type is unsigned and of the name's width, so
no library code sees uint32_t of 64 bits or a signed uint64_t; a second round gives the layer's own
earlier typedef (shflx_stdint.h) the same type. (sm_NN compiles the file as nvcc does without this:
cuda_sdk.CUDA_H_FIRST.)"""
from __future__ import annotations

import re

# the x86_64 Linux widths of the unsigned types clang names in its diagnostic
UNSIGNED_BITS = {"unsigned char": 8, "unsigned short": 16, "unsigned int": 32, "unsigned long": 64,
                 "unsigned long long": 64}
NAME_BITS = {"uint8_t": 8, "uint16_t": 16, "uint32_t": 32, "uint64_t": 64}
CLASH = re.compile(r"typedef redefinition with different types \('(?P<mine>[^']+)' vs '[^']+'(?: \(aka '[^']+'\))?\)")
_TYPEDEF = re.compile(rb"\btypedef\s+(?P<type>\w+(?:\s+\w+)*?)\s+(?P<name>uint(?:8|16|32|64)_t)\s*;")


def retyped(mine: str, previous_line: bytes) -> tuple[int, int, bytes, str] | None:
    """(start, end, new text, name) in `previous_line` (the typedef clang's note names) that give it
    the file's type `mine`, or None where the rule does not apply (see the module docstring)."""
    m = _TYPEDEF.search(previous_line)
    if not m or UNSIGNED_BITS.get(" ".join(mine.split())) != NAME_BITS[m["name"].decode()]:
        return None
    return m.start("type"), m.end("type"), mine.encode(), m["name"].decode()
