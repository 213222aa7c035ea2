"""Inline PTX blocks as LLVM IR: read by nvidia.ptxir, meant by nvidia.symbolic, emitted here.

CUB, moderngpu and others write warp steps as one asm block (real_world_patterns.md C1, C7, C8):
    { .reg .s32 r0; .reg .pred p; shfl.sync.up.b32 r0|p, $1, $2, $3, $4; @p add.s32 r0, r0, $1;
      mov.s32 $0, r0; }
Why this shape: the project has one PTX semantics. The block is parsed by `ptxir` and executed by
`symbolic.StraightLine` over the asm's inputs, so each instruction means what it means everywhere
else (a guard keeps the old value, setp's `.and/.or/.xor` predicate counts, ...); the expressions
that come out are written as IR here, one rule per expression kind. shfl becomes the shuffle
marker and its `|p` output the in-range test of the PTX pseudocode. Whatever has no rule is a
PtxBlockError naming the PTX instruction."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..amd import general
from ..errors import InputError
from ..nvidia import ptxir, symbolic
from ..nvidia.symbolic import Expr, StraightLine, UnsupportedInstruction
from .sites import MARKER

# LLVM types an asm operand may have: bits, and the integer type a float travels as.
IR_TYPES = {"i8": (8, None), "i16": (16, None), "i32": (32, None), "i64": (64, None),
            "half": (16, "i16"), "float": (32, "i32"), "double": (64, "i64"), "ptr": (64, "i64")}
# PTX state spaces of ld/st/cp.async -> (AMDGPU address space, address bits): generic is flat
# (a global pointer's value is its flat address), .shared is the LDS, .const the constant space.
SPACES = {"": (0, 64), "global": (1, 64), "shared": (3, 32), "const": (4, 64)}
MEM_TYPES = {"u8": 8, "s8": 8, "b8": 8, "u16": 16, "s16": 16, "b16": 16, "f16": 16,
             "u32": 32, "s32": 32, "b32": 32, "f32": 32, "u64": 64, "s64": 64, "b64": 64, "f64": 64}
CACHE_HINTS = {"ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "volatile", "relaxed", "weak"}
# ld.acquire / st.release with a scope (PTX ISA "Memory Consistency Model": scopes .cta, .cluster,
# .gpu, .sys) -> LLVM's atomic load/store ordering and AMDGPU sync scope (AMDGPUUsage "Memory Scopes":
# workgroup, agent, system = no syncscope); a cluster is a set of CTAs of one GPU, so agent covers it.
ORDERS = {"ld": "acquire", "st": "release"}
SCOPES = {"cta": "workgroup", "cluster": "agent", "gpu": "agent", "sys": ""}
INT_OPS = {"add": "add", "sub": "sub", "mul": "mul", "and": "and", "or": "or", "xor": "xor"}
ICMP = {"eq": "eq", "ult": "ult", "ule": "ule", "slt": "slt", "sle": "sle"}
BOOL_OPS = {"band": "and", "bor": "or"}
# Float instructions (symbolic leaves them as `uf` nodes named by opcode). PTX ISA §9.7.3: add/sub/
# mul.f32 round to nearest even by default (.rn), min/max return the non-NaN operand (llvm's
# minnum/maxnum); setp's float comparisons: eq..ge are ordered (false on NaN), the *u forms are not.
FLOAT_TYPES = {"f32": ("float", "i32", 32), "f64": ("double", "i64", 64)}
FLOAT_BINARY = {"add": "fadd", "sub": "fsub", "mul": "fmul"}
FLOAT_CALLS = {"min": "minnum", "max": "maxnum"}
# cvt between float formats (PTX ISA §9.7.9.21): widening is exact (fpext); narrowing with .rn
# rounds to nearest even, which is LLVM's fptrunc in the default floating-point environment.
CVT_FLOATS = {"f16": ("half", "i16", 16), "f32": ("float", "i32", 32), "f64": ("double", "i64", 64)}
FCMP = {"eq": "oeq", "ne": "one", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "equ": "ueq",
        "neu": "une", "ltu": "ult", "leu": "ule", "gtu": "ugt", "geu": "uge", "num": "ord", "nan": "uno"}


class PtxBlockError(ValueError):
    pass


@dataclass
class Translation:
    lines: list[str]
    result: str | None                          # the asm call's value (named `result_name`), None if void
    pred_modes: set[str] = field(default_factory=set)
    declarations: dict[str, str] = field(default_factory=dict)   # function name -> `declare` line


def translate(template: str, outputs: list[str], inputs: list[tuple[str, str]], tied: dict[int, int],
              prefix: str, wave: int, result_name: str | None = None) -> Translation:
    """IR for an asm block: `outputs` are the IR types of $0..$n-1, `inputs` (type, IR value) of
    $n.., `tied[k]` = the input operand number that gives output k its value on entry ("+r")."""
    for ty in outputs + [t for t, _ in inputs]:
        if ty.split()[0] not in IR_TYPES or (ty.startswith("ptr") and ty in outputs):
            raise PtxBlockError(f"an asm operand of LLVM type '{ty}' is not supported "
                                f"(supported: {', '.join(IR_TYPES)})")
    em = _Emitter(prefix, wave)
    leaves: dict[str, Expr] = {}
    for k, (ty, val) in enumerate(inputs, start=len(outputs)):
        name = f"${k}"
        em.inputs[name] = em.to_int(ty, val)
        leaves[name] = symbolic.sym(name, IR_TYPES[ty.split()[0]][0])
    for out, src in tied.items():
        leaves[f"${out}"] = leaves[f"${src}"]
    accesses: list[_Access] = []
    out_widths = {f"${k}": IR_TYPES[ty.split()[0]][0] for k, ty in enumerate(outputs)}
    env = _execute(template, leaves, accesses, out_widths)
    for acc in accesses:                   # memory in program order, before the outputs
        em.access(acc, env.origin)
    values = []
    for k, ty in enumerate(outputs):
        if f"${k}" not in env.env:
            raise PtxBlockError(f"the block never writes its output ${k}")
        values.append(em.value(env.env[f"${k}"], env.origin, None))
    result = em.results(values, outputs, result_name) if outputs else None
    return Translation(em.lines, result, em.modes, em.decls)


@dataclass
class _Access:
    """One memory instruction of the block, in program order: a load gives the fresh leaves
    `names` (its destinations' values), a store writes `values`; `guard` (None: always) says
    whether it happens at all, `mask` (i1 per element, None: all) which elements it touches."""
    kind: str                       # "ld" | "st"
    space: str
    addr: Expr
    offset: int
    width: int
    names: list[str]
    values: list[Expr]
    guard: Expr | None
    mask: list[Expr] | None = None
    order: str | None = None        # "acquire" (ld) / "release" (st): an atomic access at `scope`
    scope: str = ""


def _memory(run: StraightLine, inst: ptxir.Instruction, accesses: list, out_widths: dict) -> None:
    """ld / st / cp.async / cp.async.{commit,wait}_*: recorded as _Access; cp.async is a
    synchronous copy (its completion waits become no-ops), zero-filled past src-size."""
    run.current = inst
    mods = list(inst.modifiers)
    if inst.base == "cp":
        if mods[:1] != ["async"]:
            raise PtxBlockError(f"PTX instruction '{inst.render().rstrip(';')}' is not supported in inline PTX")
        if len(mods) >= 2 and mods[1] in ("commit_group", "wait_group", "wait_all"):
            return                                   # copies below complete at once
        if mods[1:] not in (["ca", "shared", "global"], ["cg", "shared", "global"]) or len(inst.operands) not in (3, 4):
            raise PtxBlockError(f"PTX instruction '{inst.render().rstrip(';')}': only cp.async.{{ca,cg}}.shared.global "
                                "[dst], [src], size{, src-size} is supported in inline PTX")
        size = _imm_int(inst, inst.operands[2])
        if size not in (4, 8, 16):
            raise PtxBlockError(f"PTX instruction '{inst.render().rstrip(';')}': copy size must be 4, 8 or 16")
        guard = run.guard(run.env, inst)
        n = size // 4
        src_size = run.read(run.env, inst.operands[3], 32) if len(inst.operands) == 4 else None
        dst, doff = _address(run, inst, inst.operands[0], "shared")
        src, soff = _address(run, inst, inst.operands[1], "global")
        names = [f"$cp{len(accesses)}.{k}" for k in range(n)]
        keep = None
        if src_size is not None:                      # word k is read only where 4k < src-size
            keep = [symbolic.mk("ult", 1, symbolic.const(4 * k, 32), src_size) for k in range(n)]
        accesses.append(_Access("ld", "global", src, soff, 32, names, [], guard, keep))
        words = [symbolic.sym(nm, 32) for nm in names]
        if src_size is not None:                      # bytes past src-size are zero
            words = [_zero_fill(w, src_size, 4 * k) for k, w in enumerate(words)]
        accesses.append(_Access("st", "shared", dst, doff, 32, [], words, guard))
        return
    space = next((m for m in mods if m in SPACES), "")
    vec = next((int(m[1:]) for m in mods if m in ("v2", "v4")), 1)
    types = [m for m in mods if m in MEM_TYPES]
    order = ORDERS.get(inst.base.replace("ldu", "ld")) if ORDERS.get(inst.base) in mods else None
    scope = next((m for m in mods if m in SCOPES), None)
    rest = [m for m in mods if m not in SPACES and m not in ("v2", "v4") and m not in MEM_TYPES
            and m not in CACHE_HINTS and not m.startswith("L1::") and not m.startswith("L2::")
            and not (order and m in (order, scope))]
    if len(types) != 1 or rest or (space == "const" and inst.base == "st") or (order and (scope is None or vec > 1)):
        raise PtxBlockError(f"PTX instruction '{inst.render().rstrip(';')}': shflx translates ld/st of "
                            "8- to 64-bit (vector) values in the global, shared, const or generic space, and "
                            "scalar ld.acquire/st.release with a scope")
    width = MEM_TYPES[types[0]]
    guard = run.guard(run.env, inst)
    if order and guard is not None:
        raise PtxBlockError(f"PTX instruction '{inst.render().rstrip(';')}': a guarded ld.acquire/st.release "
                            "is not supported in inline PTX")
    ordering = {"order": order, "scope": SCOPES[scope]} if order else {}
    if inst.base in ("ld", "ldu"):
        dests = inst.dests()
        addr, off = _address(run, inst, inst.operands[1], space)
        if len(dests) != vec:
            raise PtxBlockError(f"PTX instruction '{inst.render().rstrip(';')}': {vec} destinations expected")
        names = [f"$ld{len(accesses)}.{k}" for k in range(vec)]
        accesses.append(_Access("ld", space, addr, off, width, names, [], guard, **ordering))
        for d, nm in zip(dests, names):        # narrower loads widen to the register (.s: sign)
            v = symbolic.sym(nm, width)
            dw = run.reg_width(d) or out_widths.get(d)
            if dw is not None and dw != width:
                v = symbolic.resize(v, dw, types[0].startswith("s"))
            run.write(run.env, inst, d, v, guard=guard)
            run.origin.setdefault(run.env[d].id, inst)
        return
    addr, off = _address(run, inst, inst.operands[0], space)
    srcs = [t.strip() for t in inst.operands[1].strip("{} ").split(",")]
    if len(srcs) != vec:
        raise PtxBlockError(f"PTX instruction '{inst.render().rstrip(';')}': {vec} sources expected")
    accesses.append(_Access("st", space, addr, off, width, [], [run.read(run.env, t, width) for t in srcs], guard,
                            **ordering))
    # (read takes the low `width` bits of a wider register, as st.u16 / st.u8 store them)


def _zero_fill(word: Expr, src_size: Expr, base: int) -> Expr:
    """word with the bytes at byte offsets >= src-size cleared (base: the word's first byte)."""
    out = word
    for b in range(4):
        inside = symbolic.mk("ult", 1, symbolic.const(base + b, 32), src_size)
        out = symbolic.ite(inside, out, symbolic.mk("and", 32, out, symbolic.const(~(0xFF << (8 * b)) & 0xFFFFFFFF, 32)))
    return out


def _imm_int(inst: ptxir.Instruction, tok: str) -> int:
    try:
        return int(tok.strip(), 0)
    except ValueError:
        raise PtxBlockError(f"PTX instruction '{inst.render().rstrip(';')}': '{tok}' must be a constant") from None


def _address(run: StraightLine, inst: ptxir.Instruction, tok: str, space: str = "") -> tuple[Expr, int]:
    """[reg], [reg+imm] or [reg-imm]: the register's value and the byte offset; a global, const or
    generic address must be 64-bit (an "l" operand), a shared one may be 32-bit."""
    body = tok.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise PtxBlockError(f"PTX instruction '{inst.render().rstrip(';')}': address '{tok}' is not [reg{{+imm}}]")
    body = body[1:-1].replace(" ", "")
    reg, off = body, 0
    for sign in ("+", "-"):
        if sign in body[1:]:
            reg, imm = body.split(sign, 1)
            off = _imm_int(inst, imm) * (1 if sign == "+" else -1)
            break
    if reg not in run.env:
        raise PtxBlockError(f"PTX instruction '{inst.render().rstrip(';')}': address register '{reg}' has no value")
    if run.env[reg].w < SPACES[space][1]:
        raise PtxBlockError(f"PTX instruction '{inst.render().rstrip(';')}': a {space or 'generic'} address must be "
                            f"a {SPACES[space][1]}-bit register (an \"l\" operand)")
    return run.env[reg], off


def _execute(template: str, inputs: dict[str, Expr], accesses: list | None = None,
             out_widths: dict | None = None) -> StraightLine:
    """Parse the block with ptxir and run it through symbolic's straight-line semantics; memory
    instructions are recorded in `accesses` (an error without it)."""
    body = template.rstrip()
    if body and not body.endswith((";", "}")):
        body += ";"                          # a lone statement written without its ';'
    try:
        fn = ptxir.parse(f".func __shflx_inline_asm()\n{{\n{body}\n}}\n", "<inline asm>",
                         check=False).functions[0]
    except InputError as e:
        raise PtxBlockError(f"cannot read the PTX: {e.reason}") from None
    run = StraightLine(fn, inputs)
    scopes: list[dict[str, Expr | None]] = [{}]
    declared: dict[str, str] = {}
    for st in fn.body or ():
        if isinstance(st, ptxir.ScopeOpen):
            scopes.append({})
        elif isinstance(st, ptxir.ScopeClose):
            for name, saved in scopes.pop().items():     # leaving a scope ends its registers
                declared.pop(name, None)
                if saved is None:
                    run.env.pop(name, None)
                else:
                    run.env[name] = saved
        elif isinstance(st, ptxir.RegDecl):
            for name in st.names:
                if name in declared or name.startswith("$") or "<" in name:
                    raise PtxBlockError(f"'{st.text.strip()}': redeclared, ranged or operand-named "
                                        "registers are not supported")
                declared[name] = st.dtype
                scopes[-1][name] = run.env.pop(name, None)
        elif isinstance(st, ptxir.Instruction) and accesses is not None and st.base in ("ld", "ldu", "st", "cp"):
            _memory(run, st, accesses, out_widths or {})
        elif isinstance(st, ptxir.Instruction):
            try:
                run.execute(st)
            except UnsupportedInstruction as e:
                raise PtxBlockError(f"PTX instruction {e} (in inline asm)") from None
        else:
            raise PtxBlockError(f"'{st.render().strip()}': labels and directives other than .reg "
                                "are not supported in inline PTX")
    return run


class _Emitter:
    """Writes symbolic expressions as IR, each node once (the DAG is hash-consed)."""

    def __init__(self, prefix: str, wave: int):
        self.prefix, self.wave = prefix, wave
        self.lines: list[str] = []
        self.memo: dict[int, str] = {}
        self.inputs: dict[str, str] = {}
        self.modes: set[str] = set()
        self.lane: str | None = None
        self.tid: str | None = None
        self.decls: dict[str, str] = {}
        self.n = 0

    def call(self, ret: str, fn: str, args: str) -> str:
        self.decls[fn] = f"declare {ret} @{fn}({', '.join(a.split()[0] for a in args.split(', ') if a)})"
        return self.emit(f"call {ret} @{fn}({args})")

    def emit(self, text: str) -> str:
        self.n += 1
        name = f"%{self.prefix}.{self.n}"
        self.lines.append(f"  {name} = {text}")
        return name

    def to_int(self, ty: str, val: str) -> str:
        as_int = IR_TYPES[ty.split()[0]][1]
        if ty.startswith("ptr"):
            return self.emit(f"ptrtoint {ty} {val} to {as_int}")
        return self.emit(f"bitcast {ty} {val} to {as_int}") if as_int else val

    def access(self, acc: _Access, origin: dict) -> None:
        """IR of one memory access: the address as a pointer of its space, then a load (its
        elements become the inputs named acc.names) or a store; guarded or element-masked
        accesses are llvm.masked.load/store, so a false guard touches no memory."""
        aspace, abits = SPACES[acc.space]
        addr = self.value(acc.addr, origin, None)
        if acc.addr.w != abits:
            addr = self.emit(f"{'trunc' if acc.addr.w > abits else 'zext'} i{acc.addr.w} {addr} to i{abits}")
        pty = f"ptr addrspace({aspace})" if aspace else "ptr"
        ptr = self.emit(f"inttoptr i{abits} {addr} to {pty}")
        if acc.offset:
            ptr = self.emit(f"getelementptr i8, {pty} {ptr}, i{abits} {acc.offset}")
        n = len(acc.names) or len(acc.values)
        et, vt = f"i{acc.width}", f"<{n} x i{acc.width}>"
        align = acc.width // 8 * n
        bits = None
        if acc.guard is not None or acc.mask is not None:
            g = self.value(acc.guard, origin, None) if acc.guard is not None else "true"
            bits = [g if acc.mask is None else self.emit(f"and i1 {g}, {self.value(m, origin, None)}")
                    for m in (acc.mask or [None] * n)]
            mvec = "poison"
            for k, b in enumerate(bits):
                mvec = self.emit(f"insertelement <{n} x i1> {mvec}, i1 {b}, i32 {k}")
        suffix = f"v{n}i{acc.width}.p{aspace}"
        if acc.order:                       # one scalar atomic access (checked by _memory)
            sync = f' syncscope("{acc.scope}")' if acc.scope else ""
            if acc.kind == "ld":
                self.inputs[acc.names[0]] = self.emit(f"load atomic {et}, {pty} {ptr}{sync} {acc.order}, align {align}")
            else:
                value = self.value(acc.values[0], origin, None)
                self.lines.append(f"  store atomic {et} {value}, {pty} {ptr}{sync} {acc.order}, align {align}")
            return
        if acc.kind == "ld":
            if bits is None:
                vec = self.emit(f"load {vt}, {pty} {ptr}, align {align}")
            else:
                fn = f"llvm.masked.load.{suffix}"
                self.decls[fn] = f"declare {vt} @{fn}({pty}, i32 immarg, <{n} x i1>, {vt})"
                vec = self.emit(f"call {vt} @{fn}({pty} {ptr}, i32 {align}, <{n} x i1> {mvec}, {vt} zeroinitializer)")
            for k, name in enumerate(acc.names):
                self.inputs[name] = self.emit(f"extractelement {vt} {vec}, i32 {k}")
            return
        vec = "poison"
        for k, v in enumerate(acc.values):
            vec = self.emit(f"insertelement {vt} {vec}, {et} {self.value(v, origin, None)}, i32 {k}")
        if bits is None:
            self.lines.append(f"  store {vt} {vec}, {pty} {ptr}, align {align}")
        else:
            fn = f"llvm.masked.store.{suffix}"
            self.decls[fn] = f"declare void @{fn}({vt}, {pty}, i32 immarg, <{n} x i1>)"
            self.lines.append(f"  call void @{fn}({vt} {vec}, {pty} {ptr}, i32 {align}, <{n} x i1> {mvec})")

    def results(self, values: list[str], types: list[str], name: str | None) -> str:
        conv = []
        for v, ty in zip(values, types):
            as_int = IR_TYPES[ty][1]
            conv.append(self.emit(f"bitcast {as_int} {v} to {ty}") if as_int and len(types) > 1 else v)
        if len(types) == 1:       # integers: a copy recognize's lane slices read through (add x, 0)
            as_int = IR_TYPES[types[0]][1]
            text = f"bitcast {as_int} {conv[0]} to {types[0]}" if as_int else f"add {types[0]} {conv[0]}, 0"
        else:
            agg, struct = "poison", "{ " + ", ".join(types) + " }"
            for k, (v, ty) in enumerate(zip(conv[:-1], types)):
                agg = self.emit(f"insertvalue {struct} {agg}, {ty} {v}, {k}")
            text = f"insertvalue {struct} {agg}, {types[-1]} {conv[-1]}, {len(types) - 1}"
        if name:
            self.lines.append(f"  {name} = {text}")
            return name
        return self.emit(text)

    def value(self, e: Expr, origin: dict, where) -> str:
        """The IR operand (type i{e.w}) of e; `where` is the instruction that wrote e or its user."""
        if e.id in self.memo:
            return self.memo[e.id]
        where = origin.get(e.id, where)
        args = [self.value(a, origin, where) if isinstance(a, Expr) else a for a in e.args]
        self.memo[e.id] = v = self.node(e, args, where)
        return v

    def node(self, e: Expr, a: list, where) -> str:
        op, w = e.op, e.w
        t = f"i{w}"
        kid_w = next((x.w for x in e.args if isinstance(x, Expr)), w)
        if op == "const":
            return ("true" if a[0] else "false") if w == 1 else str(a[0] - (1 << w) if a[0] >> (w - 1) else a[0])
        if op == "sym" and a[0] in self.inputs:
            return self.inputs[a[0]]
        if op == "laneid":
            return self.emit(f"and i32 {self.hw_lane()}, 31")
        if op == "tid" and a[0] == "x":
            if self.tid is None:
                self.tid = self.call("i32", "llvm.amdgcn.workitem.id.x", "")
            return self.tid
        if op in INT_OPS:
            return self.emit(f"{INT_OPS[op]} {t} {a[0]}, {a[1]}")
        if op in ("shl", "lshr"):           # PTX clamps the shift amount at the width (zero result)
            ok = self.emit(f"icmp ult {t} {a[1]}, {w}")
            shifted = self.emit(f"{op} {t} {a[0]}, {a[1]}")
            return self.emit(f"select i1 {ok}, {t} {shifted}, {t} 0")
        if op == "ashr":
            ok = self.emit(f"icmp ult {t} {a[1]}, {w}")
            amount = self.emit(f"select i1 {ok}, {t} {a[1]}, {t} {w - 1}")
            return self.emit(f"ashr {t} {a[0]}, {amount}")
        if op == "not":
            return self.emit(f"xor {t} {a[0]}, -1")
        if op in ("trunc", "zext", "sext"):
            return self.emit(f"{op} i{kid_w} {a[0]} to {t}")
        if op == "concat":                   # (hi, lo)
            lo_w = e.args[1].w
            hi = self.emit(f"zext i{e.args[0].w} {a[0]} to {t}")
            lo = self.emit(f"zext i{lo_w} {a[1]} to {t}")
            return self.emit(f"or {t} {self.emit(f'shl {t} {hi}, {lo_w}')}, {lo}")
        if op == "extract":                  # (x, lo)
            shifted = self.emit(f"lshr i{kid_w} {a[0]}, {a[1]}") if a[1] else a[0]
            return self.emit(f"trunc i{kid_w} {shifted} to {t}") if w < kid_w else shifted
        if op == "ite":
            return self.emit(f"select i1 {a[0]}, {t} {a[1]}, {t} {a[2]}")
        if op in ICMP:
            return self.emit(f"icmp {ICMP[op]} i{kid_w} {a[0]}, {a[1]}")
        if op == "bnot":
            return self.emit(f"xor i1 {a[0]}, true")
        if op in BOOL_OPS:
            return self.emit(f"{BOOL_OPS[op]} i1 {a[0]}, {a[1]}")
        if op == "shfl":
            return self.call("i32", MARKER, f"i32 {a[0]}, i32 {a[1]}, i32 {a[2]}, i32 {a[3]}, i32 {a[4]}")
        if op == "shfl.inrange":
            mode = symbolic.SHFL_MODES[a[0]]
            self.modes.add(mode)
            for half in ("lo", "hi"):        # what inrange_ir's lane prologue calls
                self.decls[f"llvm.amdgcn.mbcnt.{half}"] = f"declare i32 @llvm.amdgcn.mbcnt.{half}(i32, i32)"
            return self.emit(f"call i1 @shflx.inrange.{mode}(i32 {a[1]}, i32 {a[2]})")
        if op == "uf":
            out = self.float_op(a[0], a[1:], w)
            if out is not None:
                return out
        raise PtxBlockError(_unsupported(e, where))

    def float_op(self, opcode: str, args: list[str], w: int) -> str | None:
        """IR for a float instruction `opcode` (e.g. "add.f32", "setp.lt.f32"); None if unknown."""
        parts = opcode.split(".")
        base, mods, ftype = parts[0], parts[1:-1], parts[-1]
        if base == "cvt" and mods and mods[-1] in CVT_FLOATS and ftype in CVT_FLOATS and mods[-1] != ftype:
            (dty, dity, dw), (sty, sity, _) = CVT_FLOATS[mods[-1]], CVT_FLOATS[ftype]
            widen = dw > CVT_FLOATS[ftype][2]
            if mods[:-1] != ([] if widen else ["rn"]) or w != dw or len(args) != 1:
                return None
            x = self.emit(f"bitcast {sity} {args[0]} to {sty}")
            r = self.emit(f"{'fpext' if widen else 'fptrunc'} {sty} {x} to {dty}")
            return self.emit(f"bitcast {dty} {r} to {dity}")
        if ftype not in FLOAT_TYPES:
            return None
        fty, ity, fw = FLOAT_TYPES[ftype]
        if base == "setp" and len(mods) == 1 and mods[0] in FCMP and w == 1:
            x, y = (self.emit(f"bitcast {ity} {v} to {fty}") for v in args)
            return self.emit(f"fcmp {FCMP[mods[0]]} {fty} {x}, {y}")
        if w != fw:
            return None
        if base in FLOAT_BINARY and mods in ([], ["rn"]) and len(args) == 2:
            x, y = (self.emit(f"bitcast {ity} {v} to {fty}") for v in args)
            r = self.emit(f"{FLOAT_BINARY[base]} {fty} {x}, {y}")
        elif base in FLOAT_CALLS and not mods and len(args) == 2:
            x, y = (self.emit(f"bitcast {ity} {v} to {fty}") for v in args)
            r = self.call(fty, f"llvm.{FLOAT_CALLS[base]}.{ftype}", f"{fty} {x}, {fty} {y}")
        elif base == "neg" and not mods and len(args) == 1:
            r = self.emit(f"fneg {fty} {self.emit(f'bitcast {ity} {args[0]} to {fty}')}")
        else:
            return None
        return self.emit(f"bitcast {fty} {r} to {ity}")

    def hw_lane(self) -> str:
        if self.lane is None:
            lo = self.call("i32", "llvm.amdgcn.mbcnt.lo", "i32 -1, i32 0")
            self.lane = self.call("i32", "llvm.amdgcn.mbcnt.hi", f"i32 -1, i32 {lo}") if self.wave == 64 else lo
        return self.lane


def _unsupported(e: Expr, where) -> str:
    if e.op == "undef":
        return (f"PTX instruction '{where.render().rstrip(';')}' (guarded) leaves '{e.args[0]}' without a "
                "value where its guard is false, and that value is used")
    what = {"sym": f"operand '{e.args[0]}'", "tid": f"%tid.{e.args[0]}",
            "uf": f"'{e.args[0]}'"}.get(e.op, f"the operation '{e.op}'")
    inst = f"PTX instruction '{where.render().rstrip(';')}'" if where is not None else "the block"
    return f"{inst}: {what} is not supported in inline PTX"


def inrange_ir(mode: str, wave: int) -> str:
    """`i1 @shflx.inrange.MODE(i32 %b, i32 %c)`: the predicate output p of shfl.sync (§2.3)."""
    lines = general.lane_prologue(wave) + general.render(general.COMMON + general.BY_MODE[mode])
    return (f"define internal i1 @shflx.inrange.{mode}(i32 %b, i32 %c) alwaysinline nounwind {{\nentry:\n"
            + "\n".join(lines) + "\n  ret i1 %ok\n}\n")
