"""The memory instructions of inline PTX blocks as LLVM IR for AMDGPU: ld/ldu/st (weak, .volatile,
.relaxed/.acquire/.release at a scope), atom and red, fence/membar, cp.async.

Why a module of its own: CCCL reads and writes memory through inline PTX (libcu++'s atomics, CUB's
decoupled look-back tile states, ThreadLoad/ThreadStore), and each instruction's memory-model
meaning must reach LLVM's memory model, which AMDGPU's backend implements (LLVM AMDGPUUsage,
"Memory Model"). ptxblock runs the block's register instructions; every memory instruction is
recorded here as an Access, in program order, and written as IR by `emit_access`.

PTX ISA 8.7 sections: 9.7.9.8 ld, 9.7.9.10 st, 9.7.13.5 atom, 9.7.13.6 red, 9.7.13.4
membar/fence, 9.7.9.25 cp.async; 8.5 (scopes) and 8.7.1 / 8.4 (operation semantics: .volatile is
.relaxed.sys, a vector access is one access per element). The mapping:
  scope .cta/.cluster/.gpu/.sys -> syncscope "workgroup"/"agent"/"agent"/"" (system; AMD has no
  clusters, and agent scope contains a cluster's CTAs)
  .relaxed -> monotonic, .acquire/.release/.acq_rel as named, fence.sc and membar -> seq_cst
  atom/red without .sem are .relaxed, without a scope .gpu
A vector access with a memory order is one atomic access of the whole vector where it fits 64
bits (single-copy atomic on AMDGPU; PTX asks only for each element), else one per element."""
from __future__ import annotations

from dataclasses import dataclass

from ..nvidia import ptxir, symbolic
from ..nvidia.symbolic import Expr, StraightLine


class PtxBlockError(ValueError):
    pass


class UnsupportedPtx(PtxBlockError):
    """A PTX construct shflx has no AMD translation for: its message is the whole error
    ("shflx does not support 'X' on AMD targets (why)")."""


# PTX state spaces -> (AMDGPU address space, address bits): generic is flat (a global pointer's
# value is its flat address), .shared is the LDS, .const the constant space.
SPACES = {"": (0, 64), "global": (1, 64), "shared": (3, 32), "const": (4, 64)}
MEM_TYPES = {"u8": 8, "s8": 8, "b8": 8, "u16": 16, "s16": 16, "b16": 16, "f16": 16,
             "u32": 32, "s32": 32, "b32": 32, "f32": 32, "u64": 64, "s64": 64, "b64": 64, "f64": 64,
             "bf16": 16, "f16x2": 32, "bf16x2": 32}
# atom.add's float types -> the LLVM type of atomicrmw fadd (a pair is one 32-bit atomic of both halves,
# PTX ISA "atom": .f16x2 adds each half; .noftz is the only form of the 16-bit ones)
FLOAT_ATOMS = {"f32": "float", "f64": "double", "f16": "half", "bf16": "bfloat", "f16x2": "<2 x half>",
               "bf16x2": "<2 x bfloat>"}
