"""PTX mbarrier objects on AMD: one 64-bit LDS word, changed only by compare-and-swap.

Why: libcu++'s cuda::barrier<thread_scope_block> in shared memory, cuda::pipeline and
cuda_awbarrier.h (cuda-samples' simpleAWBarrier, globalToShmemAsyncCopy) are inline PTX on
mbarrier objects (PTX ISA 8.7, 9.7.13.15 "Parallel Synchronization and Communication
Instructions: mbarrier"; its subsections are named below by title). AMD has no such object, so
the word holds the four fields of "Contents of the mbarrier object" in an encoding of our own:

    bits  0..19  pending arrival count      (at most 2^20 - 1, as the ISA's range)
    bits 20..39  expected arrival count     (1 .. 2^20 - 1)
    bits 40..60  tx-count, two's complement  (-(2^20 - 1) .. 2^20 - 1)
    bits 61..63  phase, counted modulo 8    ("Phase of the mbarrier object": its parity, the low bit)

mbarrier.init writes (count, count, 0, 0). Every other change (arrive with a count, arrive_drop,
.expect_tx, expect_tx, complete_tx, cp.async.mbarrier.arrive.noinc) is one `update(arrivals,
drops, tx)`: expected -= drops, pending -= arrivals, tx-count += tx, and when pending count and
tx-count are then both zero the phase completes ("Phase Completion of the mbarrier object"):
phase + 1, pending := expected, tx-count := 0. The update is a compare-and-swap loop, so each is
atomic; lanes of one wave that update one word take turns (one succeeds per round).
The state an arrive returns is the word before it (mbarrier.arrive: "the phase of the mbarrier
object prior to the arrive-on operation"; its pending count is the count before the arrive, as in
NVIDIA's sm_70 emulation in cuda_awbarrier_helpers.h). test_wait/try_wait with a state are true
when the word's phase differs from the state's; the .parity forms when the phase's parity
differs from the operand (mbarrier.test_wait/try_wait: the state or parity names the current or
the immediately preceding phase, and only the preceding one is complete).

Orders (mbarrier.arrive, mbarrier.test_wait/try_wait; the memory consistency model, PTX ISA 8.7
section 8): arrive is .release and test_wait/try_wait .acquire unless .relaxed is written, at .cta
scope unless .cluster is: LLVM's release cmpxchg and acquire atomic load at syncscope "workgroup"
("agent" for .cluster, which contains a cluster's CTAs; AMD has no clusters), whose AMDGPU lowering
(LLVM AMDGPUUsage, "Memory Model") makes a thread's earlier stores, LDS and global, visible to the
thread whose acquire reads the completed phase. mbarrier.expect_tx / complete_tx are .relaxed.

Waiting never blocks here: try_wait ("potentially blocking", with an optional suspend-time hint)
is one test like test_wait, false while the phase is incomplete; the code around it (libcu++'s
poll loop, or the PTX's own branch back) retries. A wave whose lanes wait for lanes of the same
wave on a branch not yet taken cannot progress on AMD (no independent thread scheduling);
libcu++'s barriers arrive before they wait, so every lane of a wave has arrived.

cp.async copies are synchronous here (ptxmemory), so cp.async.mbarrier.arrive (pending + 1 now,
an arrive-on when the thread's earlier copies complete; .noinc: without the + 1) is both at once:
no change of the word, but a release update, so that the copies are ordered before later
arrivals; .noinc is an arrive. mbarrier.inval changes nothing: after it the word is memory again."""
from __future__ import annotations

from ..nvidia import ptxir, symbolic
from ..nvidia.symbolic import StraightLine
from .ptxmemory import ORDERS, SCOPES, Access, PtxBlockError, UnsupportedPtx, address, define, pointer, syncscope

# the fields: (lowest bit, width)
PENDING, EXPECTED, TX, PHASE = (0, 20), (20, 20), (40, 21), (61, 3)
COUNT_MASK = (1 << 20) - 1

# PTX state spaces of the barrier operand: .shared (a 32-bit LDS address) or generic (a flat address)
_SPACES = {"shared": "shared", "shared::cta": "shared", "": ""}
_CLUSTER_WHY = ("an mbarrier in another CTA of a cluster; AMD GPUs have no thread-block clusters, so only a "
                "CTA's own barriers, .shared::cta, have a meaning")


