"""NVIDIA's libdevice on AMD (shflx/codegen/libdevice.py): the generic-IR stand-ins of NVVM's
exact intrinsics and of libdevice's inline-PTX carry chains compute what the PTX ISA defines
(run on this machine's CPU through LLVM's JIT, against Python integers and floats), the
retargeted library links into a module without NVVM left, and what cannot be provided is named.
Values of the linked functions on the GPU or the emulator: hw_tests/amd/test_cuda_math_hw.py."""
from __future__ import annotations

import ctypes
import math
import re
import struct

import pytest
from hypothesis import given, settings, strategies as st

from shflx.codegen import libdevice as L
from shflx.frontend.cuda_sdk import libdevice_path

U64 = st.integers(0, 2**64 - 1)
U32 = st.integers(0, 2**32 - 1)
DOUBLES = st.floats(allow_nan=True, allow_infinity=True, width=64)


def _jit(text: str):
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple()
    module = llvm.parse_assembly(f'target triple = "{llvm.get_default_triple()}"\n' + text)
    module.verify()
    engine = llvm.create_mcjit_compiler(module, target.create_target_machine())
    engine.finalize_object()
    return engine


def _helpers(names: list[str]) -> str:
    """The NVVM_IR helpers `names`, external (callable from the JIT) as `t_<name with _>`."""
    out = []
    for name in names:
        res, args, body = L.NVVM_IR[name]
        params = ", ".join(f"{t} %{'abc'[k]}" for k, t in enumerate(args))
        out.append(f"define {res} @t_{name.replace('.', '_')}({params}) {{\n  {body}\n}}")
    intrinsics = sorted({(r, n, a) for r, n, a in re.findall(r"call (\S+) @(llvm\.[\w.]+)\(([^)]*)\)", "\n".join(out))})
    decls = {f"declare {r} @{n}({', '.join(x.split()[0] for x in a.split(', '))})" for r, n, a in intrinsics}
    return "\n".join(out + sorted(decls)) + "\n"


@pytest.fixture(scope="module")
def exact():
    names = ["d2i.hi", "d2i.lo", "lohi.i2d", "mulhi.i", "mulhi.ui", "mulhi.ll", "mulhi.ull",
             *(f"d2{d}.{m}" for d in ("i", "ui", "ll", "ull") for m in ("rn", "rz", "rm", "rp")),
             "ll2d.rn", "ull2d.rn", "fma.rn.d", "add.rn.d", "saturate.f"]
    return _jit(_helpers(names))


def _fn(engine, name: str, res, *args):
    return ctypes.CFUNCTYPE(res, *args)(engine.get_function_address(f"t_{name.replace('.', '_')}"))


