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
from . import directed, ptxenv, ptxfloat, ptxmbarrier
from .ptxmemory import Access, PtxBlockError, cache_policy, emit_access, memory, read_timer
from .sites import MARKER

__all__ = ["PtxBlockError", "Translation", "inrange_ir", "translate"]

# LLVM types an asm operand may have: bits, and the integer type a float travels as.
IR_TYPES = {"i8": (8, None), "i16": (16, None), "i32": (32, None), "i64": (64, None),
            "half": (16, "i16"), "float": (32, "i32"), "double": (64, "i64"), "ptr": (64, "i64")}
INT_OPS = {"add": "add", "sub": "sub", "mul": "mul", "and": "and", "or": "or", "xor": "xor"}
ICMP = {"eq": "eq", "ult": "ult", "ule": "ule", "slt": "slt", "sle": "sle"}
BOOL_OPS = {"band": "and", "bor": "or"}
# Float instructions (symbolic leaves them as `uf` nodes named by opcode). PTX ISA §9.7.3: add/sub/
# mul.f32 round to nearest even by default (.rn), min/max return the non-NaN operand (llvm's
# minnum/maxnum); setp's float comparisons: eq..ge are ordered (false on NaN), the *u forms are not.
MEMORY_OPCODES = ("ld", "ldu", "st", "cp", "atom", "red", "fence", "membar", "exit", "nanosleep", "mbarrier",
                  "prefetch", "prefetchu")
FLOAT_TYPES = {"f32": ("float", "i32", 32), "f64": ("double", "i64", 64)}
CVT_INTS = {t: (int(t[1:]), t[0] == "s") for t in ("s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64")}
IRND = {"rni": "rint", "rzi": "trunc", "rmi": "floor", "rpi": "ceil"}
# cvt between float formats (PTX ISA §9.7.9.21): widening is exact (fpext); narrowing with .rn
# rounds to nearest even, which is LLVM's fptrunc in the default floating-point environment.
CVT_FLOATS = {"f16": ("half", "i16", 16), **FLOAT_TYPES}
FLOAT_BINARY = {"add": "fadd", "sub": "fsub", "mul": "fmul"}
FLOAT_CALLS = {"min": "minnum", "max": "maxnum"}
# cvt between float formats (PTX ISA §9.7.9.21): widening is exact (fpext); narrowing with .rn
# rounds to nearest even, which is LLVM's fptrunc in the default floating-point environment.
CVT_FLOATS = {"f16": ("half", "i16", 16), "f32": ("float", "i32", 32), "f64": ("double", "i64", 64)}
# cvta's state spaces (PTX ISA §9.7.9.17, cvta) -> AMDGPU address space, None where a space's address
# is its generic (flat) address: .global (AMDGPU backend docs, "Address Spaces": the global aperture
# is the identity) and .const (the layer's constant space is read through global memory). .shared and
# .local addresses are 32-bit offsets in LDS (3) and scratch (5), as __cvta_generic_to_shared gives.
CVTA_SPACES = {"shared": 3, "shared::cta": 3, "local": 5, "global": None, "const": None}
FCMP = {"eq": "oeq", "ne": "one", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "equ": "ueq",
        "neu": "une", "ltu": "ult", "leu": "ule", "gtu": "ugt", "geu": "uge", "num": "ord", "nan": "uno"}


@dataclass
class Translation:
    lines: list[str]
    result: str | None                          # the asm call's value (named `result_name`), None if void
    pred_modes: set[str] = field(default_factory=set)
    declarations: dict[str, str] = field(default_factory=dict)   # function name -> `declare` line
    functions: dict[str, str] = field(default_factory=dict)      # helper name -> its `define` (and declares)
    carry_out: str | None = None                # the i32 carry flag the block leaves, where it writes one


