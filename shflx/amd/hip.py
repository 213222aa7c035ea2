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
    fn_name = next((s.fn for s in plan.steps if isinstance(s, Combine)), None)

    def ref(r: str) -> str:
        if r == "x":
            return "x"
        if r == "zero":
            return "0"
        if r == "undef":
            return "0 /* undef */"
        if r == "identity":
            return f"(int){FNS[fn_name].identity:#x}u" if fn_name else "0"
        return _name(r)

    lines: list[str] = []
    decls: dict[str, str] = {}
    swaps: dict[tuple, str] = {}
    if any(s.op in LANE_TABLE_OPS for s in plan.steps):
        lines.append("  const unsigned lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));")

    def operand(s: Step, field: str, kind: str, d: str) -> str:
        v = getattr(s, field)
        if kind == "value":
            return ref(v)
        if kind in ("lanes", "addr"):
            ctype = "unsigned char" if kind == "addr" else "unsigned"
            lines.append(f"  static constexpr {ctype} {d}_{field}[{plan.wave}] = {{{', '.join(map(str, v))}}};")
            return f"(int){d}_{field}[lane] << 2" if kind == "addr" else f"{d}_{field}[lane]"
        return _bool(v) if kind == "flag" else (f"{v & 0xFFFFFFFF:#x}u" if v > 0xFFFF else f"{v:#x}")

    for s in emission_order(plan.steps):
        if getattr(s, "exec", None) is not None:
            raise EmitError(f"step {s.id!r} models a partial EXEC; such plans are proven, not emitted")
        d = _name(s.id)
        prim = PRIMITIVES.get(s.op)
        for field in prim.no_operand if prim else ():
            if getattr(s, field) not in (0, None):
                raise EmitError(f"step {s.id!r}: llvm.amdgcn.{prim.intrinsic} has no operand for {field!r}")
        if prim is not None and prim.intrinsic is not None:
            args = ", ".join(operand(s, f, k, d) for f, k in prim.operands)
            callee = f"__builtin_amdgcn_{prim.builtin}" if prim.builtin else intrinsic_alias(prim, decls)
            if prim.result == "pair":
                key = s.instruction  # type: ignore[attr-defined]
                if key not in swaps:
                    swaps[key] = f"{d}_pair"
                    lines.append(f"  const auto {d}_pair = {callee}({args});")
                call = f"(int){swaps[key]}[{s.take}]"  # type: ignore[attr-defined]
            else:
                call = f"{callee}({args})"
        elif isinstance(s, Select):
            # clang's __builtin_amdgcn_inverse_ballot_w32/_w64 (BuiltinsAMDGPU.def; clang 22.1):
            # the lane mask in VCC and one v_cndmask, as the LLVM IR emitter writes it
            ballot = (f"__builtin_amdgcn_inverse_ballot_w32({s.lanes & 0xFFFFFFFF:#x}u)" if plan.wave == 32
                      else f"__builtin_amdgcn_inverse_ballot_w64({s.lanes:#x}ull)")
            call = f"({ballot} ? {ref(s.a)} : {ref(s.b)})"
        elif isinstance(s, Combine):
            if s.fn in C_OPS:
                call = f"(int)((unsigned){ref(s.a)} {C_OPS[s.fn]} (unsigned){ref(s.b)})"
            elif s.fn in ("smin", "smax"):
                call = f"{s.fn[1:]}({ref(s.a)}, {ref(s.b)})"
            elif s.fn in ("umin", "umax"):
                call = f"(int){s.fn[1:]}((unsigned){ref(s.a)}, (unsigned){ref(s.b)})"
            else:
                op = {"fadd": "{a} + {b}", "fmul": "{a} * {b}", "fmin": "fminf({a}, {b})", "fmax": "fmaxf({a}, {b})"}[s.fn]
                call = ("__float_as_int(" + op.format(a=f"__int_as_float({ref(s.a)})", b=f"__int_as_float({ref(s.b)})") + ")")
        else:
            raise EmitError(f"no HIP form for {s.op}")
        lines.append(f"  const int {d} = {call};")
    head = (f"// shflx: '{plan.target}' on {plan.arch} (wave{plan.wave}); cost {plan.cost:g} cycles; "
            f"proof: {(plan.proof or {}).get('status', 'not proved')}\n")
    return head + "".join(decls.values()) + f"__device__ __forceinline__ int {name}(int x) {{\n" + "\n".join(lines) + \
        f"\n  return {ref(plan.result)};\n}}\n"


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
