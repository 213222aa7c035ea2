"""clang diagnostics for what nvcc also refuses or compiles differently, said as shflx's one-line
error: `file:line:col: error: shflx does not support 'X' on <vendor> targets (what is missing)`.

- A kernel launched from device code (dynamic parallelism): nvcc needs `-rdc=true` and links the
  device runtime, cudadevrt, with nvlink (CUDA C++ Programming Guide, "CUDA Dynamic Parallelism",
  "Compilation and Linking"). On NVIDIA targets shflx compiles it with -fgpu-rdc (a relocatable
  object for that link), and clang's "requires -fgpu-rdc" is said with the link it then needs; AMD
  GPUs have no device-side launch at all (clang: "device-side kernel call/launch is not
  supported").
- A file's own typedef of uint8_t ... uint64_t of another width or signedness than the name says
  (`typedef unsigned long uint32_t;`, 64 bits here): nvcc's implicit headers declare no such name
  (glibc's <sys/types.h>, which its <stdlib.h> brings, has only the signed int8_t ... int64_t), so
  nvcc compiles it. On AMD the device pass's C++ library, libc++, declares them in every file
  (<math.h>, <cstdlib>: <type_traits> includes <cstdint>); a typedef of the name's width and
  unsigned is read as nvcc reads it (own_typedefs.py), but library code must not see uint32_t of 64
  bits or a signed uint64_t, so this one is an error. (sm_NN compiles it as nvcc does:
  cuda_sdk.CUDA_H_FIRST.)
- A program's own function with the name of one of clang's builtins that GCC, nvcc's host compiler,
  does not have (`__rdtsc`; MSVC's `__debugbreak`, which clang declares under the device pass's
  -fms-extensions): the device pass compiles again with the program's name renamed by a
  macro in every file (`builtin_clashes`; clang's own builtin is then never named, and a device pass
  needs no x86 builtin), noted in the report; named, with the builtin's type, if that still fails.
- A function defined with another execution space than its declaration (`Lock(int *p);` in the
  class, `__device__ Lock::Lock(int *p) {...}` after it): nvcc compiles it with the definition's, clang
  reads two functions (an overload it refuses, or an out-of-line definition of nothing); one line at
  the definition, with the declaration's place.
- C++ before 17 (`--std=c++14`, FasterTransformer's CMake) with a header that reads CCCL: CCCL 3 (the
  CUB, Thrust and libcu++ of CUDA 13, which CUDA 13's cooperative_groups.h reads too) stops it with an
  #error (cuda/std/__internal/cpp_dialect.h, cub/util_cpp_dialect.cuh), as nvcc 13 does. Said once,
  at the program's innermost #include that led there."""
from __future__ import annotations

import re
from pathlib import Path

from . import own_typedefs
from .nvcc_syntax import NOTE_PREFIX

_DEVICE_LAUNCH = re.compile(r"^(?P<where>.+?:\d+:\d+): error: (?:kernel launch from __device__ or __global__ "
                            r"function requires relocatable device code.*|device-side kernel call/launch is not "
                            r"supported)$")
_TYPEDEF_CLASH = re.compile(r"^(?P<where>(?P<file>.+?):(?P<line>\d+):(?P<col>\d+)): error: typedef redefinition "
                            r"with different types \('(?P<mine>[^']+)' vs '[^']+'(?: \(aka '(?P<lib>[^']+)'\))?\)$")
# A program's own function named as one of clang's builtins that GCC lacks (VanitySearch's and
# Kangaroo's `static uint64_t __rdtsc()`; clang's x86 builtin is `unsigned long long __rdtsc()`, which
# the device pass also knows through its host triple): GCC compiles it, clang refuses the
# redeclaration whatever its error says, and notes the builtin at the same place.
_ERROR = re.compile(r"^(?P<where>.+?:\d+:\d+): error: ")
# (clang 15, Debian's hipcc, prints the type as a number: "is a builtin with type 1")
_BUILTIN_NOTE = re.compile(r"^(?P<where>.+?:\d+:\d+): note: '(?P<name>\w+)' is a builtin with type "
                           r"(?:'(?P<type>[^']+)'|\S+)$")
