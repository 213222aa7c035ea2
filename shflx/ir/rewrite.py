"""Rewriting recognized shuffle sites in LLVM IR text: each marker call becomes a call to the
function that implements its lowering; the functions and any missing declarations are appended.

Pure text in, text out; the caller verifies the result with LLVM (no marker may survive)."""
from __future__ import annotations

import re

from ..amd.llvm_ir import DECLS
from .sites import MARKER, Site
from .text import declared_names

INLINE_ATTRS = "alwaysinline convergent nounwind"


# an argument written with its type; a value alone may be a constant expression (`ptrtoint (...)`)
_TYPED = re.compile(r"(?:i\d+|half|bfloat|float|double|ptr)\b")


def replace_call(line: str, site: Site, callee: str, args: list[str]) -> str:
    """The marker call on `line`, turned into `call i32 @callee(args)` (its !dbg kept); an argument
    is an i32 value unless it is written with its type (`i1 %p`)."""
    dbg = re.search(r"(, !dbg ![0-9]+)", line)
    indent = line[: len(line) - len(line.lstrip())]
    call = ", ".join(a if _TYPED.match(a.strip()) else f"i32 {a}" for a in args)
    return f"{indent}{site.result} = call i32 @{callee}({call}){dbg.group(1) if dbg else ''}"


def rewrite(ir: str, edits: dict[int, str], functions: list[str], needed: set[str], final: bool = True) -> str:
    """Apply line edits and append functions and missing declarations; `final` also drops the
    marker declaration and checks that no marker call is left."""
    lines = ir.splitlines()
    for idx, new in edits.items():
        lines[idx] = new
    text = "\n".join(line for line in lines if not (final and re.match(rf"^declare .*@{MARKER}\(", line)))
    declared = declared_names(text)
    decls = []
    for key in sorted(needed):
        for decl in DECLS[key].splitlines():
            name = re.search(r"@([\w.$]+)\(", decl).group(1)
            if name not in declared:
                decls.append(decl)
                declared.add(name)
    out = text + "\n\n; ---- shflx lowerings ----\n" + "\n".join(decls) + "\n\n" + "\n".join(functions)
    if final and re.search(rf"@{MARKER}\b", out):
        raise RuntimeError("internal error: a shuffle marker survived the rewrite")
    return out