CACHE_HINTS = {"ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "weak"}
# a cluster (sm_90) is a set of CTAs of one GPU, so agent scope contains it (AMD has no clusters)
SCOPES = {"cta": "workgroup", "cluster": "agent", "gpu": "agent", "sys": ""}
ORDERS = {"relaxed": "monotonic", "acquire": "acquire", "release": "release", "acq_rel": "acq_rel",
          "sc": "seq_cst"}
# atom/red operation -> (LLVM atomicrmw operation for signed / unsigned-or-bits types)
RMW = {"add": ("add", "add"), "min": ("min", "umin"), "max": ("max", "umax"), "and": ("and", "and"),
       "or": ("or", "or"), "xor": ("xor", "xor"), "exch": ("xchg", "xchg"), "inc": (None, "uinc_wrap"),
       "dec": (None, "udec_wrap")}


@dataclass
class Access:
    """One memory instruction of the block, in program order: a load (or atom) gives the fresh
    leaves `names` (its destinations' values), a store writes `values`; `guard` (None: always) says
    whether it happens at all, `mask` (i1 per element, None: all) which elements it touches.
    `order`/`scope` (LLVM's ordering and syncscope) make it atomic; `rmw` names an atomicrmw
    operation ("cmpxchg" for atom.cas: values = [compare, new]); kind "fence" has no address."""
    kind: str                       # "ld" | "st" | "rmw" | "fence"
    space: str
    addr: Expr | None
    offset: int
    width: int
    names: list[str]
    values: list[Expr]
    guard: Expr | None
    mask: list[Expr] | None = None
    order: str | None = None
    scope: str = ""
    volatile: bool = False
    rmw: str | None = None
    float_type: str | None = None   # "float", "double", "half", "<2 x half>", ... for atom.add.FLOAT


def _text(inst: ptxir.Instruction) -> str:
    return inst.render().rstrip(";")


def _order_scope(inst: ptxir.Instruction, mods: list[str], default_order: str | None,
                 default_scope: str) -> tuple[str | None, str, bool, list[str]]:
    """(LLVM ordering or None, syncscope, volatile, the other modifiers) of a memory instruction."""
    sems = [m for m in mods if m in ORDERS or m in ("volatile", "mmio")]
    scopes = [m for m in mods if m in SCOPES]
    rest = [m for m in mods if m not in sems and m not in scopes]
    if "mmio" in sems:
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': .mmio (memory-mapped I/O) has no AMD counterpart")
    if len(sems) > 1 or len(scopes) > 1 or (scopes and not sems and default_order is None):
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': unexpected memory-order or scope qualifiers")
    if sems == ["volatile"]:
        return "monotonic", "", True, rest
    order = ORDERS[sems[0]] if sems else default_order
    scope = SCOPES[scopes[0]] if scopes else default_scope
    return order, scope, False, rest


def memory(run: StraightLine, inst: ptxir.Instruction, accesses: list[Access], out_widths: dict) -> None:
    """Record `inst` (ld/ldu/st/atom/red/fence/membar/cp.async, and exit/nanosleep, which must
    stay in program order with them) as Access entries; loaded and returned values become fresh
    leaves of `run`'s environment."""
    run.current = inst
    mods = list(inst.modifiers)
    if inst.base in ("exit", "nanosleep"):
        if inst.pred is not None or (inst.base == "exit") != (not inst.operands) or \
                (inst.base == "nanosleep" and mods != ["u32"]):
            raise PtxBlockError(f"PTX instruction '{_text(inst)}': only unguarded exit and nanosleep.u32 t are supported")
        accesses.append(Access(inst.base, "", None, 0, 0, [], [], None))
    elif inst.base in ("prefetch", "prefetchu"):
        _prefetch(inst, mods)
    elif inst.base in ("fence", "membar"):
        _fence(run, inst, mods, accesses)
    elif inst.base == "cp":
        _cp_async(run, inst, mods, accesses)
    elif inst.base in ("atom", "red"):
        _atomic(run, inst, mods, accesses, out_widths)
    else:
        _load_store(run, inst, mods, accesses, out_widths)


# %globaltimer and its halves (PTX ISA 10.13): the shift that takes each out of the 64-bit timer
TIMER_REGISTERS = {"%globaltimer": None, "%globaltimer_lo": 0, "%globaltimer_hi": 32}
# AMD's REALTIME counter, which llvm.readsteadycounter reads (s_memrealtime on GFX9, s_sendmsg_rtn_b64
# MSG_RTN_GET_REALTIME on GFX11: llvm/test/CodeGen/AMDGPU/readsteadycounter.ll), counts at a constant
# 100 MHz (hipDeviceAttributeWallClockRate reports it): 10 ns a tick
NS_PER_REALTIME_TICK = 10


def read_timer(run: StraightLine, inst: ptxir.Instruction, accesses: list[Access]) -> None:
    """Before `inst` runs: each %globaltimer register it reads gets a fresh leaf, a timer Access
    in program order (two reads differ, and a read stays between the memory accesses around it)."""
    wanted = [reg for reg in TIMER_REGISTERS if any(reg == tok.strip().lstrip("!") for tok in inst.operands)]
    if not wanted:
        return
    name = f"$timer{len(accesses)}"
    accesses.append(Access("timer", "", None, 0, 64, [name], [], None))
    timer = symbolic.sym(name, 64)
    for reg in wanted:
        shift = TIMER_REGISTERS[reg]
        run.env[reg] = timer if shift is None else \
            symbolic.resize(symbolic.mk("lshr", 64, timer, symbolic.const(shift, 64)), 32, False)


# prefetch{.global,.local}.{L1,L2}, prefetch.global.L2::evict_{last,normal}, prefetchu.L1 (PTX ISA
# 9.7.9.15 "prefetch, prefetchu"): a hint that brings a line closer, with no effect on what the
# program computes; CUB's DeviceTransform prefetches its inputs (cub/device/dispatch/kernels/
# transform.cuh). It is translated to nothing. (.tensormap prefetches a TMA descriptor: not read.)
PREFETCH_FORMS = ({"L1"}, {"L2"}, {"global", "L1"}, {"global", "L2"}, {"local", "L1"}, {"local", "L2"},
                  {"global", "L2::evict_last"}, {"global", "L2::evict_normal"})


# createpolicy (PTX ISA 9.7.9.18, "createpolicy"): an opaque 64-bit cache policy that only the
# `.L2::cache_hint` forms of ld, st, cp.async (and prefetch-like instructions) read; Marlin and
# CUTLASS make one per copy (`createpolicy.fractional.L2::evict_first.b64 p, 1.0;`). Every such
# reader is translated without its policy operand (the data moved are the same), so the policy's
# value never matters: the instruction writes 0, under its guard as a mov would.
POLICY_KINDS = ("fractional", "range", "cvt")
POLICY_PRIORITIES = ("L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged")


def cache_policy(inst: ptxir.Instruction) -> ptxir.Instruction:
    """createpolicy.{fractional,range,cvt}...b64 p, ...: as `mov.b64 p, 0` (its guard kept)."""
    mods = list(inst.modifiers)
    kind, rest = (mods[0] if mods else ""), [m for m in mods[1:] if m != "global"]
    ok = kind in POLICY_KINDS and rest[-1:] == ["b64"] and inst.operands and (
        rest[:-1] == ["L2"] if kind == "cvt" else 1 <= len(rest[:-1]) <= 2 and
        all(m in POLICY_PRIORITIES for m in rest[:-1]))
    if not ok:
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': only createpolicy.{{fractional,range}}"
                            ".L2::<priority>{.L2::<priority>}.b64 and createpolicy.cvt.L2.b64 are supported")
    return ptxir.Instruction.new("mov.b64", [inst.operands[0], "0"], inst.pred, inst.neg)


