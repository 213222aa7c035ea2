"""ds_bpermute_b32 (gather), ds_permute_b32 (scatter), ds_bpermute_fi_b32: spec §6.

The per-lane index is a source (bpermute) or destination (permute) lane; the hardware takes
(addr >> 2) modulo the lane count, i.e. the low bits of the index. On GFX10/10.3/11/11.5 in wave64
each 32-lane half is its own crossbar: lane i reaches only (i & 32) | (index & 31). That upper-half
formula is [INFER] in the spec (Q5), taken from Mesa ACO's working emulation (`emit_bpermute`) and
the replay rule of golden_sequences.yaml; verify reports it as an assumption."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..lanes import UNDEF, ZERO
from .context import StepContext
from .gather import Gather

HALF_WAVE_ASSUMPTION = ("Q5: on GFX10/11 wave64, ds_(b)permute lanes 32-63 address their own "
                        "32-lane half (as Mesa's ACO compiler emulates it; RDNA3's pseudocode can be read "
                        "as lane idx % 32)")


def lane_field(index: np.ndarray, ctx: StepContext) -> np.ndarray:
    """The lane a per-lane index reaches on this target and wave (§6 'lane field' table)."""
    idx = np.asarray(index, dtype=np.int64)
    if (idx < 0).any() or (idx >= 1 << 30).any():
        raise ctx.illegal("a ds lane index must be in 0..2^30-1 (its byte address index << 2 is 32-bit)")
    if ctx.wave == 64 and ctx.target.has("ds_bpermute_half_wave64"):
        return (ctx.lanes & 32) | (idx & 31)
    return idx & (ctx.wave - 1)


def half_wave_assumed(ctx: StepContext) -> bool:
    return ctx.wave == 64 and ctx.target.has("ds_bpermute_half_wave64")


def _unwritten(ctx: StepContext, step: Any) -> int:
    return 1 if getattr(step, "old", None) is not None else UNDEF


def ds_bpermute(step: Any, ctx: StepContext) -> Gather:
    """dst[i] = EXEC[s] ? src[s] : 0 for active i ('EXEC is applied to the source VGPR reads')."""
    ctx.require("ds_permute", "ds_bpermute_b32")
    s = lane_field(step.index, ctx)
    operand = np.where(ctx.exec[s], 0, ZERO)
    operand = np.where(ctx.exec, operand, _unwritten(ctx, step))
    return Gather(operand, np.where(operand == 0, s, ctx.lanes))


def ds_bpermute_fi(step: Any, ctx: StepContext) -> Gather:
    """GFX12: the source is read even when its lane is inactive (§6, [S18] rdna4)."""
    ctx.require("ds_bpermute_fi", "ds_bpermute_fi_b32")
    s = lane_field(step.index, ctx)
    operand = np.where(ctx.exec, 0, _unwritten(ctx, step))
    return Gather(operand, np.where(operand == 0, s, ctx.lanes))


def ds_permute(step: Any, ctx: StepContext) -> Gather:
    """Scatter: active lanes push in increasing order (highest lane wins); unreached lanes get 0."""
    ctx.require("ds_permute", "ds_permute_b32")
    target_lane = lane_field(step.index, ctx)
    sender = np.full(ctx.wave, -1, dtype=np.int64)
    for i in range(ctx.wave):
        if ctx.exec[i]:
            sender[target_lane[i]] = i
    operand = np.where(sender >= 0, 0, ZERO)
    operand = np.where(ctx.exec, operand, _unwritten(ctx, step))
    return Gather(operand, np.where(operand == 0, sender, ctx.lanes))
