"""Inline PTX in LLVM IR, translated for AMD: every PTX asm statement (a lone `shfl.sync`,
cub::LaneId's `mov.u32 $0, %laneid`, a CUB-style block) goes through `ptxblock`, which reads it
with nvidia.ptxir and gives it nvidia.symbolic's meaning; shuffles become markers. Anything not
understood is an error naming the instruction and its line."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from .text import DBG, declared_names, locations, operand_token, split_args

if TYPE_CHECKING:
    from .ptxblock import Translation

_ASM = re.compile(r'^(?P<lhs>\s*(?:%[\w.\-]+ = )?)(?:tail )?call (?P<ty>[^"]*?)asm (?:sideeffect )?(?:inteldialect )?'
                  r'"(?P<tmpl>(?:[^"\\]|\\.)*)", "(?P<cons>[^"]*)"\((?P<args>.*)\)(?P<rest>[^()]*)$')
# A PTX statement: an opcode with modifiers (`bmsk.clamp.b32`, `max.NaN.f16`) or one of the
# few without any; AMDGPU mnemonics (`v_add_u32`, `s_waitcnt`) never contain a dot.
_PTX_START = re.compile(r"(@!?\w+\s+)?(?:[a-z][a-z0-9_]*\.[A-Za-z0-9_]|(?:exit|trap|ret|brkpt|pmevent)\b)")
# AMDGPU register-class constraints (v: VGPR, s: SGPR, a: AGPR, or one such register, {v0}; LLVM's
# SITargetLowering::getRegForInlineAsmConstraint): an asm call with one is AMDGPU's own, never PTX.
_AMDGPU_CONSTRAINT = re.compile(r"[=+&*]*\{?[vsa]")
# Immediate-operand constraints (LLVM LangRef, "Constraint Codes": "n" an integer known at compile
# time, "i" an integer or symbol): the operand is a constant of the asm call, and the PTX nvcc gives
# ptxas holds the number itself where the template names it (NVPTX's asm printer prints the
# immediate). libcu++'s cp.async (cuda/__memcpy_async/cp_async_shared_global.h) writes its
# cp-size, which must be an integer constant (PTX ISA 8.7, 9.7.9.25 cp.async), as "n"(_Copy_size).
_IMMEDIATE_CONSTRAINTS = ("n", "i")
_OPERAND_REF = re.compile(r"\$(?:\{(\d+)\}|(\d+))")
# PTX's extended-precision instructions (PTX ISA 9.7.2) pass a carry flag, CC.CF, from one to the
# next, also from one asm statement to the next (bignum code writes one add.cc/addc per statement,
# as BitCrack and VanitySearch do): such statements read and write it in a slot of their function
# (an alloca that LLVM's SROA turns into a value), which starts at 0.
_CARRY_USE = re.compile(r"\b(?:(?:add|sub|mad)(?:\.(?:lo|hi))?\.cc|addc|subc|madc)\b")
CARRY_SLOT = "%__shflx.cc.cf"


class InlinePtxError(ValueError):
    """An inline PTX block shflx cannot translate; carries the instruction and the location."""

    def __init__(self, what: str, location: str):
        super().__init__(f"{location}: error: {what}")
        self.what, self.location = what, location


def translate_inline_ptx(ir: str, wave: int = 64, contract: bool = True) -> str:
    """`ir` with every inline PTX asm call replaced by the IR of its meaning (InlinePtxError with
    the source location for anything not understood); other asm (AMDGPU's own) is kept. `contract`:
    the device code may fuse products and sums across statements (-ffp-contract=fast, nvcc's
    -fmad=true), so a float add/mul without a rounding modifier may fuse as ptxas fuses it."""
    extra_fns: dict[str, str] = {}
    decls: dict[str, str] = {}
    lines = ir.splitlines()
    locs = ptx = None
    changed = False
    function = None                        # the line that opens the function being read
    carry_functions: set[int] = set()      # those whose asm statements pass the carry flag along
    for k, line in enumerate(lines):
        if line.startswith("define "):
            function = k
        if " asm " not in line:
            continue
        m = _ASM.match(line)
        if not m:
            continue
        tmpl = m.group("tmpl").replace("\\0A", "\n").replace("\\09", " ")
        tmpl = tmpl.replace("$(", "{").replace("$)", "}").replace("$|", "|").replace("$$", "$")  # LLVM asm escapes
        if not any(_PTX_START.match(t.strip("{} \t")) for t in re.split(r"[;\n]", tmpl)):
            continue
        if any(_AMDGPU_CONSTRAINT.match(c) for c in m.group("cons").split(",") if not c.startswith("~")):
            continue
        if ptx is None:           # the first PTX statement: its translator is imported now (most modules have none)
            from . import ptxblock as ptx
            locs = locations(lines)
        dbg = DBG.search(m.group("rest"))
        where = locs.get(dbg.group(1), "?") if dbg else "?"
        refused = _refused(lambda: locs.frames(dbg.group(1)), tmpl) if dbg else None
        if refused:
            raise InlinePtxError(refused, where)
        carry = _CARRY_USE.search(tmpl) is not None and function is not None
        try:
            tr = _translate_asm(m, tmpl, f"ptx{k}", wave, contract, f"%ptx{k}.cc.in" if carry else None)
        except ptx.PtxBlockError as e:
            from .ptxmemory import UnsupportedPtx
            what = str(e) if isinstance(e, UnsupportedPtx) else f"shflx does not support this inline PTX on AMD targets ({e})"
            raise InlinePtxError(what, where) from None
        dbg_tail = f", !dbg {dbg.group(1)}" if dbg else ""
        body = tr.lines
        if carry:                          # CC.CF lives in a slot of the function between statements
            carry_functions.add(function)
            body = [f"  %ptx{k}.cc.in = load i32, ptr addrspace(5) {CARRY_SLOT}, align 4", *body]
            if tr.carry_out is not None:
                body.append(f"  store i32 {tr.carry_out}, ptr addrspace(5) {CARRY_SLOT}, align 4")
        lines[k] = "\n".join(ln + dbg_tail for ln in body)
        for mode in tr.pred_modes:
            extra_fns[mode] = ptx.inrange_ir(mode, wave)
        extra_fns.update(tr.functions)
        decls.update(tr.declarations)
        changed = True
    if not changed:
        return ir
    for start in carry_functions:          # the slot, in the entry block (after its label, if named)
        at = start + 1 if start + 1 < len(lines) and re.match(r"^[\w.$-]+:", lines[start + 1]) else start
        lines[at] += (f"\n  {CARRY_SLOT} = alloca i32, align 4, addrspace(5)"
                      f"\n  store i32 0, ptr addrspace(5) {CARRY_SLOT}, align 4")
    text = "\n".join(lines) + "\n"
    declared = declared_names(text)
    missing = [line for name, line in sorted(decls.items()) if name not in declared]
    return text + "".join(f"\n{line}" for line in missing) + "\n\n" + "\n".join(extra_fns.values())


# PTX of NVIDIA's headers that translates, but whose algorithm cannot run on AMD: (the header, a
# word of the statement) -> what is not supported, and why. NVIDIA's multi-warp tiles
# (thread_block_tile<64..512>) wait in a spin loop for other warps of the tile to arrive or to
# finish their part (cooperative_groups/details/sync.h: sync_warps, sync_warps_last_releases);
# two CUDA warps of one 64-lane wave that take different sides of that wait can never both go
# on, and such a tile's shuffle hung on the emulator for 32-lane waves too.
REFUSED = {("cooperative_groups/details/sync.h", ".cta"):
           "shflx does not support 'cooperative_groups tiles of more than 32 threads' on AMD targets (their "
           "barrier spins on other warps of the tile, which a wave shared by two CUDA warps cannot run; tiles of up to "
           "32 threads are supported)"}


def _refused(frames: Callable[[], list[str]], tmpl: str) -> str | None:
    """Why an asm statement comes from a header algorithm shflx refuses (REFUSED), or None; its
    frames (file:line:col, innermost first) are read only for a template with a refused word
    (a module of CUB code has thousands of asm statements)."""
    candidates = [(header, why) for (header, word), why in REFUSED.items() if word in tmpl]
    if not candidates:
        return None
    where = [f.rsplit(":", 2)[0] for f in frames()]
    return next((why for header, why in candidates if any(w.endswith(header) for w in where)), None)


def _translate_asm(m: re.Match, tmpl: str, prefix: str, wave: int, contract: bool,
                   carry: str | None = None) -> Translation:
    """One asm call (`m` matched by _ASM) through ptxblock: operand types from the call, "+r"
    operands from the tied-constraint digits; `carry`, the carry flag's value on entry."""
    from .ptxblock import PtxBlockError, translate

    types = re.findall(r"\{[^}]*\}|<[^>]*>|\b(?:void|i\d+|half|bfloat|float|double|ptr)\b", m.group("ty"))
    ret = types[-1] if types else "void"             # after call attributes and fast-math flags
    outputs = [] if ret == "void" else [t.strip() for t in ret.strip("{} ").split(",")]
    args = split_args(m.group("args"))
    inputs = [(_arg_type(a), operand_token(a)) for a in args]
    cons = [c for c in m.group("cons").split(",") if c and not c.startswith("~")]
    outs = [c for c in cons if c.startswith("=")]
    ins = cons[len(outs):]
    if any(c.startswith("=*") for c in outs) or len(outs) != len(outputs) or len(ins) != len(inputs):
        raise PtxBlockError(f"asm operands '{m.group('cons')}' are not register operands shflx can translate")
    tied = {int(c): len(outs) + j for j, c in enumerate(ins) if c.isdigit()}
    res = m.group("lhs").strip().rstrip("=").strip() or None
    return translate(immediates_in_template(tmpl, ins, args, len(outs)), outputs, inputs, tied, prefix, wave, res,
                     contract, carry)


def immediates_in_template(tmpl: str, ins: list[str], args: list[str], first: int) -> str:
    """`tmpl` with each reference ($N, ${N}) to an input operand of an immediate constraint ("n",
    "i") whose argument is an integer constant written as that integer, as the PTX reads that nvcc
    compiles; every other reference unchanged. `ins` are the input constraints, `args` the call's
    arguments, `first` the number of the first input operand."""
    values = {first + j: operand_token(arg) for j, (c, arg) in enumerate(zip(ins, args))
              if c in _IMMEDIATE_CONSTRAINTS and re.fullmatch(r"i\d+ (?:\w+ )*-?\d+", arg)}
    if not values:
        return tmpl
    return _OPERAND_REF.sub(lambda r: values.get(int(r[1] or r[2]), r[0]), tmpl)


def _arg_type(arg: str) -> str:
    """The LLVM type of a call argument (`ptr addrspace(1) noundef %p` -> `ptr addrspace(1)`)."""
    m = re.match(r"ptr(?: addrspace\(\d+\))?", arg)
    return m.group(0) if m else arg.split()[0]
