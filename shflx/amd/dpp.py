"""DPP16 (`update.dpp`) and DPP8 (`mov.dpp8`): spec/amd_crosslane.md §3 and §4.

`dpp16_source` is the lane map of every DPP_CTRL value (§3.2), written once for all backends
(numpy lanes, Z3 with a symbolic control). Legality per control comes from the target's features,
never from its name."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..lanefn import NUMPY
from .context import StepContext
from ..lanes import UNDEF, ZERO
from .gather import Gather, dpp_write_rule

# (first, last, feature, name) for every legal DPP_CTRL range; anything else is reserved (§3.2).
DPP16_CONTROLS: tuple[tuple[int, int, str, str], ...] = (
    (0x000, 0x0FF, "dpp16", "quad_perm"),
    (0x101, 0x10F, "dpp16", "row_shl"),
    (0x111, 0x11F, "dpp16", "row_shr"),
    (0x121, 0x12F, "dpp16", "row_ror"),
    (0x130, 0x130, "dpp_wave_shift", "wave_shl"),
    (0x134, 0x134, "dpp_wave_shift", "wave_rol"),
    (0x138, 0x138, "dpp_wave_shift", "wave_shr"),
    (0x13C, 0x13C, "dpp_wave_shift", "wave_ror"),
    (0x140, 0x140, "dpp16", "row_mirror"),
    (0x141, 0x141, "dpp16", "row_half_mirror"),
    (0x142, 0x142, "dpp_row_bcast", "row_bcast15"),
    (0x143, 0x143, "dpp_row_bcast", "row_bcast31"),
    (0x150, 0x15F, "dpp_row_share", "row_share"),      # row_newbcast on gfx90a/94x/950
    (0x160, 0x16F, "dpp_row_xmask", "row_xmask"),
)


def control_kind(ctrl: int) -> tuple[str, str] | None:
    """(feature, name) of a DPP_CTRL value, or None when it is reserved."""
    for lo, hi, feature, name in DPP16_CONTROLS:
        if lo <= ctrl <= hi:
            return feature, name
    return None


def control_legal(ctrl: int, target: Any, wave: int) -> bool:
    kind = control_kind(ctrl)
    if kind is None:
        return False
    feature, _ = kind
    if feature == "dpp_row_share":  # same encoding, two names (§3.2, LLVM AMDGPUInstPrinter)
        return target.has("dpp_row_share") or target.has("dpp_row_newbcast")
    if feature == "dpp_wave_shift" and wave != 64:
        return False
    return target.has(feature)


def dpp16_source(ctrl: Any, i: Any, wave: int, o: Any = NUMPY) -> tuple[Any, Any]:
    """(source lane, in range) of DPP_CTRL `ctrl` for destination lane i (§3.2 table)."""
    off = i & 15
    rb = i & ~15
    n = ctrl & 15
    top = wave - 1
    true = i == i
    cases = [  # (condition on ctrl, source, valid), first match wins
        (ctrl <= 0xFF, (i & ~3) | ((ctrl >> ((i & 3) * 2)) & 3), true),
        (o.and_(ctrl > 0x100, ctrl <= 0x10F), i + n, off + n <= 15),
        (o.and_(ctrl > 0x110, ctrl <= 0x11F), i - n, off >= n),
        (o.and_(ctrl > 0x120, ctrl <= 0x12F), rb | ((off - n) & 15), true),
        (ctrl == 0x130, i + 1, i < top),
        (ctrl == 0x134, (i + 1) & top, true),
        (ctrl == 0x138, i - 1, i > 0),
        (ctrl == 0x13C, (i - 1) & top, true),
        (ctrl == 0x140, rb | (15 - off), true),
        (ctrl == 0x141, (i & ~7) | (7 - (i & 7)), true),
        (ctrl == 0x142, (i & 0x30) - 1, i >= 16),
        (ctrl == 0x143, i - i + 31, i >= 32),
        (o.and_(ctrl >= 0x150, ctrl <= 0x15F), rb | n, true),
        (o.and_(ctrl >= 0x160, ctrl <= 0x16F), rb | (off ^ n), true),
    ]
    src, valid = i, i != i            # reserved: nothing valid
    for cond, s, v in reversed(cases):
        src = o.where(cond, s, src)
        valid = o.where(cond, v, valid)
    return src, valid


def dpp8_source(sel: Any, i: Any) -> Any:
    """src(i) = (i & ~7) | sel_{i & 7}: one 8-lane pattern for every group (§4)."""
    return (i & ~7) | ((sel >> ((i & 7) * 3)) & 7)


def bank_row_enabled(row_mask: int, bank_mask: int, i: np.ndarray) -> np.ndarray:
    """ROW_MASK / BANK_MASK gate the destination write only, never the fetch (§3.3)."""
    return (((row_mask >> (i >> 4)) & 1) & ((bank_mask >> ((i >> 2) & 3)) & 1)).astype(bool)


def update_dpp(step: Any, ctx: StepContext) -> Gather:
    ctx.require("dpp16", "DPP16")
    ctx.check_range("dpp_ctrl", step.dpp_ctrl, 9)
    ctx.check_range("row_mask", step.row_mask, 4)
    ctx.check_range("bank_mask", step.bank_mask, 4)
    ctx.check_bit("bound_ctrl", step.bound_ctrl)
    ctx.check_bit("fi", step.fi)
    if not control_legal(step.dpp_ctrl, ctx.target, ctx.wave):
        kind = control_kind(step.dpp_ctrl)
        what = f"dpp_ctrl {step.dpp_ctrl:#x}" + (f" ({kind[1]})" if kind else " (reserved)")
        raise ctx.illegal(f"{what} is not legal")
    if step.fi and not ctx.target.has("dpp_fi"):
        raise ctx.illegal("the DPP FI bit exists only from GFX10")
    i = ctx.lanes
    src, valid = dpp16_source(step.dpp_ctrl, i, ctx.wave)
    src = np.broadcast_to(np.asarray(src, np.int64), i.shape)
    valid = np.broadcast_to(np.asarray(valid, bool), i.shape)
    q = "Q1" if ctx.target.has("dpp_fi") else "Q2"
    return dpp_write_rule(src, valid, ctx.exec, write=bank_row_enabled(step.row_mask, step.bank_mask, i),
                          fi=step.fi, bc=step.bound_ctrl, has_fi=ctx.target.has("dpp_fi"),
                          src_operand=1, old_operand=0, open_question=q)


def mov_dpp8(step: Any, ctx: StepContext) -> Gather:
    """DPP8 writes every active lane; an inactive source reads 0 unless FI=1 (§4; [S2])."""
    ctx.require("dpp8", "DPP8")
    ctx.check_range("sel", step.sel, 24)
    ctx.check_bit("fi", step.fi)
    i = ctx.lanes
    src = dpp8_source(step.sel, i)
    operand = np.where(ctx.exec[src] | bool(step.fi), 0, ZERO)
    operand = np.where(ctx.exec, operand, UNDEF)       # not written, and mov.dpp8 has no `old`
    return Gather(operand, np.where(operand >= 0, src, i))
