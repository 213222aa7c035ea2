"""HIP C++ for a plan: a `__device__` function made of `__builtin_amdgcn_*` calls, one per step.

For users who keep HIP sources: paste the function, call it where the shuffle was. Pure text."""
from __future__ import annotations

from ..combine import FNS
from ..steps import Combine, PlanLike, Select, Step
from .llvm_ir import EmitError, emission_order
from .primitives import LANE_TABLE_OPS, PRIMITIVES, Primitive

C_OPS = {"add": "+", "mul": "*", "and": "&", "or": "|", "xor": "^"}


def _bool(bit: int) -> str:
    return "true" if bit else "false"


def _name(ref: str) -> str:
    return "v_" + "".join(c if c.isalnum() else "_" for c in ref)


def intrinsic_alias(prim: Primitive, decls: dict[str, str]) -> str:
    """A device function bound to the LLVM intrinsic by an asm label (as ROCm's device libraries
    do in irif.h), for primitives clang has no builtin for."""
    alias = "__shflx_" + prim.intrinsic.replace(".", "_")
    params = ", ".join("bool" if k == "flag" else "int" for _, k in prim.operands)
    decls[alias] = f'extern "C" __device__ int {alias}({params}) __asm("llvm.amdgcn.{prim.intrinsic}");\n'
    return alias


def function_hip(plan: PlanLike, name: str = "shflx_shuffle") -> str:
    body = _HipBody(plan)
    if any(s.op in LANE_TABLE_OPS for s in plan.steps):
        body.lines.append("  const unsigned lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));")
    for s in emission_order(plan.steps):
        body.step(s)
    head = (f"// shflx: '{plan.target}' on {plan.arch} (wave{plan.wave}); cost {plan.cost:g} cycles; "
            f"proof: {(plan.proof or {}).get('status', 'not proved')}\n")
    return head + "".join(body.decls.values()) + f"__device__ __forceinline__ int {name}(int x) {{\n" + \
        "\n".join(body.lines) + f"\n  return {body.ref(plan.result)};\n}}\n"


class _HipBody:
    """One device function's body under construction: its lines, the asm-label declarations of the
    intrinsics clang has no builtin for, and the calls already made for two-result instructions."""

    def __init__(self, plan: PlanLike):
        self.plan = plan
        self.fn_name = next((s.fn for s in plan.steps if isinstance(s, Combine)), None)
        self.lines: list[str] = []
        self.decls: dict[str, str] = {}
        self.swaps: dict[tuple, str] = {}

    def ref(self, r: str) -> str:
        """The C value of a reference: x, a constant, or a step's result."""
        if r == "x":
            return "x"
        if r == "zero":
            return "0"
        if r == "undef":
            return "0 /* undef */"
        if r == "identity":
            return f"(int){FNS[self.fn_name].identity:#x}u" if self.fn_name else "0"
        return _name(r)

    def operand(self, s: Step, field: str, kind: str, d: str) -> str:
        """One builtin argument from the step's field of that operand kind (amd.primitives)."""
        v = getattr(s, field)
        if kind == "value":
            return self.ref(v)
        if kind in ("lanes", "addr"):
            ctype = "unsigned char" if kind == "addr" else "unsigned"
            self.lines.append(f"  static constexpr {ctype} {d}_{field}[{self.plan.wave}] = {{{', '.join(map(str, v))}}};")
            return f"(int){d}_{field}[lane] << 2" if kind == "addr" else f"{d}_{field}[lane]"
        return _bool(v) if kind == "flag" else (f"{v & 0xFFFFFFFF:#x}u" if v > 0xFFFF else f"{v:#x}")

    def step(self, s: Step) -> None:
        """`const int v_<id> = ...;` for one step (a builtin call, a select or a combine)."""
        if getattr(s, "exec", None) is not None:
            raise EmitError(f"step {s.id!r} models a partial EXEC; such plans are proven, not emitted")
        d = _name(s.id)
        prim = PRIMITIVES.get(s.op)
        for field in prim.no_operand if prim else ():
            if getattr(s, field) not in (0, None):
                raise EmitError(f"step {s.id!r}: llvm.amdgcn.{prim.intrinsic} has no operand for {field!r}")
        if prim is not None and prim.intrinsic is not None:
            call = self.primitive_call(s, prim, d)
        elif isinstance(s, Select):
            call = self.select(s)
        elif isinstance(s, Combine):
            call = self.combine(s)
        else:
            raise EmitError(f"no HIP form for {s.op}")
        self.lines.append(f"  const int {d} = {call};")

    def primitive_call(self, s: Step, prim: Primitive, d: str) -> str:
        args = ", ".join(self.operand(s, f, k, d) for f, k in prim.operands)
        callee = f"__builtin_amdgcn_{prim.builtin}" if prim.builtin else intrinsic_alias(prim, self.decls)
        if prim.result != "pair":
            return f"{callee}({args})"
        key = s.instruction  # type: ignore[attr-defined]
        if key not in self.swaps:
            self.swaps[key] = f"{d}_pair"
            self.lines.append(f"  const auto {d}_pair = {callee}({args});")
        return f"(int){self.swaps[key]}[{s.take}]"  # type: ignore[attr-defined]

    def select(self, s: Select) -> str:
        # clang's __builtin_amdgcn_inverse_ballot_w32/_w64 (BuiltinsAMDGPU.def; clang 22.1):
        # the lane mask in VCC and one v_cndmask, as the LLVM IR emitter writes it
        ballot = (f"__builtin_amdgcn_inverse_ballot_w32({s.lanes & 0xFFFFFFFF:#x}u)" if self.plan.wave == 32
                  else f"__builtin_amdgcn_inverse_ballot_w64({s.lanes:#x}ull)")
        return f"({ballot} ? {self.ref(s.a)} : {self.ref(s.b)})"

    def combine(self, s: Combine) -> str:
        a, b = self.ref(s.a), self.ref(s.b)
        if s.fn in C_OPS:
            return f"(int)((unsigned){a} {C_OPS[s.fn]} (unsigned){b})"
        if s.fn in ("smin", "smax"):
            return f"{s.fn[1:]}({a}, {b})"
        if s.fn in ("umin", "umax"):
            return f"(int){s.fn[1:]}((unsigned){a}, (unsigned){b})"
        op = {"fadd": "{a} + {b}", "fmul": "{a} * {b}", "fmin": "fminf({a}, {b})", "fmax": "fmaxf({a}, {b})"}[s.fn]
        return "__float_as_int(" + op.format(a=f"__int_as_float({a})", b=f"__int_as_float({b})") + ")"