def translate(template: str, outputs: list[str], inputs: list[tuple[str, str]], tied: dict[int, int],
              prefix: str, wave: int, result_name: str | None = None, contract: bool = True,
              carry: str | None = None) -> Translation:
    """IR for an asm block: `outputs` are the IR types of $0..$n-1, `inputs` (type, IR value) of
    $n.., `tied[k]` = the input operand number that gives output k its value on entry ("+r");
    `contract`: float add/mul without a rounding modifier may fuse (ptxfloat); `carry`: the i32
    carry flag (0 or 1) on entry, for blocks with extended-precision instructions (symbolic.CARRY)."""
    for ty in outputs + [t for t, _ in inputs]:
        if ty.split()[0] not in IR_TYPES or (ty.startswith("ptr") and ty in outputs):
            raise PtxBlockError(f"an asm operand of LLVM type '{ty}' is not supported "
                                f"(supported: {', '.join(IR_TYPES)})")
    em = _Emitter(prefix, wave, contract)
    leaves: dict[str, Expr] = {}
    for k, (ty, val) in enumerate(inputs, start=len(outputs)):
        name = f"${k}"
        em.inputs[name] = em.to_int(ty, val)
        leaves[name] = symbolic.sym(name, IR_TYPES[ty.split()[0]][0])
    for out, src in tied.items():
        leaves[f"${out}"] = leaves[f"${src}"]
    if carry is not None:
        em.inputs[symbolic.CARRY] = carry
        leaves[symbolic.CARRY] = symbolic.sym(symbolic.CARRY, 32)
    accesses: list[Access] = []
    out_widths = {f"${k}": IR_TYPES[ty.split()[0]][0] for k, ty in enumerate(outputs)}
    env = _register_semantics(template, leaves, accesses, out_widths)
    for acc in accesses:                   # memory in program order, before the outputs
        if acc.kind == "environment":
            ptxenv.emit(em, acc.names[0])
        else:
            (ptxmbarrier.emit if acc.kind == "mbarrier" else emit_access)(em, acc, env.origin)
    values = []
    for k, ty in enumerate(outputs):
        if f"${k}" not in env.env:
            raise PtxBlockError(f"the block never writes its output ${k}")
        values.append(em.value(env.env[f"${k}"], env.origin, None))
    carry_out = None
    if carry is not None and env.env[symbolic.CARRY] is not leaves[symbolic.CARRY]:
        carry_out = em.value(env.env[symbolic.CARRY], env.origin, None)
    result = em.results(values, outputs, result_name) if outputs else None
    return Translation(em.lines, result, em.modes, em.decls, em.functions, carry_out)


# Blocks that only compute on registers, by (template, leaves, output widths): real modules repeat a
# few asm statements thousands of times (cuda_fp16.hpp's conversions: 12,636 statements of DeepSpeed's
# swizzled_quantize.cu), and reading and running each again was most of the inline-PTX stage.
_PURE_BLOCKS: dict[tuple, StraightLine] = {}
_PURE_BLOCKS_MAX = 4096


