"""HIP C++ for a plan: a `__device__` function made of `__builtin_amdgcn_*` calls, one per step.

For users who keep HIP sources: paste the function, call it where the shuffle was. Pure text."""
from __future__ import annotations

from ..combine import FNS
from ..plan import (Combine, DsBpermute, DsSwizzle, MovDpp8, Permlane16, Permlane16Swap, Permlane16Var,
                    Permlane64, Plan, Readfirstlane, Readlane, Select, UpdateDpp, Writelane)
from .llvm_ir import EmitError, emission_order

C_OPS = {"add": "+", "mul": "*", "and": "&", "or": "|", "xor": "^"}


def _bool(bit: int) -> str:
    return "true" if bit else "false"


def _name(ref: str) -> str:
    return "v_" + "".join(c if c.isalnum() else "_" for c in ref)


def function_hip(plan: Plan, name: str = "shflx_shuffle") -> str:
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
    swaps: dict[tuple, str] = {}
    needs_lane = any(isinstance(s, (DsBpermute, Permlane16Var)) for s in plan.steps)
    if needs_lane:
        lines.append("  const unsigned lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));")
    for s in emission_order(plan.steps):
        if getattr(s, "exec", None) is not None:
            raise EmitError(f"step {s.id!r} models a partial EXEC; such plans are proven, not emitted")
        d = _name(s.id)
        if isinstance(s, UpdateDpp):
            if s.fi:
                raise EmitError("no builtin sets the DPP16 FI bit")
            call = (f"__builtin_amdgcn_update_dpp({ref(s.old)}, {ref(s.src)}, {s.dpp_ctrl:#x}, {s.row_mask:#x}, "
                    f"{s.bank_mask:#x}, {_bool(s.bound_ctrl)})")
        elif isinstance(s, MovDpp8):
            call = f"__builtin_amdgcn_mov_dpp8({ref(s.src)}, {s.sel:#x})"
        elif isinstance(s, DsSwizzle):
            call = f"__builtin_amdgcn_ds_swizzle({ref(s.src)}, {s.offset:#x})"
        elif isinstance(s, Permlane16Var):
            lines.append(f"  static constexpr unsigned {d}_sel[{plan.wave}] = {{{', '.join(map(str, s.sel))}}};")
            fn = "permlane16_var" if s.op == "permlane16.var" else "permlanex16_var"
            call = (f"__builtin_amdgcn_{fn}({ref(s.old)}, {ref(s.src)}, {d}_sel[lane], "
                    f"{_bool(s.fi)}, {_bool(s.bound_ctrl)})")
        elif isinstance(s, Permlane16):
            call = (f"__builtin_amdgcn_{s.op}({ref(s.old)}, {ref(s.src)}, {s.sel_lo:#010x}u, {s.sel_hi:#010x}u, "
                    f"{_bool(s.fi)}, {_bool(s.bound_ctrl)})")
        elif isinstance(s, Permlane64):
            call = f"__builtin_amdgcn_permlane64({ref(s.src)})"
        elif isinstance(s, Permlane16Swap):
            key = s.instruction
            if key not in swaps:
                swaps[key] = f"{d}_pair"
                fn = s.op.replace(".", "_")
                lines.append(f"  const auto {d}_pair = __builtin_amdgcn_{fn}({ref(s.vdst_old)}, {ref(s.src0_old)}, "
                             f"{_bool(s.fi)}, {_bool(s.bound_ctrl)});")
            call = f"(int){swaps[key]}[{s.take}]"
        elif isinstance(s, Readlane):
            call = f"__builtin_amdgcn_readlane({ref(s.src)}, {s.lane})"
        elif isinstance(s, Readfirstlane):
            call = f"__builtin_amdgcn_readfirstlane({ref(s.src)})"
        elif isinstance(s, Writelane):
            call = f"__builtin_amdgcn_writelane({ref(s.value)}, {s.lane}, {ref(s.old)})"
        elif isinstance(s, DsBpermute):
            lines.append(f"  static constexpr unsigned char {d}_src[{plan.wave}] = {{{', '.join(map(str, s.index))}}};")
            fn = {"ds.bpermute": "ds_bpermute", "ds.permute": "ds_permute", "ds.bpermute.fi": "ds_bpermute_fi_b32"}[s.op]
            call = f"__builtin_amdgcn_{fn}((int){d}_src[lane] << 2, {ref(s.src)})"
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
    return head + f"__device__ __forceinline__ int {name}(int x) {{\n" + "\n".join(lines) + \
        f"\n  return {ref(plan.result)};\n}}\n"