# ... and one that clang declares implicitly only under -fms-extensions, which the device pass uses:
# MSVC's intrinsics, `__device__ void __debugbreak()` (NVIDIA/warp's builtin.h); clang's builtin is
# __host__ __device__, so the program's is "cannot overload" it (_SPACE_OVERLOAD, below), with the
# previous declaration "here": at the program's own line, where no declaration of the program's precedes it
_PREVIOUS = re.compile(r"^(?P<where>.+?:\d+:\d+): note: previous declaration is here$")
# A function declared with one execution space and defined with another (cudahandbook's
# spinlockReduction.cu: `cudaSpinlock(int *p);` in the class, `inline __device__ cudaSpinlock::cudaSpinlock(int *p)`
# after it): nvcc compiles the function with the definition's; clang reads two different functions,
# an overload it refuses or an out-of-line definition of nothing. Said as one line at the definition.
_SPACE_OVERLOAD = re.compile(r"^(?P<where>.+?:\d+:\d+): error: (?P<new>__(?:host|device|global)__(?: __device__)?) "
                             r"function '(?P<name>[^']+)' cannot overload (?P<old>__(?:host|device)__(?: __device__)?) "
                             r"function '(?P=name)'$")
_OUT_OF_LINE = re.compile(r"^(?P<where>(?P<file>.+?):(?P<line>\d+):\d+): error: out-of-line definition of "
                          r"'(?P<name>[\w~]+)' does not match any declaration in '(?P<cls>[\w:]+)'$")
_NEARLY = re.compile(r"^(?P<where>(?P<file>.+?):(?P<line>\d+):\d+): note: member declaration nearly matches$")
_WHY_NOT = re.compile(r": note: (?:type of \d+\w* parameter|member declaration does not match because)")
_SPACES = re.compile(r"\b__(?:host|device|global)__\b")
# the <stdint.h> names nvcc's implicit headers leave undeclared (see the module docstring)
NOT_IMPLICIT_IN_NVCC = tuple(own_typedefs.NAME_BITS)


RENAMED = "__shflx_program_"               # the prefix a clashing name of the program is given


def builtin_clashes(stderr: str) -> list[str]:
    """The names of clang builtins that the program declares again, from one run's diagnostics."""
    lines = stderr.splitlines()
    found = []
    for k, line in enumerate(lines):
        m = _ERROR.match(line)
        b = next((b for b in map(_BUILTIN_NOTE.match, lines[k + 1:k + 8]) if b and m and b["where"] == m["where"]), None)
        if b and b["name"] not in found:
            found.append(b["name"])
        o = _SPACE_OVERLOAD.match(line)
        if o and o["old"] == "__host__ __device__" and o["name"].isidentifier() and o["name"] not in found and any(
                n and n["where"] == o["where"] for n in map(_PREVIOUS.match, lines[k + 1:k + 8])):
            found.append(o["name"])
    return found


def renamed_note(name: str) -> str:
    return (f"{NOTE_PREFIX}the program's own '{name}' is compiled as '{RENAMED}{name}' (clang, shflx's front end, "
            "has a builtin of that name; GCC, nvcc's host compiler, does not)")


def said_by_shflx(line: str, vendor: str, after: list[str] = ()) -> str | None:
    """shflx's error for one of clang's diagnostic lines (`after`: the lines that follow it), or None
    where clang's stands."""
    m = _ERROR.match(line)
    builtin = next((b for b in map(_BUILTIN_NOTE.match, after) if b and m and b["where"] == m["where"]), None)
    if builtin:
        of_type = f" of type '{builtin['type']}'" if builtin["type"] else ""
        return (f"{m['where']}: error: shflx does not support '{builtin['name']}' declared by the program on "
                f"{vendor} targets (clang, shflx's front end, declares it as a builtin{of_type}; "
                "GCC, nvcc's host compiler, does not: give the program's function another name)")
    m = _DEVICE_LAUNCH.match(line)
    if m and vendor == "NVIDIA":
        return (f"{m['where']}: error: a kernel launch from device code (dynamic parallelism) needs relocatable "
                "device code: compile with -fgpu-rdc (nvcc's -rdc=true) and link the object with NVIDIA's device "
                "runtime library, cudadevrt (nvlink)")
    if m:
        return (f"{m['where']}: error: shflx does not support 'kernel launch from device code' on AMD targets "
                "(AMD GPUs have no device-side kernel launch)")
    said = _execution_space_redeclared(line, vendor, after)
    if said:
        return said
    m = _TYPEDEF_CLASH.match(line)
    if m and vendor == "AMD":
        name = _name_at(Path(m["file"]), int(m["line"]), int(m["col"]))
        if name in NOT_IMPLICIT_IN_NVCC:
            return (f"{m['where']}: error: shflx does not support 'typedef {m['mine']} {name}' on AMD targets (the "
                    f"C++ library of the AMD device pass, libc++, declares {name} as '{m['lib'] or 'another type'}' in "
                    f"every file, where nvcc's implicit headers do not, and its code needs {name} of "
                    f"{own_typedefs.NAME_BITS[name]} bits, unsigned; include <stdint.h> in place of the typedef)")
    return None


