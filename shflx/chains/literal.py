"""The step-by-step lowering of a chain: each CUDA shuffle lowered on its own, combined as written.

This is what the compiler emits when a chain may not be re-synthesized (float add without
`reassoc`, a value used between steps), and the cost every re-synthesized plan is compared with.
It keeps the CUDA order of operations, so it is bit-exact for every operator."""
from __future__ import annotations

import numpy as np

from ..cuda import FULL_MASK, ShflOperands, c_for_width, intrinsic_operands
from ..lanes import CUDA_WARP, lanes_to_mask, mask_to_lanes
from ..match import lower
from ..pattern import Collective, Shuffle, format_pattern
from .shape import ChainStep
from ..plan import rename_steps
from .synth import Builder
from ..plan import Combine, Select
from ..target import Target


def canonical_chain(coll: Collective) -> tuple[ChainStep, ...]:
    """How CUDA code usually writes the collective: an xor butterfly (16, 8, .. 1) for a
    reduction; an up-scan guarded by `lane % width >= d` (+ an up-1 for exclusive) for a scan."""
    fn, w = coll.fn, coll.width
    lane = np.arange(CUDA_WARP)
    steps: list[ChainStep] = []
    if coll.kind == "reduce" and coll.bits:                 # strided: xor over its bits, highest first
        return tuple(ChainStep(intrinsic_operands("__shfl_xor_sync", 1 << bit, CUDA_WARP), fn)
                     for bit in reversed(range(5)) if coll.bits >> bit & 1)
    if coll.kind == "reduce":
        d = w // 2
        while d >= 1:
            steps.append(ChainStep(intrinsic_operands("__shfl_xor_sync", d, w), fn))
            d //= 2
        return tuple(steps)
    d = 1
    while d < w:
        guard = lanes_to_mask(lane % w >= d)
        steps.append(ChainStep(intrinsic_operands("__shfl_up_sync", d, w), fn, guard))
        d *= 2
    if coll.exclusive:
        guard = lanes_to_mask(lane % w >= 1)
        steps.append(ChainStep(ShflOperands("up", 1, c_for_width("up", w)), None, guard))
    return tuple(steps)


def literal_builder(steps: tuple[ChainStep, ...], fn: str, target: Target) -> Builder:
    """The chain as written: the cheapest proven plan of each shuffle, then its combine; lanes
    outside a step's guard keep their value (a select), or take the identity for a move."""
    b = Builder(target, fn)
    for step in steps:
        move = lower(format_pattern(Shuffle(step.operands)), target)
        tag = b.fresh("l")
        body, moved = rename_steps(move.steps, b.value, tag)
        guard = mask_to_lanes(step.guard, CUDA_WARP)
        keep = lanes_to_mask(np.tile(guard, target.wave // CUDA_WARP))
        if step.fn is None:
            result = moved
            if step.guard != FULL_MASK:
                body.append(Select(f"{tag}.k", moved, "identity", keep))
                result = f"{tag}.k"
        else:
            body.append(Combine(f"{tag}.c", fn, b.value, moved))
            result = f"{tag}.c"
            if step.guard != FULL_MASK:
                body.append(Select(f"{tag}.k", result, b.value, keep))
                result = f"{tag}.k"
        b.steps += body
        b.value = result
    return b