def record(run: StraightLine, inst: ptxir.Instruction, accesses: list[Access], out_widths: dict) -> None:
    """`inst` (mbarrier.* or cp.async.mbarrier.arrive) as Access entries of kind "mbarrier" in
    program order; mbarrier.pending_count, a function of its operand, is computed at once."""
    run.current = inst
    mods = list(inst.modifiers)
    text = inst.render().rstrip(";")
    if inst.base == "cp":                  # cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]
        if mods[:3] != ["async", "mbarrier", "arrive"]:
            raise PtxBlockError(f"PTX instruction '{text}' is not supported in inline PTX")
        zero = symbolic.const(0, 32)
        arrive = symbolic.const(1, 32) if "noinc" in mods[3:] else zero
        _barrier(run, inst, text, "update", [m for m in mods[3:] if m != "noinc"], inst.operands[:1],
                 [arrive, zero, zero], "release", "workgroup", [], accesses, out_widths, sems=())
        return
    if not mods:
        raise PtxBlockError(f"PTX instruction '{text}' is not supported in inline PTX")
    what, flags = mods[0], mods[1:]
    ops = inst.operands
    if what == "pending_count":            # mbarrier.pending_count.b64 count, state
        if flags != ["b64"] or len(ops) != 2:
            raise PtxBlockError(f"PTX instruction '{text}': only mbarrier.pending_count.b64 count, state")
        state = run.read(run.env, ops[1], 64)
        count = symbolic.mk("and", 64, state, symbolic.const(COUNT_MASK << PENDING[0], 64))
        run.write(run.env, inst, inst.dests()[0], symbolic.resize(count, 32, False), guard=run.guard(run.env, inst))
        return
    if what == "inval":                    # the object's memory is plain memory again: nothing to do
        _parse(inst, text, flags, (), ())
        return
    if what == "init":
        _barrier(run, inst, text, "init", flags, ops[:1], [run.read(run.env, ops[1], 32)], None, "",
                 [], accesses, out_widths, sems=())
    elif what in ("arrive", "arrive_drop"):
        # mbarrier.arrive{.noComplete}{.expect_tx}{.sem}{.scope}{.space}.b64 state, [addr]{, count}
        # (.noComplete: completing the phase is undefined behaviour, so completing it is allowed)
        tx = "expect_tx" in flags
        flags = [f for f in flags if f not in ("noComplete", "expect_tx")]
        extra = [run.read(run.env, t, 32) for t in ops[2:]]
        if len(extra) > 1 or (tx and not extra):
            raise PtxBlockError(f"PTX instruction '{text}': wrong number of operands")
        count = symbolic.const(1, 32) if tx or not extra else extra[0]
        txc = extra[0] if tx else symbolic.const(0, 32)
        drop = count if what == "arrive_drop" else symbolic.const(0, 32)
        dest = [] if ops[0].strip() == "_" else [ops[0]]
        _barrier(run, inst, text, "update", flags, ops[1:2], [count, drop, txc], "release", "workgroup", dest,
                 accesses, out_widths)
    elif what in ("expect_tx", "complete_tx"):     # mbarrier.expect_tx.relaxed.scope.space.b64 [addr], txCount
        tx = run.read(run.env, ops[1], 32) if len(ops) == 2 else None
        if tx is None:
            raise PtxBlockError(f"PTX instruction '{text}': wrong number of operands")
        if what == "complete_tx":
            tx = symbolic.mk("sub", 32, symbolic.const(0, 32), tx)
        zero = symbolic.const(0, 32)
        _barrier(run, inst, text, "update", flags, ops[:1], [zero, zero, tx], "monotonic", "workgroup", [],
                 accesses, out_widths, sems=("relaxed",))
    elif what in ("test_wait", "try_wait"):
        # waitComplete, [addr], state|phaseParity{, suspendTimeHint}: the hint is ignored (one test)
        parity = "parity" in flags
        flags = [f for f in flags if f != "parity"]
        if len(ops) not in (3, 4) or (what == "test_wait" and len(ops) != 3):
            raise PtxBlockError(f"PTX instruction '{text}': wrong number of operands")
        arg = run.read(run.env, ops[2], 32 if parity else 64)
        _barrier(run, inst, text, "parity" if parity else "test", flags, ops[1:2], [arg], "acquire", "workgroup",
                 [ops[0]], accesses, out_widths, sems=("acquire", "relaxed"))
    else:
        raise PtxBlockError(f"PTX instruction '{text}': mbarrier.{what} is not supported in inline PTX")


