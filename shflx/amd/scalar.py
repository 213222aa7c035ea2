"""Lane <-> scalar moves and the lane select: readlane, readfirstlane, writelane (§11), v_cndmask.

readlane and writelane ignore EXEC; readfirstlane reads the lowest active lane (lane 0 when none
is). A readlane result is an SGPR: every lane sees the same value."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..lanes import UNDEF, mask_to_lanes
from .context import StepContext
from .gather import Gather


def readlane(step: Any, ctx: StepContext) -> Gather:
    ctx.require("readlane", "v_readlane_b32")
    ctx.check_range("lane", step.lane, 32)
    lane = step.lane & (ctx.wave - 1)      # S1[5:0] in wave64, S1[4:0] in wave32
    return Gather(np.zeros(ctx.wave), np.full(ctx.wave, lane))


def readfirstlane(step: Any, ctx: StepContext) -> Gather:
    ctx.require("readlane", "v_readfirstlane_b32")
    active = np.flatnonzero(ctx.exec)
    lane = int(active[0]) if active.size else 0
    return Gather(np.zeros(ctx.wave), np.full(ctx.wave, lane))


def writelane(step: Any, ctx: StepContext) -> Gather:
    """Operands: 0 = value (uniform; its lane 0 is read), 1 = old."""
    ctx.require("readlane", "v_writelane_b32")
    ctx.check_range("lane", step.lane, 32)
    lane = step.lane & (ctx.wave - 1)
    i = ctx.lanes
    operand = np.where(i == lane, 0, 1)
    return Gather(operand, np.where(i == lane, 0, i))


def select(step: Any, ctx: StepContext) -> Gather:
    """v_cndmask_b32 with a constant lane mask: lane i takes a when bit i is set, else b.

    Operands: 0 = a, 1 = b, 2 = old (inactive lanes)."""
    if step.lanes < 0 or step.lanes >= 1 << ctx.wave:
        raise ctx.illegal(f"select lanes {step.lanes:#x} does not fit {ctx.wave} lanes")
    i = ctx.lanes
    take_a = mask_to_lanes(step.lanes, ctx.wave)
    operand = np.where(take_a, 0, 1)
    operand = np.where(ctx.exec, operand, 2 if step.old is not None else UNDEF)
    return Gather(operand, i)