def _bits(d: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", d))[0]


@settings(max_examples=200, deadline=None)
@given(d=DOUBLES)
def test_the_words_of_a_double(exact, d):
    hi = _fn(exact, "d2i.hi", ctypes.c_uint32, ctypes.c_double)(d)
    lo = _fn(exact, "d2i.lo", ctypes.c_uint32, ctypes.c_double)(d)
    assert (hi << 32) | lo == _bits(d)
    back = _fn(exact, "lohi.i2d", ctypes.c_double, ctypes.c_uint32, ctypes.c_uint32)(lo, hi)
    assert _bits(back) == _bits(d)


@settings(max_examples=200, deadline=None)
@given(a=U64, b=U64)
def test_mulhi_is_the_high_half_of_the_full_product(exact, a, b):
    def signed(x, bits):
        return x - (1 << bits) if x >> (bits - 1) else x
    for name, bits, sign, ct in (("mulhi.ui", 32, False, ctypes.c_uint32), ("mulhi.i", 32, True, ctypes.c_int32),
                                 ("mulhi.ull", 64, False, ctypes.c_uint64), ("mulhi.ll", 64, True, ctypes.c_int64)):
        x, y = a % (1 << bits), b % (1 << bits)
        if sign:
            x, y = signed(x, bits), signed(y, bits)
        want = ((x * y) >> bits) % (1 << bits)
        got = _fn(exact, name, ct, ct, ct)(x, y) % (1 << bits)
        assert got == want, (name, x, y)


@settings(max_examples=300, deadline=None)
@given(d=st.one_of(DOUBLES, st.floats(-3e9, 3e9), st.sampled_from([0.5, -0.5, 1.5, -2.5, 2.5, 4294967295.5, -0.0])))
def test_float_to_integer_rounds_then_saturates_with_nan_as_an_h200_gives_it(exact, d):
    """cvt.{rni,rzi,rmi,rpi}.{s32,u32,s64,u64}.f64 (PTX ISA, cvt): the rounding mode, then clamped
    to the destination's range. NaN: what an H200 gave (nvcc 13.0, sm_90 and sm_80:
    __double2int_rz, __double2uint_rz, __double2ll_rz, __double2ull_rz, cvt.rni.u64.f64), the
    destination's sign bit, 0x80000000 and 0x8000000000000000, for all four."""
    rounding = {"rn": lambda x: round(x), "rz": math.trunc, "rm": math.floor, "rp": math.ceil}   # round(): half to even
    for dst, lo, hi, nan, ct in (("i", -2**31, 2**31 - 1, -2**31, ctypes.c_int32),
                                 ("ui", 0, 2**32 - 1, 2**31, ctypes.c_uint32),
                                 ("ll", -2**63, 2**63 - 1, -2**63, ctypes.c_int64),
                                 ("ull", 0, 2**64 - 1, 2**63, ctypes.c_uint64)):
        for mode, rnd in rounding.items():
            got = _fn(exact, f"d2{dst}.{mode}", ct, ctypes.c_double)(d)
            want = nan if math.isnan(d) else hi if d == math.inf else lo if d == -math.inf else min(hi, max(lo, rnd(d)))
            assert got == want, (dst, mode, d)


FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64, min_value=-1e150, max_value=1e150)


@settings(max_examples=300, deadline=None)
@given(a=FINITE, b=FINITE, c=FINITE)
def test_round_to_nearest_arithmetic_is_ieee(exact, a, b, c):
    """add.rn.f64 and fma.rn.f64: the exact result rounded once to nearest even (Fraction's float
    conversion rounds so)."""
    from fractions import Fraction
    add = _fn(exact, "add.rn.d", ctypes.c_double, ctypes.c_double, ctypes.c_double)(a, b)
    fma = _fn(exact, "fma.rn.d", ctypes.c_double, ctypes.c_double, ctypes.c_double, ctypes.c_double)(a, b, c)
    assert _bits(add) == _bits(a + b)
    exact_fma = Fraction(a) * Fraction(b) + Fraction(c)
    assert fma == float(exact_fma) and (exact_fma != 0 or fma == 0)


def test_saturate_clamps_to_the_unit_interval_and_nan_to_zero(exact):
    sat = _fn(exact, "saturate.f", ctypes.c_float, ctypes.c_float)
    assert [sat(x) for x in (-1.0, 0.25, 2.0, math.inf, -math.inf, math.nan)] == [0.0, 0.25, 1.0, 1.0, 0.0, 0.0]


@pytest.fixture(scope="module")
def chains():
    """The ASM_FORMS carry chains (and plain forms) as external functions, a chain writing its {lo, hi}
    words to memory."""
    out = []
    for name, signature, body in L.ASM_FORMS.values():
        if "llvm.amdgcn." in body:                # an AMD instruction: not for this CPU
            continue
        res, params = signature.rsplit(" (", 1)
        fn = name.replace(".", "_")
        out.append(f"define internal {res} @h_{fn}({params} {{\n  {body}\n}}")
        args = re.findall(r"(i\d+|double|float) %(\w)", params)
        call_args = ", ".join(f"{t} %{n}" for t, n in args)
        if res.startswith("{"):
            word = res.strip("{ }").split(",")[0].strip()
            out.append(f"define void @t_{fn}(ptr %out, {call_args}) {{\n  %r = call {res} @h_{fn}({call_args})\n"
                       f"  %lo = extractvalue {res} %r, 0\n  %hi = extractvalue {res} %r, 1\n"
                       f"  store {word} %lo, ptr %out\n  %p = getelementptr {word}, ptr %out, i32 1\n"
                       f"  store {word} %hi, ptr %p\n  ret void\n}}")
        else:
            out.append(f"define {res} @t_{fn}({call_args}) {{\n  %r = call {res} @h_{fn}({call_args})\n  ret {res} %r\n}}")
    text = "\n".join(out)
    decls = sorted({f"declare {r} @{n}({', '.join(x.split()[0] for x in a.split(', '))})"
                    for r, n, a in re.findall(r"call (\S+) @(llvm\.[\w.]+)\(([^)]*)\)", text)})
    return _jit(text + "\n" + "\n".join(decls) + "\n")