def _prefetch(inst: ptxir.Instruction, mods: list[str]) -> None:
    """A prefetch of one address: no access to record (PREFETCH_FORMS)."""
    form = set(mods)
    if len(inst.operands) != 1 or not inst.operands[0].strip().startswith("[") or \
            (inst.base == "prefetchu" and form != {"L1"}) or (inst.base == "prefetch" and form not in PREFETCH_FORMS):
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': only prefetch{{.global,.local}}.{{L1,L2}}, "
                            "prefetch.global.L2::evict_{last,normal} and prefetchu.L1 [a] are supported")


def _fence(run: StraightLine, inst: ptxir.Instruction, mods: list[str], accesses: list[Access]) -> None:
    """membar.{cta,gl,sys} is fence.sc at that scope (PTX ISA 9.7.13.4); fence.{sc,acq_rel}.scope."""
    if inst.pred is not None or inst.operands:
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': only unguarded fence/membar is supported")
    if inst.base == "membar":
        scope = {("cta",): "workgroup", ("gl",): "agent", ("sys",): ""}.get(tuple(mods))
        order = "seq_cst"
    else:
        order = ORDERS.get(mods[0]) if len(mods) == 2 and mods[0] in ("sc", "acq_rel") else None
        scope = SCOPES.get(mods[1]) if order else None
    if scope is None:
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': only fence.{{sc,acq_rel}}.{{cta,gpu,sys}} and "
                            "membar.{cta,gl,sys} are supported")
    accesses.append(Access("fence", "", None, 0, 0, [], [], None, order=order, scope=scope))


