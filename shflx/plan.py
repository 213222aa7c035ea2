"""The Plan: a straight-line sequence of AMD cross-lane steps, and its JSON form (DESIGN.md).

One frozen dataclass per step op; its fields are the JSON keys and, in order, the operands of the
LLVM intrinsic it is emitted as, so (de)serialization is generic. Hardware bits keep their raw
ISA meaning (bound_ctrl = the BC bit, fi = the FI bit; spec/amd_crosslane.md §3.5). `exec`
(an active-lane bitmask, default all lanes) and `asm` are accepted on every step: exec models
code that runs under a partial EXEC, as the golden sequences do."""
from __future__ import annotations

import json
import re
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, ClassVar

from .errors import InputError, Location

Ref = str
SPECIAL_REFS = ("x", "identity", "undef", "zero")
COMBINE_FNS = ("add", "mul", "and", "or", "xor", "umin", "umax", "smin", "smax",
               "fadd", "fmul", "fmin", "fmax")


@dataclass(frozen=True)
class Step:
    op: ClassVar[str] = ""
    refs: ClassVar[tuple[str, ...]] = ()          # fields that name other values
    lane_lists: ClassVar[tuple[str, ...]] = ()    # per-lane integer lists (length = wave)
    id: str

    def inputs(self) -> tuple[Ref, ...]:
        return tuple(getattr(self, r) for r in self.refs if getattr(self, r) is not None)


def _opt(default: Any = None) -> Any:
    return field(default=default, kw_only=True)


@dataclass(frozen=True)
class UpdateDpp(Step):
    op: ClassVar[str] = "update.dpp"
    refs: ClassVar[tuple[str, ...]] = ("old", "src")
    src: Ref
    old: Ref
    dpp_ctrl: int
    row_mask: int
    bank_mask: int
    bound_ctrl: int
    fi: int = _opt(0)
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class MovDpp8(Step):
    op: ClassVar[str] = "mov.dpp8"
    refs: ClassVar[tuple[str, ...]] = ("src",)
    src: Ref
    sel: int
    fi: int = _opt(0)
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class DsSwizzle(Step):
    op: ClassVar[str] = "ds.swizzle"
    refs: ClassVar[tuple[str, ...]] = ("src",)
    src: Ref
    offset: int
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Permlane16(Step):
    op: ClassVar[str] = "permlane16"
    refs: ClassVar[tuple[str, ...]] = ("old", "src")
    src: Ref
    old: Ref
    sel_lo: int
    sel_hi: int
    fi: int
    bound_ctrl: int
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Permlanex16(Permlane16):
    op: ClassVar[str] = "permlanex16"


@dataclass(frozen=True)
class Permlane64(Step):
    op: ClassVar[str] = "permlane64"
    refs: ClassVar[tuple[str, ...]] = ("src",)
    src: Ref
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Permlane16Var(Step):
    op: ClassVar[str] = "permlane16.var"
    refs: ClassVar[tuple[str, ...]] = ("old", "src")
    lane_lists: ClassVar[tuple[str, ...]] = ("sel",)
    src: Ref
    old: Ref
    sel: tuple[int, ...]
    fi: int
    bound_ctrl: int
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Permlanex16Var(Permlane16Var):
    op: ClassVar[str] = "permlanex16.var"


@dataclass(frozen=True)
class Permlane16Swap(Step):
    """v_permlane16_swap: both operands are rewritten; `take` picks which result this step names
    (0: the new first operand vdst, 1: the new src0), as the intrinsic's {i32, i32} result."""

    op: ClassVar[str] = "permlane16.swap"
    refs: ClassVar[tuple[str, ...]] = ("vdst_old", "src0_old")
    vdst_old: Ref
    src0_old: Ref
    fi: int
    bound_ctrl: int
    take: int
    exec: int | None = _opt()
    asm: str | None = _opt()

    @property
    def instruction(self) -> tuple:
        """What identifies the one swap instruction behind both `take` halves (emitted and costed once)."""
        return (self.op, self.vdst_old, self.src0_old, self.fi, self.bound_ctrl)


@dataclass(frozen=True)
class Permlane32Swap(Permlane16Swap):
    op: ClassVar[str] = "permlane32.swap"


@dataclass(frozen=True)
class Readlane(Step):
    op: ClassVar[str] = "readlane"
    refs: ClassVar[tuple[str, ...]] = ("src",)
    src: Ref
    lane: int
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Readfirstlane(Step):
    op: ClassVar[str] = "readfirstlane"
    refs: ClassVar[tuple[str, ...]] = ("src",)
    src: Ref
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Writelane(Step):
    op: ClassVar[str] = "writelane"
    refs: ClassVar[tuple[str, ...]] = ("value", "old")
    value: Ref
    lane: int
    old: Ref
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class DsBpermute(Step):
    """Gather: lane i reads lane index[i] (the byte address emitted is index << 2)."""

    op: ClassVar[str] = "ds.bpermute"
    refs: ClassVar[tuple[str, ...]] = ("src", "old")
    lane_lists: ClassVar[tuple[str, ...]] = ("index",)
    src: Ref
    index: tuple[int, ...]
    old: Ref | None = _opt()
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class DsBpermuteFi(DsBpermute):
    op: ClassVar[str] = "ds.bpermute.fi"


