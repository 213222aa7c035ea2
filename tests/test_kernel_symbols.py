"""Kernel symbols as nvcc writes them (checked with nvcc 13.0 -ptx: `static __global__ void k(int*)`
is `.entry _Z1kPi`), so host code that looks a kernel up by name finds it."""
from __future__ import annotations

import re

import pytest

from shflx.driver.amd import device_ir
from shflx.driver.nvidia import compile_cuda
from shflx.ir.symbols import external_spelling, nvcc_kernel_names
from shflx.target import resolve_target

IR = """$_ZL1kPi = comdat any
define internal ptx_kernel void @_ZL1kPi(ptr %p) comdat !dbg !5 {
  ret void
}
define internal void @_ZL1kPi.1(ptr %p) {
  ret void
}
define ptx_kernel void @_Z4mainPi(ptr %p) {
  call void @_ZL1kPi.1(ptr %p)
  ret void
}
@llvm.used = appending global [1 x ptr] [ptr @_ZL1kPi]
!5 = distinct !DISubprogram(name: "k", linkageName: "_ZL1kPi", scope: !1)
"""


def test_internal_kernels_take_nvccs_name_everywhere():
    out = nvcc_kernel_names(IR)
    assert "define internal ptx_kernel void @_Z1kPi(" in out
    assert "[ptr @_Z1kPi]" in out and 'linkageName: "_Z1kPi"' in out and "$_Z1kPi = comdat any" in out
    assert "@_ZL1kPi.1" in out                # another symbol that only starts the same: untouched
    assert "@_ZL1kPi(" not in out and "@_ZL1kPi]" not in out


def test_non_kernels_and_taken_names_are_left_alone():
    helper = IR.replace("ptx_kernel void @_ZL1kPi", "void @_ZL1kPi")
    assert nvcc_kernel_names(helper) == helper
    taken = IR + "define ptx_kernel void @_Z1kPi(ptr %p) {\n  ret void\n}\n"
    assert nvcc_kernel_names(taken) == taken


SRC = "static __global__ void k(int* p) { p[threadIdx.x] = 1; }\nvoid go(int* p) { k<<<1, 32>>>(p); }\n"


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_amd_cuda_sources_get_nvccs_name_and_hip_sources_keep_hips(arch, tmp_path):
    cu, hip = tmp_path / "s.cu", tmp_path / "s.hip"
    cu.write_text(SRC)
    hip.write_text(SRC)
    assert re.search(r"^define .*@_Z1kPi\(", device_ir(cu, resolve_target(arch, 32 if arch == "gfx1100" else 64)), re.M)
    assert re.search(r"^define .*@_ZL1kPi\(", device_ir(hip, resolve_target(arch, 32 if arch == "gfx1100" else 64)), re.M)


def test_nvidia_static_kernel_has_nvccs_entry_name(tmp_path):
    src = tmp_path / "s.cu"
    src.write_text(SRC)
    assert re.search(r"\.entry _Z1kPi\(", compile_cuda(src, "sm_90", emit="ptx").output)


@pytest.mark.parametrize("clang,nvcc", [
    ("_ZL1kPi", "_Z1kPi"),                     # nvcc 13.0 -ptx: `static __global__ void k(int*)`
    ("_ZN2nsL1kEPf", "_ZN2ns1kEPf"),           # nvcc 13.0 -ptx: `namespace ns { static __global__ void k(float*) }`
    ("_ZN1a1bL3fooEv", "_ZN1a1b3fooEv"),
    ("_Z1kPi", None), ("_ZN2ns1kEPf", None),   # external already
    ("_ZN12_GLOBAL__N_11aEPl", None),          # anonymous namespace: nvcc's name is a file hash
    ("_ZN2nsIiE1kEv", None),                   # a template scope is not walked
])
def test_external_spelling(clang, nvcc):
    assert external_spelling(clang) == nvcc


def test_the_build_launcher_keeps_clangs_names(tmp_path):
    """The launcher's host object comes from the user's clang, whose HIP stub registers `_ZL1kPi`:
    the code object must hold that name (nvcc_names=False)."""
    cu = tmp_path / "s.cu"
    cu.write_text(SRC)
    assert re.search(r"^define .*@_ZL1kPi\(", device_ir(cu, resolve_target("gfx942", 64), nvcc_names=False), re.M)
