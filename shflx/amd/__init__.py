"""AMD cross-lane primitives: per-target legality, lane semantics (numpy and Z3), asm and IR.

`SEMANTICS[op](step, ctx) -> Gather` is the one entry point the emulator and the prover use; each
primitive family lives in its own module (spec/amd_crosslane.md section in its docstring), and
`primitives.PRIMITIVES` has one row per primitive that everything else reads."""
from __future__ import annotations

from typing import Callable

from .context import StepContext
from .gather import Gather
from .primitives import PRIMITIVES

SEMANTICS: dict[str, Callable[..., Gather]] = {op: p.semantics for op, p in PRIMITIVES.items()}

__all__ = ["SEMANTICS", "StepContext", "Gather"]
