"""AMDGCN assembler spelling of plan steps: the only place that knows LLVM's printer conventions.

Raw bits live in the plan; this module turns them into text as LLVM prints it (spec §3.5):
BC=1 prints `bound_ctrl:1` (older LLVM and sp3 wrote `bound_ctrl:0` for the same bit before
GFX11), BC=0 prints nothing; 0x150-0x15F is `row_newbcast:n` on gfx90a-class targets and
`row_share:n` on GFX10+ (AMDGPUInstPrinter). Registers are symbolic (v_<id>, s_<id>)."""
from __future__ import annotations

from typing import Any

from ..steps import (Combine, DsBpermute, DsSwizzle, MovDpp8, Permlane16, Permlane16Swap, Permlane16Var,
                    Permlane64, Readfirstlane, Readlane, Select, Step, UpdateDpp, Writelane)
from .dpp import control_kind
from .primitives import PRIMITIVES
from .swizzle import swizzle_mode

COMBINE_MNEMONIC = {"add": "v_add_u32", "mul": "v_mul_lo_u32", "and": "v_and_b32", "or": "v_or_b32",
                    "xor": "v_xor_b32", "umin": "v_min_u32", "umax": "v_max_u32", "smin": "v_min_i32",
                    "smax": "v_max_i32", "fadd": "v_add_f32", "fmul": "v_mul_f32", "fmin": "v_min_f32",
                    "fmax": "v_max_f32"}


def dpp_ctrl_text(ctrl: int, target: Any) -> str:
    kind = control_kind(ctrl)
    if kind is None:
        return f"dpp_ctrl:{ctrl:#x}"
    name = kind[1]
    n = ctrl & 15
    if name == "quad_perm":
        return "quad_perm:[" + ",".join(str((ctrl >> (2 * k)) & 3) for k in range(4)) + "]"
    if name in ("row_shl", "row_shr", "row_ror", "row_xmask"):
        return f"{name}:{n}"
    if name == "row_share":
        return f"row_newbcast:{n}" if target.has("dpp_row_newbcast") else f"row_share:{n}"
    if name.startswith("wave_"):
        return f"{name}:1"
    if name == "row_bcast15":
        return "row_bcast:15"
    if name == "row_bcast31":
        return "row_bcast:31"
    return name


def swizzle_text(offset: int) -> str:
    """LLVM's swizzle() macro forms where one exists, else the raw offset ([S2], [S4])."""
    mode = swizzle_mode(offset)
    if mode == "fft":
        return f"swizzle(FFT,{offset & 31})"
    if mode == "rotate":
        if offset & 31 == 0 and not offset & 0x1800:
            return f"swizzle(ROTATE,{(offset >> 10) & 1},{(offset >> 5) & 31})"
        return f"{offset:#06x}"
    if mode == "quad":
        if offset & 0x7F00 == 0:
            return "swizzle(QUAD_PERM," + ",".join(str((offset >> (2 * k)) & 3) for k in range(4)) + ")"
        return f"{offset:#06x}"
    and_m, or_m, xor_m = offset & 31, (offset >> 5) & 31, (offset >> 10) & 31
    # LLVM's printer prefers the named forms (AMDGPUInstPrinter::printSwizzle): SWAP, REVERSE,
    # BROADCAST, then BITMASK_PERM.
    if and_m == 0x1F and or_m == 0 and xor_m and xor_m & (xor_m - 1) == 0:
        return f"swizzle(SWAP,{xor_m})"
    if and_m == 0x1F and or_m == 0 and xor_m and (xor_m + 1) & xor_m == 0:
        return f"swizzle(REVERSE,{xor_m + 1})"
    group = 32 - and_m if and_m else 32
    if xor_m == 0 and (and_m == 0 or (and_m | (group - 1)) == 0x1F) and group & (group - 1) == 0 \
            and or_m < group and group >= 2:
        return f"swizzle(BROADCAST,{group},{or_m})"
    chars = []
    for bit in range(4, -1, -1):
        a, o, x = (and_m >> bit) & 1, (or_m >> bit) & 1, (xor_m >> bit) & 1
        chars.append({(0, 0, 0): "0", (0, 1, 0): "1", (1, 0, 0): "p", (1, 0, 1): "i"}.get((a, o, x), "?"))
    if "?" in chars:
        return f"{offset:#06x}"
    return 'swizzle(BITMASK_PERM,"' + "".join(chars) + '")'


