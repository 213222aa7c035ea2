"""CUB-style inline PTX blocks: the translator's output, its errors, and recognition soundness for c."""
from __future__ import annotations

import pytest

from shflx.driver.amd import compile_file
from shflx.driver.report import instruction_counts
from shflx.errors import InputError
from shflx.ir.ptxblock import PtxBlockError, translate

CUB_STEP = [".reg .u32 r0", ".reg .pred p", "shfl.sync.down.b32 r0|p, $1, $2, $3, $4", "@p add.u32 r0, r0, $1",
            "mov.u32 $0, r0"]


def test_predicated_add_becomes_marker_inrange_and_select():
    tr = translate(CUB_STEP, [None, "%v", "2", "31", "-1"], "t", 64)
    text = "\n".join(tr.lines)
    assert "call i32 @__shflx_shfl_sync(i32 1, i32 -1, i32 %v, i32 2, i32 31)" in text
    assert "call i1 @shflx.inrange.down(i32 2, i32 31)" in text
    assert "add i32 %t.1, %v" in text and "select i1 %t.2, i32 %t.3, i32 %t.1" in text
    assert tr.result == "%t.4" and tr.pred_modes == {"down"}


@pytest.mark.parametrize("block, fragment", [
    (["mov.u32 $0, %laneid"], "unknown operand '%laneid'"),
    (["vote.sync.ballot.b32 $0, p, 0xffffffff"], "'vote.sync.ballot.b32 $0, p, 0xffffffff' is not supported"),
    (["@q add.u32 $0, $1, 1"], "unknown predicate 'q'"),
    ([".reg .u32 r0", "mov.u32 r0, $1"], "never writes its output $0"),
])
def test_unsupported_blocks_name_the_instruction(block, fragment):
    with pytest.raises(PtxBlockError, match=fragment.replace("$", r"\$").replace("(", r"\(")):
        translate(block, [None, "%v"], "t", 32)


def test_cub_reduce_step_kernels_compile_without_general_lowering_where_a_plan_exists(tmp_path):
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "patterns" / "kernels"
    res = compile_file(root / "ptx_predicated" / "kernel.cu", "gfx1100", emit="asm")
    assert len(res.sites) == 10 and all(s.cls == "down" for s in res.sites)
    assert instruction_counts(res.output)["ds_bpermute"] < 10


def test_lane_dependent_clamp_is_dynamic(tmp_path):
    """c's bits 12:8 (segment mask) depend on threadIdx.x beyond the lane: never a constant map."""
    src = tmp_path / "segc.cu"
    src.write_text('__global__ void k(int *p) {\n  int v = p[threadIdx.x], r;\n'
                   '  asm volatile("shfl.sync.up.b32 %0, %1, 1, %2, 0xffffffff;" : "=r"(r) : "r"(v), '
                   '"r"((int)(threadIdx.x & ~3)));\n  p[threadIdx.x] = r;\n}\n')
    res = compile_file(src, "gfx1100", emit="asm")
    assert [s.cls for s in res.sites] == ["dynamic"]
    assert "exact general lowering" in res.sites[0].lowering[0]


def test_inline_ptx_errors_carry_the_line(tmp_path):
    src = tmp_path / "v.cu"
    src.write_text('__global__ void k(int *p) {\n  unsigned r;\n'
                   '  asm volatile("{ .reg .pred q; setp.ne.s32 q, %1, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }"'
                   ' : "=r"(r) : "r"(p[0]));\n  p[1] = r;\n}\n')
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    assert "v.cu:3" in str(e.value) and "vote.sync.ballot.b32" in str(e.value)
