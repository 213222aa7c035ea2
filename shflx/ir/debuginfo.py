"""-g0: a module without debug info. shflx reads line tables to name every site, so the front end
always emits them; `-g0` removes them from the output only (after recognition and lowering)."""
from __future__ import annotations

import re

_ATTACHMENT = re.compile(r",? !dbg ![0-9]+")
_DROPPED = re.compile(r"^\s*(?:#dbg_\w+\(|call void @llvm\.dbg\.\w+\(|!llvm\.dbg\.cu = )")
_LOCATION = re.compile(r"^!(\d+) = !DILocation\(")
_TUPLE = re.compile(r"^(?P<head>![0-9]+ = (?:distinct )?!\{)(?P<ops>![0-9]+(?:, ![0-9]+)*)\}$")   # only node operands


def strip_debug_info(ir: str) -> str:
    """`ir` with every !dbg attachment, debug record and intrinsic call, and llvm.dbg.cu removed, and
    the source locations a loop's metadata names (`!llvm.loop !N`, `N = distinct !{!N, !start,
    !end, ...}`: LLVM's loop start/end DILocations) taken out of it, as LLVM's StripDebugInfo does:
    a location left there still reaches its compile unit, which then is not listed in llvm.dbg.cu,
    and LLVM warns and drops the module's debug info. The other nodes stay (unreferenced, they
    emit nothing)."""
    lines = ir.splitlines()
    locations = {m.group(1) for line in lines if (m := _LOCATION.match(line))}
    out = []
    for line in lines:
        if _DROPPED.match(line):
            continue
        if line.startswith("!"):
            tup = _TUPLE.match(line)
            if tup and locations:
                kept = [op for op in tup.group("ops").split(", ") if op[1:] not in locations]
                line = f"{tup.group('head')}{', '.join(kept)}}}"
            out.append(line)
        else:
            out.append(_ATTACHMENT.sub("", line) if "!dbg" in line else line)
    return "\n".join(out) + "\n"
