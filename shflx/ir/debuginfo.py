"""-g0: a module without debug info. shflx reads line tables to name every site, so the front end
always emits them; `-g0` removes them from the output only (after recognition and lowering)."""
from __future__ import annotations

import re

_ATTACHMENT = re.compile(r",? !dbg ![0-9]+")
_DROPPED = re.compile(r"^\s*(?:#dbg_\w+\(|call void @llvm\.dbg\.\w+\(|!llvm\.dbg\.cu = )")


def strip_debug_info(ir: str) -> str:
    """`ir` with every !dbg attachment, debug record and intrinsic call, and llvm.dbg.cu removed; the
    metadata nodes they pointed to stay (unreferenced, they emit nothing)."""
    out = []
    for line in ir.splitlines():
        if _DROPPED.match(line):
            continue
        out.append(_ATTACHMENT.sub("", line) if "!dbg" in line and not line.startswith("!") else line)
    return "\n".join(out) + "\n"
