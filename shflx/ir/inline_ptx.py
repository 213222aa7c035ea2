"""Inline PTX in LLVM IR, translated for AMD: single `shfl.sync` statements become shuffle markers,
`mov %laneid` the CUDA lane, CUB-style blocks go through `ptxblock`; anything else is an error
naming the instruction and its line."""
from __future__ import annotations

import re

from ..amd.llvm_ir import DECLS
from .ptxblock import PtxBlockError, inrange_ir, translate
from .sites import MARKER
from .text import DBG, declared_names, locations, operand_token, split_args

_ASM = re.compile(r'^(?P<lhs>\s*(?:%[\w.\-]+ = )?)(?:tail )?call (?P<ty>[^"]*?)asm (?:sideeffect )?(?:inteldialect )?'
                  r'"(?P<tmpl>(?:[^"\\]|\\.)*)", "(?P<cons>[^"]*)"\((?P<args>.*)\)(?P<rest>[^()]*)$')
_SHFL_PTX = re.compile(r"^\s*shfl(?P<sync>\.sync)?\.(?P<mode>up|down|bfly|idx)\.b32\s+(?P<ops>[^;]*);?\s*$")
PTX_MODES = {"up": 0, "down": 1, "bfly": 2, "idx": 3}


class InlinePtxError(ValueError):
    """An inline PTX block shflx cannot translate; carries the instruction and the location."""

    def __init__(self, what: str, location: str):
        super().__init__(f"{location}: error: {what}")
        self.what, self.location = what, location


def translate_inline_ptx(ir: str, wave: int = 64) -> str:
    """`asm "shfl.sync.MODE.b32 $0, a, b, c, mask;"` (and the legacy `shfl.MODE.b32 $0, a, b, c;`)
    become shuffle markers; CUB-style blocks go through shflx.ir.ptxblock; any other inline PTX is an
    error naming it and its line."""
    extra_fns: dict[str, str] = {}
    lines = ir.splitlines()
    locs = None
    changed = False
    for k, line in enumerate(lines):
        if " asm " not in line:
            continue
        m = _ASM.match(line)
        if not m:
            continue
        tmpl = m.group("tmpl").replace("\\0A", "\n").replace("\\09", " ")
        tmpl = tmpl.replace("$(", "{").replace("$)", "}").replace("$|", "|").replace("$$", "$")  # LLVM asm escapes
        if locs is None:
            locs = locations(lines)
        dbg = DBG.search(m.group("rest"))
        where = locs.get(dbg.group(1), "?") if dbg else "?"
        instrs = [t.strip() for t in re.split(r"[;\n]", tmpl) if t.strip() and not t.strip().startswith("//")]
        if not any(re.match(r"shfl\b|shfl\.", t) for t in instrs) and not _looks_like_ptx(instrs):
            continue
        if len(instrs) != 1 or "|" in instrs[0]:
            cons = m.group("cons").split(",")
            if sum(c.startswith("=") for c in cons) != 1:
                raise InlinePtxError("inline PTX blocks with several outputs are not supported", where)
            args = [operand_token(a) for a in split_args(m.group("args"))]
            operands: list[str | None] = [None] + args
            try:
                tr = translate([t.strip("{} \t") for t in instrs if t.strip("{} \t")], operands, f"ptx{k}", wave)
            except PtxBlockError as e:
                raise InlinePtxError(f"inline PTX: {e}", where) from None
            res = m.group("lhs").strip().rstrip("=").strip()
            dbg_tail = f", !dbg {dbg.group(1)}" if dbg else ""
            block = [line + dbg_tail if " call " in line else line for line in tr.lines]
            if res:
                ret_float = "float" in m.group("ty")
                block.append(f"  {res} = bitcast i32 {tr.result} to float" if ret_float
                             else f"  {res} = add i32 {tr.result}, 0")
            lines[k] = "\n".join(block)
            for mode in tr.pred_modes:
                extra_fns[mode] = inrange_ir(mode, wave)
            changed = True
            continue
        if _LANEID_PTX.match(instrs[0]) and m.group("lhs").strip():     # cub::LaneId(): the CUDA lane
            lane = _hw_lane_ir(wave, f"%shflx.laneid.{k}")
            lines[k] = "\n".join(lane + [f"{m.group('lhs')}and i32 %shflx.laneid.{k}, 31"])
            changed = True
            continue
        sm = _SHFL_PTX.match(instrs[0] + ";")
        if not sm:
            raise InlinePtxError(f"inline PTX '{instrs[0]}' is not supported", where)
        ops = [o.strip() for o in sm.group("ops").split(",")]
        if "|" in ops[0]:
            raise InlinePtxError(f"inline PTX '{instrs[0]}' with a predicate output is not supported yet", where)
        expected = 5 if sm.group("sync") else 4
        if len(ops) != expected:
            raise InlinePtxError(f"inline PTX '{instrs[0]}': expected {expected} operands", where)
        args = [a.strip() for a in split_args(m.group("args"))]
        def operand(tok: str) -> str:  # noqa: E306
            if re.fullmatch(r"\$\d+", tok):
                idx = int(tok[1:]) - 1
                return operand_token(args[idx])
            if re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)", tok):
                return str(int(tok, 0) - (1 << 32) if int(tok, 0) >= 1 << 31 else int(tok, 0))
            raise InlinePtxError(f"inline PTX operand '{tok}' in '{instrs[0]}' is not supported", where)
        if ops[0] != "$0":
            raise InlinePtxError(f"inline PTX '{instrs[0]}': the result must be the asm output $0", where)
        a, b, c = operand(ops[1]), operand(ops[2]), operand(ops[3])
        mask = operand(ops[4]) if sm.group("sync") else "-1"
        call = (f"{m.group('lhs')}call i32 @{MARKER}(i32 {PTX_MODES[sm.group('mode')]}, i32 {mask}, i32 {a}, "
                f"i32 {b}, i32 {c}){', !dbg ' + dbg.group(1) if dbg else ''}")
        lines[k] = call
        changed = True
    if not changed:
        return ir
    text = "\n".join(lines) + "\n"
    declared = declared_names(text)
    if MARKER not in declared:
        text += f"\ndeclare i32 @{MARKER}(i32, i32, i32, i32, i32)\n"
    for key in ("mbcnt", "fmin", "fmax", "smin", "smax", "umin", "umax"):   # what the translations call
        for decl in DECLS[key].splitlines():
            if re.search(r"@([\w.]+)\(", decl).group(1) not in declared:
                text += decl + "\n"
    return text + "\n" + "\n".join(extra_fns.values())


_LANEID_PTX = re.compile(r"^mov\.(u32|b32|s32)\s+\$0\s*,\s*%laneid$")


def _hw_lane_ir(wave: int, name: str) -> list[str]:
    """IR defining `name` = the lane in the hardware wave (mbcnt), as the prelude's __shflx_lane."""
    if wave == 32:
        return [f"  {name} = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)"]
    return [f"  {name}.lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)",
            f"  {name} = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 {name}.lo)"]


def _looks_like_ptx(instrs: list[str]) -> bool:
    return any(re.match(r"(mov|add|sub|setp|selp|ld|st|cvt|vote|activemask|redux|match|bar)\.", t) for t in instrs)