def _load_store(run: StraightLine, inst: ptxir.Instruction, mods: list[str], accesses: list[Access],
                out_widths: dict) -> None:
    order, scope, volatile, mods = _order_scope(inst, mods, None, "")
    if not volatile and order in ("acq_rel", "seq_cst", "release" if inst.base != "st" else "acquire"):
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': {inst.base} cannot be {order}")
    space = next((m for m in mods if m in SPACES), "")
    vec = next((int(m[1:]) for m in mods if m in ("v2", "v4")), 1)
    types = [m for m in mods if m in MEM_TYPES]
    rest = [m for m in mods if m not in SPACES and m not in ("v2", "v4") and m not in MEM_TYPES
            and m not in CACHE_HINTS and not m.startswith("L1::") and not m.startswith("L2::")]
    if len(types) != 1 or rest or (space == "const" and inst.base == "st"):
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': shflx translates ld/st of 8- to 64-bit (vector) "
                            "values in the global, shared, const or generic space")
    width = MEM_TYPES[types[0]]
    guard = run.guard(run.env, inst)
    if order is not None and guard is not None:
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': a guarded {inst.base} with a memory order is not "
                            "supported")
    sem = {"order": order, "scope": scope, "volatile": volatile}
    if inst.base in ("ld", "ldu"):
        dests = inst.dests()
        addr, off = address(run, inst, inst.operands[1], space)
        if len(dests) != vec:
            raise PtxBlockError(f"PTX instruction '{_text(inst)}': {vec} destinations expected")
        names = [f"$ld{len(accesses)}.{k}" for k in range(vec)]
        accesses.append(Access("ld", space, addr, off, width, names, [], guard, **sem))
        define(run, inst, dests, names, width, types[0].startswith("s"), guard, out_widths)
        return
    addr, off = address(run, inst, inst.operands[0], space)
    srcs = [t.strip() for t in inst.operands[1].strip("{} ").split(",")]
    if len(srcs) != vec:
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': {vec} sources expected")
    # (read takes the low `width` bits of a wider register, as st.u16 / st.u8 store them)
    accesses.append(Access("st", space, addr, off, width, [], [run.read(run.env, t, width) for t in srcs], guard,
                           **sem))


def define(run: StraightLine, inst: ptxir.Instruction, dests: list[str], names: list[str], width: int,
            signed: bool, guard, out_widths: dict) -> None:
    """The destinations take the fresh leaves `names`; narrower values widen to the register
    (.s types sign-extend)."""
    for d, nm in zip(dests, names):
        v = symbolic.sym(nm, width)
        dw = run.reg_width(d) or out_widths.get(d)
        if dw is not None and dw != width:
            v = symbolic.resize(v, dw, signed)
        run.write(run.env, inst, d, v, guard=guard)
        run.origin.setdefault(run.env[d].id, inst)


def _atomic(run: StraightLine, inst: ptxir.Instruction, mods: list[str], accesses: list[Access],
            out_widths: dict) -> None:
    """atom{.sem}{.scope}{.space}.op.type d, [a], b{, c} / red{.sem}{.scope}{.space}.op.type [a], b."""
    order, scope, volatile, mods = _order_scope(inst, mods, "monotonic", "agent")
    if volatile or (inst.base == "red" and order not in ("monotonic", "release")):
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': unexpected memory order")
    space = next((m for m in mods if m in SPACES), "")
    ops = [m for m in mods if m in RMW or m == "cas"]
    types = [m for m in mods if m in MEM_TYPES]
    rest = [m for m in mods if m not in SPACES and m not in ops and m not in types]
    op, tname = (ops or [None])[0], (types or [None])[0]
    width = MEM_TYPES.get(tname, 0)
    float_type = FLOAT_ATOMS.get(tname)
    half = tname in ("f16", "f16x2", "bf16", "bf16x2")
    if half and rest == ["noftz"]:
        rest = []             # .noftz (keep subnormals): the only form of the 16-bit ones, and LLVM's meaning
    if inst.pred is not None or len(ops) != 1 or len(types) != 1 or rest or space == "const":
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': shflx translates unguarded scalar atom/red "
                            "(add, min, max, and, or, xor, exch, inc, dec, cas) in the global, shared or generic space")
    if (half and "noftz" not in mods) or (float_type and op != "add") or (op in ("inc", "dec") and tname != "u32") \
            or (op == "cas" and inst.base == "red") or width < 16:
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': this operation and type are not supported")
    rmw = "cmpxchg" if op == "cas" else ("fadd" if float_type else RMW[op][0 if tname.startswith("s") else 1])
    first = 1 if inst.base == "atom" else 0
    addr, off = address(run, inst, inst.operands[first], space)
    values = [run.read(run.env, t, width) for t in inst.operands[first + 1:]]
    if len(values) != (2 if op == "cas" else 1):
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': wrong number of operands")
    names = [f"$atom{len(accesses)}"] if inst.base == "atom" else []
    accesses.append(Access("rmw", space, addr, off, width, names, values, None, order=order, scope=scope,
                           rmw=rmw, float_type=float_type))
    if names:
        define(run, inst, inst.dests(), names, width, tname.startswith("s"), None, out_widths)