def _v(ref: str) -> str:
    return {"x": "v_x", "zero": "0", "undef": "v_undef", "identity": "v_identity"}.get(ref, f"v_{ref}")


def step_asm(step: Step, target: Any) -> str:
    """One step as the instruction(s) LLVM would print (register names symbolic); `target` (a
    Target or an ISA record) decides spellings that differ per target (row_newbcast / row_share)."""
    d = f"v_{step.id}"
    if isinstance(step, UpdateDpp):
        mods = [dpp_ctrl_text(step.dpp_ctrl, target), f"row_mask:{step.row_mask:#x}",
                f"bank_mask:{step.bank_mask:#x}"]
        if step.bound_ctrl:
            mods.append("bound_ctrl:1")
        if step.fi:
            mods.append("fi:1")
        text = f"v_mov_b32_dpp {d}, {_v(step.src)} {' '.join(mods)}"
        if step.row_mask != 15 or step.bank_mask != 15 or not step.bound_ctrl:
            text += f"   ; {d} = {_v(step.old)} on lanes not written"     # masked or out-of-range lanes
        return text
    if isinstance(step, MovDpp8):
        sel = ",".join(str((step.sel >> (3 * k)) & 7) for k in range(8))
        return f"v_mov_b32_dpp {d}, {_v(step.src)} dpp8:[{sel}]" + (" fi:1" if step.fi else "")
    if isinstance(step, DsSwizzle):
        return f"ds_swizzle_b32 {d}, {_v(step.src)} offset:{swizzle_text(step.offset)}"
    if isinstance(step, Permlane16Var):
        ops = _op_sel(step.fi, step.bound_ctrl)
        return f"{PRIMITIVES[step.op].mnemonic} {d}, {_v(step.src)}, v_{step.id}_sel{ops}"
    if isinstance(step, Permlane16):
        ops = _op_sel(step.fi, step.bound_ctrl)
        return (f"{PRIMITIVES[step.op].mnemonic} {d}, {_v(step.src)}, {step.sel_lo:#010x}, {step.sel_hi:#010x}{ops}")
    if isinstance(step, Permlane64):
        return f"v_permlane64_b32 {d}, {_v(step.src)}"
    if isinstance(step, Permlane16Swap):
        mods = (" bound_ctrl:1" if step.bound_ctrl else "") + (" fi:1" if step.fi else "")
        return f"{PRIMITIVES[step.op].mnemonic} {_v(step.vdst_old)}, {_v(step.src0_old)}{mods}   ; takes result {step.take}"
    if isinstance(step, Readlane):
        return f"v_readlane_b32 s_{step.id}, {_v(step.src)}, {step.lane}"
    if isinstance(step, Readfirstlane):
        return f"v_readfirstlane_b32 s_{step.id}, {_v(step.src)}"
    if isinstance(step, Writelane):
        return f"v_writelane_b32 {d}, s_{step.value}, {step.lane}   ; other lanes = {_v(step.old)}"
    if isinstance(step, DsBpermute):
        return f"{PRIMITIVES[step.op].mnemonic} {d}, v_{step.id}_addr, {_v(step.src)}   ; addr = lane index << 2"
    if isinstance(step, Select):
        return f"v_cndmask_b32 {d}, {_v(step.b)}, {_v(step.a)}, s[{step.id}_mask] ; mask {step.lanes:#x}"
    if isinstance(step, Combine):
        return f"{COMBINE_MNEMONIC[step.fn]} {d}, {_v(step.a)}, {_v(step.b)}"
    prim = PRIMITIVES.get(step.op)
    if prim is None:
        raise ValueError(f"no assembler spelling for {step.op}")
    # a primitive without its own spelling above: its operands in order, as the table lists them
    return f"{prim.mnemonic} {d}, " + ", ".join(_v(getattr(step, f)) if k == "value" else str(getattr(step, f))
                                                for f, k in prim.operands)


def _op_sel(fi: int, bc: int) -> str:
    return f" op_sel:[{fi},{bc}]" if fi or bc else ""