@dataclass(frozen=True)
class DsPermute(DsBpermute):
    """Scatter: lane i sends its value to lane index[i]."""

    op: ClassVar[str] = "ds.permute"


@dataclass(frozen=True)
class Select(Step):
    op: ClassVar[str] = "select"
    refs: ClassVar[tuple[str, ...]] = ("a", "b", "old")
    a: Ref
    b: Ref
    lanes: int
    old: Ref | None = _opt()
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Combine(Step):
    op: ClassVar[str] = "combine"
    refs: ClassVar[tuple[str, ...]] = ("a", "b", "old")
    fn: str
    a: Ref
    b: Ref
    old: Ref | None = _opt()
    exec: int | None = _opt()
    asm: str | None = _opt()


STEP_TYPES: dict[str, type[Step]] = {t.op: t for t in (
    UpdateDpp, MovDpp8, DsSwizzle, Permlane16, Permlanex16, Permlane64, Permlane16Var,
    Permlanex16Var, Permlane16Swap, Permlane32Swap, Readlane, Readfirstlane, Writelane,
    DsBpermute, DsBpermuteFi, DsPermute, Select, Combine)}

PROOF_STATUSES = ("proved", "refuted", "unknown")


@dataclass(frozen=True)
class Plan:
    arch: str
    wave: int
    target: str
    steps: tuple[Step, ...]
    result: Ref
    cost: float = 0.0
    proof: dict | None = None          # as read or as set by verify; emitters check it
    extra: tuple[tuple[str, Any], ...] = ()   # other top-level keys, kept for round trips

    def step(self, ref: Ref) -> Step | None:
        return next((s for s in self.steps if s.id == ref), None)


# ---------------------------------------------------------------- (de)serialization

_INT_TYPES = {"int", "int | None"}


def _bit(value: Any) -> Any:
    """JSON true/false are the raw bits 1/0."""
    return int(value) if isinstance(value, bool) else value


def _step_from_json(obj: Any, where: Location | None, index: int) -> Step:
    if not isinstance(obj, dict):
        raise InputError(f"step {index}: expected an object, got {type(obj).__name__}", where)
    op = obj.get("op")
    if op not in STEP_TYPES:
        raise InputError(f"step {index}: unknown op {op!r}; known: {', '.join(STEP_TYPES)}", where)
    cls = STEP_TYPES[op]
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(obj) - set(known) - {"op"})
    if unknown:
        raise InputError(f"step {obj.get('id', index)!r} ({op}): unknown field(s) {', '.join(unknown)}; "
                         f"fields are {', '.join(known)}", where)
    args: dict[str, Any] = {}
    for name, f in known.items():
        if name not in obj:
            if f.default is MISSING and f.default_factory is MISSING:  # type: ignore[misc]
                raise InputError(f"step {obj.get('id', index)!r} ({op}): missing field '{name}'", where)
            continue
        value = obj[name]
        ftype = str(f.type)
        what = f"step {obj.get('id', index)!r} ({op}): field '{name}'"
        if name in cls.lane_lists:
            if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise InputError(f"{what} must be a list of integers (one per lane)", where)
            value = tuple(value)
        elif ftype in _INT_TYPES:
            value = _bit(value)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                if isinstance(value, str) and re.fullmatch(r"0[xX][0-9a-fA-F]+|\d+", value):
                    value = int(value, 0)
                else:
                    raise InputError(f"{what} must be an integer, got {value!r}", where)
        elif ftype in ("str", "Ref", "Ref | None", "str | None"):
            if value is not None and not isinstance(value, str):
                raise InputError(f"{what} must be a string, got {value!r}", where)
        args[name] = value
    return cls(**args)


def _locate(text: str | None, needle: str, file: str | None) -> Location | None:
    if file is None:
        return None
    if text:
        pos = text.find(needle)
        if pos >= 0:
            return Location(file, text.count("\n", 0, pos) + 1)
    return Location(file)


