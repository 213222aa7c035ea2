"""NVIDIA's libdevice on AMD: CUDA's double-precision math and the single-precision functions the
CUDA layer does not write itself (`__nv_cos`, `__nv_atan2f`, ...), from the libdevice.10.bc that
nvcc and clang link for NVIDIA targets (the nvcc wheel of the `cuda` extra, or SHFLX_CUDA_PATH),
retargeted to AMDGPU, so `cos(double)` on AMD is NVIDIA's own algorithm and not a second one
written here.

libdevice is LLVM bitcode for NVPTX: plain IR except for `__nvvm_reflect` queries and NVVM
intrinsics. Retargeting (text, once per process):
- `__nvvm_reflect("__CUDA_ARCH")` is 800 (the layer's `__CUDA_ARCH__`), `__CUDA_FTZ` 0 (denormals
  kept, nvcc's default), `__CUDA_PREC_SQRT` 1 (nvcc's default -prec-sqrt=true);
- each `llvm.nvvm.*` intrinsic becomes a call of a helper of generic LLVM IR (NVVM_IR below). The
  round-to-nearest arithmetic, conversions and bit moves are exact translations, and so are the
  directed roundings of add/mul/div/rcp/sqrt/fma and d2f (ir.directed's functions); the `.approx`
  forms (only starting values that libdevice refines, or CUDA's own fast intrinsics) become
  AMDGPU's approximate instructions (v_rcp_f64, v_rsq_f64, ...): an assumption, stated in
  docs/cuda-layer.md. A function that needs a form with no helper (directed integer conversions, ...) is
  left out, and a call to it is shflx's one-line error;
- allocas move to AMDGPU's private address space (5), cast back to flat;
- the triple and data layout are AMDGPU's.
Only the functions a module calls (and what they call) are linked into it, internal."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..ir import directed
from ..ir.ptxfloat import nan_as_integer

REFLECT = {"__CUDA_ARCH": 800, "__CUDA_FTZ": 0, "__CUDA_PREC_SQRT": 1}
TRIPLE = "amdgcn-amd-amdhsa"
# AMDGPU's data layout (llvm/lib/Target/AMDGPU/AMDGPUTargetMachine.cpp, computeDataLayout), as
# clang writes it for amdgcn-amd-amdhsa
DATALAYOUT = ("e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-"
              "p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-"
              "v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9")

_D, _F = "double", "float"
# NVVM intrinsic (its name after `llvm.nvvm.`) -> (result type, argument types, body). A body is IR
# over %a, %b, %c ending in `ret`. Semantics: PTX ISA 8.7, "Floating-Point Instructions" (add/mul/
# fma/div/sqrt/rcp .rn are IEEE round-to-nearest-even, LLVM's fadd/fmul/llvm.fma/fdiv/llvm.sqrt),
# "Data Movement and Conversion Instructions: cvt" (float to integer saturates: llvm.fpto[su]i.sat; NaN's
# integer as an H200 gives it, ir.ptxfloat.nan_as_integer), mov.b64 {lo, hi} (d2i/lohi).
NVVM_IR: dict[str, tuple[str, tuple[str, ...], str]] = {}


def _nvvm(names: str, res: str, args: tuple[str, ...], body: str) -> None:
    for name in names.split():
        NVVM_IR[name] = (res, args, body)


for _t, _s, _w in ((_D, "d", "f64"), (_F, "f", "f32")):
    _nvvm(f"add.rn.{_s}", _t, (_t, _t), f"%r = fadd {_t} %a, %b\n  ret {_t} %r")
    _nvvm(f"mul.rn.{_s}", _t, (_t, _t), f"%r = fmul {_t} %a, %b\n  ret {_t} %r")
    _nvvm(f"div.rn.{_s}", _t, (_t, _t), f"%r = fdiv {_t} %a, %b\n  ret {_t} %r")
    _nvvm(f"rcp.rn.{_s}", _t, (_t,), f"%r = fdiv {_t} 1.0, %a\n  ret {_t} %r")
    _nvvm(f"fma.rn.{_s}", _t, (_t, _t, _t), f"%r = call {_t} @llvm.fma.{_w}({_t} %a, {_t} %b, {_t} %c)\n  ret {_t} %r")
    _nvvm(f"sqrt.rn.{_s}", _t, (_t,), f"%r = call {_t} @llvm.sqrt.{_w}({_t} %a)\n  ret {_t} %r")
    for _op, _llvm in (("floor", "floor"), ("ceil", "ceil"), ("trunc", "trunc"), ("round", "round")):
        _nvvm(f"{_op}.{_s}", _t, (_t,), f"%r = call {_t} @llvm.{_llvm}.{_w}({_t} %a)\n  ret {_t} %r")
    _nvvm(f"fmin.{_s}", _t, (_t, _t), f"%r = call {_t} @llvm.minnum.{_w}({_t} %a, {_t} %b)\n  ret {_t} %r")
    _nvvm(f"fmax.{_s}", _t, (_t, _t), f"%r = call {_t} @llvm.maxnum.{_w}({_t} %a, {_t} %b)\n  ret {_t} %r")
    _nvvm(f"fabs.{_w}", _t, (_t,), f"%r = call {_t} @llvm.fabs.{_w}({_t} %a)\n  ret {_t} %r")
# the directed roundings (add.rz.f, mul.rp.d, div.rm.f, fma.rz.f, sqrt.rp.d, rcp.rz.f, d2f.rz, ...): the
# bodies of ir.directed, which the CUDA layer's intrinsics and inline PTX call too
for _key, (_res, _args, _body, _) in directed.HELPERS.items():
    _op, _m, _ty = _key.split(".")
    if _op == "d2f":
        _nvvm(f"d2f.{_m}", _res, _args, _body)
    elif _op != "sub":
        _nvvm(f"{_op}.{_m}.{'f' if _ty == 'f32' else 'd'}", _res, _args, _body)
# float -> integer, saturating (cvt.rni/rzi/rmi/rpi): round in the float type, then convert
_ROUND = {"rn": "rint", "rz": "trunc", "rm": "floor", "rp": "ceil"}
for _src, _t, _w in (("d", _D, "f64"), ("f", _F, "f32")):
    for _dst, _it, _sign in (("i", "i32", "s"), ("ui", "i32", "u"), ("ll", "i64", "s"), ("ull", "i64", "u")):
        _nan = nan_as_integer(int(_w[1:]), int(_it[1:]))      # NaN's integer, as an H200 gives it
        _ret = (f"  %n = fcmp uno {_t} %x, 0.0\n  %r = select i1 %n, {_it} {_nan - (1 << int(_it[1:]))}, {_it} %s\n"
                f"  ret {_it} %r") if _nan else f"  ret {_it} %s"
        for _m, _llvm in _ROUND.items():
            _nvvm(f"{_src}2{_dst}.{_m}", _it, (_t,),
                  f"%x = call {_t} @llvm.{_llvm}.{_w}({_t} %a)\n  %s = call {_it} @llvm.fpto{_sign}i.sat.{_it}.{_w}({_t} %x)\n"
                  + _ret)
# integer -> float, round to nearest (exact for i32 -> double)
for _src, _it, _sign in (("i", "i32", "s"), ("ui", "i32", "u"), ("ll", "i64", "s"), ("ull", "i64", "u")):
    _nvvm(f"{_src}2d.rn", _D, (_it,), f"%r = {_sign}itofp {_it} %a to double\n  ret double %r")
    _nvvm(f"{_src}2f.rn", _F, (_it,), f"%r = {_sign}itofp {_it} %a to float\n  ret float %r")
_nvvm("d2f.rn", _F, (_D,), "%r = fptrunc double %a to float\n  ret float %r")
_nvvm("d2i.lo", "i32", (_D,), "%x = bitcast double %a to i64\n  %r = trunc i64 %x to i32\n  ret i32 %r")
_nvvm("d2i.hi", "i32", (_D,), "%x = bitcast double %a to i64\n  %s = lshr i64 %x, 32\n  %r = trunc i64 %s to i32\n"
      "  ret i32 %r")
_nvvm("lohi.i2d", _D, ("i32", "i32"), "%l = zext i32 %a to i64\n  %h = zext i32 %b to i64\n  %s = shl i64 %h, 32\n"
      "  %x = or i64 %s, %l\n  %r = bitcast i64 %x to double\n  ret double %r")
for _name, _it, _wide, _ext in (("mulhi.i", "i32", "i64", "sext"), ("mulhi.ui", "i32", "i64", "zext"),
                                 ("mulhi.ll", "i64", "i128", "sext"), ("mulhi.ull", "i64", "i128", "zext")):
    _bits = int(_it[1:])
    _nvvm(_name, _it, (_it, _it), f"%x = {_ext} {_it} %a to {_wide}\n  %y = {_ext} {_it} %b to {_wide}\n"
          f"  %p = mul {_wide} %x, %y\n  %s = lshr {_wide} %p, {_bits}\n  %r = trunc {_wide} %s to {_it}\n  ret {_it} %r")
_nvvm("saturate.f", _F, (_F,), "%x = call float @llvm.maxnum.f32(float %a, float 0.0)\n"
      "  %r = call float @llvm.minnum.f32(float %x, float 1.0)\n  ret float %r")
# .approx: libdevice's starting values (refined by Newton steps) and CUDA's fast intrinsics; AMDGPU's
# approximate instructions (AMD Instinct MI300 ISA, V_RCP_F64 / V_RSQ_F64: 1 ULP or better of
# the double's 52-bit fraction is not promised; the refinement libdevice applies is what makes the
# result): an assumption
_nvvm("rcp.approx.ftz.d", _D, (_D,), "%r = call double @llvm.amdgcn.rcp.f64(double %a)\n  ret double %r")
_nvvm("rsqrt.approx.d", _D, (_D,), "%r = call double @llvm.amdgcn.rsq.f64(double %a)\n  ret double %r")
_nvvm("rsqrt.approx.f rsqrt.approx.ftz.f", _F, (_F,), "%r = call float @llvm.amdgcn.rsq.f32(float %a)\n  ret float %r")
# the .ftz forms are AMDGPU's v_exp_f32 / v_log_f32 as they are (denormals flushed); the others
# LLVM's llvm.exp2 / llvm.log2, which AMDGPU expands around those instructions for denormals
_nvvm("ex2.approx.ftz.f32", _F, (_F,), "%r = call float @llvm.amdgcn.exp2.f32(float %a)\n  ret float %r")
_nvvm("ex2.approx.f32", _F, (_F,), "%r = call float @llvm.exp2.f32(float %a)\n  ret float %r")
_nvvm("lg2.approx.ftz.f", _F, (_F,), "%r = call float @llvm.amdgcn.log.f32(float %a)\n  ret float %r")
_nvvm("lg2.approx.f", _F, (_F,), "%r = call float @llvm.log2.f32(float %a)\n  ret float %r")
_nvvm("div.approx.f div.approx.ftz.f", _F, (_F, _F), "%q = call float @llvm.amdgcn.rcp.f32(float %b)\n"
      "  %r = fmul float %a, %q\n  ret float %r")
# sin.approx / cos.approx take radians; AMDGPU's v_sin_f32 / v_cos_f32 take turns (x / 2 pi)
for _op in ("sin", "cos"):
    _nvvm(f"{_op}.approx.f {_op}.approx.ftz.f", _F, (_F,), "%t = fmul float %a, 0x3FC45F3060000000\n"
          f"  %r = call float @llvm.amdgcn.{_op}.f32(float %t)\n  ret float %r")


# libdevice's multi-word integer arithmetic, written as inline PTX carry chains (mad.lo.cc /
# madc.hi / sub.cc ...) that the PTX translator does not model: each template (its instructions,
# white space removed) -> (helper name, its IR over the asm's operands %a, %b, %c, %d, returning
# the asm's result struct). Payne-Hanek reduction of sin/cos/tan: a*b + c and a*b over 64-bit
# words (128-bit results as {lo, hi}), and a 128-bit subtraction; of sinf/cosf: a*b + c over
# 32-bit words.
_W = "{ i64, i64 }"
_SPLIT128 = (f"  %lo = trunc i128 %r to i64\n  %s = lshr i128 %r, 64\n  %hi = trunc i128 %s to i64\n"
             f"  %v0 = insertvalue {_W} poison, i64 %lo, 0\n  %v1 = insertvalue {_W} %v0, i64 %hi, 1\n  ret {_W} %v1")
ASM_FORMS = {
    "mad.lo.cc.u32r0,alo,blo,clo;madc.hi.cc.u32r1,alo,blo,chi;madc.hi.u32r2,alo,bhi,0;mad.lo.cc.u32r1,alo,bhi,r1;"
    "madc.hi.cc.u32r2,ahi,blo,r2;madc.hi.u32r3,ahi,bhi,0;mad.lo.cc.u32r1,ahi,blo,r1;madc.lo.cc.u32r2,ahi,bhi,r2;"
    "addc.u32r3,r3,0;":
        ("mad.wide.u64", f"{_W} (i64 %a, i64 %b, i64 %c)",
         "%x = zext i64 %a to i128\n  %y = zext i64 %b to i128\n  %z = zext i64 %c to i128\n"
         "  %p = mul i128 %x, %y\n  %r = add i128 %p, %z\n" + _SPLIT128),
    **{f"{op}.cc.u32r0,a0,b0;{op}c.cc.u32r1,a1,b1;{op}c.cc.u32r2,a2,b2;{op}c.u32r3,a3,b3;":
        (f"{op}.u128", f"{_W} (i64 %a, i64 %b, i64 %c, i64 %d)",
         "%a0 = zext i64 %a to i128\n  %a1 = zext i64 %b to i128\n  %a2 = shl i128 %a1, 64\n  %x = or i128 %a2, %a0\n"
         "  %b0 = zext i64 %c to i128\n  %b1 = zext i64 %d to i128\n  %b2 = shl i128 %b1, 64\n  %y = or i128 %b2, %b0\n"
         f"  %r = {op} i128 %x, %y\n" + _SPLIT128) for op in ("add", "sub")},
    "mul.lo.u32r0,alo,blo;mul.hi.u32r1,alo,blo;mad.lo.cc.u32r1,alo,bhi,r1;madc.hi.u32r2,alo,bhi,0;"
    "mad.lo.cc.u32r1,ahi,blo,r1;madc.hi.cc.u32r2,ahi,blo,r2;madc.hi.u32r3,ahi,bhi,0;mad.lo.cc.u32r2,ahi,bhi,r2;"
    "addc.u32r3,r3,0;":
        ("mul.wide.u64", f"{_W} (i64 %a, i64 %b)",
         "%x = zext i64 %a to i128\n  %y = zext i64 %b to i128\n  %r = mul i128 %x, %y\n" + _SPLIT128),
    "mad.lo.cc.u32$0,$2,$3,$4;madc.hi.u32$1,$2,$3,0;":
        ("mad.wide.u32", "{ i32, i32 } (i32 %a, i32 %b, i32 %c)",
         "%x = zext i32 %a to i64\n  %y = zext i32 %b to i64\n  %z = zext i32 %c to i64\n  %p = mul i64 %x, %y\n"
         "  %r = add i64 %p, %z\n  %lo = trunc i64 %r to i32\n  %s = lshr i64 %r, 32\n  %hi = trunc i64 %s to i32\n"
         "  %v0 = insertvalue { i32, i32 } poison, i32 %lo, 0\n  %v1 = insertvalue { i32, i32 } %v0, i32 %hi, 1\n"
         "  ret { i32, i32 } %v1"),
}
# libdevice's one-instruction asm: the approximate starting values of its refinements (AMDGPU's
# v_rsq_f64 / v_rcp_f32 in their place, an assumption as for NVVM_IR's .approx forms) and
# round-to-nearest subtractions
ASM_FORMS.update({
    "rsqrt.approx.ftz.f64$0,$1;": ("rsqrt.approx.f64", "double (double %a)",
                                   "%r = call double @llvm.amdgcn.rsq.f64(double %a)\n  ret double %r"),
    "rcp.approx.ftz.f32$0,$1;": ("rcp.approx.f32", "float (float %a)",
                                 "%r = call float @llvm.amdgcn.rcp.f32(float %a)\n  ret float %r"),
    "sub.rn.f32$0,$1,$2;": ("sub.rn.f32", "float (float %a, float %b)", "%r = fsub float %a, %b\n  ret float %r"),
    "sub.rn.f64$0,$1,$2;": ("sub.rn.f64", "double (double %a, double %b)", "%r = fsub double %a, %b\n  ret double %r"),
})
_ASM_CALL = re.compile(r'asm (?:sideeffect )?"((?:[^"\\]|\\.)*)", "[^"]*"\(')


def _asm_form(m: re.Match) -> str:
    """An asm call of an ASM_FORMS template as a call of its helper; any other asm as it is."""
    text = m.group(1).replace("\\0A", "").replace("\\09", "")
    instructions = "".join(re.sub(r"\s+", "", s) + ";" for s in text.strip("{} ").split(";")
                           if s.strip() and not s.strip().startswith((".reg", "mov.b64", "{", "}")))
    known = ASM_FORMS.get(instructions)
    return f"@__shflx.libdevice.{known[0]}(" if known else m.group(0)


@dataclass(frozen=True)
class Library:
    """libdevice retargeted: its globals and attribute groups (by name), and its functions' text,
    what each calls of the library, and the functions that cannot be provided (and why)."""
    globals: dict[str, str]
    attributes: dict[str, str]
    functions: dict[str, str]
    calls: dict[str, frozenset[str]]
    refused: dict[str, str]
    declares: dict[str, str]            # the generic LLVM intrinsics it declares


_DEFINE = re.compile(r"^define [^@]*@([\w.$]+)\(", re.M)
_REFLECT = re.compile(r"call i32 @__nvvm_reflect\(ptr @([\w.$]+)\)(?: #\d+)?")
_HELPER_CALL = re.compile(r"@__shflx\.nvvm\.([\w.]+)\(")
_ALLOCA = re.compile(r"^(\s*)(%[\w.$]+) = alloca (.*?)(, align \d+)?$", re.M)


@lru_cache(maxsize=2)
def library(path: Path) -> Library:
    """`path` read, retargeted and split into its parts (see the module docstring)."""
    text = _folded(path)
    globals_ = {m.group(1): m.group(0) for m in re.finditer(r"^@([\w.$]+) = .*$", text, re.M)}
    attributes = {m.group(1): m.group(0) for m in re.finditer(r"^attributes (#\d+) = .*$", text, re.M)}
    functions, calls, refused = {}, {}, {}
    for m in _DEFINE.finditer(text):
        name = m.group(1)
        body = text[m.start(): text.index("\n}\n", m.start()) + 3]
        missing = sorted({i for i in _HELPER_CALL.findall(body) if i not in NVVM_IR})
        if missing:
            refused[name] = f"its NVVM form llvm.nvvm.{missing[0]} has no AMD translation"
        elif "@llvm.tanh." in body:           # AMDGPU has no tanh instruction or lowering for it
            refused[name] = "it uses llvm.tanh, which AMDGPU does not lower"
        body = _ASM_CALL.sub(_asm_form, re.sub(r", ![\w.]+ ![0-9]+", "", body))   # no metadata (srcloc, loop hints)
        functions[name] = body
        calls[name] = frozenset(re.findall(r"@(__nv_\w+|__internal_\w+)\(", body)) - {name}
    declares = {m.group(1): m.group(0) for m in re.finditer(r"^declare [^@]*@(llvm\.(?!nvvm)[\w.]+)\(.*$", text, re.M)}
    return Library(globals_, attributes, functions, calls, refused, declares)


def _folded(path: Path) -> str:
    """libdevice as AMDGPU IR text with the reflect queries answered and the code they guard
    folded (LLVM's O1 pipeline): the FTZ and other-architecture forms are gone before the NVVM
    intrinsics left are counted. Each NVVM intrinsic is a call of `__shflx.nvvm.NAME`, declared."""
    from .llvm import TRIPLE as AMDGPU, binding_for, optimize_in_place
    llvm = binding_for(AMDGPU, "AMDGPU")
    text = str(llvm.parse_bitcode(path.read_bytes()))
    strings = dict(re.findall(r'^@([\w.$]+) = private unnamed_addr constant \[\d+ x i8\] c"(\w+)\\00"', text, re.M))
    text = _REFLECT.sub(lambda m: f"add i32 0, {REFLECT.get(strings.get(m.group(1), ''), 0)}", text)
    text = re.sub(r"^declare i32 @__nvvm_reflect\(.*$", "", text, flags=re.M)
    text = _ALLOCA.sub(_private_alloca, text)
    text = text.replace("@llvm.nvvm.", "@__shflx.nvvm.")
    text = re.sub(r'^target datalayout = ".*"$', f'target datalayout = "{DATALAYOUT}"', text, flags=re.M)
    text = re.sub(r'^target triple = ".*"$', f'target triple = "{TRIPLE}"', text, flags=re.M)
    module = llvm.parse_assembly(text)
    module.verify()
    optimize_in_place(module, "gfx942", 1)          # the folding is the same for every AMDGPU cpu
    return str(module)


def _private_alloca(a: re.Match) -> str:
    """An alloca in AMDGPU's private address space (the data layout's A5), cast to a flat pointer
    for its users, as libdevice's allocas are flat."""
    indent, value, rest, align = a.group(1), a.group(2), a.group(3), a.group(4) or ""
    private = f"%__shflx.private.{value[1:]}"
    return (f"{indent}{private} = alloca {rest}{align}, addrspace(5)\n"
            f"{indent}{value} = addrspacecast ptr addrspace(5) {private} to ptr")