def _words(engine, name, ct, *args):
    out = (ct * 2)()
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, *(ct for _ in args))(engine.get_function_address(f"t_{name}"))
    fn(ctypes.addressof(out), *args)
    bits = ctypes.sizeof(ct) * 8
    return out[0] | (out[1] << bits)


@settings(max_examples=300, deadline=None)
@given(a=U64, b=U64, c=U64, d=U64, x=U32, y=U32, z=U32)
def test_carry_chains_are_multiword_integer_arithmetic(chains, a, b, c, d, x, y, z):
    """libdevice's Payne-Hanek reduction: a*b + c and a*b of 64-bit words into 128 bits, and 128-bit
    add/sub; sinf's a*b + c of 32-bit words into 64 bits (modulo the width, as the PTX chains)."""
    m128 = (1 << 128) - 1
    assert _words(chains, "mad_wide_u64", ctypes.c_uint64, a, b, c) == (a * b + c) & m128
    assert _words(chains, "mul_wide_u64", ctypes.c_uint64, a, b) == a * b
    assert _words(chains, "add_u128", ctypes.c_uint64, a, b, c, d) == ((b << 64 | a) + (d << 64 | c)) & m128
    assert _words(chains, "sub_u128", ctypes.c_uint64, a, b, c, d) == ((b << 64 | a) - (d << 64 | c)) & m128
    assert _words(chains, "mad_wide_u32", ctypes.c_uint32, x, y, z) == x * y + z


def test_every_asm_form_names_a_chain_libdevice_writes():
    """Each ASM_FORMS template is found in libdevice (none is stale), and no libdevice function
    linked for double math is left with a carry chain the translator cannot read."""
    path = libdevice_path()
    if path is None:
        pytest.skip("NVIDIA's libdevice is not installed (the nvcc wheel of shflx's cuda extra)")
    lib = L.library(path)
    text = "\n".join(lib.functions.values())
    used = {name for name, _, _ in L.ASM_FORMS.values() if f"@__shflx.libdevice.{name}(" in text}
    assert used == {name for name, _, _ in L.ASM_FORMS.values()}
    for fn in ("__nv_sin", "__nv_cos", "__nv_tan", "__nv_sincos", "__nv_pow", "__nv_exp", "__nv_log"):
        names, why = L.needed(lib, {fn})
        assert not why and not any(".cc." in lib.functions[n] for n in names), fn


DOUBLE_MATH = ["exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "sinh", "cosh",
               "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "erfcinv", "cbrt",
               "lgamma", "tgamma", "sinpi", "cospi", "normcdf", "pow", "atan2", "hypot", "fmod", "remainder", "sincos"]


def test_linked_functions_leave_no_nvvm_and_verify():
    path = libdevice_path()
    if path is None:
        pytest.skip("NVIDIA's libdevice is not installed (the nvcc wheel of shflx's cuda extra)")
    from shflx.codegen.llvm import TRIPLE, binding_for
    unary = [f for f in DOUBLE_MATH if f not in ("pow", "atan2", "hypot", "fmod", "remainder", "sincos")]
    decls = "\n".join(f"declare double @__nv_{f}(double)" for f in unary)
    calls = "\n".join(f"  %r{k} = call double @__nv_{f}(double %x)" for k, f in enumerate(unary))
    ir = (f'target datalayout = "{L.DATALAYOUT}"\ntarget triple = "{L.TRIPLE}"\n'
          f"define void @k(double %x) {{\n{calls}\n  ret void\n}}\n{decls}\n")
    linked, refused = L.link_libdevice(ir)
    assert refused == {}
    assert "llvm.nvvm" not in linked and "__nvvm_reflect" not in linked and ".cc." not in linked
    assert not re.search(r"^declare [^@]*@__nv_", linked, re.M)
    binding_for(TRIPLE, "AMDGPU").parse_assembly(linked).verify()


