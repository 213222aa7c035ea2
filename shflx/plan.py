"""The Plan: a straight-line sequence of AMD cross-lane steps (shflx.steps), and its JSON form.

The format is described in docs/plan-format.md. (De)serialization is generic over the step
dataclasses; `to_llvm` / `to_hip` / `to_asm` hand the plan to the emitters of shflx.amd."""
from __future__ import annotations

import json
import re
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .errors import InputError, Location
from .schemas import SCHEMA_VERSION, versioned
from .target import Target, plan_target
from .steps import (  # re-exported (__all__): the plan's vocabulary, imported from here elsewhere
    COMBINE_FNS, SPECIAL_REFS, STEP_TYPES, Combine, DsBpermute, DsBpermuteFi, DsPermute, DsSwizzle, MovDpp8,
    Permlane16, Permlane16Swap, Permlane16Var, Permlane32Swap, Permlane64, Permlanex16, Permlanex16Var,
    Readfirstlane, Readlane, Ref, Select, Step, UpdateDpp, Writelane)

PROOF_STATUSES = ("proved", "refuted", "unknown")
__all__ = ["Plan", "PROOF_STATUSES", "PLAN_EXTRAS", "plan_from_json", "plan_to_json", "plan_to_dict", "step_to_json", "load_plan",
           "parse_plan_text", "check_references", "with_proof", "rename_steps",
           # the steps (shflx.steps), imported from here by most of the package
           "Ref", "SPECIAL_REFS", "COMBINE_FNS", "STEP_TYPES", "Step", "UpdateDpp", "MovDpp8", "DsSwizzle",
           "Permlane16", "Permlanex16", "Permlane64", "Permlane16Var", "Permlanex16Var", "Permlane16Swap",
           "Permlane32Swap", "Readlane", "Readfirstlane", "Writelane", "DsBpermute", "DsBpermuteFi", "DsPermute",
           "Select", "Combine"]


@dataclass(frozen=True)
class Plan:
    arch: str
    wave: int
    target: str                        # the pattern text the plan realizes (JSON "target")
    steps: tuple[Step, ...]
    result: Ref
    cost: float = 0.0
    proof: dict | None = None          # as read or as set by verify; emitters check it
    extra: tuple[tuple[str, Any], ...] = ()   # other top-level keys, kept for round trips
    on: Target = field(default=None, compare=False, repr=False)   # type: ignore[assignment]  # its Target

    def __post_init__(self) -> None:
        """A plan made from a name (its JSON, or Plan("gfx942", 64, ...)) resolves it here, once;
        the core makes plans with `on=` its Target (Plan.made_for) and looks nothing up."""
        on = self.on
        if on is None or on.wave != self.wave or on.name != self.arch.strip().lower():
            object.__setattr__(self, "on", plan_target(self.arch, self.wave))

    @classmethod
    def made_for(cls, on: Target, target: str, steps: tuple[Step, ...], result: Ref, cost: float = 0.0,
                 proof: dict | None = None) -> Plan:
        """A plan for the Target `on` (arch and wave are its name and wave size)."""
        return cls(on.name, on.wave, target, steps, result, cost, proof, on=on)

    def step(self, ref: Ref) -> Step | None:
        return next((s for s in self.steps if s.id == ref), None)

    def to_llvm(self, kernel: str = "shflx_test") -> str:
        """An LLVM IR module: the plan as an always-inline helper and a kernel `kernel(in, out)`
        that runs it on in[tid] (what `shflx lower --llvm` prints)."""
        from .amd.llvm_ir import kernel_ir
        return kernel_ir(self, kernel)

    def to_hip(self, name: str = "shflx_shuffle", type: str = "int") -> str:  # noqa: A002 - the C type
        """HIP C++: `__device__ TYPE name(TYPE x)` of `__builtin_amdgcn_*` calls. 32-bit types are
        moved as their bits; 64-bit types as two 32-bit halves, each through the plan."""
        from .amd.hip import typed_function_hip
        return typed_function_hip(self, name, type)

    def to_asm(self) -> str:
        """AMDGCN assembly as LLVM prints it, one line per step (symbolic registers)."""
        from .amd.asm import step_asm
        return "".join(step_asm(s, self.on) + "\n" for s in self.steps)



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
                raise InputError(f"{what} must be a JSON integer, got {json.dumps(value)}", where)
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