def _register_semantics(template: str, leaves: dict[str, Expr], accesses: list,
                        out_widths: dict[str, int]) -> StraightLine:
    """_execute, looked up for a block with no memory access: its meaning is a function of the
    template and the leaves alone (the leaves are interned: an id names one expression), and no
    later step changes it."""
    key = (template, tuple((n, e.id) for n, e in leaves.items()), tuple(out_widths.items()))
    run = _PURE_BLOCKS.get(key)
    if run is None:
        run = _execute(template, leaves, accesses, out_widths)
        if not accesses:
            if len(_PURE_BLOCKS) >= _PURE_BLOCKS_MAX:
                _PURE_BLOCKS.clear()
            _PURE_BLOCKS[key] = run
    return run


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
    run = StraightLine(fn, inputs, out_widths)
    scopes: list[dict[str, tuple[Expr | None, str | None]]] = [{}]
    declared: dict[str, str] = {}
    for st in fn.body or ():
        if isinstance(st, ptxir.ScopeOpen):
            scopes.append({})
        elif isinstance(st, ptxir.ScopeClose):
            for name, (saved, outer) in scopes.pop().items():     # leaving a scope ends its registers
                if outer is None:
                    declared.pop(name, None)
                else:                                # an outer register of that name is seen again
                    declared[name] = outer
                if saved is None:
                    run.env.pop(name, None)
                else:
                    run.env[name] = saved
        elif isinstance(st, ptxir.RegDecl):
            for name in st.names:
                if name in scopes[-1] or name.startswith("$") or "<" in name:
                    raise PtxBlockError(f"'{st.text.strip()}': redeclared, ranged or operand-named "
                                        "registers are not supported")
                scopes[-1][name] = (run.env.pop(name, None), declared.get(name))   # an inner scope may shadow
                declared[name] = st.dtype
        elif isinstance(st, ptxir.Instruction) and accesses is not None and \
                (st.base == "mbarrier" or (st.base == "cp" and "mbarrier" in st.modifiers)):
            ptxmbarrier.record(run, st, accesses, out_widths or {})
        elif isinstance(st, ptxir.Instruction) and accesses is not None and st.base in MEMORY_OPCODES:
            memory(run, st, accesses, out_widths or {})
        elif isinstance(st, ptxir.Instruction) and st.base == "createpolicy":
            run.execute(cache_policy(st))
        elif isinstance(st, ptxir.Instruction):
            if accesses is not None:
                read_timer(run, st, accesses)
                for reg in ptxenv.reads(st):         # memory the driver gives the kernel (%envreg1, ...)
                    run.env[reg] = ptxenv.leaf(reg)
                    accesses.append(Access("environment", "", None, 0, 32, [reg], [], None))
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

    def __init__(self, prefix: str, wave: int, contract: bool = True):
        self.prefix, self.wave = prefix, wave
        self.lines: list[str] = []
        self.memo: dict[int, str] = {}
        self.inputs: dict[str, str] = {}
        self.modes: set[str] = set()
        self.lane: str | None = None
        self.tid: str | None = None
        self.decls: dict[str, str] = {}
        self.functions: dict[str, str] = {}
        self.n = 0
        self.contract = contract      # add/mul without .rn may fuse (translate's `contract`)

    def call(self, ret: str, fn: str, args: str) -> str:
        types = [a.rsplit(" ", 1)[0] for a in args.split(", ") if a]      # "<2 x half> %x": all but the value
        self.decls[fn] = f"declare {ret} @{fn}({', '.join(types)})"
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
        if op == "ballot":               # this lane's CUDA warp: the 32 bits of its half of a wave64
            if self.wave == 64:
                wide = self.call("i64", "llvm.amdgcn.ballot.i64", f"i1 {a[1]}")
                half = self.emit(f"zext i32 {self.emit(f'and i32 {self.hw_lane()}, 32')} to i64")
                bits = self.emit(f"trunc i64 {self.emit(f'lshr i64 {wide}, {half}')} to i32")
            else:
                bits = self.call("i32", "llvm.amdgcn.ballot.i32", f"i1 {a[1]}")
            return self.emit(f"and i32 {bits}, {a[0]}")
        if op == "shfl.inrange":
            mode = symbolic.SHFL_MODES[a[0]]
            self.modes.add(mode)
            for half in ("lo", "hi"):        # what inrange_ir's lane prologue calls
                self.decls[f"llvm.amdgcn.mbcnt.{half}"] = f"declare i32 @llvm.amdgcn.mbcnt.{half}(i32, i32)"
            return self.emit(f"call i1 @shflx.inrange.{mode}(i32 {a[1]}, i32 {a[2]})")
        if op == "uf" and a[0].startswith("cvta."):
            out = self.cvta(a[0], a[1], kid_w, w)
            if out is not None:
                return out
        if op == "uf":
            out = self.float_op(a[0], a[1:], w)
            if out is None:
                out = ptxfloat.emit(self, a[0], a[1:], w)
            if out is not None:
                return out
        raise PtxBlockError(_unsupported(e, where))

    def float_op(self, opcode: str, args: list[str], w: int) -> str | None:
        """IR for a float instruction `opcode` (e.g. "add.f32", "setp.lt.f32"); None if unknown."""
        parts = opcode.split(".")
        base, mods, ftype = parts[0], parts[1:-1], parts[-1]
        if base == "cvt" and len(parts) >= 3:
            return self.cvt(parts[1:-2], parts[-2], ftype, args[0], w)
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
        elif base in ("rcp", "div") and (mods == ["rn"] or (mods == ["approx"] and ftype == "f32")) \
                and len(args) == (1 if base == "rcp" else 2):
            # .rn: IEEE division. .approx.f32 (no .ftz): the correctly rounded quotient, which is within
            # the PTX ISA's bounds (rcp.approx: 1 ulp; div.approx: 2 ulp for |b| in [2^-126, 2^126],
            # PTX ISA "Floating Point Instructions: rcp / div"). Not the same for 2^126 < |b| < 2^128,
            # where the ISA defines div.approx as 0 (NaN for an infinite a): a known difference, untested.
            one = self.emit(f"bitcast {ity} {0x3F800000 if fw == 32 else 0x3FF0000000000000} to {fty}")
            x, y = ([one] if base == "rcp" else []) + [self.emit(f"bitcast {ity} {v} to {fty}") for v in args]
            r = self.emit(f"fdiv {fty} {x}, {y}")
        elif base == "rsqrt" and mods == ["approx"] and ftype == "f32" and len(args) == 1:
            # rsqrt.approx.f32: within 2^-22.9 relative error (PTX ISA "Floating Point Instructions:
            # rsqrt"); here 1/sqrt in double, rounded once to float (<= 0.5 ulp + 2^-52)
            d = self.emit(f"fpext float {self.emit(f'bitcast i32 {args[0]} to float')} to double")
            one = self.emit(f"bitcast i64 {0x3FF0000000000000} to double")
            q = self.emit(f"fdiv double {one}, {self.call('double', 'llvm.sqrt.f64', f'double {d}')}")
            r = self.emit(f"fptrunc double {q} to float")
        elif base == "sqrt" and (mods == ["rn"] or (mods == ["approx"] and ftype == "f32")) and len(args) == 1:
            r = self.call(fty, f"llvm.sqrt.{ftype}", f"{fty} {self.emit(f'bitcast {ity} {args[0]} to {fty}')}")
        elif len(mods) == 1 and f"{base}.{mods[0]}.{ftype}" in directed.HELPERS \
                and len(args) == directed.OPERATIONS[base]:
            # .rz/.rm/.rp: ir.directed's function, defined in the module by directed.define_declared
            xs = ", ".join(f"{fty} {self.emit(f'bitcast {ity} {v} to {fty}')}" for v in args)
            r = self.call(fty, directed.symbol(f"{base}.{mods[0]}.{ftype}"), xs)
        else:
            return None
        return self.emit(f"bitcast {fty} {r} to {ity}")

    def cvt(self, mods: list[str], dst: str, src: str, x: str, w: int) -> str | None:
        """cvt between float and integer types (PTX ISA 9.7.9.21): float -> integer rounds as
        .rni/.rzi/.rmi/.rpi say and saturates to the type, NaN as measured (ptxfloat.nan_as_integer); integer
        -> float and narrowing float conversions round to nearest even (.rn), f64 -> f32 also toward
        .rz/.rm/.rp (ir.directed); widening ones (f16 ->
        f32 -> f64) are exact. The result, dst's bits, is extended (by dst's signedness) or
        truncated to the register width w."""
        if "ftz" in mods:                    # flushes subnormal inputs: a rounding of its own
            return None
        if src in FLOAT_TYPES and dst in CVT_INTS and mods[:1] in ([r] for r in IRND) and mods[1:] in ([], ["sat"]):
            fty, ity, _ = FLOAT_TYPES[src]
            dw, signed = CVT_INTS[dst]
            f = self.emit(f"bitcast {ity} {x} to {fty}")
            r = self.call(fty, f"llvm.{IRND[mods[0]]}.{src}", f"{fty} {f}")
            v = ptxfloat.float_to_integer(self, src, r, dw, signed)
            return v if dw == w else self.emit(f"{'trunc' if dw > w else 'sext' if signed else 'zext'} i{dw} {v} to i{w}")
        if src in CVT_INTS and dst in FLOAT_TYPES and mods == ["rn"]:
            fty, ity, fw = FLOAT_TYPES[dst]
            sw, signed = CVT_INTS[src]
            f = self.emit(f"{'s' if signed else 'u'}itofp i{sw} {x} to {fty}")
        elif src == "f64" and dst == "f32" and len(mods) == 1 and mods[0] in directed.MODES:
            fty, ity, fw = FLOAT_TYPES[dst]         # .rz/.rm/.rp: ir.directed's function
            g = self.emit(f"bitcast i64 {x} to double")
            f = self.call(fty, directed.symbol(f"d2f.{mods[0]}.f32"), f"double {g}")
        elif src in CVT_FLOATS and dst in CVT_FLOATS and src != dst \
                and mods == ([] if CVT_FLOATS[dst][2] > CVT_FLOATS[src][2] else ["rn"]):
            (sty, sity, _), (fty, ity, fw) = CVT_FLOATS[src], CVT_FLOATS[dst]
            g = self.emit(f"bitcast {sity} {x} to {sty}")
            f = self.emit(f"{'fpext' if fw > CVT_FLOATS[src][2] else 'fptrunc'} {sty} {g} to {fty}")
        else:
            return None
        v = self.emit(f"bitcast {fty} {f} to {ity}")
        return v if fw == w else self.emit(f"{'trunc' if fw > w else 'zext'} i{fw} {v} to i{w}")

    def cvta(self, opcode: str, x: str, xw: int, w: int) -> str | None:
        """cvta.SPACE.u64 (a state-space address to generic) and cvta.to.SPACE.u64 (generic to the
        space's address, zero-extended to 64 bits) as LLVM's addrspacecast; None for other forms
        (.u32 generic addresses do not exist in 64-bit PTX, .param has no AMD meaning)."""
        parts = opcode.split(".")
        to = parts[1] == "to"
        if parts[-1] != "u64" or len(parts) != (4 if to else 3) or parts[-2] not in CVTA_SPACES or xw != 64 or w != 64:
            return None
        aspace = CVTA_SPACES[parts[-2]]
        if aspace is None:
            return x
        if to:
            flat = self.emit(f"inttoptr i64 {x} to ptr")
            local = self.emit(f"addrspacecast ptr {flat} to ptr addrspace({aspace})")
            return self.emit(f"zext i32 {self.emit(f'ptrtoint ptr addrspace({aspace}) {local} to i32')} to i64")
        local = self.emit(f"inttoptr i32 {self.emit(f'trunc i64 {x} to i32')} to ptr addrspace({aspace})")
        return self.emit(f"ptrtoint ptr {self.emit(f'addrspacecast ptr addrspace({aspace}) {local} to ptr')} to i64")

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
