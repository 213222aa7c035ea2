"""One lane formula, several evaluators: numpy lane vectors (and plain ints) or Z3 bit-vectors.

Every lane map in shflx (shfl.sync, each AMD primitive) is written once as a function of a lane
id and its parameters over the operators `& | ^ ~ << >> + -` and comparisons, which ints, numpy
arrays and Z3 bit-vectors all share, plus the few helpers below. Evaluating that one function with
`NUMPY` gives the emulator and the lookup tables; with `z3ops()` it gives the Z3 encoding, also
with symbolic parameters (STYLE.md: "write each primitive's lane semantics once").

Z3 values are 40-bit bit-vectors: wide enough that lanes, 16-bit swizzle offsets and 32-bit
permlane selectors (and `lane +- 63`) neither wrap nor change sign, so Python's signed
comparisons mean the same on all backends."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

Z3_BITS = 40


class NumpyOps:
    """Evaluator for ints and numpy arrays (vectorized over lanes)."""

    name = "numpy"

    @staticmethod
    def where(cond: Any, a: Any, b: Any) -> Any:
        if isinstance(cond, (bool, np.bool_)):
            return a if cond else b
        return np.where(cond, a, b)

    @staticmethod
    def and_(*xs: Any) -> Any:
        out = xs[0]
        for x in xs[1:]:
            out = np.logical_and(out, x)
        return out

    @staticmethod
    def or_(*xs: Any) -> Any:
        out = xs[0]
        for x in xs[1:]:
            out = np.logical_or(out, x)
        return out

    @staticmethod
    def not_(x: Any) -> Any:
        return np.logical_not(x)

    @staticmethod
    def popcount5(x: Any) -> Any:
        """Number of set bits among bits 0..4."""
        return sum((x >> k) & 1 for k in range(5))

    @staticmethod
    def const(v: int) -> Any:
        return v


NUMPY = NumpyOps()


class Z3Ops:
    """Evaluator for Z3 bit-vectors (Z3_BITS wide; see the module docstring)."""

    name = "z3"

    def __init__(self) -> None:
        import z3

        self.z3 = z3

    def where(self, cond: Any, a: Any, b: Any) -> Any:
        if isinstance(cond, (bool, np.bool_)):
            return a if cond else b
        return self.z3.If(cond, self.const(a), self.const(b))

    def and_(self, *xs: Any) -> Any:
        return self.z3.And(*xs)

    def or_(self, *xs: Any) -> Any:
        return self.z3.Or(*xs)

    def not_(self, x: Any) -> Any:
        return self.z3.Not(x)

    def popcount5(self, x: Any) -> Any:
        return sum(((x >> k) & 1) for k in range(5))

    def const(self, v: Any) -> Any:
        if isinstance(v, (int, np.integer)):
            return self.z3.BitVecVal(int(v), Z3_BITS)
        return v

    def var(self, name: str) -> Any:
        return self.z3.BitVec(name, Z3_BITS)


@lru_cache(maxsize=1)
def z3ops() -> Z3Ops:
    """The Z3 evaluator (imports z3 on first use, so table hits never pay for it)."""
    return Z3Ops()


def lanes(wave: int) -> np.ndarray:
    """Lane ids 0..wave-1 as the vector every formula is evaluated on."""
    return np.arange(wave, dtype=np.int64)