# What the synthesizer records beside a plan (shflx lower --json; the cache): kept, not interpreted.
PLAN_EXTRAS = ("baseline_cost", "chain", "fusable", "fused_cost", "optimality", "search", "stage", "uses_lds")


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
    if not isinstance(cost, (int, float)) or isinstance(cost, bool) or (isinstance(cost, int) and cost.bit_length() > 1000):
        raise InputError("plan: 'cost' must be a number (of a size a float holds)", where)
    version = obj.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise InputError(f"plan: schema_version {version!r} is not the one this shflx reads ({SCHEMA_VERSION})", where)
    known = {"arch", "wave", "target", "steps", "result", "cost", "proof", "schema_version"}
    unknown = sorted(set(obj) - known - set(PLAN_EXTRAS))
    if unknown:
        raise InputError(f"plan: unknown key(s) {', '.join(unknown)}; keys are "
                         f"{', '.join(sorted(known))} (and what `shflx lower --json` adds: "
                         f"{', '.join(PLAN_EXTRAS)})", where)
    extra = tuple((k, v) for k, v in obj.items() if k not in known)
    _check_references(tuple(steps), obj["result"], obj["wave"], file, text)   # before the arch is resolved
    return Plan(obj["arch"], obj["wave"], target, tuple(steps), obj["result"], float(cost), obj.get("proof"), extra)


def check_references(plan: Plan, *, file: str | None = None, text: str | None = None) -> None:
    """Ids are unique, defined before use, and the result names a step or input."""
    _check_references(plan.steps, plan.result, plan.wave, file, text)


def _check_references(steps: tuple[Step, ...], result: Ref, wave: int, file: str | None, text: str | None) -> None:
    seen: set[str] = set()
    for s in steps:
        loc = _locate(text, f'"{s.id}"', file)
        if not isinstance(s.id, str) or not s.id or s.id in SPECIAL_REFS or s.id in seen:
            raise InputError(f"step id {s.id!r} is empty, reserved or repeated", loc)
        for r in s.inputs():
            if r not in seen and r not in SPECIAL_REFS:
                raise InputError(f"step {s.id!r} uses {r!r} before it is defined", loc)
        if isinstance(s, Combine) and s.fn not in COMBINE_FNS:
            raise InputError(f"step {s.id!r}: unknown combine fn {s.fn!r}; known: {', '.join(COMBINE_FNS)}", loc)
        for name in s.lane_lists:
            if len(getattr(s, name)) != wave:
                raise InputError(f"step {s.id!r}: '{name}' needs {wave} entries (one per lane), "
                                 f"got {len(getattr(s, name))}", loc)
        seen.add(s.id)
    if result not in seen and result not in SPECIAL_REFS:
        raise InputError(f"plan: result {result!r} is not a step id",
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


def plan_to_json(plan: Plan) -> str:
    """The plan as JSON text, as `shflx lower --json` prints it (with `schema_version`); the input
    of `shflx verify` and `load_plan`. plan_to_dict is the same as a dict."""
    return json.dumps(versioned(plan_to_dict(plan)), indent=1)


def plan_to_dict(plan: Plan) -> dict:
    """The plan as a JSON-ready dict (json.dumps of it is a plan file)."""
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
        except UnicodeDecodeError:
            raise InputError("not a text file (expected a JSON plan)", Location(str(path))) from None
        except OSError as e:
            raise InputError(f"cannot read plan: {e.strerror}", Location(str(path))) from None
        return parse_plan_text(text, str(path))
    return parse_plan_text(source, "<string>")


def parse_plan_text(text: str, file: str) -> Plan:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg}", Location(file, e.lineno, e.colno)) from None
    except RecursionError:
        raise InputError("JSON nested too deeply to be a plan", Location(file)) from None
    except ValueError:                    # an integer longer than Python converts (sys.get_int_max_str_digits)
        m = re.search(r"\d{1000,}", text)
        line = text.count("\n", 0, m.start()) + 1 if m else None
        digits = f"{len(m.group(0))} digits" if m else "too many digits"
        raise InputError(f"a number with {digits}: no value in a plan is that long", Location(file, line)) from None
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