def _cp_async(run: StraightLine, inst: ptxir.Instruction, mods: list[str], accesses: list[Access]) -> None:
    """cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size}: a synchronous copy (its
    completion waits, cp.async.{commit,wait}_*, become no-ops), zero-filled past src-size."""
    if mods[:1] != ["async"]:
        raise PtxBlockError(f"PTX instruction '{_text(inst)}' is not supported in inline PTX")
    if len(mods) >= 2 and mods[1] in ("commit_group", "wait_group", "wait_all"):
        return                                   # copies below complete at once
    # .L2::64B/128B/256B (prefetch size) and .L2::cache_hint (its cache-policy operand comes last)
    # choose what is cached, not what is copied; .shared::cta is .shared
    operands = inst.operands[:-1] if "L2::cache_hint" in mods else inst.operands
    mods = ["shared" if m == "shared::cta" else m for m in mods if not m.startswith("L2::")]
    if mods[1:] not in (["ca", "shared", "global"], ["cg", "shared", "global"]) or len(operands) not in (3, 4):
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': only cp.async.{{ca,cg}}.shared.global "
                            "[dst], [src], size{, src-size} is supported in inline PTX")
    size = imm_int(inst, operands[2])
    if size not in (4, 8, 16):
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': copy size must be 4, 8 or 16")
    guard = run.guard(run.env, inst)
    n = size // 4
    src_size = run.read(run.env, operands[3], 32) if len(operands) == 4 else None
    dst, doff = address(run, inst, inst.operands[0], "shared")
    src, soff = address(run, inst, inst.operands[1], "global")
    names = [f"$cp{len(accesses)}.{k}" for k in range(n)]
    keep = None
    if src_size is not None:                      # word k is read only where 4k < src-size
        keep = [symbolic.mk("ult", 1, symbolic.const(4 * k, 32), src_size) for k in range(n)]
    accesses.append(Access("ld", "global", src, soff, 32, names, [], guard, keep))
    words = [symbolic.sym(nm, 32) for nm in names]
    if src_size is not None:                      # bytes past src-size are zero
        words = [_zero_fill(w, src_size, 4 * k) for k, w in enumerate(words)]
    accesses.append(Access("st", "shared", dst, doff, 32, [], words, guard))


def _zero_fill(word: Expr, src_size: Expr, base: int) -> Expr:
    """word with the bytes at byte offsets >= src-size cleared (base: the word's first byte)."""
    out = word
    for b in range(4):
        inside = symbolic.mk("ult", 1, symbolic.const(base + b, 32), src_size)
        out = symbolic.ite(inside, out, symbolic.mk("and", 32, out, symbolic.const(~(0xFF << (8 * b)) & 0xFFFFFFFF, 32)))
    return out


def imm_int(inst: ptxir.Instruction, tok: str) -> int:
    try:
        return int(tok.strip(), 0)
    except ValueError:
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': '{tok}' must be a constant") from None