def _parse(inst: ptxir.Instruction, text: str, flags: list[str], sems: tuple[str, ...],
           scopes: tuple[str, ...]) -> tuple[str, str | None, str | None]:
    """(space, .sem, .scope) of the qualifiers after the operation; anything else is an error."""
    if flags[-1:] != ["b64"]:
        raise PtxBlockError(f"PTX instruction '{text}': an mbarrier operation ends in .b64")
    space = sem = scope = None
    for f in flags[:-1]:
        if f == "shared::cluster":
            raise UnsupportedPtx(f"shflx does not support '{inst.opcode}' on AMD targets ({_CLUSTER_WHY})")
        if f in _SPACES and space is None:
            space = _SPACES[f]
        elif f in sems and sem is None:
            sem = f
        elif f in scopes and scope is None:
            scope = f
        else:
            raise PtxBlockError(f"PTX instruction '{text}': unexpected qualifier .{f}")
    return space or "", sem, scope


def _barrier(run: StraightLine, inst: ptxir.Instruction, text: str, op: str, flags: list[str], addr_tok: list[str],
             values: list, order: str | None, scope: str, dests: list[str], accesses: list[Access], out_widths: dict,
             sems: tuple[str, ...] = ("release", "relaxed")) -> None:
    space, sem, sc = _parse(inst, text, flags, sems, ("cta", "cluster") if sems else ())
    if sem is not None:
        order = ORDERS[sem]
    if sc is not None:
        scope = SCOPES[sc]
    if len(addr_tok) != 1:
        raise PtxBlockError(f"PTX instruction '{text}': wrong number of operands")
    guard = run.guard(run.env, inst)
    addr, off = address(run, inst, addr_tok[0], space)
    names = [f"$mbar{len(accesses)}"] if dests else []
    accesses.append(Access("mbarrier", space, addr, off, 64, names, values, guard, order=order, scope=scope, rmw=op))
    if dests:
        width = 64 if op == "update" else 1
        define(run, inst, dests, names, width, False, guard, out_widths)


def emit(em, acc: Access, origin: dict) -> None:
    """The call of the helper that performs `acc` (an mbarrier Access) on the LDS word."""
    pty, ptr = pointer(em, acc, origin)
    if pty != "ptr addrspace(3)":           # a generic address of a shared object (PTX ISA 6.4.1.1)
        ptr = em.emit(f"addrspacecast {pty} {ptr} to ptr addrspace(3)")
    guard = "true" if acc.guard is None else em.value(acc.guard, origin, None)
    args = ", ".join(f"i{v.w} {em.value(v, origin, None)}" for v in acc.values)
    name = helper_name(acc.rmw, acc.order, acc.scope)
    em.functions[name] = helper_ir(acc.rmw, acc.order, acc.scope)
    ret = {"init": "void", "update": "i64"}.get(acc.rmw, "i1")
    call = f"call {ret} @{name}(i1 {guard}, ptr addrspace(3) {ptr}, {args})"
    if ret == "void":
        em.lines.append(f"  {call}")
        return
    result = em.emit(call)
    for nm in acc.names:
        em.inputs[nm] = result


def helper_name(op: str, order: str | None, scope: str) -> str:
    return ".".join(["shflx.mbarrier", op] + ([order, scope or "system"] if order else []))


def _field(src: str, field: tuple[int, int], out: str) -> str:
    lo, width = field
    return f"  %{out}.s = lshr i64 %{src}, {lo}\n  %{out} = and i64 %{out}.s, {(1 << width) - 1}\n"


