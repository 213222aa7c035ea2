"""The facts a step's semantics depend on besides its own fields: target, wave size, EXEC."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import IllegalOp


@dataclass(frozen=True, eq=False)
class StepContext:
    target: Any            # shflx.isa.AmdTarget
    wave: int
    exec: np.ndarray       # bool per lane: the lanes active while the step runs
    step_id: str = "?"

    def require(self, feature: str, what: str) -> None:
        """IllegalOp unless the target has `feature` (spec/amd_crosslane.md §15)."""
        if not self.target.has(feature):
            raise IllegalOp(f"step {self.step_id!r}: {what} does not exist on {self.target.name}")

    def illegal(self, reason: str) -> IllegalOp:
        return IllegalOp(f"step {self.step_id!r}: {reason} on {self.target.name} (wave{self.wave})")

    def check_bit(self, name: str, value: int) -> None:
        if value not in (0, 1):
            raise self.illegal(f"{name} is one raw bit (0 or 1), got {value}")

    def check_range(self, name: str, value: int, bits: int) -> None:
        if not 0 <= value < (1 << bits):
            raise self.illegal(f"{name}={value:#x} does not fit its {bits}-bit field")

    @property
    def lanes(self) -> np.ndarray:
        return np.arange(self.wave, dtype=np.int64)

