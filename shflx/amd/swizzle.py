"""ds_swizzle_b32: four offset-selected modes, each confined to a 32-lane group (§5).

No LDS memory is touched, but it goes through the LDS crossbar and is waited on with lgkmcnt.
An inactive source lane reads 0 ([S21] "thread_valid[j] ? thread_in[j] : 0")."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..lanefn import NUMPY
from ..lanes import UNDEF, ZERO
from .context import StepContext
from .gather import Gather


ROTATE_WRAP_ASSUMPTION = (
    "ds_swizzle rotate wraps inside its 32-lane group: AMD's pseudocode (j = (i & mask) | ((i + rotate) "
    "& ~mask); j |= i & 0x20) lets a carry reach bit 5 at the group edge (DS_SWIZZLE_B32 rotate mode, "
    "AMD RDNA3 ISA Reference Guide; unsettled)")


def rotate_wrap_relied_on(offset: int) -> bool:
    """Whether a swizzle offset is a rotate whose result for some lane of a 32-lane group depends
    on the wrap reading (a carry out of bit 4 that the literal pseudocode would keep)."""
    if swizzle_mode(offset) != "rotate":
        return False
    m = offset & 31
    r = (offset >> 5) & 31
    r = -r if (offset >> 10) & 1 else r
    return any(((i + r) & ~m) & ~31 for i in range(32))


def rev5(x: Any) -> Any:
    return sum(((x >> k) & 1) << (4 - k) for k in range(5))


def swizzle_mode(offset: int) -> str:
    """Mode of a 16-bit offset, in the priority order of [S21] (GFX9+)."""
    if offset >= 0xE000:
        return "fft"
    if offset >= 0xC000:
        return "rotate"
    if offset & 0x8000:
        return "quad"
    return "bitmask"


def swizzle_source(offset: Any, i: Any, o: Any = NUMPY) -> Any:
    """Source lane j for destination lane i (§5.2 table; rotate wraps inside 32 lanes)."""
    half = i & 32
    m = offset & 31
    fft = (rev5(i & 31) >> o.popcount5(m)) | (i & m) | half
    r = (offset >> 5) & 31
    r = o.where(((offset >> 10) & 1) == 1, 0 - r, r)
    rotate = (i & m) | (((i + r) & ~m) & 31) | half
    quad = (i & ~3) | ((offset >> ((i & 3) * 2)) & 3)
    and_m, or_m, xor_m = offset & 31, (offset >> 5) & 31, (offset >> 10) & 31
    bitmask = ((((i & 31) & and_m) | or_m) ^ xor_m) | half
    return o.where(offset >= 0xE000, fft,
                   o.where(offset >= 0xC000, rotate,
                           o.where((offset & 0x8000) != 0, quad, bitmask)))


def ds_swizzle(step: Any, ctx: StepContext) -> Gather:
    ctx.require("ds_swizzle", "ds_swizzle_b32")
    ctx.check_range("offset", step.offset, 16)
    if step.offset >= 0xC000 and not ctx.target.has("ds_swizzle_fft_rotate"):
        # GFX8: FFT/rotate do not exist; whether such offsets mean quad mode is open (Q6).
        raise ctx.illegal(f"swizzle offset {step.offset:#x} selects FFT/rotate mode (GFX9+; Q6)")
    i = ctx.lanes
    j = np.broadcast_to(np.asarray(swizzle_source(step.offset, i), np.int64), i.shape)
    operand = np.where(ctx.exec[j], 0, ZERO)
    operand = np.where(ctx.exec, operand, UNDEF)       # not written, and it has no `old`
    return Gather(operand, np.where(operand == 0, j, i))