_CCCL_DIALECT = re.compile(r"^.+?:\d+:\d+: error: (?P<lib>libcu\+\+|CUB|Thrust) requires at least C\+\+ ?17\b")


def cccl_dialect(line: str, frames: list[str], vendor: str, toolkit: tuple[str, ...]) -> str | None:
    """shflx's error for CCCL 3's C++17 #error, at the innermost #include site (`frames`, file:line:col
    from outermost to innermost) outside the `toolkit` directories; None for any other line."""
    m = _CCCL_DIALECT.match(line)
    site = next((f for f in reversed(frames) if not f.startswith(toolkit)), None)
    if not m or site is None:
        return None
    return (f"{site}: error: shflx does not support C++ before C++17 with CUDA 13's CCCL on {vendor} targets "
            f"({m['lib']}, which this #include reads, requires C++17, as nvcc 13 does: compile with -std=c++17)")


def _execution_space_redeclared(line: str, vendor: str, after: list[str]) -> str | None:
    """The definition of a function declared with another execution space (see _SPACE_OVERLOAD), or None."""
    why = ("nvcc compiles the function with the definition's; clang, shflx's front end, reads two functions: "
           "give the declaration the same execution space)")
    m = _SPACE_OVERLOAD.match(line)
    previous = next((p for p in map(_PREVIOUS.match, after) if p), None)
    if m and previous and previous["where"] != m["where"]:
        return (f"{m['where']}: error: shflx does not support '{m['new']}' on the definition of '{m['name']}' declared "
                f"{m['old']} at {previous['where']} on {vendor} targets ({why}")
    m = _OUT_OF_LINE.match(line)
    nearly = next((n for n in map(_NEARLY.match, after) if n), None)
    if not m or not nearly or any(_WHY_NOT.search(a) for a in after if not _ERROR.match(a)):
        return None
    spaces = _SPACES.findall(_head_of(Path(m["file"]), int(m["line"])))
    declared = _SPACES.findall(_line_of(Path(nearly["file"]), int(nearly["line"])))
    if not spaces or declared:
        return None
    return (f"{m['where']}: error: shflx does not support '{' '.join(spaces)}' on the out-of-line definition of "
            f"'{m['cls']}::{m['name']}' declared without it at {nearly['where']} on {vendor} targets ({why}")


def _line_of(path: Path, line: int) -> str:
    try:
        return path.read_text(errors="replace").splitlines()[line - 1]
    except (OSError, IndexError):
        return ""


def _head_of(path: Path, line: int) -> str:
    """The definition's head: its line and those above it back to the end of the previous declaration."""
    try:
        lines = path.read_text(errors="replace").splitlines()[:line]
    except OSError:
        return ""
    head = [lines[-1]] if lines else []
    for text in reversed(lines[:-1][-4:]):
        if text.rstrip().endswith((";", "}", "{")) or text.lstrip().startswith("#"):
            break
        head.insert(0, text)
    return "\n".join(head)


def _name_at(path: Path, line: int, col: int) -> str | None:
    """The identifier at line:col of `path` (1-based), or None."""
    try:
        text = path.read_text(errors="replace").splitlines()[line - 1]
    except (OSError, IndexError):
        return None
    m = re.match(r"\w+", text[col - 1:]) if col >= 1 else None
    return m.group(0) if m else None