# C type -> (bits, the type its bits are read as); 16-bit values travel in 32-bit lanes as CUDA's do
HIP_TYPES = {"int": 32, "unsigned": 32, "unsigned int": 32, "float": 32, "int32_t": 32, "uint32_t": 32,
             "long long": 64, "unsigned long long": 64, "double": 64, "long": 64, "unsigned long": 64,
             "int64_t": 64, "uint64_t": 64}
FLOAT_FNS = ("fadd", "fmul", "fmin", "fmax")


def typed_function_hip(plan: PlanLike, name: str, ctype: str) -> str:
    """`__device__ ctype name(ctype x)`: the plan on the bits of x (data movement does not look at
    them), for 64-bit types on each 32-bit half as CUDA's 64-bit shuffles do. A plan that combines
    values (a reduction) takes only the type its operator is defined on."""
    if ctype not in HIP_TYPES:
        raise EmitError(f"no HIP form for type {ctype!r}; known: {', '.join(HIP_TYPES)}")
    fn = next((s.fn for s in plan.steps if isinstance(s, Combine)), None)
    if fn is not None:
        allowed = ("float",) if fn in FLOAT_FNS else ("int", "unsigned", "unsigned int", "int32_t", "uint32_t")
        if ctype not in allowed:
            raise EmitError(f"the plan combines with {fn!r}; its HIP form takes {' or '.join(allowed)}, not {ctype!r}")
    if ctype == "int":
        return function_hip(plan, name)
    inner = function_hip(plan, f"{name}_b32")
    if HIP_TYPES[ctype] == 32:
        body = f"  return __builtin_bit_cast({ctype}, {name}_b32(__builtin_bit_cast(int, x)));\n"
    else:
        body = (f"  const unsigned long long u = __builtin_bit_cast(unsigned long long, x);\n"
                f"  const unsigned lo = (unsigned){name}_b32((int)(unsigned)u);\n"
                f"  const unsigned hi = (unsigned){name}_b32((int)(unsigned)(u >> 32));\n"
                f"  return __builtin_bit_cast({ctype}, ((unsigned long long)hi << 32) | lo);\n")
    return inner + f"__device__ __forceinline__ {ctype} {name}({ctype} x) {{\n{body}}}\n"
