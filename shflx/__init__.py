"""shflx: CUDA warp shuffles, lowered to the cheapest proven AMD cross-lane sequence.

Public API (imported lazily, so `import shflx.cuda` on a GPU test machine and `shflx --help` pay
for neither Z3 nor llvmlite):
  shflx.prove(plan)          -> Proof("proved" | "refuted" | "unknown", lane, reason)
  shflx.assert_proved(plan)  raises AssertionError with the counterexample (for unit tests)
  shflx.load_plan(obj|path)  -> Plan"""
from __future__ import annotations

__version__ = "0.1.0"
MODEL_VERSION = 1  # bump with every semantic change: it keys the solved-plan cache

__all__ = ["__version__", "MODEL_VERSION", "prove", "assert_proved", "load_plan", "Proof"]


def __getattr__(name: str):
    if name in ("prove", "assert_proved", "Proof"):
        from .verify import api
        return getattr(api, name)
    if name == "load_plan":
        from .plan import load_plan
        return load_plan
    raise AttributeError(f"module 'shflx' has no attribute {name!r}")