def helper_ir(op: str, order: str | None, scope: str) -> str:
    """`define internal` of one helper: (i1 guard, ptr addrspace(3) barrier, operands...); a false
    guard touches nothing (its result is then unused: the PTX destination keeps its value)."""
    name = helper_name(op, order, scope)
    where = f"{syncscope(scope)} {order}" if order else ""
    params, ret, zero = {"init": ("i32 %count", "void", ""), "update": ("i32 %arrive, i32 %drop, i32 %tx", "i64", " 0"),
                         "test": ("i64 %state", "i1", " false"), "parity": ("i32 %parity", "i1", " false")}[op]
    head = (f"define internal {ret} @{name}(i1 %guard, ptr addrspace(3) %bar, {params}) alwaysinline nounwind {{\n"
            "entry:\n  br i1 %guard, label %go, label %skip\nskip:\n"
            f"  ret {ret}{zero}\ngo:\n")
    if op == "init":
        # (count, count, 0, 0): mbarrier.init; count is 1 .. 2^20 - 1
        body = (f"  %c32 = and i32 %count, {COUNT_MASK}\n  %c = zext i32 %c32 to i64\n"
                f"  %e = shl i64 %c, {EXPECTED[0]}\n  %w = or i64 %e, %c\n"
                f"  store atomic i64 %w, ptr addrspace(3) %bar{syncscope('workgroup')} monotonic, align 8\n  ret void\n")
    elif op in ("test", "parity"):
        mine = (f"  %sp = lshr i64 %state, {PHASE[0]}\n" if op == "test" else
                "  %p1 = and i32 %parity, 1\n  %sp = zext i32 %p1 to i64\n")
        body = (f"  %w = load atomic i64, ptr addrspace(3) %bar{where}, align 8\n"
                f"  %ph = lshr i64 %w, {PHASE[0]}\n" + ("  %cur = and i64 %ph, 1\n" if op == "parity" else
                                                        "  %cur = add i64 %ph, 0\n") + mine +
                "  %done = icmp ne i64 %cur, %sp\n  ret i1 %done\n")
    else:
        tx_lo, tx_w = TX
        fail = "monotonic" if order in ("release", "monotonic") else "acquire"
        body = (f"  %first = load atomic i64, ptr addrspace(3) %bar{syncscope(scope)} monotonic, align 8\n"
                "  %a = zext i32 %arrive to i64\n  %d = zext i32 %drop to i64\n  %t = sext i32 %tx to i64\n"
                "  br label %loop\nloop:\n  %old = phi i64 [ %first, %go ], [ %seen, %loop ]\n"
                + _field("old", PENDING, "pend") + _field("old", EXPECTED, "exp") +
                f"  %txs = shl i64 %old, {64 - tx_lo - tx_w}\n  %txv = ashr i64 %txs, {64 - tx_w}\n"
                f"  %phase = lshr i64 %old, {PHASE[0]}\n"
                "  %exp2 = sub i64 %exp, %d\n  %pend2 = sub i64 %pend, %a\n  %tx2 = add i64 %txv, %t\n"
                f"  %pm = and i64 %pend2, {COUNT_MASK}\n  %tm = and i64 %tx2, {(1 << tx_w) - 1}\n"
                "  %pz = icmp eq i64 %pm, 0\n  %tz = icmp eq i64 %tm, 0\n  %complete = and i1 %pz, %tz\n"
                "  %phase1 = add i64 %phase, 1\n"
                "  %phase3 = select i1 %complete, i64 %phase1, i64 %phase\n"
                "  %pend3 = select i1 %complete, i64 %exp2, i64 %pend2\n"
                "  %tx3 = select i1 %complete, i64 0, i64 %tm\n"
                f"  %f.p = and i64 %pend3, {COUNT_MASK}\n  %f.e0 = and i64 %exp2, {COUNT_MASK}\n"
                f"  %f.e = shl i64 %f.e0, {EXPECTED[0]}\n  %f.t = shl i64 %tx3, {tx_lo}\n"
                f"  %f.ph = shl i64 %phase3, {PHASE[0]}\n"
                "  %n1 = or i64 %f.p, %f.e\n  %n2 = or i64 %n1, %f.t\n  %new = or i64 %n2, %f.ph\n"
                f"  %pair = cmpxchg ptr addrspace(3) %bar, i64 %old, i64 %new{where} {fail}, align 8\n"
                "  %seen = extractvalue { i64, i1 } %pair, 0\n  %ok = extractvalue { i64, i1 } %pair, 1\n"
                "  br i1 %ok, label %done, label %loop\ndone:\n  ret i64 %old\n")
    return head + body + "}\n"
