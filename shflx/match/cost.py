"""Plan cost from the target's isa/ data: cycles a dependent consumer waits (with LDS waits).

GFX8/9 need software wait states before a DPP that reads a VGPR the previous VALU op wrote
(spec §13.1, 2 wait states); those are charged here. A final DPP16/DPP8 move that LLVM can fold
into its consumer ALU op (GCNDPPCombine rule 1: full masks and BC=1 or a zero/undef `old`; spec
§13.5) is marked fusable, with the folded cost beside the plain one."""
from __future__ import annotations

from typing import Any

from ..amd.llvm_ir import emission_order, hazard_reads, tied_olds
from ..amd.primitives import LANE_TABLE_OPS, LDS_OPS, PRIMITIVES, VALU_PRODUCERS
from ..plan import (Combine, MovDpp8, Permlane16Swap, Plan, Readfirstlane, Select,
                    Readlane, Step, UpdateDpp, Writelane)
from ..target import Target

COST_KIND = {**{op: p.cost_kind for op, p in PRIMITIVES.items()}, "combine": "valu"}
VALUE_CONSTANTS = ("undef", "zero", "identity")


def steps_cost(target: Target, steps: tuple[Step, ...] | list[Step]) -> float:
    """Issue costs, EXEC writes and the wait states (spec §13.1: a DPP after a VALU write of its
    VGPR; on gfx94x/950 a v_writelane after the v_readlane that wrote its SGPR) of the steps in
    emission order (llvm_ir.emission_order, which interleaves independent steps to fill them): a
    step waits only for the wait states not already filled by the instructions issued since its
    operand was written (LLVM's GCNHazardRecognizer counts them the same way, for the source and the
    tied `old`: two DPP moves reading one select result wait once)."""
    total = 0.0
    swaps_seen: dict[tuple[Any, ...], int] = {}
    full = (1 << 64) - 1
    current = full                                # EXEC as the steps leave it (all lanes at entry)
    issued: dict[str, int] = {}                   # step id -> the wait-state clock at its issue
    clock = 0
    need = target.hazards.get("dpp_after_vgpr_write", 0)
    sgpr_need = target.hazards.get("valu_after_valu_sgpr_write", 0)
    by_id = {s.id: s for s in steps}
    exec_steps = any(s.exec is not None for s in steps)
    order = tuple(steps) if exec_steps else emission_order(tuple(steps), need, sgpr_need)
    for s in order:
        want = full if s.exec is None else int(s.exec)
        if want != current:
            total += target.cost("exec_write")
            current = want
            clock += 1
            if isinstance(s, (UpdateDpp, MovDpp8)):
                total += _wait_cycles(target, "dpp_after_exec_write")
                clock += target.hazards.get("dpp_after_exec_write", 0)
        if isinstance(s, Permlane16Swap):         # both results come from one instruction
            key = s.instruction
            if key in swaps_seen:
                issued[s.id] = swaps_seen[key]
                continue
            swaps_seen[key] = clock
        total += target.cost(COST_KIND[s.op])
        if isinstance(s, Select) and target.wave == 64 and target.isa.default_wave == 32:
            total += target.cost("exec_write")    # RDNA wave64: the 64-bit mask is two s_mov_b32 (asm)
        read = hazard_reads(s, by_id, need, sgpr_need)
        if read:     # instructions issued since each operand was written fill its wait states
            nops = max(0, max(n - (clock - issued.get(r, clock - 1) - 1) for r, n in read))
            total += nops * target.cost("dpp_hazard_nop")
            clock += nops
        issued[s.id] = clock
        clock += 1
    if current != full:
        total += target.cost("exec_write")        # EXEC restored for the code that follows
    return total + emitted_extras(target, steps, order)


def emitted_extras(target: Target, steps: tuple[Step, ...] | list[Step],
                   order: tuple[Step, ...] | None = None) -> float:
    """What the emitted code adds around the steps (issue 14: price what is emitted), each checked
    against llvmlite's LLVM 22.1 asm by tests/test_asm_cost.py:
    - each distinct per-lane table (a permlane var selector, a ds_bpermute/ds_permute address)
      is read from constant memory: lane_table_cost, once per distinct table. The fallback is
      priced as emitted (its address table included, = bpermute_cost, the reports' baseline);
    - a readlane/readfirstlane result read by a VALU op is copied back to a VGPR (v_mov_b32 v, s:
      one costs.valu; a writelane reads the SGPR directly);
    - a step whose `old` operand is tied to its destination (DPP16, permlane16/x16/var, both
      operands of a permlane swap) gets a v_mov_b32 copy when a step emitted after it (in
      llvm_ir.emission_order) still reads that value, and a DPP with `old` = 0 that LLVM cannot
      drop (BC=0 or partial masks) a v_mov_b32 0;
    - a permlane swap reading a VGPR just written by a VALU op (its producer or that copy) waits
      hazards.permlane_swap_after_vgpr_write wait states (gfx950)."""
    extra = 0.0
    tables = set()
    order = emission_order(tuple(steps)) if order is None else order
    produced_by = {s.id: s.op for s in steps}
    copied: set[tuple[Any, ...]] = set()
    for k, s in enumerate(order):
        for field, kind in _TABLE_OPERANDS.get(s.op, ()):
            tables.add((kind, getattr(s, field)))
        if isinstance(s, (Readlane, Readfirstlane)):
            users = [u for u in steps if s.id in u.inputs()]
            if any(not isinstance(u, Writelane) or u.old == s.id for u in users):
                extra += target.cost("valu")
        later = [r for r in order[k + 1:] if _instruction(r) != _instruction(s)]
        for old in tied_olds(s):
            if old in VALUE_CONSTANTS:
                if old == "zero" and isinstance(s, UpdateDpp) and not (
                        s.bound_ctrl == 1 and s.row_mask == 15 and s.bank_mask == 15):
                    extra += target.cost("valu")
                continue
            key = (old, _instruction(s))
            if key in copied:
                continue
            copied.add(key)
            # each tied use needs its own register: one copy per use, less one when the value
            # dies here (a swap of x with itself copies x once; read later as well, twice)
            uses = sum(o == old for o in _tied_operands(s))
            copies = uses if any(old in r.inputs() for r in later) else uses - 1
            extra += target.cost("valu") * copies
            if isinstance(s, Permlane16Swap) and (copies or produced_by.get(old) in VALU_PRODUCERS):
                # the copy (or the producing VALU op) writes the VGPR the swap reads: spec §13.1
                extra += _wait_cycles(target, "permlane_swap_after_vgpr_write")
    return extra + len(tables) * lane_table_cost(target)


