"""prove(plan) -> Proof: is the plan exactly its target on every lane that matters?

Shuffle targets (DESIGN decision 3): a Z3 query over symbolic lane values, for every lane of
both CUDA warps of a wave64, under full EXEC and, with a partial member mask, under EXEC = the
member lanes (a plan may only route through members). Reduction and scan targets: multiset
semantics, exact for every associative and commutative operator (synthesis_notes.md §2). Either
way the plan is also replayed on random numpy inputs; a proof the replay contradicts is a shflx
bug and raises. Proved / refuted / unknown is a type, never a bool (STYLE, after Alive2)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from ..combine import FNS
from ..emulate import Concrete, Multiset, Provenance, Terms, Trace, plan_fn, result
from ..errors import InputError
from ..lanes import OPEN, UNDEF, ZERO, LaneMap, mask_to_lanes
from ..pattern import Collective, Shuffle, parse_pattern
from ..plan import Combine, Plan, load_plan

DEFAULT_TIMEOUT_MS = 2000
VERDICT_RANK = {"proved": 0, "unknown": 1, "refuted": 2}
OPEN_QUESTION_TEXT = {
    "Q1": "GFX10+ DPP/permlane with FI=0 reading an inactive lane",
    "Q2": "GFX8/9 DPP reading an inactive lane",
    "Q7": "permlane64 reading an inactive lane",
    "Q8": "permlane16/32.swap with inactive lanes",
}


@dataclass(frozen=True)
class Proof:
    status: str                      # "proved" | "refuted" | "unknown"
    lane: int | None = None          # first wrong lane (refuted) or undecided lane (unknown)
    reason: str = ""
    method: str = ""                 # "z3" | "multiset"
    assumptions: tuple[str, ...] = ()
    questions: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "method": self.method}
        if self.lane is not None:
            out["lane"] = self.lane
        if self.reason:
            out["reason"] = self.reason
        if self.assumptions:
            out["assumptions"] = list(self.assumptions)
        if self.questions:
            out["open_questions"] = list(self.questions)
        return out

    @property
    def proved(self) -> bool:
        return self.status == "proved"


def _lane_name(lane: int, wave: int) -> str:
    return f"lane {lane}" + (f" (CUDA warp {lane // 32}, lane {lane % 32})" if wave == 64 else "")


def _describe_source(s: int) -> str:
    if s >= 0:
        return f"x[{s}]"
    return {ZERO: "0", UNDEF: "garbage (an undefined or unwritten value)", OPEN: "an undecided value"}[s]


def prove(plan: Any, target: str | None = None, *, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Proof:
    """Prove `plan` (Plan, dict, JSON text or path) against `target` (default: plan.target).

    Raises InputError / IllegalOp for malformed or illegal plans, UsageError for unknown targets."""
    plan = load_plan(plan)               # an unknown arch: UsageError listing the known ones
    text = target if target is not None else plan.target
    if not text:
        raise InputError("the plan names no target pattern (its 'target' is empty)")
    pattern = parse_pattern(text)
    if isinstance(pattern, Collective):
        return _prove_collective(plan, pattern)
    if any(isinstance(s, Combine) for s in plan.steps):
        raise InputError(f"the plan has combine steps but its target '{text}' is a shuffle; "
                         "use a 'reduce'/'scan' target")
    return _prove_shuffle(plan, pattern, timeout_ms)


def assert_proved(plan: Any, target: str | None = None) -> Proof:
    """For unit tests: the Proof, or AssertionError with the counterexample."""
    proof = prove(plan, target)
    if not proof.proved:
        raise AssertionError(f"{proof.status}: {proof.reason}")
    return proof


def _prove_shuffle(plan: Plan, pattern: Shuffle, timeout_ms: int) -> Proof:
    members = None
    if pattern.member_mask != 0xFFFFFFFF:
        members = np.concatenate([mask_to_lanes(pattern.member_mask, 32)] * (plan.wave // 32))
    return prove_lane_map(plan, pattern.lane_map(plan.wave), members, timeout_ms=timeout_ms)


def prove_lane_map(plan: Plan, expected: LaneMap, members: np.ndarray | None = None, *,
                   timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Proof:
    """Prove that every care lane i of `expected` receives x[expected.src[i]] (0 where it is ZERO),
    under full EXEC and, when `members` is given, also with only those lanes active.

    Any map on the plan's wave, wave64 maps that cross the halves included (shflx.equivalent).
    A care lane that expects garbage or an open value can never be proved: refuted there."""
    if expected.wave != plan.wave:
        raise InputError(f"the plan runs on wave{plan.wave}; the lane map has {expected.wave} lanes")
    from .smt import Z3Values, find_counterexample

    undefined = expected.care & (expected.src < 0) & (expected.src != ZERO)
    if undefined.any():
        lane = int(np.flatnonzero(undefined)[0])
        return Proof("refuted", lane, f"{_lane_name(lane, plan.wave)}: the expected map holds no defined "
                     "value there, so no plan can be proved equal to it", "z3")
    environments: list[np.ndarray | None] = [None] if members is None else [None, members]
    assumptions: set[str] = set()
    verdicts: list[Proof] = []
    for active in environments:            # the worst verdict over the environments counts
        trace = Trace()
        z = Z3Values(plan.wave)
        values = result(plan, z, trace, active)
        assumptions |= trace.assumptions
        where = "" if active is None else " with only the member lanes active"
        status, lane = find_counterexample(values, z.xs, expected.src, expected.care, timeout_ms)
        if status == "unknown":
            verdicts.append(Proof("unknown", None, f"Z3 gave no answer within {timeout_ms} ms{where}", "z3"))
        elif status == "refuted":           # which lanes are wrong, and why: the provenance replay
            prov = result(plan, Provenance(plan.wave), Trace(), active)
            verdicts.append(_classify(prov, expected.src, expected.care, plan.wave, trace, where, "z3", assumptions))
        else:
            _cross_check_shuffle(plan, expected.src, expected.care, active)
    worst = max(verdicts, key=lambda p: VERDICT_RANK[p.status], default=None)
    if worst is not None:
        return replace(worst, assumptions=tuple(sorted(assumptions)))
    return Proof("proved", None, "", "z3", tuple(sorted(assumptions)))


def lane_check(plan: Plan, pattern: Shuffle) -> Proof:
    """Whether a data-movement `plan` is `pattern` on every lane that matters, by running it on the
    lane-id input (lane i holds i) over every lane of the wave with the exact lane model
    (emulate.Provenance), under full EXEC and, with a partial member mask, with only the members
    active, as prove_lane_map's two environments. Complete, not a sample: no step of a plan without
    combine steps looks at the values it moves (which lane a step reads depends on its operands
    and the active lanes only), so the lane each lane ends up holding is the whole of what the
    plan does. Milliseconds; used on every plan read back from a cache (driver.cache)."""
    if any(isinstance(s, Combine) for s in plan.steps):
        return Proof("refuted", None, "the plan has combine steps; a shuffle is data movement", "lane ids")
    want = pattern.lane_map(plan.wave)
    environments: list[np.ndarray | None] = [None]
    if pattern.member_mask != 0xFFFFFFFF:
        environments.append(np.concatenate([mask_to_lanes(pattern.member_mask, 32)] * (plan.wave // 32)))
    for active in environments:
        trace = Trace()
        got = result(plan, Provenance(plan.wave), trace, active)
        bad = want.care & ((got != want.src) | ((got < 0) & (got != ZERO)))
        if bad.any():
            lane = int(np.flatnonzero(bad)[0])
            where = "" if active is None else " with only the member lanes active"
            return Proof("refuted", lane, f"{_lane_name(lane, plan.wave)} receives {_describe_source(int(got[lane]))}; "
                         f"the target needs {_describe_source(int(want.src[lane]))}{where}", "lane ids")
    return Proof("proved", None, "", "lane ids")


def _classify(prov: np.ndarray, want: np.ndarray, care: np.ndarray, wave: int, trace: Trace,
              where: str, method: str, assumptions: set[str]) -> Proof:
    """Refuted at the first wrong lane, unless every wrong lane only depends on an open question."""
    bad = care & ((prov != want) | ((prov < 0) & (prov != ZERO)))
    hard = bad & (prov != OPEN)
    if hard.any():
        lane = int(np.flatnonzero(hard)[0])
        return Proof("refuted", lane, f"{_lane_name(lane, wave)} receives {_describe_source(int(prov[lane]))}; "
                     f"the target needs {_describe_source(int(want[lane]))}{where}", method, tuple(sorted(assumptions)))
    lane = int(np.flatnonzero(bad)[0])
    qs = tuple(sorted(trace.questions))
    detail = "; ".join(f"{q}: {OPEN_QUESTION_TEXT.get(q, q)}" for q in qs)
    return Proof("unknown", lane, f"{_lane_name(lane, wave)} depends on an open question of "
                 f"the AMD documents, docs/proved.md ({detail}){where}", method, tuple(sorted(assumptions)), qs)


def _cross_check_shuffle(plan: Plan, want: np.ndarray, care: np.ndarray, active: np.ndarray | None) -> None:
    conc = Concrete(plan.wave, None, trials=4, seed=1)
    out = result(plan, conc, Trace(), active)
    expected = np.where((want >= 0)[:, None], conc.x[np.maximum(want, 0)], 0)
    if not np.array_equal(out[care], expected[care]):
        raise RuntimeError("internal error: Z3 proved a plan that the numpy replay contradicts")


def _prove_collective(plan: Plan, pattern: Collective) -> Proof:
    fn = FNS[pattern.fn]
    used = plan_fn(plan)
    required, care = pattern.multisets(plan.wave)
    if used is not None and used != pattern.fn:
        lane = int(np.flatnonzero(care)[0])
        return Proof("refuted", lane, f"the plan combines with '{used}' but the target is "
                     f"{pattern.kind} {pattern.op} ('{pattern.fn}')", "multiset")
    trace = Trace()
    ms = result(plan, Multiset(plan.wave), trace)
    counts, zero, undef, opened = (ms[:, :plan.wave], ms[:, plan.wave], ms[:, plan.wave + 1],
                                   ms[:, plan.wave + 2])
    if fn.idempotent:
        got, want = counts > 0, required > 0
    elif fn.self_inverse:
        got, want = counts % 2, required % 2
    else:
        got, want = counts, required
    wrong_set = (got != want).any(axis=1)
    foreign_zero = (zero > 0) & (not fn.identity_is_zero)
    bad_hard = care & (wrong_set | foreign_zero | (undef > 0)) & ~(opened > 0)
    bad_open = care & (opened > 0)
    if bad_hard.any():
        lane = int(np.flatnonzero(bad_hard)[0])
        return Proof("refuted", lane, _multiset_reason(lane, counts[lane], required[lane], zero[lane],
                                                       undef[lane], fn, plan.wave), "multiset")
    if bad_open.any():
        lane = int(np.flatnonzero(bad_open)[0])
        qs = tuple(sorted(trace.questions))
        return Proof("unknown", lane, f"{_lane_name(lane, plan.wave)} depends on an open question "
                     f"({', '.join(qs)})", "multiset", tuple(sorted(trace.assumptions)), qs)
    _cross_check_collective(plan, pattern, required, care)
    return Proof("proved", None, "", "multiset", tuple(sorted(trace.assumptions)))


def prove_terms(plan: Plan, expected: Callable[[Terms], np.ndarray], care: np.ndarray) -> Proof:
    """Prove that `plan` computes on every `care` lane the expression `expected(domain)` builds in
    the same Terms domain (e.g. a chain as written, chains.shape.chain_terms): the same operands
    combined in the same tree, so the same bits for every operator, floats included."""
    domain = Terms(plan.wave)
    trace = Trace()
    got = result(plan, domain, trace)
    want = expected(domain)
    bad = care & (got != want)
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        why = "garbage or an open value" if got[lane] < 0 else "another expression"
        return Proof("refuted", lane, f"{_lane_name(lane, plan.wave)} computes {why} than the chain as written",
                     "terms", tuple(sorted(trace.assumptions)))
    return Proof("proved", None, "", "terms", tuple(sorted(trace.assumptions)))


def _lanes_text(row: np.ndarray) -> str:
    items = [f"{j}" + (f"x{int(c)}" if c > 1 else "") for j, c in enumerate(row.tolist()) if c]
    return "{" + ",".join(items) + "}"


def _multiset_reason(lane: int, got: np.ndarray, want: np.ndarray, zero: int, undef: int,
                     fn: Any, wave: int) -> str:
    name = _lane_name(lane, wave)
    if undef:
        return f"{name} combines garbage (an undefined or unwritten value)"
    if zero and not fn.identity_is_zero:
        return f"{name} combines an injected 0, which is not the identity of '{fn.name}'"
    return f"{name} combines lanes {_lanes_text(got)}; the target needs {_lanes_text(want)}"


def _cross_check_collective(plan: Plan, pattern: Collective, required: np.ndarray, care: np.ndarray) -> None:
    fn = FNS[pattern.fn]
    if fn.is_float:
        return  # reassociated float results differ in rounding; the multiset proof stands alone
    conc = Concrete(plan.wave, pattern.fn, trials=4, seed=2)
    out = result(plan, conc, Trace())
    for i in np.flatnonzero(care):
        acc = np.full(conc.trials, fn.identity, np.uint32)
        for j in np.flatnonzero(required[i]):
            acc = fn.apply(acc, conc.x[j])
        if not np.array_equal(out[i], acc):
            raise RuntimeError(f"internal error: multiset proof of lane {i} contradicted by the replay")
