"""Translation validation: the LLVM IR helper emitted for a proven plan, read back step by step
from LLVM's own operand order of each intrinsic (llvm/include/llvm/IR/IntrinsicsAMDGPU.td), must
be that plan: every step, operand, immediate and per-lane table equal.

The proofs cover the Plan; this check covers the text handed to LLVM (an operand swapped in an
emitter would otherwise be proven correct and emitted wrong). Pure text in, differences out."""
from __future__ import annotations

import re
from typing import Any

from ..combine import FNS
from ..plan import Combine, Permlane16Swap, Plan, Select, Step

_M32 = 0xFFFFFFFF
_CALL = re.compile(r"^\s*(%[\w.\-]+) = call (?:i32|i1|\{ i32, i32 \}) @llvm\.amdgcn\.([\w.]+)\((.*)\)$")
_DEF = re.compile(r"^\s*(%[\w.\-]+) = (.*)$")
_TABLE = re.compile(r"^(@[\w.\-]+) = internal unnamed_addr addrspace\(4\) constant \[(\d+) x i32\] \[(.*)\]$")
# intrinsic (without the .i32 suffix) -> the Plan op and the fields its operands fill, in LLVM's order.
# Deliberately NOT derived from amd.primitives (the table the emitters read): this check must not
# share a mistake with the emitter it checks; tests/test_readback.py compares the two.
INTRINSICS = {
    "update.dpp": ("update.dpp", ("old", "src", "dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl")),
    "mov.dpp8": ("mov.dpp8", ("src", "sel")),
    "ds.swizzle": ("ds.swizzle", ("src", "offset")),
    "permlane16": ("permlane16", ("old", "src", "sel_lo", "sel_hi", "fi", "bound_ctrl")),
    "permlanex16": ("permlanex16", ("old", "src", "sel_lo", "sel_hi", "fi", "bound_ctrl")),
    "permlane16.var": ("permlane16.var", ("old", "src", "sel", "fi", "bound_ctrl")),
    "permlanex16.var": ("permlanex16.var", ("old", "src", "sel", "fi", "bound_ctrl")),
    "permlane64": ("permlane64", ("src",)),
    "permlane16.swap": ("permlane16.swap", ("vdst_old", "src0_old", "fi", "bound_ctrl")),
    "permlane32.swap": ("permlane32.swap", ("vdst_old", "src0_old", "fi", "bound_ctrl")),
    # gfx1250 (v_permlane_<kind>_b32 vdst, vsrc, ssrc1, ssrc2): the source, the selector, the group width
    "permlane.bcast": ("permlane.bcast", ("src", "sel", "width")),
    "permlane.up": ("permlane.up", ("src", "sel", "width")),
    "permlane.down": ("permlane.down", ("src", "sel", "width")),
    "permlane.xor": ("permlane.xor", ("src", "sel", "width")),
    "readlane": ("readlane", ("src", "lane")),
    "readfirstlane": ("readfirstlane", ("src",)),
    "writelane": ("writelane", ("value", "lane", "old")),
    "ds.bpermute": ("ds.bpermute", ("index", "src")),
    "ds.permute": ("ds.permute", ("index", "src")),
    "ds.bpermute.fi.b32": ("ds.bpermute.fi", ("index", "src")),
}
_BINARY = {"add": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor", "fadd": "fadd", "fmul": "fmul"}
_MINMAX = {"llvm.umin.i32": "umin", "llvm.umax.i32": "umax", "llvm.smin.i32": "smin", "llvm.smax.i32": "smax",
           "llvm.minnum.f32": "fmin", "llvm.maxnum.f32": "fmax"}


def _args(text: str) -> list[str]:
    return [a.strip().split()[-1] for a in text.split(",")]


def _int(tok: str) -> int:
    return int(tok) if tok not in ("true", "false") else int(tok == "true")


_FOLD = {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
         "add": lambda a, b: a + b, "sub": lambda a, b: a - b}


def read_helper(text: str, wave: int, params: dict[str, int] | None = None) -> tuple[dict[str, dict[str, Any]], str]:
    """(SSA name -> {'op', fields...}, the returned value) of an emitted helper `i32 @f(i32 %x, ...)`.

    `params` binds the helper's extra parameters to constants: immediates computed from them by
    i32 arithmetic are folded, so a helper for a family of plans reads back as one instance."""
    reader = _Reader(text, wave, params or {})
    for name, inst in reader.defs.items():
        step = reader.instruction(name, inst)
        if step is not None:
            reader.steps[name] = step
    return reader.steps, reader.result


class _Reader:
    """One helper's text: its definitions (SSA name -> instruction), constant tables and returned
    value, and the plan steps read so far (later instructions refer to earlier steps)."""

    def __init__(self, text: str, wave: int, params: dict[str, int]):
        self.wave, self.params = wave, params
        self.tables = {m.group(1): [_int(v.split()[-1]) & _M32 for v in m.group(3).split(",")]
                       for m in map(_TABLE.match, text.splitlines()) if m}
        self.defs: dict[str, str] = {}
        self.steps: dict[str, dict[str, Any]] = {}
        self.result = ""
        for line in text.splitlines():
            if line.strip().startswith("ret i32 "):
                self.result = line.strip().split()[-1]
            m = _DEF.match(line)
            if m:
                self.defs[m.group(1)] = m.group(2)

    def table_of(self, tok: str) -> tuple[int, ...]:
        """The per-lane constant a `load (gep @table, 0, %lane)` reads."""
        load = self.defs.get(tok, "")
        ptr = load.split()[-1] if load.startswith("load ") else ""
        g = re.search(r"(@[\w.\-]+), i32 0, i32 %lane$", self.defs.get(ptr, ""))
        if not g or g.group(1) not in self.tables:
            raise ValueError(f"{tok} is not a per-lane table read")
        return tuple(self.tables[g.group(1)])

    def immediate(self, tok: str) -> int:
        """An immediate operand: a literal, a bound parameter, or i32 arithmetic on those."""
        if tok in self.params:
            return self.params[tok] & _M32
        fold = re.fullmatch(r"(\w+) i32 (\S+), (\S+)", self.defs.get(tok, ""))
        if fold and fold.group(1) in _FOLD:
            return _FOLD[fold.group(1)](self.immediate(fold.group(2)), self.immediate(fold.group(3))) & _M32
        return _int(tok) & _M32

    def value(self, tok: str) -> Any:
        """A value operand: x, undef, a constant, or an SSA name (seen through float bitcasts)."""
        if tok == "%x":
            return "x"
        if tok in ("poison", "undef"):
            return "undef"
        if re.fullmatch(r"-?\d+", tok):
            return ("const", int(tok) & _M32)
        inner = self.defs.get(tok, "")
        if tok not in self.steps and inner.startswith("bitcast "):     # float views of i32 values
            return self.value(inner.split()[2])
        return tok

    def instruction(self, name: str, inst: str) -> dict[str, Any] | None:
        """The plan step one instruction is, or None (address arithmetic, table reads, ...)."""
        call = _CALL.match(f"  {name} = {inst}")
        if call and call.group(2).removesuffix(".i32") in INTRINSICS:
            return self.intrinsic(call.group(2).removesuffix(".i32"), _args(call.group(3)))
        if inst.startswith("extractvalue { i32, i32 } "):
            pair, take = inst.split()[-2].rstrip(","), _int(inst.split()[-1])
            return {**self.steps[pair], "take": take}
        if inst.startswith("select i1 "):
            return self.select(inst)
        if (op := inst.split()[0]) in _BINARY and inst.split()[1] in ("i32", "float"):
            a, b = _args(inst.split(None, 2)[2])
            return {"op": "combine", "fn": _BINARY[op], "a": self.value(a), "b": self.value(b)}
        if (mm := re.match(r"call (?:i32|float) @(llvm\.\w+\.(?:i32|f32))\((.*)\)$", inst)) and mm.group(1) in _MINMAX:
            a, b = _args(mm.group(2))
            return {"op": "combine", "fn": _MINMAX[mm.group(1)], "a": self.value(a), "b": self.value(b)}
        if (bc := re.match(r"bitcast float (%[\w.\-]+) to i32$", inst)) and bc.group(1) in self.steps:
            return self.steps[bc.group(1)]                      # a float combine's i32 view
        return None

    def intrinsic(self, intrinsic: str, args: list[str]) -> dict[str, Any]:
        """A primitive's call, its operands named in LLVM's order (INTRINSICS)."""
        op, fields = INTRINSICS[intrinsic]
        step: dict[str, Any] = {"op": op}
        for field, tok in zip(fields, args):
            if field in ("index", "sel") and not re.fullmatch(r"-?\d+", tok):
                lanes = self.table_of(tok)
                step[field] = tuple(v // 4 for v in lanes) if field == "index" else lanes
            elif field in ("old", "src", "value", "vdst_old", "src0_old"):
                step[field] = self.value(tok)
            else:
                step[field] = self.immediate(tok)
        return step

    def select(self, inst: str) -> dict[str, Any] | None:
        """A lane select on a constant mask (inverse.ballot, or the older lshr/trunc form)."""
        cond, a, b = (t.strip().split()[-1] for t in inst[len("select i1 "):].split(","))
        ballot = re.match(r"call i1 @llvm\.amdgcn\.inverse\.ballot\.i(?:32|64)\(i(?:32|64) (-?\d+)\)$",
                          self.defs.get(cond, ""))
        shift = re.match(r"trunc i64 (%[\w.\-]+) to i1$", self.defs.get(cond, ""))
        if ballot:
            lanes = int(ballot.group(1))
        elif shift and re.match(r"lshr i64 -?\d+, ", self.defs.get(shift.group(1), "")):
            lanes = int(self.defs[shift.group(1)].split()[2].rstrip(","))
        else:
            return None                                          # not a plan select
        return {"op": "select", "a": self.value(a), "b": self.value(b), "lanes": lanes & ((1 << self.wave) - 1)}


_FIELDS_BY_OP = {op: fields for op, fields in INTRINSICS.values()}


def _expected(plan: Plan, step: Step, ref: Any) -> dict[str, Any]:
    """The fields a step must show when read back (refs through `ref`)."""
    if isinstance(step, Select):
        f = dict(a=ref(step.a), b=ref(step.b), lanes=step.lanes & ((1 << plan.wave) - 1))
    elif isinstance(step, Combine):
        f = dict(fn=step.fn, a=ref(step.a), b=ref(step.b))
    elif step.op in _FIELDS_BY_OP:
        f = {}
        for name in _FIELDS_BY_OP[step.op] + (("take",) if isinstance(step, Permlane16Swap) else ()):
            v = getattr(step, name)
            f[name] = ref(v) if name in step.refs else tuple(x & _M32 for x in v) if isinstance(v, tuple) else v & _M32
    else:
        raise ValueError(f"no read-back form for {step.op}")
    return {"op": step.op, **f}


def emitted_differences(plan: Plan, text: str, local: Any, params: dict[str, int] | None = None) -> list[str]:
    """Where the emitted helper `text` is not `plan` (empty: it is). `local(id)` is the emitter's
    SSA name of a step id; `params` binds extra helper parameters (see read_helper)."""
    fn = next((s.fn for s in plan.steps if isinstance(s, Combine)), None)
    names = {f"%{local(s.id)}": s.id for s in plan.steps}

    def ref(r: Any) -> Any:
        if r == "zero":
            return ("const", 0)
        if r == "identity" and fn is not None:
            return ("const", FNS[fn].identity & _M32)
        return r

    read, result = read_helper(text, plan.wave, params)
    back = {names.get(k, k): {f: names.get(v, v) if isinstance(v, str) else v for f, v in s.items()}
            for k, s in read.items()}
    out = []
    for step in plan.steps:
        want = _expected(plan, step, ref)
        got = back.get(step.id)
        if got is None:
            out.append(f"step {step.id!r} ({step.op}) is not in the emitted code")
        elif {k: got.get(k) for k in want} != want:
            diff = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
            out.append(f"step {step.id!r} ({step.op}) emitted as {diff} (emitted, planned)")
    want_result = ref(plan.result) if plan.result in ("x", "zero", "identity") else plan.result
    got_result = names.get(result, value_of(result))
    if got_result != want_result and not (plan.result == "x" and result == "%x"):
        out.append(f"the helper returns {result}, the plan's result is {plan.result!r}")
    return out


def value_of(tok: str) -> Any:
    return "x" if tok == "%x" else ("const", int(tok) & _M32) if re.fullmatch(r"-?\d+", tok) else tok