def address(run: StraightLine, inst: ptxir.Instruction, tok: str, space: str = "") -> tuple[Expr, int]:
    """[reg], [reg+imm] or [reg-imm]: the register's value and the byte offset; a global, const or
    generic address must be 64-bit (an "l" operand), a shared one may be 32-bit."""
    body = tok.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': address '{tok}' is not [reg{{+imm}}]")
    body = body[1:-1].replace(" ", "")
    reg, off = body, 0
    for sign in ("+", "-"):
        if sign in body[1:]:
            reg, imm = body.split(sign, 1)
            off = imm_int(inst, imm) * (1 if sign == "+" else -1)
            break
    if reg not in run.env:
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': address register '{reg}' has no value")
    if run.env[reg].w < SPACES[space][1]:
        raise PtxBlockError(f"PTX instruction '{_text(inst)}': a {space or 'generic'} address must be "
                            f"a {SPACES[space][1]}-bit register (an \"l\" operand)")
    return run.env[reg], off


def emit_access(em, acc: Access, origin: dict) -> None:
    """IR of one access through the emitter `em` (ptxblock's: value, emit, decls, inputs): the
    address as a pointer of its space, then the load, store, atomic or fence. Guarded or
    element-masked plain accesses are llvm.masked.load/store, so a false guard touches no memory."""
    if acc.kind == "fence":
        em.lines.append(f"  fence{syncscope(acc.scope)} {acc.order}")
        return
    if acc.kind == "nanosleep":       # PTX: a sleep within [0, 2t]; s_sleep 1 waits about 64 clocks
        em.decls["llvm.amdgcn.s.sleep"] = "declare void @llvm.amdgcn.s.sleep(i32 immarg)"
        em.lines.append("  call void @llvm.amdgcn.s.sleep(i32 1)")
        return
    if acc.kind == "timer":           # PTX: nanoseconds
        ticks = em.call("i64", "llvm.readsteadycounter", "")
        em.inputs[acc.names[0]] = em.emit(f"mul i64 {ticks}, {NS_PER_REALTIME_TICK}")
        return
    if acc.kind == "exit":
        em.functions[EXIT_FN] = exit_ir(em.wave)
        em.decls.update(exit_declarations(em.wave))
        em.lines.append(f"  call void @{EXIT_FN}()")
        return
    aspace = SPACES[acc.space][0]
    pty, ptr = pointer(em, acc, origin)
    if acc.kind == "rmw":
        _emit_rmw(em, acc, origin, pty, ptr)
    elif acc.order is not None:
        _emit_atomic_load_store(em, acc, origin, pty, ptr)
    else:
        _emit_plain(em, acc, origin, pty, ptr, aspace)


def pointer(em, acc: Access, origin: dict) -> tuple[str, str]:
    """(pointer type, pointer) of an access's address: its register as a pointer of its space, plus
    the offset."""
    aspace, abits = SPACES[acc.space]
    addr = em.value(acc.addr, origin, None)
    if acc.addr.w != abits:
        addr = em.emit(f"{'trunc' if acc.addr.w > abits else 'zext'} i{acc.addr.w} {addr} to i{abits}")
    pty = f"ptr addrspace({aspace})" if aspace else "ptr"
    ptr = em.emit(f"inttoptr i{abits} {addr} to {pty}")
    if acc.offset:
        ptr = em.emit(f"getelementptr i8, {pty} {ptr}, i{abits} {acc.offset}")
    return pty, ptr


def syncscope(scope: str) -> str:
    return f' syncscope("{scope}")' if scope else ""