def needed(lib: Library, wanted: set[str]) -> tuple[list[str], dict[str, str]]:
    """The library functions `wanted` reach (themselves included), in library order, and those of
    `wanted` that cannot be provided, with why (a refused function or one it reaches)."""
    seen: set[str] = set()
    stack = [n for n in wanted if n in lib.functions]
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack += [c for c in lib.calls.get(n, ()) if c in lib.functions]
    why: dict[str, str] = {}
    for n in wanted & seen:
        reach, todo = {n}, [n]
        while todo:
            for c in lib.calls.get(todo.pop(), ()):
                if c in lib.functions and c not in reach:
                    reach.add(c)
                    todo.append(c)
        bad = sorted(r for r in reach if r in lib.refused)
        if bad:
            why[n] = lib.refused[bad[0]]
    return [n for n in lib.functions if n in seen], why


def module_text(lib: Library, names: list[str]) -> str:
    """An AMDGPU module of the library functions `names` (internal), the globals and attribute
    groups they use, and the NVVM helpers they call."""
    bodies = [re.sub(r"^define (?!internal |private )", "define internal ", lib.functions[n], count=1) for n in names]
    text = "\n".join(bodies)
    used_globals = [g for g in lib.globals if re.search(rf"@{re.escape(g)}\b", text)]
    helpers = sorted(set(re.findall(r"@__shflx\.nvvm\.([\w.]+)\(", text)))
    helper_ir = []
    for h in helpers:
        res, args, body = NVVM_IR[h]
        params = ", ".join(f"{t} %{'abc'[k]}" for k, t in enumerate(args))
        helper_ir.append(f"define internal {res} @__shflx.nvvm.{h}({params}) alwaysinline {{\n  {body}\n}}")
    for name, signature, body in ASM_FORMS.values():
        if f"@__shflx.libdevice.{name}(" in text:
            res, params = signature.rsplit(" (", 1)
            helper_ir.append(f"define internal {res} @__shflx.libdevice.{name}({params} alwaysinline {{\n  {body}\n}}")
    helper_text = "\n".join(helper_ir)
    decls = [line for name, line in lib.declares.items() if f"@{name}(" in text]
    decls += sorted({f"declare {res} @{name}({args})" for res, name, args in
                     re.findall(r"call (\S+) @(llvm\.[\w.]+)\(([^)]*)\)", helper_text)
                     for args in [", ".join(a.split()[0] for a in args.split(", "))]})
    decls = [re.sub(r" #\d+$", "", d) for d in decls]
    attrs = [lib.attributes[a] for a in sorted(set(re.findall(r"(?<![\w\"])(#\d+)\b", text))) if a in lib.attributes]
    return "\n".join([f'target datalayout = "{DATALAYOUT}"', f'target triple = "{TRIPLE}"', "",
                      *(lib.globals[g] for g in used_globals), "", *bodies, "", helper_text, "", *decls, "", *attrs, ""])


