"""Run a plan: walk its steps over a value domain, the primitives' Gathers doing the data movement.

Four domains share one walk (tinygrad's "the emulator is the definition"):
  Concrete   u32 values on many random inputs at once: replay and cross-checks (microseconds);
  Provenance which input lane each lane holds (or ZERO/UNDEF/OPEN): lane maps;
  Multiset   which input lanes, with multiplicity, were combined into each lane: reductions/scans;
  Terms      the expression tree each lane computes, never re-associated: a chain as written.
The Z3 domain (shflx.verify.smt) is the fourth."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from .amd import SEMANTICS, Gather, StepContext
from .amd.permute import HALF_WAVE_ASSUMPTION, half_wave_assumed
from .amd.swizzle import ROTATE_WRAP_ASSUMPTION, rotate_wrap_relied_on
from .combine import FNS
from .errors import InputError
from .lanes import OPEN, UNDEF, ZERO, lanes_to_mask, mask_to_lanes
from .plan import Combine, DsSwizzle, Plan, Readfirstlane, Readlane, Step, Writelane
from .target import Target

UNIFORM_OPS = (Readlane, Readfirstlane)


class Domain(Protocol):
    def input(self) -> Any: ...
    def constant(self, name: str) -> Any: ...            # "zero", "identity", "undef"
    def gather(self, g: Gather, operands: list[Any], step_id: str) -> Any: ...
    def combine(self, fn: str, a: Any, b: Any, step_id: str) -> Any: ...
    def choose(self, lanes: np.ndarray, a: Any, b: Any) -> Any: ...


@dataclass
class Trace:
    """What a walk found besides the values: open questions hit and assumptions relied on."""

    questions: set[str] = field(default_factory=set)
    assumptions: set[str] = field(default_factory=set)


def plan_fn(plan: Plan) -> str | None:
    """The single combine fn of a plan (None: pure data movement)."""
    fns = {s.fn for s in plan.steps if isinstance(s, Combine)}
    if len(fns) > 1:
        raise InputError(f"plan mixes combine fns {sorted(fns)}; one operator per plan")
    return next(iter(fns), None)


@lru_cache(maxsize=8192)
def step_gather(step: Step, target: Target, active_mask: int) -> tuple[Gather, bool]:
    """A step's Gather under the lanes `active_mask` (memoized: replay is then table lookups).

    Also says whether it relied on the GFX10/11 wave64 half-wave ds_(b)permute rule (Q5)."""
    ctx = StepContext(target.isa, target.wave, mask_to_lanes(active_mask, target.wave), step.id)
    g = SEMANTICS[step.op](step, ctx)
    return g, step.op in ("ds.bpermute", "ds.bpermute.fi", "ds.permute") and half_wave_assumed(ctx)


def walk(plan: Plan, domain: Domain, trace: Trace | None = None,
         active: np.ndarray | None = None) -> dict[str, Any]:
    """Evaluate every step; returns the value of every reference (step ids and 'x').

    `active`: the lanes running the plan (default all); a step's own `exec` narrows it further.
    (A plan's wave is one its target runs: Plan checks it when it is made.)"""
    trace = trace if trace is not None else Trace()
    env: dict[str, Any] = {"x": domain.input()}
    uniform = {"zero", "identity", "undef"}

    def ref(name: str) -> Any:
        return env[name] if name in env else domain.constant(name)

    full = (1 << plan.wave) - 1
    env_mask = full if active is None else lanes_to_mask(active)
    for step in plan.steps:
        mask = env_mask & (full if step.exec is None else int(step.exec))
        if isinstance(step, Combine):
            ex = mask_to_lanes(mask, plan.wave)
            value = domain.combine(step.fn, ref(step.a), ref(step.b), step.id)
            if not ex.all():
                value = domain.choose(ex, value, ref(step.old) if step.old else domain.constant("undef"))
            env[step.id] = value
            continue
        if isinstance(step, Writelane) and step.value not in uniform:
            raise InputError(f"step {step.id!r}: writelane value {step.value!r} must be uniform "
                             "(a readlane/readfirstlane result, zero or identity)")
        g, half_wave = step_gather(step, plan.on, mask)
        trace.questions |= g.questions
        if half_wave:
            trace.assumptions.add(HALF_WAVE_ASSUMPTION)
        if isinstance(step, DsSwizzle) and rotate_wrap_relied_on(step.offset):
            trace.assumptions.add(ROTATE_WRAP_ASSUMPTION)
        operands = [ref(getattr(step, r)) if getattr(step, r) is not None else domain.constant("undef")
                    for r in step.refs]
        env[step.id] = domain.gather(g, operands, step.id)
        if isinstance(step, UNIFORM_OPS):
            uniform.add(step.id)
    return env


def result(plan: Plan, domain: Domain, trace: Trace | None = None,
           active: np.ndarray | None = None) -> Any:
    env = walk(plan, domain, trace, active)
    return env[plan.result] if plan.result in env else domain.constant(plan.result)


# ------------------------------------------------------------------------------ domains

class Concrete:
    """u32 values, shape (wave, trials): one random input per trial; garbage is random too."""

    def __init__(self, wave: int, fn: str | None, trials: int = 8, seed: int = 0,
                 x: np.ndarray | None = None):
        self.rng = np.random.default_rng(seed)
        self.wave, self.fn = wave, fn
        self.x = x if x is not None else self.rng.integers(0, 2**32, (wave, trials), dtype=np.uint64).astype(np.uint32)
        self.trials = self.x.shape[1]

    def _garbage(self) -> np.ndarray:
        return self.rng.integers(0, 2**32, (self.wave, self.trials), dtype=np.uint64).astype(np.uint32)

    def input(self) -> np.ndarray:
        return self.x

    def constant(self, name: str) -> np.ndarray:
        if name == "zero":
            return np.zeros((self.wave, self.trials), np.uint32)
        if name == "identity":
            if self.fn is None:
                raise InputError("'identity' is used, but the plan has no combine step to name an operator")
            return np.full((self.wave, self.trials), FNS[self.fn].identity, np.uint32)
        return self._garbage()

    def gather(self, g: Gather, operands: list[np.ndarray], step_id: str) -> np.ndarray:
        stacked = np.stack(operands) if len(operands) > 1 else operands[0][None]
        out = stacked[np.maximum(g.operand, 0), g.lane]
        if (g.operand < 0).any():
            out[g.operand == ZERO] = 0
            junk = (g.operand == UNDEF) | (g.operand == OPEN)
            out[junk] = self._garbage()[junk]
        return out

    def combine(self, fn: str, a: np.ndarray, b: np.ndarray, step_id: str) -> np.ndarray:
        return FNS[fn].apply(a, b)

    def choose(self, lanes: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.where(lanes[:, None], a, b)


class Provenance:
    """Which input lane each lane holds: int per lane, or ZERO / UNDEF / OPEN."""

    def __init__(self, wave: int):
        self.wave = wave

    def input(self) -> np.ndarray:
        return np.arange(self.wave, dtype=np.int64)

    def constant(self, name: str) -> np.ndarray:
        if name == "zero":
            return np.full(self.wave, ZERO, np.int64)
        if name == "identity":
            raise InputError("'identity' needs a combine step; this plan is pure data movement")
        return np.full(self.wave, UNDEF, np.int64)

    def gather(self, g: Gather, operands: list[np.ndarray], step_id: str) -> np.ndarray:
        stacked = np.stack(operands) if operands else np.zeros((1, self.wave), np.int64)
        op = np.clip(g.operand, 0, None)
        out = stacked[op, g.lane]
        return np.where(g.operand < 0, g.operand, out)

    def combine(self, fn: str, a: Any, b: Any, step_id: str) -> Any:
        raise InputError(f"step {step_id!r}: a combine step needs a reduce/scan target")

    def choose(self, lanes: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.where(lanes, a, b)


# Multiset columns: one per input lane, then these markers.
MS_ZERO, MS_UNDEF, MS_OPEN = 0, 1, 2


class Multiset:
    """Each lane's value as counts over input lanes (+ ZERO/UNDEF/OPEN markers), shape (wave, wave+3).

    Sound for any associative, commutative operator: op over a multiset is order-free. The
    identity is the empty multiset; an injected 0 is a ZERO marker, neutral only when 0 is the
    operator's identity (checked when comparing)."""

    def __init__(self, wave: int):
        self.wave = wave

    def _marker(self, col: int) -> np.ndarray:
        out = np.zeros((self.wave, self.wave + 3), np.int64)
        out[:, self.wave + col] = 1
        return out

    def input(self) -> np.ndarray:
        return np.concatenate([np.eye(self.wave, dtype=np.int64),
                               np.zeros((self.wave, 3), np.int64)], axis=1)

    def constant(self, name: str) -> np.ndarray:
        if name == "identity":
            return np.zeros((self.wave, self.wave + 3), np.int64)
        return self._marker(MS_ZERO if name == "zero" else MS_UNDEF)

    def gather(self, g: Gather, operands: list[np.ndarray], step_id: str) -> np.ndarray:
        out = np.zeros((self.wave, self.wave + 3), np.int64)
        for k, vals in enumerate(operands):
            sel = g.operand == k
            out[sel] = vals[g.lane[sel]]
        for sentinel, col in ((ZERO, MS_ZERO), (UNDEF, MS_UNDEF), (OPEN, MS_OPEN)):
            out[g.operand == sentinel, self.wave + col] = 1
        return out

    def combine(self, fn: str, a: np.ndarray, b: np.ndarray, step_id: str) -> np.ndarray:
        return a + b

    def choose(self, lanes: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.where(lanes[:, None], a, b)


class Terms:
    """Each lane's value as an expression over the input lanes (int ids of interned terms, shape
    (wave,)): `combine(fn, a, b)` is a node with its operands in an order-free pair (every
    combine operator is commutative, IEEE add and mul included), never re-associated, so two
    plans agree on a lane only when they combine the same operands in the same tree: bit-exact
    for floats. An injected 0, the identity and garbage are leaves; garbage (an undefined `old`, an
    unwritten lane) and open values are fresh leaves, equal to nothing."""

    def __init__(self, wave: int):
        self.wave = wave
        self.ids: dict[tuple, int] = {}
        self.fresh = -1

    def term(self, node: tuple) -> int:
        return self.ids.setdefault(node, len(self.ids))

    def garbage(self) -> np.ndarray:
        out = np.arange(self.fresh, self.fresh - self.wave, -1, dtype=np.int64)
        self.fresh -= self.wave
        return out

    def input(self) -> np.ndarray:
        return np.array([self.term(("x", lane)) for lane in range(self.wave)], np.int64)

    def constant(self, name: str) -> np.ndarray:
        if name in ("zero", "identity"):
            return np.full(self.wave, self.term((name,)), np.int64)
        return self.garbage()

    def gather(self, g: Gather, operands: list[np.ndarray], step_id: str) -> np.ndarray:
        out = self.garbage()
        for k, vals in enumerate(operands):
            sel = g.operand == k
            out[sel] = vals[g.lane[sel]]
        out[g.operand == ZERO] = self.term(("zero",))
        return out

    def combine(self, fn: str, a: np.ndarray, b: np.ndarray, step_id: str) -> np.ndarray:
        out = np.empty(self.wave, np.int64)
        for lane in range(self.wave):
            x, y = int(a[lane]), int(b[lane])
            if x < 0 or y < 0:                     # garbage in: garbage out, equal to nothing
                out[lane] = self.fresh
                self.fresh -= 1
            else:
                out[lane] = self.term((fn, min(x, y), max(x, y)))
        return out

    def choose(self, lanes: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.where(lanes, a, b)
