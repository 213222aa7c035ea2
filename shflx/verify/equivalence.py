"""equivalent(a, b): do two descriptions of lane movement agree on every lane that matters?

For unit tests of permutation code. Each side is a Plan (or its JSON), pattern text ("xor 5 width
16"), a sequence of source lanes (32 or 64 of them; None marks a lane whose value does not matter),
a LaneMap, or a callable lane -> source lane. Two concrete maps are compared lane by lane, which is
exhaustive; a plan is first run in the Provenance domain (which input lane each lane holds: the
same Gathers the prover uses) and then proved against the other side with Z3 (`prove_lane_map`),
so a plan is never called equal on the strength of a replay alone. The result lists every lane
that differs, with what each side holds there on one input that tells them apart."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..emulate import Provenance, Trace, result
from ..lanes import CUDA_WARP, OPEN, UNDEF, ZERO, LaneMap, mask_to_lanes
from ..pattern import Collective, parse_pattern
from ..plan import Plan, load_plan
from ..target import resolve_target
from .api import DEFAULT_TIMEOUT_MS, prove_lane_map

# The input the reported values come from: lane j holds VALUE_BASE + j, so every input lane and
# an injected 0 are told apart at once.
VALUE_BASE = 100
STATUSES = ("equal", "different", "unknown")


@dataclass(frozen=True)
class LaneDifference:
    """One destination lane where the sides differ: the source each reads (a lane, or ZERO /
    UNDEF / OPEN from shflx.lanes) and the value it holds on the counterexample input (None: garbage
    or an open question, which no input pins down)."""

    lane: int
    a: int
    b: int

    @property
    def a_value(self) -> int | None:
        return value_of(self.a)

    @property
    def b_value(self) -> int | None:
        return value_of(self.b)


@dataclass(frozen=True)
class Equivalence:
    """The answer of `equivalent`: truthy only when the sides are proved equal on every compared lane."""

    status: str                                  # "equal" | "different" | "unknown"
    wave: int
    lanes: tuple[int, ...]                       # the lanes compared
    differences: tuple[LaneDifference, ...] = ()
    method: str = "exhaustive"                   # "exhaustive" (two concrete maps) | "z3" (a plan)
    reason: str = ""

    def __bool__(self) -> bool:
        return self.status == "equal"

    @property
    def differing_lanes(self) -> tuple[int, ...]:
        return tuple(d.lane for d in self.differences)

    @property
    def counterexample(self) -> tuple[int, ...]:
        """The input values, per source lane, that the differing values are computed on."""
        return tuple(VALUE_BASE + j for j in range(self.wave))

    def report(self, names: tuple[str, str] = ("a", "b")) -> str:
        if self:
            return f"equivalent on {len(self.lanes)} of {self.wave} lanes ({self.method})"
        head = (f"not equivalent: {len(self.differences)} of {len(self.lanes)} compared lanes differ "
                f"(wave{self.wave}; input: lane j holds {VALUE_BASE} + j)")
        if self.status == "unknown":
            head = f"equivalence unknown: {self.reason}"
        lines = [head]
        for run in group_runs(self.differences):
            lanes = f"lane {run[0].lane}" if len(run) == 1 else f"lanes {run[0].lane}-{run[-1].lane}"
            lanes = f"{lanes}:".ljust(13)
            sides = "   ".join(f"{n} = {_values(run, k)} ({_sources(run, k)})" for k, n in enumerate(names))
            lines.append(f"  {lanes}{sides}")
        if self.reason and self.status != "unknown":
            lines.append(f"  ({self.reason})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.report()


def value_of(src: int) -> int | None:
    return VALUE_BASE + src if src >= 0 else (0 if src == ZERO else None)


def group_runs(diffs: Sequence[LaneDifference], longest: int = 8) -> list[list[LaneDifference]]:
    """Consecutive lanes in runs of at most `longest` (lanes 4-7), so a shifted block reads as one
    line and a line stays readable."""
    runs: list[list[LaneDifference]] = []
    for d in diffs:
        if runs and runs[-1][-1].lane == d.lane - 1 and len(runs[-1]) < longest:
            runs[-1].append(d)
        else:
            runs.append([d])
    return runs


def _compress(items: list[int]) -> list[str]:
    """[5, 6, 7, 9] -> ['5..7', '9']: ascending steps of one collapse."""
    out: list[str] = []
    k = 0
    while k < len(items):
        j = k
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        out.append(f"{items[k]}..{items[j]}" if j - k >= 2 else ", ".join(map(str, items[k:j + 1])))
        k = j + 1
    return out


def _sources(run: list[LaneDifference], side: int) -> str:
    srcs = [d.a if side == 0 else d.b for d in run]
    if all(s >= 0 for s in srcs):
        return "x[" + ", ".join(_compress(srcs)) + "]"
    names = {ZERO: "an injected 0", UNDEF: "garbage", OPEN: "an open question"}
    return ", ".join(f"x[{s}]" if s >= 0 else names[s] for s in srcs)


def _values(run: list[LaneDifference], side: int) -> str:
    vals = [value_of(d.a if side == 0 else d.b) for d in run]
    if all(v is not None for v in vals):
        text = ", ".join(_compress([int(v) for v in vals if v is not None]))
    else:
        text = ", ".join("?" if v is None else str(v) for v in vals)
    return text if len(vals) == 1 else f"[{text}]"


# ------------------------------------------------------------------------------ the sides

@dataclass(frozen=True)
class _Side:
    plan: Plan | None
    map: LaneMap | None                 # for a plan: filled in per environment
    members: np.ndarray | None = None   # a pattern's member lanes when the mask is partial


def _wave_of(obj: Any) -> int | None:
    if isinstance(obj, Plan):
        return obj.wave
    if isinstance(obj, LaneMap):
        return obj.wave
    if isinstance(obj, (str, dict)) and _is_plan_text(obj):
        return load_plan(obj).wave
    if isinstance(obj, (str, bytes)) or callable(obj):
        return None
    if isinstance(obj, (Sequence, np.ndarray, range)):
        return len(obj)
    return None


def _is_plan_text(obj: Any) -> bool:
    return isinstance(obj, dict) or (isinstance(obj, str) and obj.lstrip().startswith("{"))


def _side(obj: Any, wave: int, what: str) -> _Side:
    if isinstance(obj, Plan) or _is_plan_text(obj):
        return _Side(load_plan(obj), None)
    if isinstance(obj, LaneMap):
        return _Side(None, obj)
    if isinstance(obj, str):
        pattern = parse_pattern(obj)
        if isinstance(pattern, Collective):
            raise ValueError(f"{what}: '{obj}' is a reduction/scan; equivalent compares data movement "
                             "(prove a reduction plan with shflx.prove(plan, target))")
        members = None
        if pattern.member_mask != 0xFFFFFFFF:
            members = np.concatenate([mask_to_lanes(pattern.member_mask, CUDA_WARP)] * (wave // CUDA_WARP))
        return _Side(None, pattern.lane_map(wave), members)
    if callable(obj):
        return _Side(None, _lane_map([obj(i) for i in range(wave)], wave, what))
    if isinstance(obj, (Sequence, np.ndarray, range)) and not isinstance(obj, bytes):
        return _Side(None, _lane_map(list(obj), wave, what))
    raise TypeError(f"{what}: expected a Plan, plan JSON, pattern text, a sequence of source lanes, a LaneMap "
                    f"or a callable lane -> source lane; got {type(obj).__name__}")


def _lane_map(values: list[Any], wave: int, what: str) -> LaneMap:
    if len(values) != wave:
        raise ValueError(f"{what}: a wave{wave} lane map needs {wave} source lanes, got {len(values)}")
    src, care = [], []
    for i, v in enumerate(values):
        if v is None:
            src.append(0)
            care.append(False)
            continue
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"{what}: lane {i}: a source lane is an integer (or None), got {v!r}")
        if not 0 <= int(v) < wave:
            raise ValueError(f"{what}: lane {i} reads lane {int(v)}, outside 0..{wave - 1}")
        src.append(int(v))
        care.append(True)
    return LaneMap(np.array(src), np.array(care))


def _lanes_mask(lanes: int | Iterable[int] | None, wave: int) -> np.ndarray:
    if lanes is None:
        return np.ones(wave, bool)
    if isinstance(lanes, (int, np.integer)) and not isinstance(lanes, bool):
        if not 0 < int(lanes) < 1 << wave:
            raise ValueError(f"lanes: a bitmask of the {wave} lanes, got {lanes:#x}")
        return mask_to_lanes(int(lanes), wave)
    out = np.zeros(wave, bool)
    for lane in lanes:
        if not isinstance(lane, (int, np.integer)) or not 0 <= int(lane) < wave:
            raise ValueError(f"lanes: {lane!r} is not a lane of a wave{wave}")
        out[int(lane)] = True
    return out


def _resolve_wave(a: Any, b: Any, arch: str | None, wave: int | None) -> int:
    for what, side in (("a", a), ("b", b)):
        n = _wave_of(side)
        if n is not None and n not in (32, 64):
            raise ValueError(f"{what}: a lane map has one source lane per lane of a wave32 or wave64, "
                             f"got {n} entries")
    known = {w for w in (_wave_of(a), _wave_of(b)) if w is not None}
    if wave is not None:
        known.add(wave)
    if len(known) > 1:
        raise ValueError(f"the sides disagree on the wave size: {sorted(known)}")
    if known:
        w = known.pop()
    else:
        w = resolve_target(arch).wave if arch is not None else CUDA_WARP     # the API edge: a name
    if w not in (32, 64):
        raise ValueError(f"a wave has 32 or 64 lanes, not {w}")
    return w


# ------------------------------------------------------------------------------ the comparison

def _differs(sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
    """Lanes whose values can differ: other sources, or either side not a defined value (garbage
    and open questions equal nothing, themselves included; two injected zeros are equal)."""
    undefined = ((sa < 0) & (sa != ZERO)) | ((sb < 0) & (sb != ZERO))
    return (sa != sb) | undefined


def equivalent(a: Any, b: Any, *, arch: str | None = None, wave: int | None = None,
               lanes: int | Iterable[int] | None = None, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Equivalence:
    """Compare two lane movements on every lane of `lanes` (default all) where both sides care.

    `arch` must match the arch of any plan given; `wave` defaults to a plan's, a sequence's length,
    else the arch's default wave, else 32. Pattern text is CUDA's 32-lane meaning, on wave64 once
    per half (DESIGN decision 2); a 64-entry sequence or callable is a whole-wave map."""
    w = _resolve_wave(a, b, arch, wave)
    sides = [_side(a, w, "a"), _side(b, w, "b")]
    for s in sides:
        if s.plan is not None and arch is not None and s.plan.arch != arch:
            raise ValueError(f"a plan for {s.plan.arch} compared with arch={arch!r}")
    care = _lanes_mask(lanes, w)
    for s in sides:
        if s.map is not None:
            care = care & s.map.care
    compared = tuple(int(i) for i in np.flatnonzero(care))
    plans = [s for s in sides if s.plan is not None]
    if not plans:
        bad = care & _differs(sides[0].map.src, sides[1].map.src)  # type: ignore[union-attr]
        diffs = tuple(LaneDifference(int(i), int(sides[0].map.src[i]), int(sides[1].map.src[i]))  # type: ignore[union-attr]
                      for i in np.flatnonzero(bad))
        return Equivalence("different" if diffs else "equal", w, compared, diffs, "exhaustive")
    members = next((s.members for s in sides if s.members is not None), None)
    environments: list[np.ndarray | None] = [None] if members is None else [None, members]
    verdict = "equal"
    reasons: list[str] = []
    found: dict[int, LaneDifference] = {}
    for active in environments:
        srcs = [_provenance(s.plan, active) if s.plan is not None else s.map.src for s in sides]  # type: ignore[union-attr]
        bad = care & _differs(srcs[0], srcs[1])
        for i in np.flatnonzero(bad):
            found.setdefault(int(i), LaneDifference(int(i), int(srcs[0][i]), int(srcs[1][i])))
        # the proof: the plan against the other side's map (a plan's own map when both are plans)
        subject, other = (sides[0], srcs[1]) if sides[0].plan is not None else (sides[1], srcs[0])
        defined = care & ((other >= 0) | (other == ZERO))
        proof = prove_lane_map(subject.plan, LaneMap(np.where(defined, other, 0), defined),  # type: ignore[arg-type]
                               active, timeout_ms=timeout_ms)
        hard = [i for i in np.flatnonzero(bad) if OPEN not in (srcs[0][i], srcs[1][i])]
        if proof.status == "proved" and (bad & defined).any():
            raise RuntimeError("internal error: Z3 proved a plan that its provenance replay contradicts")
        if proof.status == "refuted" and not (bad & defined).any():
            raise RuntimeError("internal error: Z3 refuted a plan that its provenance replay agrees with")
        where = "" if active is None else " (only the member lanes active)"
        if proof.status == "unknown" and not hard:
            verdict = "unknown" if verdict == "equal" else verdict
            reasons.append(proof.reason + where)
        elif hard:
            verdict = "different"
            if proof.reason:
                reasons.append(proof.reason + where)
    if verdict == "equal" and found:      # only open-question lanes differ: not provable either way
        verdict = "unknown"
    diffs = tuple(found[k] for k in sorted(found))
    return Equivalence(verdict, w, compared, diffs, "z3", "; ".join(dict.fromkeys(reasons)))


def _provenance(plan: Plan, active: np.ndarray | None) -> np.ndarray:
    return np.asarray(result(plan, Provenance(plan.wave), Trace(), active), dtype=np.int64)


def assert_equivalent(a: Any, b: Any, *, arch: str | None = None, wave: int | None = None,
                      lanes: int | Iterable[int] | None = None, err_msg: str = "",
                      names: tuple[str, str] = ("actual", "desired")) -> None:
    """numpy.testing style: AssertionError listing every differing lane (grouped in runs) with the
    values each side holds on the counterexample input; None when equivalent."""
    res = equivalent(a, b, arch=arch, wave=wave, lanes=lanes)
    if not res:
        raise AssertionError((err_msg + "\n" if err_msg else "") + res.report(names))