def link_libdevice(ir: str) -> tuple[str, dict[str, str]]:
    """`ir` with the libdevice functions it calls (`__nv_*` it declares) defined in it, internal,
    and the ones that cannot be provided, with why (they stay declared). Text in, text out: the
    library's attribute groups are renumbered after the module's, its declarations of intrinsics
    the module already declares are dropped."""
    from ..frontend.cuda_sdk import libdevice_path
    wanted = set(re.findall(r"^declare [^@]*@(__nv_\w+)\(", ir, re.M))
    path = libdevice_path() if wanted else None
    if path is None:
        return ir, {}
    lib = library(path)
    names, why = needed(lib, wanted)
    names = [n for n in names if n not in why]
    if not names:
        return ir, why
    text = module_text(lib, names)
    text = text[text.index("\n\n") + 2:]                       # no datalayout / triple lines
    base = 1 + max((int(n) for n in re.findall(r"^attributes #(\d+) ", ir, re.M)), default=0)
    text = re.sub(r"(?<![\w\"])#(\d+)\b", lambda m: f"#{base + int(m.group(1))}", text)
    have = set(re.findall(r"^declare [^@]*@([\w.$]+)\(", ir, re.M))
    kept = []
    for line in text.splitlines():           # each intrinsic declared once: the module's, else the first
        if line.startswith("declare "):      # (libdevice's and the helpers' bodies may both declare one)
            name = re.search(r"@([\w.$]+)\(", line).group(1)
            if name in have:
                continue
            have.add(name)
        kept.append(line)
    text = "\n".join(kept)
    linked = set(names)
    ir = "\n".join(line for line in ir.splitlines()
                   if not (line.startswith("declare ") and (m := re.search(r"@(__nv_\w+)\(", line)) and m.group(1) in linked))
    return ir + "\n" + text + "\n", why
