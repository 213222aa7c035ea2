"""Every load/store cache-hint overload CUDA documents compiles for sm_90, gfx942 and gfx1100, and on
sm_90 each is the PTX ld/st with its own cache operator (read back from the PTX).

The list is the CUDA C++ Programming Guide's: "Read-Only Data Cache Load Function" (__ldg), "Load
Functions Using Cache Hints" (__ldcg, __ldca, __ldcs, __ldlu, __ldcv), "Store Functions Using Cache
Hints" (__stwb, __stcg, __stcs, __stwt), each for char, signed char, short, int, long, long long,
the unsigned forms, the 2/4-element vectors, float, double and their vectors, and __half, __half2,
__nv_bfloat16, __nv_bfloat162 with cuda_fp16.h / cuda_bf16.h. The PTX cache operators are the PTX
ISA's ("Cache Operators"); __ldg is ld.global.nc ("Read-Only Data Cache")."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import compile_for

# intrinsic -> (load or store, the PTX cache operator)
OPS = {"__ldg": ("ld", "nc"), "__ldcg": ("ld", "cg"), "__ldca": ("ld", "ca"), "__ldcs": ("ld", "cs"),
       "__ldlu": ("ld", "lu"), "__ldcv": ("ld", "cv"), "__stwb": ("st", "wb"), "__stcg": ("st", "cg"),
       "__stcs": ("st", "cs"), "__stwt": ("st", "wt")}
# documented type -> (bits of one PTX element, PTX vector width)
TYPES = {"char": (8, 1), "signed char": (8, 1), "short": (16, 1), "int": (32, 1), "long": (64, 1),
         "long long": (64, 1), "unsigned char": (8, 1), "unsigned short": (16, 1), "unsigned int": (32, 1),
         "unsigned long": (64, 1), "unsigned long long": (64, 1), "float": (32, 1), "double": (64, 1),
         "char2": (8, 2), "char4": (8, 4), "short2": (16, 2), "short4": (16, 4), "int2": (32, 2), "int4": (32, 4),
         "longlong2": (64, 2), "uchar2": (8, 2), "uchar4": (8, 4), "ushort2": (16, 2), "ushort4": (16, 4),
         "uint2": (32, 2), "uint4": (32, 4), "ulonglong2": (64, 2), "float2": (32, 2), "float4": (32, 4),
         "double2": (64, 2), "__half": (16, 1), "__half2": (32, 1), "__nv_bfloat16": (16, 1),
         "__nv_bfloat162": (32, 1)}


# clang's __ldg of a vector type (its __clang_cuda_intrinsics.h, a non-template overload that wins
# over any shflx could add) reads the value right, but LLVM splits its invariant vector load into
# plain loads (char4 one ld.global.b32), so the PTX has ld.global without .nc where nvcc writes
# ld.global.nc.v4.f32: a difference of cache path, not of value, left as it is (only a global load
# is asserted for those).


def kernel_name(op: str, ty: str) -> str:
    return f"k{op}_{ty.replace(' ', '_')}"


def source() -> str:
    """One kernel per (intrinsic, type): a load's result stored plainly, a store of a plain load."""
    out = ["#include <cuda_fp16.h>", "#include <cuda_bf16.h>"]
    for op, (kind, _) in OPS.items():
        for ty in TYPES:
            body = f"p[0] = {op}(p + 1);" if kind == "ld" else f"{op}(p, p[1]);"
            out.append(f'extern "C" __global__ void {kernel_name(op, ty)}({ty} *p) {{ {body} }}')
    # the stored value converts to the documented parameter type, as with nvcc's overloads
    out.append('extern "C" __global__ void converted(float *f, long *l, __half *h) '
               "{ __stcs(f, 0); __stwt(l, 1); __stcg(f + 1, 2.0); __stcs(h, __float2half(1.0f)); }")
    return "\n".join(out) + "\n"


def entries(ptx: str) -> dict[str, str]:
    """Each kernel's PTX body, by name."""
    parts = re.split(r"^\.visible \.entry (\w+)\(", ptx, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


@pytest.fixture(scope="module")
def src(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hints") / "hints.cu"
    path.write_text(source())
    return path


@pytest.mark.parametrize("arch", ["sm_90", "gfx942", "gfx1100"])
def test_every_documented_overload_compiles(src, arch):
    compile_for(src, arch)


def test_sm90_forms_are_the_ptx_cache_operators(src):
    bodies = entries(compile_for(src, "sm_90").output)
    wrong = []
    for op, (kind, cache) in OPS.items():
        for ty, (bits, lanes) in TYPES.items():
            vec = rf"\.v{lanes}" if lanes > 1 else ""
            want = rf"\b{kind}\.global\.{cache}{vec}\.[subf]{bits}\b"
            if op == "__ldg" and lanes > 1:       # clang's own, see above
                want = r"\bld\.global\."
            if not re.search(want, bodies[kernel_name(op, ty)]):
                wrong.append(f"{op}({ty}): no {want}")
    assert not wrong, "\n".join(wrong)
    conv = bodies["converted"]
    assert conv.count("st.global.cs.f32") == 1 and "st.global.wt.s64" in conv and "st.global.cg.f32" in conv


def test_plain_global_accesses_carry_no_cache_operator(src):
    """The check above can fail: the kernels' plain accesses (p[0] = ..., p[1]) have no operator."""
    body = entries(compile_for(src, "sm_90").output)[kernel_name("__ldca", "float")]
    assert re.search(r"\bst\.global\.[subf]32\b", body) and not re.search(r"\bst\.global\.(?:wb|cg|cs|wt)\b", body)


def test_amd_streaming_forms_are_nontemporal(src):
    """On AMD the streaming and last-use forms of arithmetic types are nontemporal accesses (the
    target's streaming cache policy); the others are plain."""
    ir = compile_for(src, "gfx942").output
    bodies = dict(re.findall(r"^define [^@]*@(\w+)\(.*?\n(.*?)^}", ir, re.M | re.S))
    for op, nt in (("__ldcs", True), ("__ldlu", True), ("__stcs", True), ("__ldcg", False), ("__stwt", False)):
        for ty in ("int", "float", "unsigned long long"):
            assert ("!nontemporal" in bodies[kernel_name(op, ty)]) == nt, (op, ty)
    assert "load volatile" in bodies[kernel_name("__ldcv", "float4")]