def plan_from_json(obj: Any, *, file: str | None = None, text: str | None = None) -> Plan:
    """A Plan from parsed JSON; structural errors name the file and the step's line."""
    where = Location(file) if file else None
    if not isinstance(obj, dict):
        raise InputError("a plan is a JSON object", where)
    for key in ("arch", "wave", "steps", "result"):
        if key not in obj:
            raise InputError(f"plan: missing key '{key}'", where)
    if not isinstance(obj["arch"], str):
        raise InputError("plan: 'arch' must be a target name such as \"gfx942\"", where)
    if obj["wave"] not in (32, 64):
        raise InputError(f"plan: 'wave' must be 32 or 64, got {obj['wave']!r}", where)
    if not isinstance(obj["steps"], list):
        raise InputError("plan: 'steps' must be a list", where)
    if not isinstance(obj["result"], str):
        raise InputError("plan: 'result' must be a step id", where)
    target = obj.get("target", "")
    if not isinstance(target, str):
        raise InputError("plan: 'target' must be pattern text", where)
    steps = []
    for k, s in enumerate(obj["steps"]):
        sid = s.get("id") if isinstance(s, dict) else None
        loc = _locate(text, f'"{sid}"', file) if sid else where
        steps.append(_step_from_json(s, loc, k))
    cost = obj.get("cost", 0.0)
    if not isinstance(cost, (int, float)) or isinstance(cost, bool):
        raise InputError("plan: 'cost' must be a number", where)
    known = {"arch", "wave", "target", "steps", "result", "cost", "proof"}
    extra = tuple((k, v) for k, v in obj.items() if k not in known)
    plan = Plan(obj["arch"], obj["wave"], target, tuple(steps), obj["result"], float(cost),
                obj.get("proof"), extra)
    check_references(plan, file=file, text=text)
    return plan


def check_references(plan: Plan, *, file: str | None = None, text: str | None = None) -> None:
    """Ids are unique, defined before use, and the result names a step or input."""
    seen: set[str] = set()
    for s in plan.steps:
        loc = _locate(text, f'"{s.id}"', file)
        if not isinstance(s.id, str) or not s.id or s.id in SPECIAL_REFS or s.id in seen:
            raise InputError(f"step id {s.id!r} is empty, reserved or repeated", loc)
        for r in s.inputs():
            if r not in seen and r not in SPECIAL_REFS:
                raise InputError(f"step {s.id!r} uses {r!r} before it is defined", loc)
        if isinstance(s, Combine) and s.fn not in COMBINE_FNS:
            raise InputError(f"step {s.id!r}: unknown combine fn {s.fn!r}; known: {', '.join(COMBINE_FNS)}", loc)
        for name in s.lane_lists:
            if len(getattr(s, name)) != plan.wave:
                raise InputError(f"step {s.id!r}: '{name}' needs {plan.wave} entries (one per lane), "
                                 f"got {len(getattr(s, name))}", loc)
        seen.add(s.id)
    if plan.result not in seen and plan.result not in SPECIAL_REFS:
        raise InputError(f"plan: result {plan.result!r} is not a step id",
                         Location(file) if file else None)


def step_to_json(step: Step) -> dict:
    out: dict[str, Any] = {"id": step.id, "op": step.op}
    for f in fields(step):
        if f.name == "id":
            continue
        v = getattr(step, f.name)
        if v is None or (f.name == "fi" and v == 0 and f.default == 0 and step.op in ("update.dpp", "mov.dpp8")):
            continue
        out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


def plan_to_json(plan: Plan) -> dict:
    out: dict[str, Any] = {"arch": plan.arch, "wave": plan.wave, "target": plan.target,
                           "steps": [step_to_json(s) for s in plan.steps], "result": plan.result,
                           "cost": plan.cost}
    if plan.proof is not None:
        out["proof"] = plan.proof
    out.update(dict(plan.extra))
    return out


def load_plan(source: Any) -> Plan:
    """A Plan from a dict, a JSON string, or a path to a .json file."""
    if isinstance(source, Plan):
        return source
    if isinstance(source, dict):
        return plan_from_json(source)
    if isinstance(source, Path) or (isinstance(source, str) and not source.lstrip().startswith("{")):
        path = Path(source)
        try:
            text = path.read_text()
        except OSError as e:
            raise InputError(f"cannot read plan: {e.strerror}", Location(str(path))) from None
        return parse_plan_text(text, str(path))
    return parse_plan_text(source, "<string>")


def parse_plan_text(text: str, file: str) -> Plan:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg}", Location(file, e.lineno, e.colno)) from None
    return plan_from_json(obj, file=file, text=text)


def with_proof(plan: Plan, proof: dict) -> Plan:
    return replace(plan, proof=proof)

def rename_steps(steps: tuple[Step, ...], value: str, prefix: str) -> tuple[list[Step], str]:
    """Give a move's steps fresh ids and read `value` where they read x; returns (steps, result)."""
    names = {s.id: f"{prefix}.{s.id}" for s in steps}
    out = []
    for s in steps:
        changes = {}
        for r in s.refs:
            ref = getattr(s, r)
            if ref is not None:
                changes[r] = value if ref == "x" else names.get(ref, ref)
        out.append(replace(s, id=names[s.id], **changes))
    return out, names[steps[-1].id] if steps else value
