"""LLVM IR for a plan: one `llvm.amdgcn.*` intrinsic call per step (DESIGN.md plan contract).

Pure text generation (no llvmlite here: compiling is shflx.codegen's job). `function_ir` gives an
internal always-inline `i32 @name(i32 %x)`; `kernel_ir` wraps it in a test kernel that reads
in[tid], runs the plan and writes out[tid], for hardware checks and `shflx lower --llvm`."""
from __future__ import annotations

from ..combine import FNS
from ..steps import (Combine, MovDpp8, Permlane16, Permlane16Swap, Permlane16Var, PlanLike, Readfirstlane, Readlane,
                     Select, Step, UpdateDpp, Writelane)
from .guard import DECLS as GUARD_DECLS
from .primitives import LANE_TABLE_OPS, PRIMITIVES, VALU_PRODUCERS

# declarations of what the emitted code calls besides the primitives' intrinsics (amd.primitives)
DECLS = {
    **{op: p.declaration() for op, p in PRIMITIVES.items() if p.intrinsic},
    "mbcnt": "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)\ndeclare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)",
    "inverse.ballot.i32": "declare i1 @llvm.amdgcn.inverse.ballot.i32(i32)",
    "inverse.ballot.i64": "declare i1 @llvm.amdgcn.inverse.ballot.i64(i64)",
    "umin": "declare i32 @llvm.umin.i32(i32, i32)", "umax": "declare i32 @llvm.umax.i32(i32, i32)",
    "smin": "declare i32 @llvm.smin.i32(i32, i32)", "smax": "declare i32 @llvm.smax.i32(i32, i32)",
    "fmin": "declare float @llvm.minnum.f32(float, float)", "fmax": "declare float @llvm.maxnum.f32(float, float)",
    **GUARD_DECLS,
}
CONSTANT_REFS = ("undef", "zero", "identity")       # refs that name an immediate, not a value
INT_OPS = {"add": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor"}
FLOAT_OPS = {"fadd": "fadd", "fmul": "fmul"}


class EmitError(ValueError):
    """A plan that has no LLVM IR form (e.g. a modeled partial EXEC, the DPP16 FI bit)."""


def _b(bit: int) -> str:
    return "true" if bit else "false"


def function_ir(plan: PlanLike, name: str = "shflx_plan", attrs: str = "#0", *, params: tuple[str, ...] = (),
                prologue: tuple[str, ...] = (), lane_operands: dict[str, str] | None = None) -> tuple[str, set[str]]:
    """(function text, needed declaration keys) computing the plan from `%x`.

    `attrs`: the function attributes (a group reference, or inline attributes when the text is
    spliced into a module that has its own attribute groups). `params` (extra i32 parameters),
    `prologue` and `lane_operands` (step id -> the IR value a readlane reads its lane from) emit a
    family of plans that differ only in a runtime lane (match.broadcast)."""
    body = _Body(plan, name, {sid: {"lane": v} for sid, v in (lane_operands or {}).items()})
    body.lane_id()
    body.lines += prologue
    for s in emission_order(plan.steps, *_wait_states(plan)):
        body.step(s)
    signature = ", ".join(("i32 %x",) + tuple(f"i32 {p}" for p in params))
    text = (f"define internal i32 @{name}({signature}) {attrs} {{\nentry:\n" + "\n".join(body.lines)
            + f"\n  ret i32 {body.ref(plan.result)}\n}}\n")
    return "\n".join(body.tables) + ("\n" if body.tables else "") + text, body.needed


class _Body:
    """One helper's body under construction: its lines, the declarations (DECLS keys) and the
    per-lane constant tables it needs, and the calls already made for two-result instructions."""

    def __init__(self, plan: PlanLike, name: str, lane_operands: dict[str, dict[str, str]]):
        self.plan, self.name, self.lane_operands = plan, name, lane_operands
        self.fn_name = _combine_fn(plan)
        self.lines: list[str] = []
        self.needed: set[str] = set()
        self.tables: list[str] = []
        self.swaps: dict[tuple, str] = {}

    def ref(self, r: str) -> str:
        """The IR value of a reference: x, a constant, or a step's result."""
        if r == "x":
            return "%x"
        if r == "zero":
            return "0"
        if r == "undef":
            return "poison"
        if r == "identity":
            if self.fn_name is None:
                raise EmitError("'identity' needs a combine step")
            return str(_signed(FNS[self.fn_name].identity))
        return f"%{local_name(r)}"

    def lane_id(self) -> None:
        """%lane (the lane id) for the per-lane tables, when a step reads one."""
        if any(s.op in LANE_TABLE_OPS for s in self.plan.steps):
            self.needed.add("mbcnt")
            self.lines.append("  %lane.lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)")
            self.lines.append("  %lane = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lane.lo)" if self.plan.wave == 64
                              else "  %lane = add i32 %lane.lo, 0")

    def operand(self, s: Step, field: str, kind: str, d: str) -> str:
        """One intrinsic argument, typed, from the step's field of that operand kind (amd.primitives)."""
        v = getattr(s, field)
        if kind == "value":
            return f"i32 {self.ref(v)}"
        if kind == "sgpr" and field in self.lane_operands.get(s.id, {}):
            return f"i32 {self.lane_operands[s.id][field]}"
        if kind in ("lanes", "addr"):
            return "i32 " + _lane_table(d, v, self.plan.wave, self.name, self.tables, self.lines,
                                        scale=4 if kind == "addr" else 1)
        return f"i1 {_b(v)}" if kind == "flag" else f"i32 {_signed(v)}"

    def step(self, s: Step) -> None:
        """The lines of one step: a combine, a select, or its primitive's intrinsic call."""
        if getattr(s, "exec", None) is not None:
            raise EmitError(f"step {s.id!r} models a partial EXEC; such plans are proven, not emitted")
        d = f"%{local_name(s.id)}"
        if isinstance(s, Combine):
            self.lines += combine_ir(d, s.fn, self.ref(s.a), self.ref(s.b), self.needed)
            return
        prim = PRIMITIVES.get(s.op)
        if prim is None:
            raise EmitError(f"no LLVM IR form for {s.op}")
        for field in prim.no_operand:
            if getattr(s, field) not in (0, None):
                raise EmitError(f"step {s.id!r}: {prim.intrinsic or 'a select'} has no operand for {field!r}")
        if isinstance(s, Select):
            self.lines += select_ir(d, s.lanes, self.plan.wave, self.ref(s.a), self.ref(s.b), self.needed)
            return
        self.needed.add(s.op)
        args = ", ".join(self.operand(s, f, k, d) for f, k in prim.operands)
        if prim.result != "pair":
            self.lines.append(f"  {d} = call i32 @llvm.amdgcn.{prim.intrinsic}({args})")
            return
        # one instruction yields both results: steps naming either half share the call
        key = s.instruction  # type: ignore[attr-defined]
        if key not in self.swaps:
            self.swaps[key] = f"{d}.pair"
            self.lines.append(f"  {d}.pair = call {{ i32, i32 }} @llvm.amdgcn.{prim.intrinsic}({args})")
        self.lines.append(f"  {d} = extractvalue {{ i32, i32 }} {self.swaps[key]}, {s.take}")  # type: ignore[attr-defined]


def _wait_states(plan: PlanLike) -> tuple[int, int]:
    """The target's wait states that emission_order fills: a DPP after a VALU write of its VGPR,
    a VALU op after a VALU write of its SGPR ((0, 0) for a plan-like without a Target)."""
    target = getattr(plan, "on", None)
    if target is None:
        return 0, 0
    return target.hazards.get("dpp_after_vgpr_write", 0), target.hazards.get("valu_after_valu_sgpr_write", 0)


def tied_olds(step: Step) -> tuple[str, ...]:
    """Operands the instruction overwrites in place (LLVM ties them to its destination)."""
    if isinstance(step, Permlane16Swap):
        return (step.vdst_old,) if step.vdst_old == step.src0_old else (step.vdst_old, step.src0_old)
    if isinstance(step, (UpdateDpp, Permlane16, Permlane16Var, Writelane)):
        return (step.old,)
    return ()


def emission_order(steps: tuple[Step, ...], dpp_wait_states: int = 0, sgpr_wait_states: int = 0) -> tuple[Step, ...]:
    """The steps in a dependency-respecting order, as a list schedule over the ready steps:
    - a step overwriting a live value in place (a tied `old`) after the other readers of that value
      where it can, so LLVM needs no v_mov copy for it (llvmlite's LLVM 22.1 asm: DPP old=x before a
      permlane of x cost one; LLVM's two-address pass sees the IR order);
    - then, where the target needs `dpp_wait_states` after a VALU write before a DPP reads the VGPR
      (GFX8/9, spec §13.1), the step that would wait least, so that independent chains interleave
      and fill each other's wait states (LLVM keeps such an order, and inserts s_nop where none is
      filled: llvmlite's asm of two wave_shr:1 chains), likewise a v_writelane reading the SGPR a
      v_readlane just wrote (`sgpr_wait_states`, gfx94x/950), then the longest path to the result;
    - then the plan's own order."""
    ids = {st.id: k for k, st in enumerate(steps)}
    waits_for = [[r for r in st.inputs() if r in ids] for st in steps]
    reads = [set(st.inputs()) for st in steps]
    tied = [tuple(o for o in tied_olds(st) if o not in CONSTANT_REFS) for st in steps]   # live values only
    instruction = [getattr(st, "instruction", st.id) for st in steps]
    by_id = {st.id: st for st in steps}
    waited = [hazard_reads(st, by_id, dpp_wait_states, sgpr_wait_states) for st in steps]
    hazards = bool(dpp_wait_states or sgpr_wait_states)
    height = [1] * len(steps)
    for k in range(len(steps) - 1, -1, -1):
        for r in waits_for[k]:
            height[ids[r]] = max(height[ids[r]], height[k] + 1)
    issued: dict[str, int] = {}
    clock = 0
    pending = list(range(len(steps)))
    out: list[Step] = []
    while pending:
        ready = [k for k in pending if all(r in issued for r in waits_for[k])]
        if not ready:                                   # not a DAG in step order: keep it as given
            return tuple(steps)

        def blocks(k: int) -> bool:
            return any(o in reads[j] for o in tied[k] for j in pending if j != k and instruction[j] != instruction[k])

        def stall(k: int) -> int:
            return max([0] + [n - (clock - issued[r] - 1) for r, n in waited[k]])
        pick = min(ready, key=lambda k: (blocks(k), stall(k), -height[k] if hazards else 0, k))
        clock += stall(pick)
        if not any(instruction[j] == instruction[pick] for j in range(len(steps)) if steps[j].id in issued):
            clock += 1                                  # a swap's two halves are one instruction
        issued[steps[pick].id] = clock - 1
        pending.remove(pick)
        out.append(steps[pick])
    return tuple(out)


def hazard_reads(s: Step, by_id: dict[str, Step], dpp_wait_states: int, sgpr_wait_states: int) -> list[tuple[str, int]]:
    """(step id, wait states) for each operand of `s` whose producer the ISA asks it to wait for
    (spec §13.1): a DPP reading a VGPR a VALU op wrote, a v_writelane reading the SGPR of a v_readlane."""
    out = []
    if dpp_wait_states:
        out += [(r, dpp_wait_states) for r in dpp_vgpr_reads(s) if r in by_id and by_id[r].op in VALU_PRODUCERS]
    if sgpr_wait_states and isinstance(s, Writelane) and isinstance(by_id.get(s.value), (Readlane, Readfirstlane)):
        out.append((s.value, sgpr_wait_states))
    return out


def dpp_vgpr_reads(s: Step) -> tuple[str, ...]:
    """The VGPRs a DPP move reads: its source, and the `old` tied to its destination (LLVM's
    checkDPPHazards counts every VGPR use: a DPP whose `old` a VALU op just wrote waits too)."""
    if isinstance(s, UpdateDpp):
        return (s.src, s.old)
    return (s.src,) if isinstance(s, MovDpp8) else ()


def select_ir(d: str, lanes: int, wave: int, a: str, b: str, needed: set[str]) -> list[str]:
    """`d` = lane bit of the constant `lanes` ? a : b, as `llvm.amdgcn.inverse.ballot` + select.

    The lane mask becomes the VCC/SGPR condition (s_mov_b32 x1-2) and the select one v_cndmask:
    llvm/llvm-project llvm/include/llvm/IR/IntrinsicsAMDGPU.td `int_amdgcn_inverse_ballot`
    (an i1 per lane: bit `lane` of a wave-uniform i32 (wave32) / i64 (wave64) mask; compiled by
    llvmlite's LLVM 22.1 to exactly that). The former `lshr i64 mask, lane` form cost 8 instructions."""
    width = 32 if wave == 32 else 64
    needed.add(f"inverse.ballot.i{width}")
    mask = _signed(lanes) if width == 32 else _signed64(lanes)
    return [f"  {d}.bit = call i1 @llvm.amdgcn.inverse.ballot.i{width}(i{width} {mask})",
            f"  {d} = select i1 {d}.bit, i32 {a}, i32 {b}"]


def _lane_table(d: str, values: tuple[int, ...], wave: int, fname: str, tables: list[str],
                lines: list[str], scale: int) -> str:
    """A per-lane constant (bpermute byte address, permlane selector) read by lane id."""
    items = ", ".join(f"i32 {_signed((v * scale) & 0xFFFFFFFF)}" for v in values)
    body = f"internal unnamed_addr addrspace(4) constant [{wave} x i32] [{items}]"
    shared = next((t.split(" = ", 1)[0] for t in tables if t.split(" = ", 1)[1] == body), None)
    gname = shared or f"@{fname}.{d[1:]}.tbl"          # one table per distinct constant (priced once)
    if shared is None:
        tables.append(f"{gname} = {body}")
    lines.append(f"  {d}.ptr = getelementptr inbounds [{wave} x i32], ptr addrspace(4) {gname}, i32 0, i32 %lane")
    lines.append(f"  {d}.idx = load i32, ptr addrspace(4) {d}.ptr")
    return f"{d}.idx"


def combine_ir(d: str, fn: str, a: str, b: str, needed: set[str]) -> list[str]:
    """`d` = fn(a, b) on i32 values (floats through bitcasts); the intrinsics it calls go into `needed`
    (keys of DECLS)."""
    if fn in INT_OPS:
        return [f"  {d} = {INT_OPS[fn]} i32 {a}, {b}"]
    if fn in ("umin", "umax", "smin", "smax"):
        needed.add(fn)
        return [f"  {d} = call i32 @llvm.{fn}.i32(i32 {a}, i32 {b})"]
    out = [f"  {d}.fa = bitcast i32 {a} to float", f"  {d}.fb = bitcast i32 {b} to float"]
    if fn in FLOAT_OPS:
        out.append(f"  {d}.f = {FLOAT_OPS[fn]} float {d}.fa, {d}.fb")
    else:
        needed.add(fn)
        out.append(f"  {d}.f = call float @llvm.{'minnum' if fn == 'fmin' else 'maxnum'}.f32(float {d}.fa, float {d}.fb)")
    out.append(f"  {d} = bitcast float {d}.f to i32")
    return out


def kernel_ir(plan: PlanLike, kernel: str = "shflx_test", consume: str | None = None) -> str:
    """A module whose kernel `kernel(ptr in, ptr out)` runs the plan on in[tid] -> out[tid].

    Launch with one block of `plan.wave` threads (lane = workitem id). `consume="add"` stores
    x + plan(x) instead, so the asm shows whether LLVM folded the final DPP into the add."""
    fn, needed = function_ir(plan, f"{kernel}.plan")
    use = "  %r.out = add i32 %r, %x\n" if consume == "add" else "  %r.out = add i32 %r, 0\n"
    features = "+wavefrontsize64" if plan.wave == 64 else "+wavefrontsize32"
    decls = "\n".join(DECLS[k] for k in sorted(needed))
    return f"""; shflx plan for '{plan.target}' on {plan.arch} (wave{plan.wave})
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
{decls}

{fn}
define amdgpu_kernel void @{kernel}(ptr addrspace(1) %in, ptr addrspace(1) %out) #1 {{
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %tid
  %x = load i32, ptr addrspace(1) %pin
  %r = call i32 @{kernel}.plan(i32 %x)
{use}  %pout = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r.out, ptr addrspace(1) %pout
  ret void
}}

attributes #0 = {{ alwaysinline convergent "target-features"="{features}" }}
attributes #1 = {{ "amdgpu-flat-work-group-size"="{plan.wave},{plan.wave}" "target-features"="{features}" }}
"""


def local_name(ref: str) -> str:
    """The SSA name (without %) the emitted helper gives the step or reference `ref`."""
    safe = "".join(c if c.isalnum() or c in "._" else "_" for c in ref)
    return f"s.{safe}"


def _signed(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _signed64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def _combine_fn(plan: PlanLike) -> str | None:
    return next((s.fn for s in plan.steps if isinstance(s, Combine)), None)
