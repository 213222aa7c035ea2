"""v_permlane16/x16 (§7), permlane64 (§8), permlane16/x16.var (§9), permlane16/32.swap (§10).

All are VALU ops that cannot be folded into a consumer (ACO: "v_permlane can't be folded into
valu instructions"). permlane16/x16 never cross a 32-lane half; permlane64 and permlane32.swap
exist to do exactly that."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..lanefn import NUMPY
from ..lanes import OPEN, UNDEF
from .context import StepContext
from .gather import Gather, dpp_write_rule


def permlane16_select(sel_lo: Any, sel_hi: Any, i: Any, o: Any = NUMPY) -> Any:
    """sel(k) = (({sel_hi, sel_lo}) >> 4k) & 15 for k = i & 15 ([S18], [S22])."""
    k = i & 15
    lo = (sel_lo >> ((k & 7) * 4)) & 15
    hi = (sel_hi >> ((k & 7) * 4)) & 15
    return o.where(k < 8, lo, hi)


def permlane_source(cross: bool, sel: Any, i: Any) -> Any:
    """permlane16: the lane's own row; permlanex16: the paired row (0<->1, 2<->3) (§7)."""
    row = i >> 4
    base = ((row ^ 1) << 4) if cross else (row << 4)
    return base + (sel & 15)


def _permlane(step: Any, ctx: StepContext, sel: np.ndarray, cross: bool) -> Gather:
    ctx.check_bit("fi", step.fi)
    ctx.check_bit("bound_ctrl", step.bound_ctrl)
    src = permlane_source(cross, sel, ctx.lanes)
    return dpp_write_rule(src, np.ones(ctx.wave, bool), ctx.exec, write=np.ones(ctx.wave, bool),
                          fi=step.fi, bc=step.bound_ctrl, has_fi=True, src_operand=1,
                          old_operand=0, open_question="Q1")


def permlane16(step: Any, ctx: StepContext) -> Gather:
    ctx.require("permlane16", f"v_{step.op}_b32")
    ctx.check_range("sel_lo", step.sel_lo, 32)
    ctx.check_range("sel_hi", step.sel_hi, 32)
    sel = permlane16_select(step.sel_lo, step.sel_hi, ctx.lanes)
    return _permlane(step, ctx, np.asarray(sel, np.int64), cross=step.op == "permlanex16")


def permlane_var(step: Any, ctx: StepContext) -> Gather:
    """Per-lane selector in a VGPR; only its bits [3:0] are used (§9, [S18] rdna4)."""
    ctx.require("permlane_var", f"v_{step.op.replace('.', '_')}_b32")
    sel = np.asarray(step.sel, dtype=np.int64)
    if (sel < 0).any() or (sel >= 1 << 32).any():
        raise ctx.illegal("permlane var selectors are 32-bit unsigned lane values")
    return _permlane(step, ctx, sel & 15, cross=step.op == "permlanex16.var")


def permlane64(step: Any, ctx: StepContext) -> Gather:
    """Wave64 lanes i <-> i ^ 32. It reads inactive sources per its pseudocode (Q7: open)."""
    ctx.require("permlane64", "v_permlane64_b32")
    if ctx.wave != 64:
        raise ctx.illegal("v_permlane64_b32 is a no-op in wave32")
    i = ctx.lanes
    src = i ^ 32
    operand = np.where(ctx.exec[src], 0, OPEN)
    operand = np.where(ctx.exec, operand, UNDEF)
    questions = frozenset({"Q7"}) if (ctx.exec & ~ctx.exec[src]).any() else frozenset()
    return Gather(operand, np.where(operand == 0, src, i), questions)


def permlane_swap(step: Any, ctx: StepContext) -> Gather:
    """gfx950 swaps (§10). Operands: 0 = vdst_old, 1 = src0_old; `take` names the result.

    permlane16.swap: odd rows of vdst <-> even rows of src0; permlane32.swap: the upper half of
    vdst <-> the lower half of src0. EXEC handling is undocumented (Q8), so any inactive lane
    makes the lanes it touches open."""
    ctx.require("permlane_swap", f"v_{step.op.replace('.', '_')}_b32")
    ctx.check_bit("fi", step.fi)
    ctx.check_bit("bound_ctrl", step.bound_ctrl)
    if step.take not in (0, 1):
        raise ctx.illegal("take is 0 (new vdst) or 1 (new src0)")
    if ctx.wave != 64:
        raise ctx.illegal(f"v_{step.op.replace('.', '_')}_b32 needs wave64")
    i = ctx.lanes
    span = 16 if step.op == "permlane16.swap" else 32
    moved = (i & span) != 0 if step.take == 0 else (i & span) == 0
    partner = i - span if step.take == 0 else i + span
    partner = np.where(moved, partner, i)
    operand = np.where(moved, 1 - step.take, step.take)
    touched_inactive = ~ctx.exec | ~ctx.exec[partner]
    questions = frozenset({"Q8"}) if touched_inactive.any() else frozenset()
    operand = np.where(touched_inactive, OPEN, operand)
    return Gather(operand, np.where(operand >= 0, partner, i), questions)
