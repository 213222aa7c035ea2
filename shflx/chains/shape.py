"""What a chain of shuffle + combine steps computes, lane by lane, and which collective that is.

A chain is the straight-line CUDA code of a warp reduction or scan: each step shuffles the running
value and combines it in (on the lanes of its guard; the others keep their value), or only moves
it (an exclusive scan's final up-1, whose unguarded lanes take the identity). Its meaning is
computed, never pattern-matched: the CUDA shuffle maps are evaluated in the multiset domain
(spec/synthesis_notes.md §2), and the result is compared on the live lanes with every reduction
and scan of every width. Any way of writing it (butterfly in any bit order, down-tree, up-scan
with a `lane >= d` guard or a PTX predicate, `width`-segmented) lands on the same Collective; a
chain whose live lanes match none (a down-tree read by every lane) is reported as such."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..combine import FNS
from ..cuda import FULL_MASK, ShflOperands
from ..emulate import Terms
from ..lanes import CUDA_WARP, mask_to_lanes
from ..pattern import Collective

WIDTHS = (32, 16, 8, 4, 2)


@dataclass(frozen=True)
class ChainStep:
    """One shuffle of a chain. `fn` None: a pure move (exclusive shift); `guard`: the lanes that
    combine (or, for a move, take the moved value; the others take the identity)."""

    operands: ShflOperands
    fn: str | None
    guard: int = FULL_MASK


def chain_multisets(steps: list[ChainStep] | tuple[ChainStep, ...]) -> np.ndarray:
    """(32, 32) counts: how often each input lane is combined into each lane's final value."""
    value = np.eye(CUDA_WARP, dtype=np.int64)
    for step in steps:
        src = step.operands.lane_map().src.astype(np.int64)
        moved = value[src]
        guard = mask_to_lanes(step.guard, CUDA_WARP)[:, None]
        if step.fn is None:
            value = np.where(guard, moved, 0)
        else:
            value = np.where(guard, value + moved, value)
    return value


def chain_terms(steps: list[ChainStep] | tuple[ChainStep, ...], fn: str, domain: Terms, wave: int) -> np.ndarray:
    """What each lane of a `wave` computes running the chain as written (each 32-lane half a CUDA
    warp), as expressions of `domain` (emulate.Terms): a plan proved equal to these on a lane
    combines the same operands in the same tree there, so it is bit-exact for any operator."""
    value = domain.input()
    base = np.arange(wave) - np.arange(wave) % CUDA_WARP
    for step in steps:
        src = base + step.operands.lane_map().src.astype(np.int64)[np.arange(wave) % CUDA_WARP]
        moved = value[src]
        guard = np.tile(mask_to_lanes(step.guard, CUDA_WARP), wave // CUDA_WARP)
        if step.fn is None:
            value = domain.choose(guard, moved, domain.constant("identity"))
        else:
            value = domain.choose(guard, domain.combine(fn, value, moved, "chain"), value)
    return value


def _same(got: np.ndarray, want: np.ndarray, fn: str) -> bool:
    f = FNS[fn]
    if f.idempotent:
        return bool(np.array_equal(got > 0, want > 0))
    if f.self_inverse:
        return bool(np.array_equal(got % 2, want % 2))
    return bool(np.array_equal(got, want))


def op_name(fn: str) -> str:
    """Combine fn -> pattern op name (the inverse of combine.PATTERN_OPS)."""
    return {"smin": "min", "smax": "max"}.get(fn, fn)


def _candidates(op: str, live: int) -> list[Collective]:
    """Reductions of every width, then strided reductions (most lane bits first), then scans."""
    out = [Collective("reduce", op, width, False, live) for width in WIDTHS]
    strided = [b for b in range(1, CUDA_WARP) if b & (b + 1)]          # not a low run of bits
    out += [Collective("reduce", op, CUDA_WARP, False, live, b)
            for b in sorted(strided, key=lambda b: (-bin(b).count("1"), b))]
    out += [Collective("scan", op, width, exclusive, live) for exclusive in (False, True) for width in WIDTHS]
    return out


def classify(steps: list[ChainStep] | tuple[ChainStep, ...], live: int = FULL_MASK) -> Collective | str:
    """The collective the chain computes on the `live` lanes, or why it is none.

    Several collectives can agree on few live lanes (lane 0 of a reduction is also lane 0 of ...
    nothing else, but lane 31 of an inclusive scan is the total): reductions come first, then the
    widest matching width, so the synthesizer gets the most freedom."""
    fns = {s.fn for s in steps if s.fn is not None}
    if len(fns) != 1:
        return "no combine step" if not fns else f"mixes combine operators {sorted(fns)}"
    fn = fns.pop()
    if any(s.operands.member_mask != FULL_MASK for s in steps):
        return "a partial member mask (only full-warp chains are re-synthesized)"
    if live == 0:
        return "no lane uses the result"
    got = chain_multisets(steps)
    lanes = mask_to_lanes(live, CUDA_WARP)
    for coll in _candidates(op_name(fn), live):
        if _same(got[lanes], coll.warp_multisets()[lanes], fn):
            return coll
    return "the live lanes do not hold a reduction or scan of any width (e.g. a down-tree whose " \
           "partial sums in other lanes are used)"