def test_every_function_links_alone_with_each_intrinsic_declared_once():
    """Each libdevice function AMD can take, linked alone into a module that calls it: the module
    parses and verifies. (ynf's text once declared llvm.fabs.f32 twice, its own and a directed
    rounding helper's: LLVM's 'invalid redefinition of function'.)"""
    path = libdevice_path()
    if path is None:
        pytest.skip("NVIDIA's libdevice is not installed (the nvcc wheel of shflx's cuda extra)")
    from shflx.codegen.llvm import TRIPLE, binding_for
    llvm = binding_for(TRIPLE, "AMDGPU")
    lib = L.library(path)
    signature = re.compile(r"^define [^@]*?(?P<ret>\S+) @(?P<name>__nv_\w+)\((?P<params>[^)]*)\)", re.M)
    failed = []
    for m in (signature.search(body) for name, body in lib.functions.items()          # the __nv_ API, not
              if name.startswith("__nv_") and name not in lib.refused):                   # its internal helpers
        params = [" ".join(p.split()[:-1]) if p.split()[-1].startswith("%") else p for p in m["params"].split(", ") if p]
        ir = (f'target datalayout = "{L.DATALAYOUT}"\ntarget triple = "{L.TRIPLE}"\n'
              f'declare {m["ret"]} @{m["name"]}({", ".join(params)})\n')
        linked, refused = L.link_libdevice(ir)
        assert not refused
        try:
            llvm.parse_assembly(linked).verify()
        except RuntimeError as e:
            failed.append(f"{m['name']}: {' '.join(str(e).split())[:120]}")
    assert not failed, failed
    assert len(lib.functions) - len(lib.refused) > 300


def test_a_function_without_an_amd_form_is_named_at_its_call(tmp_path):
    """A directed integer-to-float conversion (libdevice's __nv_int2float_rd: i2f.rm) has no AMD
    translation: the call is one line naming the function, at the user's line."""
    path = libdevice_path()
    if path is None:
        pytest.skip("NVIDIA's libdevice is not installed (the nvcc wheel of shflx's cuda extra)")
    from shflx.driver.amd import compile_file
    from shflx.errors import InputError
    src = tmp_path / "k.cu"
    src.write_text('extern "C" __device__ float __nv_int2float_rd(int);\n'
                   "__global__ void k(float *p, int *q) {\n  p[0] = __nv_int2float_rd(q[0]);\n}\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    assert re.fullmatch(rf"{re.escape(str(src))}:3:\d+: error: shflx does not support 'int2float_rd' on AMD targets "
                        r"\(NVIDIA's libdevice version: its NVVM form llvm\.nvvm\.i2f\.rm has no AMD translation\)",
                        str(e.value)), str(e.value)


def test_directed_roundings_link():
    """libdevice's directed-rounding functions (add/mul/div/rcp/sqrt/fma in float and double,
    double2float) link, through ir.directed's functions."""
    path = libdevice_path()
    if path is None:
        pytest.skip("NVIDIA's libdevice is not installed (the nvcc wheel of shflx's cuda extra)")
    lib = L.library(path)
    names = [f"__nv_{f}_{m}" for f in ("fadd", "fmul", "fdiv", "frcp", "fsqrt", "fmaf", "fmaf_ieee", "dadd", "dmul",
                                       "ddiv", "drcp", "dsqrt", "double2float", "fma") for m in ("rz", "ru", "rd")]
    assert not [n for n in names if n in lib.refused]


def test_without_libdevice_double_math_is_named(tmp_path, monkeypatch):
    from shflx.driver.amd import compile_file
    from shflx.errors import InputError
    from shflx.frontend import clang
    monkeypatch.setattr(clang, "libdevice_path", lambda: None)
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(double *p) {\n  p[0] = cos(p[1]);\n}\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    first = next(ln for ln in str(e.value).splitlines() if ": error: " in ln and "rejected" not in ln)
    assert re.fullmatch(r".*k\.cu:2:\d+: error: shflx does not support 'cos\(double\) without NVIDIA's libdevice "
                        r"\(install shflx's cuda extra\)' on AMD targets", first), first