# per op, its operands read from a per-lane table (amd.primitives: kinds "lanes" and "addr")
_TABLE_OPERANDS = {op: tuple((f, k) for f, k in p.operands if k in ("lanes", "addr"))
                   for op, p in PRIMITIVES.items() if op in LANE_TABLE_OPS}


def lane_table_cost(target: Target) -> float:
    """A per-lane constant read from a constant table by lane id (isa/ costs.lane_table, counted in
    the emitted asm; priced once per distinct table): its wave64 figure, less the v_mbcnt_hi that
    wave32 does without."""
    return target.cost("lane_table") - (target.wave == 32) * target.cost("valu")


def _tied_operands(s: Step) -> tuple[str, ...]:
    return (s.vdst_old, s.src0_old) if isinstance(s, Permlane16Swap) else tied_olds(s)


def _instruction(s: Step) -> Any:
    return s.instruction if isinstance(s, Permlane16Swap) else s.id



def _wait_cycles(target: Target, hazard: str) -> float:
    """Cycles of the s_nop wait states `hazard` asks for: none where the target needs none (GFX10+
    has no dpp_hazard_nop cost at all)."""
    n = target.hazards.get(hazard, 0)
    return n * target.cost("dpp_hazard_nop") if n else 0.0


def fusable(plan: Plan) -> bool:
    """Can LLVM fold the final move into the ALU op that consumes it (any op: rule 1 only)?"""
    last = plan.step(plan.result)
    return last is not None and folds_into_combine(last, None)


def fused_cost(plan: Plan) -> float:
    if not fusable(plan):
        return plan.cost
    target = plan.on
    last = plan.step(plan.result)
    return plan.cost - target.cost(COST_KIND[last.op]) + target.cost("dpp_fused")


def folds_into_combine(step: Step, fn: str | None) -> bool:
    """Can LLVM fold this DPP move into the combine op `fn` (None: an op not known) that consumes it?

    llvm/llvm-project llvm/lib/Target/AMDGPU/GCNDPPCombine.cpp (header comment; spec §13.5):
    rule 1, full row/bank masks and BC=1 or `old` 0 (undef taken as 0); rule 2, a binary op,
    BC=0 and `old` the identity of the op, any masks (the fused op keeps src1 where the move
    would have kept `old`). Moves with FI set are never folded (no intrinsic carries FI)."""
    prim = PRIMITIVES.get(step.op)
    if prim is None or not prim.fuses or getattr(step, "fi", 0):
        return False
    if isinstance(step, MovDpp8):
        return True
    assert isinstance(step, UpdateDpp)
    if step.row_mask == 15 and step.bank_mask == 15 and (step.bound_ctrl == 1 or step.old in ("zero", "undef")):
        return True
    return step.bound_ctrl == 0 and step.old == "identity" and fn is not None


def chain_cost(target: Target, steps: tuple[Step, ...] | list[Step]) -> float:
    """Cost of a plan with combine steps: a DPP move whose only consumer is a combine and that
    LLVM can fold into it costs `dpp_fused` instead of `dpp_mov` (the combine is charged apart)."""
    total = steps_cost(target, steps)
    users: dict[str, list[Step]] = {}
    for s in steps:
        for r in s.inputs():
            users.setdefault(r, []).append(s)
    for s in steps:
        use = users.get(s.id, [])
        if len(use) == 1 and isinstance(use[0], Combine) and folds_into_combine(s, use[0].fn):
            total += target.cost("dpp_fused") - target.cost(COST_KIND[s.op])
    return total


def uses_lds(plan: Plan) -> bool:
    return any(s.op in LDS_OPS for s in plan.steps)


def bpermute_cost(target: Target) -> float:
    """The exact ds_bpermute lowering, the baseline of every report: the instruction (with its
    s_waitcnt and one address VALU) and the per-lane address table as shflx emits it. HIP's
    lane-arithmetic index (v_mbcnt_lo/hi, the index ops, the shift) takes as many VALU issues.
    shflx's table stores the byte address, so the address VALU inside costs.ds_bpermute is one
    more than its own fallback issues (tests/test_asm_cost.py prices the instruction the same way)."""
    return target.cost("ds_bpermute") + lane_table_cost(target)


__all__ = ["steps_cost", "chain_cost", "folds_into_combine", "fusable", "fused_cost", "uses_lds",
           "bpermute_cost", "Combine"]