def _emit_rmw(em, acc: Access, origin: dict, pty: str, ptr: str) -> None:
    t = f"i{acc.width}"
    vals = [em.value(v, origin, None) for v in acc.values]
    where = f"{syncscope(acc.scope)} {acc.order}"
    if acc.rmw == "cmpxchg":        # PTX's cas has one ordering: a failed compare still reads (acquire)
        fail = {"release": "monotonic", "acq_rel": "acquire"}.get(acc.order, acc.order)
        pair = em.emit(f"cmpxchg {pty} {ptr}, {t} {vals[0]}, {t} {vals[1]}{where} {fail}, align {acc.width // 8}")
        old = em.emit(f"extractvalue {{ {t}, i1 }} {pair}, 0")
    elif acc.float_type:
        x = em.emit(f"bitcast {t} {vals[0]} to {acc.float_type}")
        r = em.emit(f"atomicrmw fadd {pty} {ptr}, {acc.float_type} {x}{where}, align {acc.width // 8}")
        old = em.emit(f"bitcast {acc.float_type} {r} to {t}")
    else:
        old = em.emit(f"atomicrmw {acc.rmw} {pty} {ptr}, {t} {vals[0]}{where}, align {acc.width // 8}")
    for name in acc.names:
        em.inputs[name] = old


