"""The Z3 value domain: every lane value a 32-bit term over symbolic inputs x0..x{W-1}.

Data movement becomes term selection; an injected 0 is the constant 0; UNDEF and OPEN are fresh
unconstrained symbols per step and lane, so a lane that depends on garbage or on an open question
can never be proven equal to an input. The check is one QF_BV query per plan:
  exists inputs, garbage: OR over care lanes (result_i != expected_i)   -- unsat means proved."""
from __future__ import annotations

from typing import Any

import numpy as np
import z3

from ..amd.gather import Gather
from ..lanes import OPEN, ZERO

BITS = 32


class Z3Values:
    """Domain for shflx.emulate.walk: a list of z3 BitVec terms per value."""

    def __init__(self, wave: int):
        self.wave = wave
        self.xs = [z3.BitVec(f"x{i}", BITS) for i in range(wave)]
        self._fresh = 0

    def _new(self, tag: str) -> z3.BitVecRef:
        self._fresh += 1
        return z3.BitVec(f"{tag}_{self._fresh}", BITS)

    def input(self) -> list[Any]:
        return list(self.xs)

    def constant(self, name: str) -> list[Any]:
        if name == "zero":
            return [z3.BitVecVal(0, BITS)] * self.wave
        if name == "identity":
            raise ValueError("Z3Values proves data movement only; reductions use multisets")
        return [self._new("undef") for _ in range(self.wave)]

    def gather(self, g: Gather, operands: list[list[Any]], step_id: str) -> list[Any]:
        out = []
        for op, lane in zip(g.operand.tolist(), g.lane.tolist()):
            if op >= 0:
                out.append(operands[op][lane])
            elif op == ZERO:
                out.append(z3.BitVecVal(0, BITS))
            else:
                out.append(self._new("open" if op == OPEN else "undef"))
        return out

    def combine(self, fn: str, a: Any, b: Any, step_id: str) -> Any:
        raise ValueError("Z3Values proves data movement only; reductions use multisets")

    def choose(self, lanes: np.ndarray, a: list[Any], b: list[Any]) -> list[Any]:
        return [x if t else y for t, x, y in zip(lanes.tolist(), a, b)]


def find_counterexample(values: list[Any], xs: list[Any], expected_src: np.ndarray,
                        care: np.ndarray, timeout_ms: int) -> tuple[str, int | None]:
    """('proved', None), ('refuted', lane) or ('unknown', None) on timeout. Expected sources are
    input lanes or ZERO (callers refute lanes that expect garbage before asking)."""
    lanes = [i for i in np.flatnonzero(care).tolist()]
    if not lanes:
        return "proved", None
    diffs = [values[i] != (xs[int(expected_src[i])] if expected_src[i] >= 0 else z3.BitVecVal(0, BITS))
             for i in lanes]                       # a ZERO source: the lane must hold 0
    solver = z3.SolverFor("QF_BV")
    solver.set("timeout", int(timeout_ms))
    solver.add(z3.Or(*diffs))
    verdict = solver.check()
    if verdict == z3.unsat:
        return "proved", None
    if verdict == z3.unknown:
        return "unknown", None
    model = solver.model()
    for i, d in zip(lanes, diffs):
        if z3.is_true(model.eval(d, model_completion=True)):
            return "refuted", i
    return "refuted", lanes[0]
