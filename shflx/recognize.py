"""Finding warp-shuffle sites in AMDGPU (or NVPTX) LLVM IR and deciding what each one is.

Sites are the prelude's markers `call i32 @__shflx_shfl_sync(mode, mask, v, b, c)`. For each
operand: a constant; a function of the lane id alone (a slice of add/sub/mul/and/or/xor/shl and
casts over threadIdx.x or %laneid (`workitem.id.x`, `mbcnt`, `sreg.tid.x`, `sreg.laneid`): those
keep "low 5 bits of the result depend only on the low 5 bits of the inputs", and shfl.sync reads
only b[4:0], so evaluating lanes 0..31 gives the exact map); a
warp-uniform runtime value (kernel arguments, block ids, sizes); or per-lane dynamic. The source
location comes from the line tables, followed through `inlinedAt` to the user's own line.
Pure text processing: the core stays free of llvmlite (STYLE.md)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MARKER = "__shflx_shfl_sync"
TID_LANE_NOTE = ("operand computed from threadIdx.x: assumes the CUDA lane is threadIdx.x % 32 "
                 "(1-D blocks, or blockDim.x a multiple of 32), as the source itself does")
MODE_NAMES = {0: "up", 1: "down", 2: "bfly", 3: "idx"}
LOW_BIT_OPS = {"add", "sub", "mul", "and", "or", "xor", "shl"}
CASTS = {"zext", "sext", "trunc"}
UNIFORM_CALLS = ("llvm.amdgcn.workgroup.id.", "llvm.amdgcn.readfirstlane", "llvm.amdgcn.readlane",
                 "llvm.nvvm.read.ptx.sreg.ctaid.", "llvm.nvvm.read.ptx.sreg.ntid.", "llvm.nvvm.read.ptx.sreg.nctaid.")
TID_X_CALLS = ("llvm.amdgcn.workitem.id.x", "llvm.nvvm.read.ptx.sreg.tid.x")      # threadIdx.x
LANE_CALLS = (*TID_X_CALLS, "llvm.amdgcn.mbcnt.lo", "llvm.amdgcn.mbcnt.hi", "llvm.nvvm.read.ptx.sreg.laneid",
              'asm "mov.u32 $0, %laneid;"', 'asm sideeffect "mov.u32 $0, %laneid;"')  # cub::LaneId() (NVPTX IR)

_DEF = re.compile(r"^\s*(%[\w.\-]+) = (.*)$")
_CAST = re.compile(r"^(zext|sext|trunc)(?: nneg| nuw| nsw)* i(\d+) \S+ to i(\d+)")


def cast_value(inst: str, v: int) -> int:
    """The value of `zext/sext/trunc iN v to iM` (ValueError for any other cast): exact, so a
    `sext i1` is all ones and a `trunc` to i1..i16 drops the high bits."""
    m = _CAST.match(inst)
    if not m:
        raise ValueError(f"cast {inst}")
    op, src, dst = m.group(1), int(m.group(2)), int(m.group(3))
    v &= (1 << src) - 1
    if op == "sext" and v >> (src - 1):
        v -= 1 << src
    return v & ((1 << dst) - 1)


def _call_args(inst: str) -> list[str]:
    return [_operand_token(a) for a in _split_args(inst[inst.index("(") + 1: inst.rindex(")")])]


def _mbcnt(inst: str) -> str | None:
    """"lo"/"hi" for `mbcnt.lo/hi(i32 -1, X)`, the lane count under a full mask (the lane id plus
    the accumulator X); None for any other call, including an mbcnt of another mask (a popcount
    of ballot bits below the lane, not the lane id)."""
    m = re.search(r"@llvm\.amdgcn\.mbcnt\.(lo|hi)\(", inst)
    return m.group(1) if m and _call_args(inst)[0] == "-1" else None
_CALL = re.compile(r"^(?P<res>%[\w.\-]+) = (?:tail |musttail |notail )?call [^@]*@" + MARKER +
                   r"\((?P<args>[^)]*)\)(?P<rest>.*)$")
_DBG = re.compile(r"!dbg (![0-9]+)")


@dataclass(frozen=True)
class Operand:
    kind: str                    # "const" | "lane" | "uniform" | "dynamic"
    value: int | None = None     # const
    lanes: tuple[int, ...] | None = None   # lane-only: the value for lanes 0..31
    text: str = ""               # the IR operand
    from_tid: bool = False       # lane-only through threadIdx.x (CUDA lane = threadIdx.x % 32 assumed)


@dataclass
class Site:
    function: str
    line_index: int              # line number (0-based) in the module text
    result: str
    mode: Operand
    mask: Operand
    value: str                   # IR operand carrying the shuffled value
    b: Operand
    c: Operand
    location: str = "?"          # file:line:col
    notes: list[str] = field(default_factory=list)

    @property
    def constant_map(self) -> bool:
        return all(op.kind in ("const", "lane") for op in (self.mode, self.b, self.c)) and self.mode.kind == "const"


def _split_args(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch in "([{<"
        depth -= ch in ")]}>"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _operand_token(arg: str) -> str:
    return arg.split()[-1]


class FunctionBody:
    """SSA definitions of one function, for backward slices."""

    def __init__(self, name: str, lines: list[str], params: list[str]):
        self.name = name
        self.defs: dict[str, str] = {}
        self.params = set(params)
        for line in lines:
            m = _DEF.match(line)
            if m:
                self.defs[m.group(1)] = m.group(2)

    def classify(self, token: str, low_bits: bool = False) -> Operand:
        """`low_bits`: only bits 4:0 of the operand matter (b); then a lane-only slice of
        low-bit-preserving ops over threadIdx.x is evaluated per lane. For c (bits 12:8 matter
        too) and the mask, a lane-dependent value is dynamic."""
        if re.fullmatch(r"-?\d+", token):
            return Operand("const", int(token), text=token)
        kinds = self._leaf_kinds(token, set())
        if kinds is None:
            return Operand("dynamic", text=token)
        if "lane" in kinds:
            if "other" in kinds or not low_bits:
                return Operand("dynamic", text=token)
            vals = tuple(self._eval(token, lane) & 0xFFFFFFFF for lane in range(32))
            return Operand("lane", lanes=vals, text=token, from_tid=self._uses_tid(token, set()))
        return Operand("uniform", text=token)

    def _leaf_kinds(self, token: str, seen: set[str]) -> set[str] | None:
        """{'lane', 'uniform', 'other'} reached by the slice; None when it is not lane-evaluable."""
        if re.fullmatch(r"-?\d+|true|false", token):
            return set()
        if token in self.params:
            return {"uniform"}
        if token in seen:
            return None
        seen.add(token)
        inst = self.defs.get(token)
        if inst is None:
            return None
        op = inst.split()[0]
        if op in ("call", "tail"):
            if "mbcnt" in inst:
                if _mbcnt(inst) is None:
                    return None
                acc = self._leaf_kinds(_call_args(inst)[1], seen)
                return None if acc is None else {"lane"} | acc
            if any(c in inst for c in LANE_CALLS):
                return {"lane"}
            return {"uniform"} if any(c in inst for c in UNIFORM_CALLS) else None
        high_bit_ops = ("lshr", "ashr", "udiv", "sdiv", "urem", "srem", "select", "icmp")
        if op not in LOW_BIT_OPS and op not in CASTS and op not in high_bit_ops:
            return None       # loads, phis, calls we do not know: not provably uniform or lane-only
        out: set[str] = set()
        for o in self._operands(inst):
            k = self._leaf_kinds(o, seen)
            if k is None:
                return None
            out |= k
        if op in high_bit_ops and "lane" in out:
            out.add("other")  # these look at high bits: a lane-dependent input makes it per-warp
        return out

    def _uses_tid(self, token: str, seen: set[str]) -> bool:
        inst = self.defs.get(token)
        if inst is None or token in seen:
            return False
        seen.add(token)
        if any(c in inst for c in TID_X_CALLS):
            return True
        return any(self._uses_tid(o, seen) for o in self._operands(inst) if o.startswith("%"))

    def _operands(self, inst: str) -> list[str]:
        body = re.sub(r"^\w+( (nuw|nsw|exact|disjoint|samesign))*\s+", "", inst)
        body = re.sub(r",\s*!.*$", "", body)
        if body.startswith(("eq ", "ne ", "ugt ", "uge ", "ult ", "ule ", "sgt ", "sge ", "slt ", "sle ")):
            body = body.split(" ", 1)[1]
        if " to " in body:                                    # casts
            body = body.split(" to ")[0]
        toks = [t.strip() for t in body.split(",")]
        return [t.split()[-1] for t in toks if t]

    def _eval(self, token: str, lane: int) -> int:
        if re.fullmatch(r"-?\d+", token):
            return int(token)
        inst = self.defs[token]
        op = inst.split()[0]
        if op in ("call", "tail"):     # lanes 0..31: mbcnt.lo counts the lane, mbcnt.hi adds none
            kind = _mbcnt(inst)
            if kind is not None:
                return (lane if kind == "lo" else 0) + self._eval(_call_args(inst)[1], lane)
            return lane
        vals = [self._eval(o, lane) for o in self._operands(inst)]
        if op in CASTS:
            return cast_value(inst, vals[0])
        a, b = vals[0], vals[1]
        return {"add": a + b, "sub": a - b, "mul": a * b, "and": a & b, "or": a | b, "xor": a ^ b,
                "shl": a << (b & 31)}[op]


def _functions(lines: list[str]) -> list[tuple[str, int, int, list[str]]]:
    """(name, first line, last line, warp-uniform parameters) of each function defined in the
    module. Only a kernel's parameters are uniform (every thread of the launch gets the same
    argument); a device function that was not inlined may be called with per-lane values."""
    out = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("define "):
            name = re.search(r"@([\w.$\-]+)\(", line).group(1)
            head = line.split("@", 1)[0]
            kernel = " amdgpu_kernel " in head or " ptx_kernel " in head
            params = re.findall(r"(%[\w.\-]+)(?=[,)])", line.split("(", 1)[1]) if kernel else []
            end = k
            while not lines[end].startswith("}"):
                end += 1
            out.append((name, k, end, params))
            k = end
        k += 1
    return out


def _locations(lines: list[str]) -> dict[str, str]:
    """!N -> "file:line:col" for every DILocation, through inlinedAt to the outermost call site."""
    meta = {}
    for line in lines:
        m = re.match(r"^(![0-9]+) = (?:distinct )?(.*)$", line)
        if m:
            meta[m.group(1)] = m.group(2)

    def field_of(text: str, name: str) -> str | None:
        m = re.search(rf"\b{name}: (\"(?:[^\"\\\\]|\\\\.)*\"|![0-9]+|\d+)", text)
        return m.group(1) if m else None

    def file_of(scope: str | None, depth: int = 0) -> str:
        if scope is None or depth > 20 or scope not in meta:
            return "?"
        text = meta[scope]
        f = field_of(text, "file")
        if f and f in meta and meta[f].startswith("!DIFile"):
            return (field_of(meta[f], "filename") or '"?"').strip('"')
        return file_of(field_of(text, "scope"), depth + 1)

    out = {}
    for key, text in meta.items():
        if not text.startswith("!DILocation"):
            continue
        cur, hops = text, 0
        while True:
            inl = field_of(cur, "inlinedAt")
            if not inl or inl not in meta or hops > 50:
                break
            cur, hops = meta[inl], hops + 1
        out[key] = f"{file_of(field_of(cur, 'scope'))}:{field_of(cur, 'line')}:{field_of(cur, 'column')}"
    return out


def _call_sites(ir: str, pattern: re.Pattern, body_type: type) -> Any:
    """(function body, line index, match, location) for every line of `ir` matching `pattern`."""
    lines = ir.splitlines()
    locs = _locations(lines)
    for name, start, end, params in _functions(lines):
        body_lines = lines[start + 1:end]
        body = None
        for k, line in enumerate(body_lines, start + 1):
            m = pattern.match(line.strip())
            if not m:
                continue
            body = body or body_type(name, body_lines, params)
            dbg = _DBG.search(m.group("rest"))
            yield body, k, m, (locs.get(dbg.group(1), "?") if dbg else "?")


def find_sites(ir: str) -> list[Site]:
    sites = []
    for fn, k, m, where in _call_sites(ir, _CALL, FunctionBody):
        args = [_operand_token(a) for a in _split_args(m.group("args"))]
        if len(args) != 5:
            continue
        site = Site(fn.name, k, m.group("res"), fn.classify(args[0]), fn.classify(args[1]), args[2],
                    fn.classify(args[3], low_bits=True), fn.classify(args[4]), where)
        if any(o.from_tid for o in (site.b, site.c)):
            site.notes.append(TID_LANE_NOTE)
        sites.append(site)
    return sites


def site_map(site: Site) -> tuple[str, np.ndarray] | None:
    """(mode, source lanes 0..31) of a constant-map site; None when the map is not constant."""
    from .cuda import shfl_sync

    if not site.constant_map:
        return None
    mode = MODE_NAMES.get(site.mode.value & 3)
    b = site.b.value if site.b.kind == "const" else np.array(site.b.lanes, dtype=np.int64)
    c = site.c.value if site.c.kind == "const" else np.array(site.c.lanes, dtype=np.int64)
    src, _ = shfl_sync(mode, b, c)
    return mode, src


# ------------------------------------------------------------------------ inline PTX

_ASM = re.compile(r'^(?P<lhs>\s*(?:%[\w.\-]+ = )?)(?:tail )?call (?P<ty>[^"]*?)asm (?:sideeffect )?(?:inteldialect )?'
                  r'"(?P<tmpl>(?:[^"\\]|\\.)*)", "(?P<cons>[^"]*)"\((?P<args>.*)\)(?P<rest>[^()]*)$')


class InlinePtxError(ValueError):
    """An inline PTX block shflx cannot translate; carries the instruction and the location."""

    def __init__(self, what: str, location: str):
        super().__init__(f"{location}: error: {what}")
        self.what, self.location = what, location


def translate_inline_ptx(ir: str, wave: int = 64) -> str:
    """Every inline PTX asm statement (a lone `shfl.sync`, cub::LaneId's `mov.u32 $0, %laneid`, a
    CUB-style block) becomes IR through shflx.ptxblock: shuffles become markers, the rest the IR
    of its PTX meaning. Anything not understood is an error naming the instruction and its line."""
    from .ptxblock import PtxBlockError, inrange_ir

    extra_fns: dict[str, str] = {}
    lines = ir.splitlines()
    locs = None
    changed = False
    decls: dict[str, str] = {}
    for k, line in enumerate(lines):
        if " asm " not in line:
            continue
        m = _ASM.match(line)
        if not m:
            continue
        tmpl = m.group("tmpl").replace("\\0A", "\n").replace("\\09", " ")
        tmpl = tmpl.replace("$(", "{").replace("$)", "}").replace("$|", "|").replace("$$", "$")  # LLVM asm escapes
        instrs = [t.strip("{} \t") for t in re.split(r"[;\n]", tmpl)]
        if not _looks_like_ptx([t for t in instrs if t and not t.startswith("//")]):
            continue
        if locs is None:
            locs = _locations(lines)
        dbg = _DBG.search(m.group("rest"))
        where = locs.get(dbg.group(1), "?") if dbg else "?"
        try:
            tr = _translate_asm(m, tmpl, f"ptx{k}", wave)
        except PtxBlockError as e:
            raise InlinePtxError(f"inline PTX: {e}", where) from None
        dbg_tail = f", !dbg {dbg.group(1)}" if dbg else ""
        lines[k] = "\n".join(ln + dbg_tail for ln in tr.lines)
        for mode in tr.pred_modes:
            extra_fns[mode] = inrange_ir(mode, wave)
        decls.update(tr.declarations)
        changed = True
    if not changed:
        return ir
    return _with_declarations("\n".join(lines) + "\n", decls) + "\n" + "\n".join(extra_fns.values())


def _translate_asm(m: re.Match, tmpl: str, prefix: str, wave: int):
    """One asm call (`m` matched by _ASM) through ptxblock: operand types from the call, "+r"
    operands from the tied-constraint digits."""
    from .ptxblock import PtxBlockError, translate

    types = re.findall(r"\{[^}]*\}|<[^>]*>|\b(?:void|i\d+|half|bfloat|float|double|ptr)\b", m.group("ty"))
    ret = types[-1] if types else "void"             # after call attributes and fast-math flags
    outputs = [] if ret == "void" else [t.strip() for t in ret.strip("{} ").split(",")]
    args = _split_args(m.group("args"))
    inputs = [(a.rsplit(None, 1)[0].split()[0], _operand_token(a)) for a in args]
    cons = [c for c in m.group("cons").split(",") if c and not c.startswith("~")]
    outs = [c for c in cons if c.startswith("=")]
    ins = cons[len(outs):]
    if any(c.startswith("=*") for c in outs) or len(outs) != len(outputs) or len(ins) != len(inputs):
        raise PtxBlockError(f"asm operands '{m.group('cons')}' are not register operands shflx can translate")
    tied = {int(c): len(outs) + j for j, c in enumerate(ins) if c.isdigit()}
    res = m.group("lhs").strip().rstrip("=").strip() or None
    return translate(tmpl, outputs, inputs, tied, prefix, wave, res)


def _with_declarations(text: str, decls: dict[str, str]) -> str:
    """`text` plus the declarations of what the translations call that it lacks."""
    from .rewrite import declared_names

    declared = declared_names(text)
    missing = [line for name, line in sorted(decls.items()) if name not in declared]
    return text + "".join(f"\n{line}" for line in missing) + "\n"


def _looks_like_ptx(instrs: list[str]) -> bool:
    return any(re.match(r"(@!?\w+\s+)?(shfl|mov|add|sub|mul|min|max|and|or|xor|not|shl|shr|setp|selp|ld|st|cvt|"
                        r"vote|activemask|redux|match|bar)\.", t) for t in instrs)


# ------------------------------------------------------------------------ ds.bpermute in AMDGPU IR

_BPERM = re.compile(r"^(?P<res>%[\w.\-]+) = (?:tail )?call [^@]*@llvm\.amdgcn\.ds\.bpermute(?:\.i32)?\((?P<args>[^)]*)\)(?P<rest>.*)$")
_ICMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b,
         "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b}


@dataclass
class BpermuteSite:
    function: str
    line_index: int
    result: str
    value: str
    lanes: tuple[int, ...] | None     # lane each hardware lane reads, when the address is lane-only
    location: str = "?"


def _s32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


class LaneEvaluator(FunctionBody):
    """Evaluates an SSA value exactly for each hardware lane when its slice reads only the lane id
    (mbcnt, workitem.id.x) and constants: every i32 op, casts, icmp and select."""

    def lane_values(self, token: str, wave: int) -> tuple[int, ...] | None:
        try:
            return tuple(self._full(token, lane, 0) & 0xFFFFFFFF for lane in range(wave))
        except (KeyError, ValueError, IndexError, ZeroDivisionError):
            return None

    def _full(self, token: str, lane: int, depth: int) -> int:
        if depth > 200:
            raise ValueError("slice too deep")
        if re.fullmatch(r"-?\d+", token):
            return int(token)
        if token in ("true", "false"):
            return int(token == "true")
        inst = self.defs[token]
        op = inst.split()[0]
        if op in ("call", "tail"):
            if any(c in inst for c in TID_X_CALLS):
                return lane
            if "sreg.laneid" in inst or "%laneid" in inst:
                return lane % 32
            kind = _mbcnt(inst)
            if kind is not None:
                counted = min(lane, 32) if kind == "lo" else max(0, lane - 32)
                return counted + self._full(_call_args(inst)[1], lane, depth + 1)
            raise ValueError(f"call in the slice: {inst}")
        if op == "select":
            c, a, b = (self._full(o, lane, depth + 1) for o in self._operands(inst))
            return a if c else b
        if op == "icmp":
            pred = next(w for w in inst.split()[1:] if w != "samesign")
            a, b = (self._full(o, lane, depth + 1) for o in self._operands(inst))
            if pred.startswith("s"):
                return int(_ICMP["u" + pred[1:]](_s32(a), _s32(b)))
            return int(_ICMP[pred](a & 0xFFFFFFFF, b & 0xFFFFFFFF))
        vals = [self._full(o, lane, depth + 1) for o in self._operands(inst)]
        if op in CASTS:
            return cast_value(inst, vals[0])
        a, b = vals[0] & 0xFFFFFFFF, vals[1] & 0xFFFFFFFF
        table = {"add": a + b, "sub": a - b, "mul": a * b, "and": a & b, "or": a | b, "xor": a ^ b,
                 "shl": a << (b & 31), "lshr": a >> (b & 31), "ashr": _s32(a) >> (b & 31),
                 "udiv": a // b if b else None, "urem": a % b if b else None}
        if op not in table or table[op] is None:
            raise ValueError(f"op {op}")
        return table[op]


def find_bpermute_sites(ir: str, wave: int) -> list[BpermuteSite]:
    out = []
    for ev, k, m, where in _call_sites(ir, _BPERM, LaneEvaluator):
        addr, value = (_operand_token(a) for a in _split_args(m.group("args")))
        out.append(BpermuteSite(ev.name, k, m.group("res"), value, ev.lane_values(addr, wave), where))
    return out
