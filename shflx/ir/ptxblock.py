"""Translating CUB-style inline PTX blocks into LLVM IR around shuffle markers.

CUB, moderngpu and others write warp steps as one asm block, e.g.
    { .reg .s32 r0; .reg .pred p; shfl.sync.up.b32 r0|p, $1, $2, $3, $4; @p add.s32 r0, r0, $1;
      mov.s32 $0, r0; }
The subset such blocks use is translated instruction by instruction (real_world_patterns.md C1, C7,
C8): shfl / shfl.sync (value -> a shuffle marker, predicate -> the in-range test of the PTX
pseudocode), mov, add/sub/min/max/and/or/xor, setp, selp, and @p / @!p guards. Anything else is
an error naming the instruction. Registers are SSA values; a guarded write is a select."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..amd import general

MODES = {"up": 0, "down": 1, "bfly": 2, "idx": 3}
INT_OPS = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor"}
CMP = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge",
       "lo": "ult", "ls": "ule", "hi": "ugt", "hs": "uge"}
FCMP = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}


class PtxBlockError(ValueError):
    pass


@dataclass
class Translation:
    lines: list[str]
    result: str                                   # SSA value of the asm's output $0
    pred_modes: set[str] = field(default_factory=set)


def translate(instrs: list[str], operands: list[str], prefix: str, wave: int) -> Translation:
    """IR lines for a PTX block; `operands[k]` is the IR value of asm operand $k (None for outputs)."""
    regs: dict[str, str] = {}
    preds: dict[str, str] = {}
    out: list[str] = []
    outputs: dict[int, str] = {}
    counter = [0]
    used_modes: set[str] = set()

    def fresh() -> str:
        counter[0] += 1
        return f"%{prefix}.{counter[0]}"

    def value(tok: str) -> str:
        tok = tok.strip()
        if re.fullmatch(r"\$\d+", tok):
            k = int(tok[1:])
            if k in outputs:
                return outputs[k]
            if operands[k] is None:
                return "undef"
            return operands[k]
        if tok in regs:
            return regs[tok]
        if re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)", tok):
            v = int(tok, 0)
            return str(v - (1 << 32) if v >= 1 << 31 else v)
        if tok.lower().startswith("0f") and len(tok) == 10:           # PTX hex float literal
            return str(int(tok[2:], 16) - (1 << 32) if int(tok[2:], 16) >= 1 << 31 else int(tok[2:], 16))
        raise PtxBlockError(f"unknown operand '{tok}'")

    def pred_value(tok: str) -> tuple[str, bool]:
        neg = tok.startswith("!")
        name = tok.lstrip("!")
        if name not in preds:
            raise PtxBlockError(f"unknown predicate '{tok}'")
        return preds[name], neg

    def write(dest: str, val: str, guard: tuple[str, bool] | None) -> None:
        if guard is not None:
            p, neg = guard
            old = value(dest) if (dest in regs or dest.startswith("$")) else "undef"
            if old.startswith("$"):
                old = "undef"
            v = fresh()
            out.append(f"  {v} = select i1 {p}, i32 {old if neg else val}, i32 {val if neg else old}")
            val = v
        if re.fullmatch(r"\$\d+", dest):
            outputs[int(dest[1:])] = val
        else:
            regs[dest] = val

    def f32(v: str) -> str:
        t = fresh()
        out.append(f"  {t} = bitcast i32 {v} to float")
        return t

    for raw in instrs:
        ins = raw.strip()
        if ins.startswith(".reg"):
            m = re.match(r"\.reg\s+\.(\w+)\s+(.+)$", ins)
            if not m:
                raise PtxBlockError(f"cannot read '{ins}'")
            for name in (n.strip() for n in m.group(2).split(",")):
                if m.group(1) == "pred":
                    preds[name] = "false"
                else:
                    regs[name] = "undef"
            continue
        guard = None
        g = re.match(r"@(!?\w+)\s+(.*)$", ins)
        if g:
            guard = pred_value(g.group(1))
            ins = g.group(2)
        m = re.match(r"([\w.]+)\s*(.*)$", ins)
        if not m:
            raise PtxBlockError(f"cannot read '{raw.strip()}'")
        opcode, rest = m.group(1), m.group(2)
        ops = [o.strip() for o in rest.split(",")] if rest else []
        parts = opcode.split(".")
        if parts[0] == "shfl":
            sync = len(parts) > 1 and parts[1] == "sync"
            mode = parts[2] if sync else parts[1]
            if mode not in MODES or len(ops) != (5 if sync else 4):
                raise PtxBlockError(f"unsupported form '{raw.strip()}'")
            dest, _, pdest = ops[0].partition("|")
            a, b, c = value(ops[1]), value(ops[2]), value(ops[3])
            mask = value(ops[4]) if sync else "-1"
            v = fresh()
            out.append(f"  {v} = call i32 @__shflx_shfl_sync(i32 {MODES[mode]}, i32 {mask}, i32 {a}, i32 {b}, i32 {c})")
            write(dest.strip(), v, guard)
            if pdest:
                p = fresh()
                out.append(f"  {p} = call i1 @shflx.inrange.{mode}(i32 {b}, i32 {c})")
                used_modes.add(mode)
                preds[pdest.strip()] = p
        elif parts[0] == "mov":
            write(ops[0], value(ops[1]), guard)
        elif parts[0] in INT_OPS or parts[0] in ("min", "max"):
            ty = parts[-1]
            a, b = value(ops[1]), value(ops[2])
            v = fresh()
            if ty == "f32":
                fa, fb = f32(a), f32(b)
                fop = {"add": "fadd", "sub": "fsub"}.get(parts[0])
                t = fresh()
                if fop:
                    out.append(f"  {t} = {fop} float {fa}, {fb}")
                elif parts[0] in ("min", "max"):
                    out.append(f"  {t} = call float @llvm.{'minnum' if parts[0] == 'min' else 'maxnum'}.f32(float {fa}, float {fb})")
                else:
                    raise PtxBlockError(f"unsupported '{raw.strip()}'")
                out.append(f"  {v} = bitcast float {t} to i32")
            elif parts[0] in ("min", "max"):
                kind = ("s" if ty.startswith("s") else "u") + parts[0]
                out.append(f"  {v} = call i32 @llvm.{kind}.i32(i32 {a}, i32 {b})")
            else:
                out.append(f"  {v} = {INT_OPS[parts[0]]} i32 {a}, {b}")
            write(ops[0], v, guard)
        elif parts[0] == "setp":
            cmp, ty = parts[1], parts[-1]
            a, b = value(ops[1]), value(ops[2])
            p = fresh()
            if ty == "f32":
                fa, fb = f32(a), f32(b)
                out.append(f"  {p} = fcmp {FCMP[cmp]} float {fa}, {fb}")
            else:
                pred = CMP[cmp]
                if ty.startswith("u") and pred.startswith("s"):
                    pred = "u" + pred[1:]
                out.append(f"  {p} = icmp {pred} i32 {a}, {b}")
            preds[ops[0]] = p
        elif parts[0] == "selp":
            p, neg = pred_value(ops[3])
            v = fresh()
            a, b = value(ops[1]), value(ops[2])
            out.append(f"  {v} = select i1 {p}, i32 {b if neg else a}, i32 {a if neg else b}")
            write(ops[0], v, guard)
        else:
            raise PtxBlockError(f"PTX instruction '{raw.strip()}' is not supported in inline asm")
    if 0 not in outputs:
        raise PtxBlockError("the block never writes its output $0")
    return Translation(out, outputs[0], used_modes)


def inrange_ir(mode: str, wave: int) -> str:
    """`i1 @shflx.inrange.MODE(i32 %b, i32 %c)`: the predicate output p of shfl.sync (§2.3)."""
    lines = general.lane_prologue(wave) + general.render(general.COMMON + general.BY_MODE[mode])
    return (f"define internal i1 @shflx.inrange.{mode}(i32 %b, i32 %c) alwaysinline nounwind {{\nentry:\n"
            + "\n".join(lines) + "\n  ret i1 %ok\n}\n")
