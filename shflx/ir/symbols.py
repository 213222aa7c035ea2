"""Kernel symbols as nvcc names them, so host code that finds a kernel by name finds it.

clang mangles a `static __global__` kernel with Itanium's internal-linkage marker (`_ZL1kPi`);
nvcc keeps the external spelling (`_Z1kPi`) for the same kernel (checked with nvcc 13.0: `.entry
_Z1kPi`). A CUDA file's host code (`cuModuleGetFunction(m, "_Z1kPi")`, a launcher table) uses
nvcc's name, so the device module is given it. Kernels in an anonymous namespace are not renamed:
nvcc names them after a hash of the file (`_ZN36_GLOBAL__N__<hash>...`) that is not reproducible
outside nvcc."""
from __future__ import annotations

import re

_KERNEL_DEF = re.compile(r"^define [^@]*\b(?:ptx_kernel|amdgpu_kernel)\b[^@]*@(_Z[\w.$]+)\(", re.M)


def external_spelling(name: str) -> str | None:
    """`name` without Itanium's internal-linkage `L` before its (last) unqualified name, or None if
    it has none: `_ZL1kPi` -> `_Z1kPi`, `_ZN2nsL1kEPf` -> `_ZN2ns1kEPf` (nvcc 13.0 spells both so).
    Only plain `<length><identifier>` scopes are walked; anything else is left as clang wrote it."""
    if name.startswith("_ZL") and name[3:4].isdigit():
        return "_Z" + name[3:]
    if not name.startswith("_ZN"):
        return None
    k = 3
    while k < len(name):
        if name[k] == "L" and name[k + 1: k + 2].isdigit():
            return name[:k] + name[k + 1:]
        m = re.match(r"\d+", name[k:])
        if m is None:
            return None
        k += len(m.group(0)) + int(m.group(0))
    return None


def nvcc_kernel_names(ir: str) -> str:
    """`ir` with each internal-linkage kernel `@_ZL<name>` renamed `@_Z<name>` (every reference,
    its comdat and its debug-info linkage name too), unless that name is already taken."""
    for old in _KERNEL_DEF.findall(ir):
        new = external_spelling(old)
        if new is None or re.search(rf"[@$]{re.escape(new)}(?![\w.$])", ir):
            continue
        ir = re.sub(rf"([@$]){re.escape(old)}(?![\w.$])", rf"\g<1>{new}", ir)   # symbol and its comdat
        ir = ir.replace(f'linkageName: "{old}"', f'linkageName: "{new}"')
    return ir
