"""shflx: CUDA warp shuffles, lowered to the cheapest proven AMD cross-lane sequence.

Public API (imported lazily, so `import shflx.cuda` on a GPU test machine and `shflx --help` pay
for neither Z3 nor llvmlite; the TYPE_CHECKING block shows type checkers the same names):
  shflx.lower(pattern, arch, wave=None, prefer=None)  -> Plan (the cheapest proven plan; .to_llvm/.to_hip/.to_asm;
                                                      prefer="lds-free": the cheapest without an LDS op)
  shflx.equivalent(a, b, *, arch, wave, lanes) -> Equivalence (truthy when equal; the differing lanes)
  shflx.assert_equivalent(a, b, ...)     raises AssertionError listing every differing lane
  shflx.prove(plan)          -> Proof("proved" | "refuted" | "unknown", lane, reason)
  shflx.assert_proved(plan)  raises AssertionError with the counterexample (for unit tests)
  shflx.load_plan(obj|path)  -> Plan
  shflx.plan_to_json(plan)   -> str (the plan file's text); shflx.plan_to_dict(plan) -> dict
  shflx.match, shflx.testing (hypothesis strategies; needs hypothesis: the `[test]` extra)"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
MODEL_VERSION = 1  # bump with every semantic change: it keys the solved-plan cache

# name -> the module that defines it (a name equal to its module's last part is the module)
_EXPORTS = {
    "prove": "shflx.verify.api", "assert_proved": "shflx.verify.api", "Proof": "shflx.verify.api",
    "equivalent": "shflx.verify.equivalence", "assert_equivalent": "shflx.verify.equivalence",
    "Equivalence": "shflx.verify.equivalence", "LaneDifference": "shflx.verify.equivalence",
    "lower": "shflx.match", "load_plan": "shflx.plan", "Plan": "shflx.plan",
    "plan_to_json": "shflx.plan", "plan_to_dict": "shflx.plan", "LaneMap": "shflx.lanes",
    "parse_pattern": "shflx.pattern", "match": "shflx.match", "testing": "shflx.testing",
}

__all__ = ["__version__", "MODEL_VERSION", "prove", "assert_proved", "Proof", "equivalent", "assert_equivalent",
           "Equivalence", "LaneDifference", "lower", "load_plan", "plan_to_json", "plan_to_dict", "Plan", "LaneMap",
           "parse_pattern", "match", "testing"]

if TYPE_CHECKING:
    from . import match, testing
    from .lanes import LaneMap
    from .match import lower
    from .pattern import parse_pattern
    from .plan import Plan, load_plan, plan_to_dict, plan_to_json
    from .verify.api import Proof, assert_proved, prove
    from .verify.equivalence import Equivalence, LaneDifference, assert_equivalent, equivalent


def __getattr__(name: str) -> object:
    import importlib

    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'shflx' has no attribute {name!r}")
    mod = importlib.import_module(module)
    value = mod if module.rpartition(".")[2] == name else getattr(mod, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public API and the module's own dunders; not the helpers of this file (Any, TYPE_CHECKING)."""
    return sorted(set(__all__) | {n for n in globals() if n.startswith("__")} | set(_EXPORTS))


del annotations, Any, TYPE_CHECKING        # imported for this file only; `dir(shflx)` is the public API