def _emit_atomic_load_store(em, acc: Access, origin: dict, pty: str, ptr: str) -> None:
    """Atomic elements: the whole vector as one integer when it fits 64 bits, else one per element."""
    n = len(acc.names) or len(acc.values)
    whole = n * acc.width <= 64
    parts = [(0, n * acc.width)] if whole else [(k * acc.width // 8, acc.width) for k in range(n)]
    vol = " volatile" if acc.volatile else ""
    where = f"{syncscope(acc.scope)} {acc.order}"
    loaded = []
    for k, (off, bits) in enumerate(parts):
        p = em.emit(f"getelementptr i8, {pty} {ptr}, i64 {off}") if off else ptr
        if acc.kind == "ld":
            loaded.append(em.emit(f"load atomic{vol} i{bits}, {pty} {p}{where}, align {bits // 8}"))
            continue
        if whole and n > 1:            # the elements, first in the low bits (little-endian)
            word = "0"
            for j, v in enumerate(acc.values):
                x = em.emit(f"zext i{acc.width} {em.value(v, origin, None)} to i{bits}")
                word = em.emit(f"or i{bits} {word}, {em.emit(f'shl i{bits} {x}, {j * acc.width}') if j else x}")
        else:
            word = em.value(acc.values[0 if whole else k], origin, None)
        em.lines.append(f"  store atomic{vol} i{bits} {word}, {pty} {p}{where}, align {bits // 8}")
    if acc.kind == "ld":
        for k, name in enumerate(acc.names):
            if not whole:
                em.inputs[name] = loaded[k]
            elif n == 1:
                em.inputs[name] = loaded[0]
            else:
                shifted = em.emit(f"lshr i{n * acc.width} {loaded[0]}, {k * acc.width}") if k else loaded[0]
                em.inputs[name] = em.emit(f"trunc i{n * acc.width} {shifted} to i{acc.width}")


def _emit_plain(em, acc: Access, origin: dict, pty: str, ptr: str, aspace: int) -> None:
    n = len(acc.names) or len(acc.values)
    et, vt = f"i{acc.width}", f"<{n} x i{acc.width}>"
    align = acc.width // 8 * n
    bits = None
    if acc.guard is not None or acc.mask is not None:
        g = em.value(acc.guard, origin, None) if acc.guard is not None else "true"
        bits = [g if acc.mask is None else em.emit(f"and i1 {g}, {em.value(m, origin, None)}")
                for m in (acc.mask or [None] * n)]
        mvec = "poison"
        for k, b in enumerate(bits):
            mvec = em.emit(f"insertelement <{n} x i1> {mvec}, i1 {b}, i32 {k}")
    suffix = f"v{n}i{acc.width}.p{aspace}"
    if acc.kind == "ld":
        if bits is None:
            vec = em.emit(f"load {vt}, {pty} {ptr}, align {align}")
        else:
            fn = f"llvm.masked.load.{suffix}"
            em.decls[fn] = f"declare {vt} @{fn}({pty}, i32 immarg, <{n} x i1>, {vt})"
            vec = em.emit(f"call {vt} @{fn}({pty} {ptr}, i32 {align}, <{n} x i1> {mvec}, {vt} zeroinitializer)")
        for k, name in enumerate(acc.names):
            em.inputs[name] = em.emit(f"extractelement {vt} {vec}, i32 {k}")
        return
    vec = "poison"
    for k, v in enumerate(acc.values):
        vec = em.emit(f"insertelement {vt} {vec}, {et} {em.value(v, origin, None)}, i32 {k}")
    if bits is None:
        em.lines.append(f"  store {vt} {vec}, {pty} {ptr}, align {align}")
    else:
        fn = f"llvm.masked.store.{suffix}"
        em.decls[fn] = f"declare void @{fn}({vt}, {pty}, i32 immarg, <{n} x i1>)"
        em.lines.append(f"  call void @{fn}({vt} {vec}, {pty} {ptr}, i32 {align}, <{n} x i1> {mvec})")


EXIT_FN = "shflx.ptx.exit"


def exit_ir(wave: int) -> str:
    """`void @shflx.ptx.exit()`: PTX `exit` (PTX ISA 9.7.15.x: the thread ends). AMD ends whole
    waves (s_endpgm), which is the same only when every lane the wave was launched with is here:
    then it ends, else the kernel traps (never a silently different result). CUB's ThreadExit
    is block-uniform (after __syncthreads_or). A wave's launched lanes: the block's threads from
    the linear id of its lane 0 on, at most a wave (AMDGPU numbers work-items x fastest)."""
    ballot = f"i{wave}"
    lane = ("  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)\n" +
            ("  %lane = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)\n" if wave == 64 else "  %lane = add i32 %lo, 0\n"))
    sizes = "".join(f"  %gp.{d} = getelementptr i8, ptr addrspace(4) %ia, i64 {off}\n"
                    f"  %g16.{d} = load i16, ptr addrspace(4) %gp.{d}, align 2\n"
                    f"  %g.{d} = zext i16 %g16.{d} to i32\n"
                    f"  %t.{d} = call i32 @llvm.amdgcn.workitem.id.{d}()\n" for d, off in (("x", 12), ("y", 14), ("z", 16)))
    return (f"define internal void @{EXIT_FN}() alwaysinline noreturn nounwind {{\nentry:\n"
            "  %ia = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()\n" + sizes + lane +
            "  %yz = mul i32 %g.y, %t.z\n  %row = add i32 %t.y, %yz\n  %rowx = mul i32 %g.x, %row\n"
            "  %lin = add i32 %t.x, %rowx\n  %first = sub i32 %lin, %lane\n"
            "  %xy = mul i32 %g.x, %g.y\n  %total = mul i32 %xy, %g.z\n  %left = sub i32 %total, %first\n"
            f"  %launched = call i32 @llvm.umin.i32(i32 %left, i32 {wave})\n"
            f"  %active = call {ballot} @llvm.amdgcn.ballot.{ballot}(i1 true)\n"
            f"  %n = call {ballot} @llvm.ctpop.{ballot}({ballot} %active)\n"
            f"  %n32 = {'trunc i64 %n to i32' if wave == 64 else 'add i32 %n, 0'}\n"
            "  %whole = icmp eq i32 %n32, %launched\n  br i1 %whole, label %end, label %partial\n"
            "end:\n  call void @llvm.amdgcn.endpgm()\n  unreachable\n"
            "partial:\n  call void @llvm.trap()\n  unreachable\n}\n")


def exit_declarations(wave: int) -> dict[str, str]:
    """The intrinsics exit_ir calls: name -> `declare` line (added where the module lacks them)."""
    b = f"i{wave}"
    decls = {"llvm.amdgcn.implicitarg.ptr": "declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()",
             "llvm.umin.i32": "declare i32 @llvm.umin.i32(i32, i32)",
             f"llvm.amdgcn.ballot.{b}": f"declare {b} @llvm.amdgcn.ballot.{b}(i1)",
             f"llvm.ctpop.{b}": f"declare {b} @llvm.ctpop.{b}({b})",
             "llvm.amdgcn.mbcnt.lo": "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)",
             "llvm.amdgcn.mbcnt.hi": "declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)",
             "llvm.amdgcn.endpgm": "declare void @llvm.amdgcn.endpgm()", "llvm.trap": "declare void @llvm.trap()"}
    decls.update({f"llvm.amdgcn.workitem.id.{d}": f"declare i32 @llvm.amdgcn.workitem.id.{d}()" for d in "xyz"})
    return decls
