"""What one cross-lane step does to each lane, once its parameters and EXEC are known.

Every data-movement primitive, evaluated for concrete parameters, becomes a Gather: destination
lane i takes lane `lane[i]` of operand `operand[i]` (an index into the step's input references),
or a sentinel: ZERO (0 injected), UNDEF (not written and no `old` to keep), OPEN (depends on an
open question of spec/amd_crosslane.md §17). Value domains (numpy, provenance, multiset, Z3)
apply a Gather without knowing which instruction made it."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..lanes import OPEN, UNDEF, ZERO

__all__ = ["Gather", "ZERO", "UNDEF", "OPEN", "dpp_write_rule", "from_source"]


@dataclass(frozen=True, eq=False)
class Gather:
    """Per destination lane: operand index (>= 0) or sentinel, and the lane read from it.

    `questions` names the open questions that produced OPEN lanes (e.g. {"Q1"})."""

    operand: np.ndarray
    lane: np.ndarray
    questions: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        for name in ("operand", "lane"):
            arr = np.asarray(getattr(self, name), dtype=np.int64).copy()
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def wave(self) -> int:
        return int(self.operand.shape[0])


def from_source(src: np.ndarray, operand: int = 0) -> Gather:
    """Every lane reads `src[i]` of one operand (an always-in-range, exec-blind map)."""
    src = np.asarray(src, dtype=np.int64)
    return Gather(np.full(src.shape, operand), src)


def dpp_write_rule(src: np.ndarray, valid: np.ndarray, exec_: np.ndarray, *, write: np.ndarray,
                   fi: int, bc: int, has_fi: bool, src_operand: int = 0,
                   old_operand: int | None = 1, open_question: str) -> Gather:
    """The DPP16 / permlane per-lane rule of spec/amd_crosslane.md §3.3 and §7.

    Lane i, when active and enabled by `write` (row/bank masks): reads src lane s if s is in range
    and (active or FI=1); an out-of-range source gives 0 with BC=1, else the lane keeps `old`.
    An in-range but inactive source with FI=0 is the open question: on GFX10+ (Q1) it is either
    'out of range' or 'zero', which agree only when BC=1; on GFX8/9 (Q2) the stale register may
    be read, so it is open whatever BC is."""
    wave = src.shape[0]
    lanes = np.arange(wave)
    src_c = np.clip(src, 0, wave - 1)
    keep = ~(exec_ & write)
    src_active = exec_[src_c]
    reads = valid & (src_active | bool(fi))
    inactive_src = valid & ~src_active & ~bool(fi)
    keep_or_undef = old_operand if old_operand is not None else UNDEF

    operand = np.full(wave, src_operand, dtype=np.int64)
    lane = np.where(reads, src_c, lanes)
    # out of range (BC decides)
    oor = ~valid
    operand = np.where(oor, ZERO if bc else keep_or_undef, operand)
    questions: set[str] = set()
    if inactive_src.any():
        if has_fi and bc:
            operand = np.where(inactive_src, ZERO, operand)   # both readings of Q1 give 0
        else:
            operand = np.where(inactive_src, OPEN, operand)
            if (inactive_src & ~keep).any():
                questions.add(open_question)
    operand = np.where(keep, keep_or_undef, operand)
    lane = np.where(keep | (operand < 0), lanes, lane)
    return Gather(operand, lane, frozenset(questions))
