"""NVVM shuffle intrinsics (clang's CUDA headers) read as shflx shuffle sites, and written back."""
from __future__ import annotations

import re

from hypothesis import given, strategies as st

from shflx.driver.nvidia import lower_shuffles, nvidia_arch
from shflx.ir.nvvm import as_markers
from shflx.ir.sites import MARKER, find_sites

MODES = {"up": 0, "down": 1, "bfly": 2, "idx": 3}   # PTX shfl.sync modes, in the marker's numbering


def _kernel(body: list[str], params: str = "i32 %v, i32 %b, float %f") -> str:
    return "\n".join([f"define ptx_kernel void @k({params}) {{", "entry:", *body, "  ret void", "}",
                      "declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)", ""])


@given(mode=st.sampled_from(sorted(MODES)), b=st.integers(0, 31), c=st.sampled_from([0, 0x1f, 0x181f, 0x1c1f]),
       mask=st.sampled_from([-1, 0xffff, 1]), ty=st.sampled_from(["i32", "f32"]))
def test_every_mode_and_type_becomes_one_site_with_its_operands(mode, b, c, mask, ty):
    llty, value = ("i32", "%v") if ty == "i32" else ("float", "%f")
    call = f"  %r = tail call contract noundef {llty} @llvm.nvvm.shfl.sync.{mode}.{ty}(i32 {mask}, {llty} {value}, i32 {b}, i32 {c})"
    ir, n = as_markers(_kernel([call, f"  %u = fadd float %f, 1.0" if ty == "f32" else "  %u = add i32 %r, 1"]))
    assert n == 1
    (site,) = find_sites(ir)
    assert (site.mode.value, site.mask.value, site.b.value, site.c.value) == (MODES[mode], mask, b, c)
    if ty == "f32":          # the marker shuffles the float's bits; the result is the same name again
        assert re.search(rf"= bitcast float %f to i32\n.*@{MARKER}\(.*\n\s*%r = bitcast i32 \S+ to float", ir)
    else:
        assert site.result == "%r" and site.value == "%v"


def test_uses_of_the_result_and_debug_locations_are_kept():
    body = ["  %r = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %f, i32 4, i32 31), !dbg !7",
            "  %s = fadd float %r, %f"]
    ir, _ = as_markers(_kernel(body))
    assert "%s = fadd float %r, %f" in ir
    assert re.search(rf"@{MARKER}\(i32 1, i32 -1, i32 %\S+, i32 4, i32 31\), !dbg !7", ir)


def test_predicate_forms_and_other_calls_are_left_as_written():
    body = ["  %p = call { i32, i1 } @llvm.nvvm.shfl.sync.idx.i32p(i32 -1, i32 %v, i32 0, i32 31)",
            "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()"]
    text = _kernel(body)
    ir, n = as_markers(text)
    assert n == 0 and ir == text + "\n" * (not text.endswith("\n"))


def test_lowered_back_to_the_intrinsic_with_the_same_operands():
    """Through the NVIDIA driver's site lowering (baseline: nothing changed), each marker becomes
    the i32 intrinsic with the operands the header wrote."""
    body = ["  %r = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v, i32 16, i32 31)",
            "  %g = call float @llvm.nvvm.shfl.sync.idx.f32(i32 -1, float %f, i32 %b, i32 31)"]
    ir, _ = as_markers(_kernel(body))
    out, reports = lower_shuffles(ir, nvidia_arch("sm_90"), baseline=True)
    assert MARKER not in out
    assert re.search(r"call i32 @llvm\.nvvm\.shfl\.sync\.bfly\.i32\(i32 -1, i32 %v, i32 16, i32 31\)", out)
    assert re.search(r"call i32 @llvm\.nvvm\.shfl\.sync\.idx\.i32\(i32 -1, i32 %\S+, i32 %b, i32 31\)", out)
    assert len(reports) == 2
