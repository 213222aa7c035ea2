"""Combine operators of reductions and scans: concrete u32 evaluation and algebraic facts.

Values are 32-bit patterns (np.uint32); float ops view them as f32. The facts (identity,
idempotent, self-inverse) drive the multiset semantics that proves reductions and scans for every
input (spec/synthesis_notes.md §2, accumulators)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

U32 = np.uint32


def _f(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def apply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return fn(a.view(np.float32), b.view(np.float32)).astype(np.float32).view(U32)
    return apply


def _s(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    return lambda a, b: fn(a.view(np.int32), b.view(np.int32)).view(U32)


@dataclass(frozen=True)
class CombineFn:
    name: str
    apply: Callable[[np.ndarray, np.ndarray], np.ndarray]
    identity: int            # u32 bit pattern
    idempotent: bool         # op(a, a) == a: only the set of inputs matters
    self_inverse: bool       # op(a, a) == identity: multiplicities count mod 2
    is_float: bool = False

    @property
    def identity_is_zero(self) -> bool:
        """BC=1 injects 0, which is harmless exactly when 0 is the identity (golden 'IDZ')."""
        return self.identity == 0


_F32_ONE = 0x3F800000
_F32_INF = 0x7F800000
_F32_NINF = 0xFF800000

FNS: dict[str, CombineFn] = {f.name: f for f in (
    CombineFn("add", lambda a, b: (a + b).astype(U32), 0, False, False),
    CombineFn("mul", lambda a, b: (a * b).astype(U32), 1, False, False),
    CombineFn("and", lambda a, b: a & b, 0xFFFFFFFF, True, False),
    CombineFn("or", lambda a, b: a | b, 0, True, False),
    CombineFn("xor", lambda a, b: a ^ b, 0, False, True),
    CombineFn("umin", np.minimum, 0xFFFFFFFF, True, False),
    CombineFn("umax", np.maximum, 0, True, False),
    CombineFn("smin", _s(np.minimum), 0x7FFFFFFF, True, False),
    CombineFn("smax", _s(np.maximum), 0x80000000, True, False),
    CombineFn("fadd", _f(np.add), 0, False, False, True),
    CombineFn("fmul", _f(np.multiply), _F32_ONE, False, False, True),
    CombineFn("fmin", _f(np.fmin), _F32_INF, True, False, True),
    CombineFn("fmax", _f(np.fmax), _F32_NINF, True, False, True),
)}

# Pattern-text operator names (DESIGN contracts) -> plan combine fns. CUDA int min/max are signed.
PATTERN_OPS = {"add": "add", "min": "smin", "max": "smax", "and": "and", "or": "or", "xor": "xor",
               "fadd": "fadd", "fmin": "fmin", "fmax": "fmax", "umin": "umin", "umax": "umax",
               "mul": "mul", "fmul": "fmul"}
