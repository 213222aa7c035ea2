"""Inline PTX blocks: the IR shflx emits, evaluated on every lane of a wave32 and a wave64
(tests/reference/ir_eval), against the PTX evaluated by tests/reference/ptx_ref (written from the
PTX ISA) and, for the forms that were miscompiled, against numpy written out by hand."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shflx.driver.amd import compile_file
from shflx.driver.report import instruction_counts
from shflx.errors import InputError
from shflx.ir.inline_ptx import immediates_in_template
from shflx.ir.ptxblock import PtxBlockError, inrange_ir, translate
from tests.reference.ir_eval import STEADY_START, STEADY_STEP, Lanes, parse_function
from tests.reference.ptx_ref import run_block

M32 = 0xFFFFFFFF


def emitted(block: str, n_in: int, wave: int, ins: list[np.ndarray], outputs=("i32",)) -> list[np.ndarray]:
    """Translate `block` ($0.. outputs, then n_in i32 inputs) and evaluate the IR on `wave` lanes."""
    names = [f"%in{k}" for k in range(n_in)]
    tr = translate(block, list(outputs), [("i32", n) for n in names], {}, "t", wave, "%res")
    fns = dict(parse_function(inrange_ir(m, wave)) for m in tr.pred_modes)
    lanes = Lanes(wave, {n: np.asarray(v, np.int64) & M32 for n, v in zip(names, ins)}, fns)
    lanes.run(tr.lines)
    assert len(outputs) == 1
    return [lanes.env["%res"]]


def reference(block: str, n_out: int, ins: list[np.ndarray], wave: int) -> list[np.ndarray]:
    regs = run_block(block, {f"${k + n_out}": v for k, v in enumerate(ins)}, wave)
    return [regs[f"${k}"] for k in range(n_out)]


def inputs(rng, n: int, wave: int, small: bool = True) -> list[np.ndarray]:
    """Per-lane inputs mixing small signed values (comparisons go both ways) and full-range ones."""
    return [np.where(rng.random(wave) < 0.5, rng.integers(-4, 5, wave), rng.integers(0, 1 << 32, wave)) & M32
            for _ in range(n)]


# (block, inputs, hand-written expectation over the inputs as signed ints)
REGRESSIONS = {
    "setp.and": ("{ .reg .pred q, p; setp.gt.s32 q, $1, 0; setp.lt.and.s32 p, $1, $2, q; selp.s32 $0, 1, 0, p; }",
                 2, lambda a, b: ((a > 0) & (a < b)).astype(int)),
    "setp.or": ("{ .reg .pred q, p; setp.eq.s32 q, $2, 0; setp.lt.or.s32 p, $1, 0, q; selp.s32 $0, 7, 9, p; }",
                2, lambda a, b: np.where((a < 0) | (b == 0), 7, 9)),
    "setp.xor": ("{ .reg .pred q, p, r; setp.ge.u32 q, $2, 2; setp.ne.xor.s32 p|r, $1, $2, q; "
                 "selp.s32 $0, 1, 0, p; @r add.s32 $0, $0, 2; }",
                 2, lambda a, b: ((a != b) ^ (b.astype(np.int64) & M32 >= 2)).astype(int)
                 + 2 * ((a == b) ^ (b.astype(np.int64) & M32 >= 2))),
    "guarded setp": ("{ .reg .pred q, p; setp.gt.s32 q, $1, 0; @q setp.lt.s32 p, $1, $2; "
                     "@!q setp.eq.s32 p, $1, $2; selp.s32 $0, 1, 0, p; }",
                     2, lambda a, b: np.where(a > 0, a < b, a == b).astype(int)),
    "guarded setp keeps": ("{ .reg .pred q, p; setp.ne.s32 p, $2, 0; setp.gt.s32 q, $1, 0; @q setp.lt.s32 p, $1, 3; "
                           "selp.s32 $0, 5, 6, p; }",
                           2, lambda a, b: np.where(np.where(a > 0, a < 3, b != 0), 5, 6)),
    "selp @!p": ("{ .reg .pred p; .reg .s32 r; setp.lo.u32 p, $1, $2; selp.s32 r, $1, $2, p; @!p sub.s32 r, r, 1; "
                 "mov.s32 $0, r; }",
                 2, lambda a, b: np.where((a & M32) < (b & M32), a, b - 1)),
}


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("case", sorted(REGRESSIONS))
def test_predicate_forms_match_hand_written_expectations(case, wave):
    block, n_in, expect = REGRESSIONS[case]
    rng = np.random.default_rng(len(case) * wave)
    ins = inputs(rng, n_in, wave)
    signed = [np.where(v >= 1 << 31, v - (1 << 32), v) for v in ins]
    want = np.asarray(expect(*signed), np.int64) & M32
    np.testing.assert_array_equal(reference(block, 1, ins, wave)[0], want)     # the reference agrees
    np.testing.assert_array_equal(emitted(block, n_in, wave, ins)[0], want)


CUB_SHFL = {   # CUB's ReduceStep / ScanStep shapes: shfl.sync with |p, then a predicated op
    "reduce down": "{ .reg .u32 r0; .reg .pred p; shfl.sync.down.b32 r0|p, $1, $2, $3, $4; "
                   "@p add.u32 r0, r0, $1; mov.u32 $0, r0; }",
    "scan up": "{ .reg .s32 r0; .reg .pred p; shfl.sync.up.b32 r0|p, $1, $2, $3, $4; "
               "@p add.s32 r0, r0, $1; mov.s32 $0, r0; }",
    "max bfly": "{ .reg .s32 r0; .reg .pred p; shfl.sync.bfly.b32 r0|p, $1, $2, $3, $4; "
                "@p max.s32 r0, r0, $1; mov.s32 $0, r0; }",
    "idx not-p": "{ .reg .u32 r0; .reg .pred p; shfl.sync.idx.b32 r0|p, $1, $2, $3, $4; "
                 "@!p mov.u32 r0, 12345; mov.u32 $0, r0; }",
    "f32 add": "{ .reg .f32 r0; .reg .pred p; shfl.sync.down.b32 r0|p, $1, $2, $3, $4; "
               "@p add.f32 r0, r0, $1; mov.f32 $0, r0; }",
    "laneid": "{ .reg .u32 l; .reg .pred p; mov.u32 l, %laneid; shfl.sync.up.b32 l|p, l, $2, $3, $4; "
              "selp.u32 $0, l, $1, p; }",
    # moderngpu's (warp-ctc's) spelling, which ptxas takes too: .sync after the mode
    "moderngpu up": "{ .reg .u32 r0; .reg .pred p; shfl.up.sync.b32 r0|p, $1, $2, $3, $4; "
                    "@p add.u32 r0, r0, $1; mov.u32 $0, r0; }",
}


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("case", sorted(CUB_SHFL))
@pytest.mark.parametrize("b, c", [(1, 0x1F), (4, 0x1F), (2, 0), (3, 0x181F), (5, 0x1C07), (9, 0x1014)])
def test_cub_shfl_with_predicate_matches_the_ptx_reference(case, wave, b, c):
    block = CUB_SHFL[case]
    rng = np.random.default_rng(b * 131 + c)
    a = rng.integers(0, 1 << 32, wave) if "f32" not in case else \
        rng.standard_normal(wave).astype(np.float32).view(np.uint32).astype(np.int64)
    ins = [a, np.full(wave, b), np.full(wave, c), np.full(wave, M32)]
    np.testing.assert_array_equal(emitted(block, 4, wave, ins)[0], reference(block, 1, ins, wave)[0])


def test_predicate_output_is_the_in_range_test_by_hand():
    """shfl.sync.up by 3 with clamp 0: lanes 0..2 of each warp are out of range (p false)."""
    block = "{ .reg .u32 r; .reg .pred p; shfl.sync.up.b32 r|p, $1, 3, 0, -1; selp.u32 $0, r, 77, p; }"
    lanes = np.arange(64)
    got = emitted(block, 1, 64, [lanes + 1000])[0]
    want = np.where(lanes % 32 >= 3, lanes - 3 + 1000, 77)
    np.testing.assert_array_equal(got, want)


OPS = ["add.s32", "sub.s32", "and.b32", "or.b32", "xor.b32", "min.s32", "max.u32", "mul.lo.s32",
       "shl.b32", "shr.s32", "shr.u32"]
CMPS = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]


@st.composite
def blocks(draw):
    """A random straight-line block over registers r0..r2 and predicates p0..p1."""
    stmts = [".reg .b32 r0, r1, r2", ".reg .pred p0, p1", "mov.b32 r0, $1", "mov.b32 r1, $2",
             "mov.b32 r2, $3", "setp.ne.s32 p0, $1, 0", "setp.lt.s32 p1, $2, $3"]
    regs, preds = ["r0", "r1", "r2", "$1", "$2", "$3", "5", "-3"], ["p0", "p1", "!p0", "!p1"]
    for _ in range(draw(st.integers(1, 8))):
        guard = draw(st.sampled_from(["", "@p0 ", "@!p0 ", "@p1 ", "@!p1 "]))
        kind = draw(st.sampled_from(["op", "setp", "selp", "shfl"]))
        d = draw(st.sampled_from(["r0", "r1", "r2"]))
        x, y = draw(st.sampled_from(regs)), draw(st.sampled_from(regs))
        if kind == "op":
            stmts.append(f"{guard}{draw(st.sampled_from(OPS))} {d}, {x}, {y}")
        elif kind == "setp":
            ty = draw(st.sampled_from(["s32", "u32"]))
            comb = draw(st.sampled_from(["", ".and", ".or", ".xor"]))
            dest = draw(st.sampled_from(["p0", "p1", "p0|p1", "p1|p0"]))
            extra = f", {draw(st.sampled_from(preds))}" if comb else ""
            stmts.append(f"{guard}setp.{draw(st.sampled_from(CMPS))}{comb}.{ty} {dest}, {x}, {y}{extra}")
        elif kind == "selp":
            stmts.append(f"{guard}selp.b32 {d}, {x}, {y}, {draw(st.sampled_from(preds))}")
        else:
            mode = draw(st.sampled_from(["up", "down", "bfly", "idx"]))
            c = draw(st.sampled_from(["0", "31", "0x181f", "$3"]))
            dest = d + draw(st.sampled_from(["", "|p0", "|p1"]))
            stmts.append(f"{guard}shfl.sync.{mode}.b32 {dest}, {x}, {y}, {c}, 0xffffffff")
    stmts.append(f"selp.b32 $0, {draw(st.sampled_from(['r0', 'r1', 'r2']))}, r0, p0")
    return "{ " + "; ".join(stmts) + "; }"


@settings(max_examples=60, deadline=None)
@given(block=blocks(), seed=st.integers(0, 2**16), wave=st.sampled_from([32, 64]))
def test_random_blocks_match_the_ptx_reference(block, seed, wave):
    ins = inputs(np.random.default_rng(seed), 3, wave)
    np.testing.assert_array_equal(emitted(block, 3, wave, ins)[0], reference(block, 1, ins, wave)[0])


def test_64_bit_operands_as_two_halves():
    """CUB's 64-bit ShuffleDown: mov.b64 {lo, hi} and two shfl.sync, on an i64 asm operand."""
    block = ("{ .reg .u32 lo, hi; mov.b64 {lo, hi}, $1; shfl.sync.down.b32 lo, lo, $2, 31, -1; "
             "shfl.sync.down.b32 hi, hi, $2, 31, -1; mov.b64 $0, {lo, hi}; }")
    wave = 64
    x = [int(v) for v in np.random.default_rng(5).integers(0, 1 << 63, wave)]
    tr = translate(block, ["i64"], [("i64", "%x"), ("i32", "%b")], {}, "t", wave, "%res")
    lanes = Lanes(wave, {"%x": np.array(x, dtype=object), "%b": np.full(wave, 3)})
    lanes.run(tr.lines)
    lane = np.arange(wave)
    src = np.where(lane % 32 + 3 <= 31, lane + 3, lane)
    assert [int(v) for v in lanes.env["%res"]] == [x[s] for s in src]


def test_tied_operand_and_several_outputs():
    """`+r` gives $0 its input value; `{ i32, i32 }` results are built field by field."""
    tr = translate("{ add.s32 $0, $0, $3; mov.u32 $1, %laneid; }", ["i32", "i32"], [("i32", "%t"), ("i32", "5")],
                   {0: 2}, "t", 32, "%res")
    body = "\n".join(tr.lines)
    assert "add i32 %t, 5" in body and "insertvalue { i32, i32 }" in body and "%res = insertvalue" in body


def test_a_repeated_block_means_the_same_for_its_own_operands():
    """A block met again (its reading is remembered) computes on that statement's operands, and
    which input a `+r` output is tied to is part of what the block means."""
    block = "add.u32 $0, $0, $0;"
    tied_first = translate(block, ["i32"], [("i32", "%x"), ("i32", "%y")], {0: 1}, "a", 32, "%ra")
    tied_second = translate(block, ["i32"], [("i32", "%x"), ("i32", "%y")], {0: 2}, "b", 32, "%rb")
    again = translate(block, ["i32"], [("i32", "%u"), ("i32", "%v")], {0: 1}, "c", 32, "%rc")
    for tr, kept, gone in ((tied_first, "%x", "%y"), (tied_second, "%y", "%x"), (again, "%u", "%x")):
        body = "\n".join(tr.lines)
        assert f"add i32 {kept}, {kept}" in body and gone not in body, body
    loads = [translate("ld.global.u32 $0, [$1];", ["i32"], [("ptr addrspace(1)", p)], {}, q, 32, f"%{q}")
             for p, q in (("%p", "l1"), ("%q", "l2"))]
    assert "%p" in "\n".join(loads[0].lines) and "%q" in "\n".join(loads[1].lines)


@pytest.mark.parametrize("block, fragment", [
    ("match.any.sync.b32 $0, $1, 0xffffffff", "match.any.sync.b32 $0, $1, 0xffffffff"),
    ("mov.u32 $0, %smid", "special register"),
    ("@q add.u32 $0, $1, 1", "'q' before any write"),
    ("{ .reg .u32 r0; mov.u32 r0, $1; }", "never writes its output $0"),
    ("{ .reg .pred p; setp.ne.s32 p, $1, 0; @p mov.u32 $0, 1; }", "without a value where its guard is false"),
    ("mul24.hi.u32 $0, $1, $1", "mul24.hi.u32"),
    ("addc.u32 $0, $1, $1", "reads the carry flag, which no instruction has set"),   # no carry given
    ("@p addc.cc.u32 $0, $1, $1", "unguarded"),
    ("add.ftz.f32 $0, $1, $1", "add.ftz.f32"),
    ("ld.global.u32 $0, [$1]", "ld.global.u32"),
    ("bra L; L: mov.u32 $0, 1", "bra"),
    ("shfl.sync.up.b32 $0, $1, 1, 0", "shfl"),
    ("add.s32 $0, $1 $1", "runs into"),
])
def test_unsupported_blocks_name_the_instruction(block, fragment):
    with pytest.raises(PtxBlockError) as e:
        translate(block, ["i32"], [("i32", "%v")], {}, "t", 32, "%r")
    assert fragment in str(e.value)


def test_cub_reduce_step_kernels_compile_without_general_lowering_where_a_plan_exists():
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
                   '  asm volatile("{ .reg .pred q; setp.ne.s32 q, %1, 0; match.any.sync.b32 %0, %1, 0xffffffff; }"'
                   ' : "=r"(r) : "r"(p[0]));\n  p[1] = r;\n}\n')
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    assert "v.cu:3" in str(e.value) and "match.any.sync.b32" in str(e.value)



def test_memory_instructions_become_loads_and_stores_in_program_order():
    """ld/st with an "l" address: a plain vector load; a guarded one touches no memory where the
    guard is false (masked); the store comes after the load it follows in the PTX."""
    tr = translate("{ .reg .pred p; setp.ne.b32 p, $2, 0; ld.global.v2.u32 {$0, $1}, [$3+8]; "
                   "@p st.global.u32 [$3], $2; }", ["i32", "i32"], [("i32", "%c"), ("i64", "%a")],
                   {}, "t", 32, "%r")
    text = "\n".join(tr.lines)
    load = next(k for k, ln in enumerate(tr.lines) if "load <2 x i32>, ptr addrspace(1)" in ln)
    store = next(k for k, ln in enumerate(tr.lines) if "@llvm.masked.store.v1i32.p1(" in ln)
    assert load < store and "getelementptr i8, ptr addrspace(1)" in text and ", i64 8" in text
    assert tr.declarations["llvm.masked.store.v1i32.p1"].startswith("declare void @llvm.masked.store.v1i32.p1(")


@pytest.mark.parametrize("hint", ["prefetch.global.L2 [$2];", "prefetch.L1 [$2+64];", "@p prefetchu.L1 [$2];",
                                  "prefetch.global.L2::evict_last [$2];"])
def test_cache_hints_change_nothing(hint):
    """prefetch / prefetchu (CUB's transform kernel: `prefetch.global.L2 [$0]`) only move cache
    lines: the block's IR is the IR of the block without them."""
    def ir(text):
        return translate("{ .reg .pred p; setp.ne.b32 p, $1, 0; " + text + " add.s32 $0, $1, 3; }", ["i32"],
                         [("i32", "%v"), ("i64", "%a")], {}, "t", 32, "%r").lines
    assert ir(hint) == ir("")


def test_an_untranslatable_instruction_is_one_named_line_at_the_asm(tmp_path):
    """ldmatrix / mma.sync (hand-written tensor-core GEMMs) have no AMD translation: one line at the
    asm statement, in shflx's 'does not support' form, naming the instruction."""
    src = tmp_path / "g.cu"
    src.write_text("__global__ void g(unsigned *o) {\n  __shared__ unsigned s[256];\n  unsigned r0, r1, r2, r3;\n"
                   "  unsigned a = (unsigned)__cvta_generic_to_shared(s + threadIdx.x);\n"
                   '  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1),'
                   ' "=r"(r2), "=r"(r3) : "r"(a));\n  o[threadIdx.x] = r0 + r1 + r2 + r3;\n}\n')
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    assert re.fullmatch(rf"{re.escape(str(src))}:5:3: error: shflx does not support this inline PTX on AMD targets "
                        r"\(PTX instruction 'ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16 .*'.*\)", str(e.value)), str(e.value)


def test_acquire_release_become_atomic_accesses_at_the_ptx_scope():
    """ld.acquire / st.release with .cta/.gpu/.sys: LLVM atomic load acquire / store release at
    the AMDGPU sync scope that contains the PTX scope (workgroup, agent, system)."""
    tr = translate("ld.acquire.sys.global.u8 $0, [$1]; st.release.gpu.global.u32 [$1+4], $2; "
                   "st.release.cta.shared.u32 [$3], $2;", ["i32"], [("i64", "%a"), ("i32", "%v"), ("i32", "%s")],
                   {}, "t", 32, "%r")
    text = "\n".join(tr.lines)
    assert re.search(r"load atomic i8, ptr addrspace\(1\) %\S+ acquire, align 1", text)
    assert re.search(r'store atomic i32 %\S+, ptr addrspace\(1\) %\S+ syncscope\("agent"\) release, align 4', text)
    assert re.search(r'store atomic i32 %\S+, ptr addrspace\(3\) %\S+ syncscope\("workgroup"\) release', text)
    assert text.index("load atomic") < text.index('syncscope("agent")') < text.index('syncscope("workgroup")')


def test_float_conversions_between_half_float_and_double():
    tr = translate("{ .reg .b16 h; cvt.rn.f16.f32 h, $1; cvt.f32.f16 $0, h; }", ["float"], [("float", "%x")],
                   {}, "t", 32, "%r")
    text = "\n".join(tr.lines)
    assert re.search(r"fptrunc float %\S+ to half", text) and re.search(r"fpext half %\S+ to float", text)
    tr = translate("cvt.rn.f32.f64 $0, $1;", ["float"], [("double", "%x")], {}, "t", 32, "%r")
    assert re.search(r"fptrunc double %\S+ to float", "\n".join(tr.lines))


def test_cvta_is_an_address_space_cast_and_global_is_the_identity():
    """cvta.to.shared.u64 then cvt.u32.u64 (how hand-written GEMMs make 32-bit shared addresses):
    generic -> LDS offset, zero-extended; cvta.shared.u64 back; cvta(.to).global is the flat address
    (values on the emulator: hw_tests/amd/test_inline_ptx_hw.py, cvta_round_trip)."""
    tr = translate("{ .reg .u64 u; cvta.to.shared.u64 u, $1; cvt.u32.u64 $0, u; }", ["i32"], [("i64", "%p")],
                   {}, "t", 32, "%r")
    text = "\n".join(tr.lines)
    assert re.search(r"inttoptr i64 %p to ptr\n.*addrspacecast ptr %\S+ to ptr addrspace\(3\)\n"
                     r".*ptrtoint ptr addrspace\(3\) %\S+ to i32", text), text
    back = "\n".join(translate("cvta.shared::cta.u64 $0, $1;", ["i64"], [("i64", "%a")], {}, "t", 32, "%r").lines)
    assert "addrspacecast ptr addrspace(3)" in back and "to ptr" in back
    same = translate("{ .reg .u64 u; cvta.to.global.u64 u, $1; cvta.global.u64 $0, u; }", ["i64"], [("i64", "%a")],
                     {}, "t", 32, "%r")
    assert "addrspacecast" not in "\n".join(same.lines)


@pytest.mark.parametrize("block", ["cvta.to.param.u64 $0, $1;", "cvta.to.shared.u32 $0, $1;"])
def test_cvta_forms_without_an_amd_meaning_are_named(block):
    with pytest.raises(PtxBlockError) as e:
        translate(block, ["i64"], [("i64", "%a")], {}, "t", 32, "%r")
    assert block.split()[0] in str(e.value)


@pytest.mark.parametrize("block,fragment", [
    ("cvt.rm.f32.s64 $0, $1;", "cvt.rm.f32.s64"),           # directed rounding of an integer to float: not provided
    ("cvt.rn.f32.f16 $0, $1;", "cvt.rn.f32.f16"),           # widening takes no rounding modifier
    ("{ .reg .pred p; setp.ne.b32 p, $2, 0; @p ld.acquire.gpu.global.u32 $0, [$1]; }", "guarded"),
])
def test_unsupported_conversions_and_orderings_are_named(block, fragment):
    with pytest.raises(PtxBlockError) as e:
        translate(block, ["i32"], [("i64", "%a"), ("i32", "%v")], {}, "t", 32, "%r")
    assert fragment in str(e.value)


# ------------------------------------------------------------------ the instructions CCCL emits
# Each block against tests/reference/ptx_ref (the PTX ISA pseudocode, bit by bit), on every lane of
# a wave32 and a wave64, over random words and the small operands where the edge cases live.
CCCL_BLOCKS = {
    "bmsk.clamp": ("bmsk.clamp.b32 $0, $1, $2;", 2),
    "bmsk.wrap": ("bmsk.wrap.b32 $0, $1, $2;", 2),
    "bfe.u32": ("bfe.u32 $0, $1, $2, $3;", 3),
    "bfe.s32": ("bfe.s32 $0, $1, $2, $3;", 3),
    "bfi.b32": ("bfi.b32 $0, $1, $2, $3, $4;", 4),
    "prmt.b32": ("prmt.b32 $0, $1, $2, $3;", 3),
    "shf.l.wrap": ("shf.l.wrap.b32 $0, $1, $2, $3;", 3),
    "shf.r.wrap": ("shf.r.wrap.b32 $0, $1, $2, $3;", 3),
    "shf.l.clamp": ("shf.l.clamp.b32 $0, $1, $2, $3;", 3),
    "shf.r.clamp": ("shf.r.clamp.b32 $0, $1, $2, $3;", 3),
    "lop3 (keccak's chi, ethminer)": ("lop3.b32 $0, $1, $2, $3, 0xD2;", 3),
    "lop3 xor3": ("lop3.b32 $0, $1, $2, $3, 0x96;", 3),
    "lop3 majority": ("lop3.b32 $0, $1, $2, $3, 0xE8;", 3),
    "lop3 zero and ones": ("{ .reg .b32 t; lop3.b32 t, $1, $2, $3, 0x0; lop3.b32 $0, t, $2, $3, 0xff; xor.b32 $0, $0, t; }", 3),
    "lop3 a-only, b-only": ("{ .reg .b32 t; lop3.b32 t, $1, $2, $3, 0xF0; lop3.b32 $0, $3, t, $2, 0x3C; }", 3),
    # the scalar video instructions on whole words (nvdiffrast's Util.inl, ccminer's JH and BLAKE)
    "vmin.s32 .min": ("vmin.s32.s32.s32.min $0, $1, $2, $3;", 3),
    "vmax.s32 .max": ("vmax.s32.s32.s32.max $0, $1, $2, $3;", 3),
    "vmin.s32 .add": ("vmin.s32.s32.s32.add $0, $1, $2, $3;", 3),
    "vmax.u32 .max": ("vmax.u32.u32.u32.max $0, $1, $2, $3;", 3),
    "vadd.s32": ("vadd.s32.s32.s32 $0, $1, $2;", 2),
    "vsub.s32.u32.u32": ("vsub.s32.u32.u32 $0, $1, $2;", 2),
    "vsub.u32 .add": ("vsub.u32.u32.u32.add $0, $1, $2, $3;", 3),
    "vabsdiff.s32 .add": ("vabsdiff.u32.s32.s32.add $0, $1, $2, $3;", 3),
    "vabsdiff.u32": ("vabsdiff.u32.u32.u32 $0, $1, $2;", 2),
    "vshl.clamp.add": ("vshl.u32.u32.u32.clamp.add $0, $1, $2, $3;", 3),
    "vshl.wrap": ("vshl.u32.u32.u32.wrap $0, $1, $2;", 2),
    "vshr.s32.clamp": ("vshr.s32.s32.u32.clamp $0, $1, $2;", 2),
    "vshr.u32.wrap.add": ("vshr.u32.u32.u32.wrap.add $0, $1, $2, $3;", 3),
    "vmad.u32": ("vmad.u32.u32.u32 $0, $1, $2, $3;", 3),
    "vadd.u32.s32.s32.sat.min (nvdiffrast's clamp)": ("vadd.u32.s32.s32.sat.min $0, $1, $2, $3;", 3),
    "vsub.s32.sat.max": ("vsub.s32.s32.s32.sat.max $0, $1, $2, $3;", 3),
    "vadd.s32.u32.u32.sat": ("vadd.s32.u32.u32.sat $0, $1, $2;", 2),
    "vabsdiff.u32.s32.s32.sat.add": ("vabsdiff.u32.s32.s32.sat.add $0, $1, $2, $3;", 3),
    "vadd.s32 halves": ("vadd.s32.s32.s32 $0, $1.h1, $2.h0;", 2),
    "vsub.s32.u32.u32 halves": ("vsub.s32.u32.u32 $0, $1.h0, $2.h1;", 2),
    "vadd.u32 byte": ("vadd.u32.u32.u32 $0, $1.b2, $2;", 2),
    "vmad.u32 bytes": ("vmad.u32.u32.u32 $0, $1.b1, $2.b3, $3;", 3),
    "vmax.s32 byte .max": ("vmax.s32.s32.s32.max $0, $1.b3, $2, $3;", 3),
    "bfind.u32 (nvdiffrast)": ("bfind.u32 $0, $1;", 1),
    "bfind.s32": ("bfind.s32 $0, $1;", 1),
    "bfind.shiftamt.u32": ("bfind.shiftamt.u32 $0, $1;", 1),
    "bfind.shiftamt.s32 of a shifted input": ("{ .reg .b32 t; shr.u32 t, $1, $2; bfind.shiftamt.s32 $0, t; }", 2),
    "slct.s32.s32 (nvdiffrast)": ("slct.s32.s32 $0, $1, $2, $3;", 3),
    "slct.u32.s32": ("slct.u32.s32 $0, $1, $2, $3;", 3),
    "clz.b32": ("clz.b32 $0, $1;", 1),
    "popc.b32": ("popc.b32 $0, $1;", 1),
    "brev.b32": ("brev.b32 $0, $1;", 1),
    "lanemask": ("{ .reg .u32 a, b, c, d, e; mov.u32 a, %lanemask_lt; mov.u32 b, %lanemask_le; "
                 "mov.u32 c, %lanemask_gt; mov.u32 d, %lanemask_ge; mov.u32 e, %lanemask_eq; "
                 "xor.b32 a, a, $1; add.u32 a, a, b; xor.b32 a, a, c; add.u32 a, a, d; xor.b32 $0, a, e; }", 1),
    "vote.ballot (CUB's MatchAny step)": ("{ .reg .pred p; and.b32 $0, $1, $2; setp.ne.u32 p, $0, 0; "
                                          "vote.ballot.sync.b32 $0, p, 0xffffffff; @!p not.b32 $0, $0; }", 2),
    "vote.sync.ballot masked": ("{ .reg .pred p; setp.lt.u32 p, $1, $2; vote.sync.ballot.b32 $0, !p, $3; }", 3),
    "cvt.pack.sat.s8 with c": ("cvt.pack.sat.s8.s32.b32 $0, $1, $2, $3;", 3),
    "cvt.pack.sat.s8 two steps": ("{ .reg .b32 t; cvt.pack.sat.s8.s32.b32 t, $1, $2, 0; "
                                  "cvt.pack.sat.s8.s32.b32 $0, $3, $1, t; }", 3),
    "cvt.pack.sat.u8": ("cvt.pack.sat.u8.s32.b32 $0, $1, $2, $3;", 3),
}


def _cccl_inputs(rng, n: int, wave: int) -> list[np.ndarray]:
    """Random words, small values (0..70: positions, lengths, shift amounts around 32 and 64),
    and values around the 8-bit saturation bounds, mixed per lane."""
    out = []
    for _ in range(n):
        kind = rng.integers(0, 3, wave)
        out.append(np.where(kind == 0, rng.integers(0, 1 << 32, wave),
                            np.where(kind == 1, rng.integers(0, 71, wave), rng.integers(-300, 300, wave))) & M32)
    return out


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("case", sorted(CCCL_BLOCKS))
def test_cccl_instruction_matches_the_ptx_reference(case, wave):
    block, n = CCCL_BLOCKS[case]
    for seed in range(4):
        ins = _cccl_inputs(np.random.default_rng(seed), n, wave)
        np.testing.assert_array_equal(emitted(block, n, wave, ins)[0], reference(block, 1, ins, wave)[0],
                                      err_msg=f"{case}, wave {wave}, seed {seed}")


@settings(max_examples=150, deadline=None)
@given(op=st.sampled_from(["bmsk.clamp.b32 $0, $1, $2;", "bmsk.wrap.b32 $0, $1, $2;", "bfe.s32 $0, $1, $2, $3;",
                           "bfe.u32 $0, $1, $2, $3;", "bfi.b32 $0, $1, $2, $3, $2;", "prmt.b32 $0, $1, $2, $3;",
                           "shf.l.wrap.b32 $0, $1, $2, $3;", "shf.r.wrap.b32 $0, $1, $2, $3;",
                           "shf.l.clamp.b32 $0, $1, $2, $3;", "shf.r.clamp.b32 $0, $1, $2, $3;", "clz.b32 $0, $1;",
                           "popc.b32 $0, $1;", "brev.b32 $0, $1;"]),
       words=st.lists(st.one_of(st.integers(0, 70), st.integers(0, M32), st.integers(250, 260)), min_size=3, max_size=3))
def test_bit_field_instructions_on_any_operands(op, words):
    ins = [np.full(32, w, np.int64) for w in words]
    np.testing.assert_array_equal(emitted(op, 3, 32, ins)[0], reference(op, 1, ins, 32)[0])


@pytest.mark.parametrize("block", ["cvt.rni.sat.s32.f32 $0, $1;", "cvt.rzi.s32.f32 $0, $1;", "cvt.rmi.u32.f32 $0, $1;",
                                   "cvt.rpi.s32.f32 $0, $1;"])
def test_float_to_integer_conversions_saturate_and_send_nan_to_zero(block):
    f = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.7, 3.2, 1e10, -1e10, np.nan, np.inf, -np.inf, 2147483520.0,
                  -2147483648.0, 4294967040.0, 7.0] * 2, np.float32)
    bits = f.view(np.uint32).astype(np.int64)
    tr = translate(block, ["i32"], [("float", "%f")], {}, "t", 32, "%res")
    lanes = Lanes(32, {"%f": bits})
    lanes.run(tr.lines)
    np.testing.assert_array_equal(lanes.env["%res"], reference(block, 1, [bits], 32)[0])


@pytest.mark.parametrize("block, want", [
    ("ld.global.acquire.gpu.b32 $0, [$1];", 'load atomic i32, ptr addrspace(1) %p syncscope("agent") acquire, align 4'),
    ("ld.relaxed.cta.shared.u32 $0, [$1];", 'load atomic i32, ptr addrspace(3) %p syncscope("workgroup") monotonic'),
    ("ld.volatile.global.u32 $0, [$1];", "load atomic volatile i32, ptr addrspace(1) %p monotonic, align 4"),
    ("ld.acquire.sys.u32 $0, [$1];", "load atomic i32, ptr %p acquire, align 4"),
    ("st.release.gpu.u32 [$1], $2;", 'store atomic i32 %v, ptr %p syncscope("agent") release, align 4'),
    ("ld.acquire.cluster.u32 $0, [$1];", 'load atomic i32, ptr %p syncscope("agent") acquire, align 4'),
    ("atom.add.acq_rel.gpu.u32 $0, [$1], $2;", 'atomicrmw add ptr %p, i32 %v syncscope("agent") acq_rel, align 4'),
    ("atom.global.max.s32 $0, [$1], $2;", 'atomicrmw max ptr addrspace(1) %p, i32 %v syncscope("agent") monotonic'),
    ("atom.max.u32 $0, [$1], $2;", "atomicrmw umax ptr"),
    ("atom.inc.u32 $0, [$1], $2;", "atomicrmw uinc_wrap ptr"),
    ("atom.exch.release.cta.b32 $0, [$1], $2;", 'atomicrmw xchg ptr %p, i32 %v syncscope("workgroup") release'),
    ("atom.cas.acquire.sys.b32 $0, [$1], $2, $2;", "cmpxchg ptr %p, i32 %v, i32 %v acquire acquire, align 4"),
    ("atom.cas.release.gpu.b32 $0, [$1], $2, $2;", 'syncscope("agent") release monotonic'),
    ("red.release.gpu.global.add.s32 [$1], $2;", 'atomicrmw add ptr addrspace(1) %p, i32 %v syncscope("agent") release'),
    ("fence.acq_rel.gpu;", 'fence syncscope("agent") acq_rel'),
    ("fence.sc.cta;", 'fence syncscope("workgroup") seq_cst'),
    ("membar.gl;", 'fence syncscope("agent") seq_cst'),
    ("membar.sys;", "fence seq_cst"),
])
def test_memory_order_and_scope_become_llvm_atomics(block, want):
    """PTX ISA memory consistency model -> LLVM's: .relaxed monotonic, scopes cta/gpu/sys as
    workgroup/agent/system, .volatile a system-scope relaxed access, membar a seq_cst fence."""
    outs = ["i32"] if "$0" in block else []
    ins = [("i64", "%a"), ("i32", "%v")]
    if not outs:                 # $0 is an input then: shift the operand numbers
        block = block.replace("$1", "$0").replace("$2", "$1")
    tr = translate(block, outs, ins, {}, "t", 32, "%r" if outs else None)
    assert any(want in re.sub(r"%t\.\d+", "%p", ln) for ln in tr.lines), "\n".join(tr.lines)


def test_an_ordered_vector_access_is_one_atomic_when_it_fits_64_bits():
    """CUB's tile status: st.relaxed.gpu.v2.u32 {status, value} as one 64-bit atomic store (its
    elements, first in the low bits); v2.u64 as one atomic per element."""
    tr = translate("st.relaxed.gpu.v2.u32 [$0], {$1, $2};", [], [("i64", "%a"), ("i32", "%x"), ("i32", "%y")], {},
                   "t", 32, None)
    text = "\n".join(tr.lines)
    assert 'store atomic i64' in text and 'syncscope("agent") monotonic, align 8' in text and "shl i64" in text
    tr = translate("ld.relaxed.gpu.v2.u64 {$0, $1}, [$2];", ["i64", "i64"], [("i64", "%a")], {}, "t", 32, "%r")
    loads = [ln for ln in tr.lines if "load atomic i64" in ln]
    assert len(loads) == 2 and any("getelementptr i8, ptr %t.1, i64 8" in ln for ln in tr.lines)


@pytest.mark.parametrize("block, fragment", [
    ("ld.mmio.relaxed.sys.u32 $0, [$1];", ".mmio"),
    ("st.acquire.gpu.u32 [$1], $0;", "st cannot be acquire"),
    ("@p atom.add.u32 $0, [$1], 1;", "unguarded"),
    ("atom.add.f16 $0, [$1], 1;", "not supported"),
    ("fence.proxy.async;", "fence.{sc,acq_rel}"),
])
def test_memory_forms_without_an_amd_meaning_are_named(block, fragment):
    with pytest.raises(PtxBlockError) as e:
        translate(block, ["i32"], [("i64", "%a")], {}, "t", 32, "%r")
    assert fragment in str(e.value)


# ------------------------------------------------------------------ exit, nanosleep, %globaltimer

@pytest.mark.parametrize("block, outputs, want", [
    # PTX ISA 10.13: %globaltimer counts nanoseconds; AMD's REALTIME counter ticks at 100 MHz (10 ns)
    ("mov.u64 $0, %globaltimer;", ["i64"], lambda t: 10 * t(1)),
    ("{ .reg .u64 a, b; mov.u64 a, %globaltimer; mov.u64 b, %globaltimer; sub.u64 $0, b, a; }", ["i64"],
     lambda t: 10 * (t(2) - t(1))),                   # the second read is the later one
    ("mov.u32 $0, %globaltimer_hi;", ["i32"], lambda t: (10 * t(1)) >> 32),
    ("mov.u32 $0, %globaltimer_lo;", ["i32"], lambda t: (10 * t(1)) & M32),
])
def test_globaltimer_reads_the_steady_counter_in_nanoseconds_in_program_order(block, outputs, want):
    tr = translate(block, outputs, [], {}, "t", 64, "%res")
    lanes = Lanes(64, {})
    lanes.run(tr.lines)
    ticks = lambda k: STEADY_START + STEADY_STEP * k        # noqa: E731 (the reference counter's k-th read)
    assert [int(v) for v in lanes.env["%res"]] == [want(ticks)] * 64


def test_timer_reads_stay_between_the_memory_accesses_around_them():
    tr = translate("{ .reg .u64 a; ld.global.u32 $0, [$1]; mov.u64 a, %globaltimer; st.global.u64 [$1+8], a; }",
                   ["i32"], [("i64", "%p")], {}, "t", 32, "%res")
    at = [k for k, ln in enumerate(tr.lines) if "load <1 x i32>" in ln or "readsteadycounter" in ln
          or "store <1 x i64>" in ln]
    assert len(at) == 3 and [("load" in tr.lines[k], "steady" in tr.lines[k]) for k in at] == \
        [(True, False), (False, True), (False, False)]


def test_exit_ends_the_wave_only_when_all_its_launched_lanes_exit():
    """PTX exit ends the thread; AMD ends whole waves: @shflx.ptx.exit ends the wave (s_endpgm)
    when every lane it was launched with is here, and traps otherwise (no silent partial exit)."""
    tr = translate("exit;", [], [], {}, "t", 64, None)
    assert tr.lines == ["  call void @shflx.ptx.exit()"]
    body = tr.functions["shflx.ptx.exit"]
    assert "noreturn" in body and "@llvm.amdgcn.ballot.i64(i1 true)" in body
    assert "call void @llvm.amdgcn.endpgm()" in body and "call void @llvm.trap()" in body
    assert "@llvm.umin.i32(i32 %left, i32 64)" in body
    assert "ballot.i32" in translate("exit;", [], [], {}, "t", 32, None).functions["shflx.ptx.exit"]


def test_nanosleep_sleeps_briefly():
    tr = translate("nanosleep.u32 $0;", [], [("i32", "%t")], {}, "t", 64, None)
    assert tr.lines == ["  call void @llvm.amdgcn.s.sleep(i32 1)"]


@pytest.mark.parametrize("block", ["prefetch.global.L2 [$0];", "prefetch.L1 [$0+64];", "prefetchu.L1 [$0];",
                                   "prefetch.global.L2::evict_last [$0];", "@p prefetch.local.L2 [$0];"])
def test_a_prefetch_is_a_hint_translated_to_nothing(block):
    """CUB's DeviceTransform prefetches its inputs (`prefetch.global.L2 [%0];`): no effect on what
    the program computes (PTX ISA 9.7.9.15), so no instruction."""
    assert translate(block, [], [("i64", "%a")], {}, "t", 64, None).lines == []


@pytest.mark.parametrize("block, fragment", [("@p exit;", "unguarded exit"), ("nanosleep.u64 $0;", "nanosleep.u32"),
                                             ("prefetch.shared.L1 [$0];", "only prefetch{.global,.local}"),
                                             ("prefetch.tensormap [$0];", "prefetchu.L1 [a]")])
def test_exit_and_nanosleep_forms_shflx_does_not_translate_are_named(block, fragment):
    with pytest.raises(PtxBlockError) as e:
        translate(block, [], [("i32", "%t")], {}, "t", 64, None)
    assert fragment in str(e.value)


# ------------------------------------------------------------------ immediate operands ("n", "i")

def test_an_immediate_operand_is_written_into_the_template():
    """libcu++'s cp.async (cuda/__memcpy_async/cp_async_shared_global.h) passes cp-size as "n":
    the PTX holds the number, as nvcc writes it; register operands keep their reference."""
    tmpl = "cp.async.cg.shared.global [$0], [$1], $2, ${2};"
    args = ["i32 %a", "i64 %b", "i64 16"]
    assert immediates_in_template(tmpl, ["r", "l", "n"], args, 0) == "cp.async.cg.shared.global [$0], [$1], 16, 16;"
    assert immediates_in_template(tmpl, ["r", "l", "r"], args, 0) == tmpl            # "r": a register
    assert immediates_in_template("mov.u32 $0, $1;", ["i"], ["i32 noundef -3"], 1) == "mov.u32 $0, -3;"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["n", "r", "l"]), min_size=1, max_size=14), st.integers(0, 3), st.data())
def test_only_the_immediate_operands_are_replaced_whatever_their_numbers(cons, first, data):
    """$1 is not a prefix of $12; each reference is replaced by its own operand's number."""
    args = [f"i64 {100 + j}" if c == "n" else f"i32 %v{j}" for j, c in enumerate(cons)]
    refs = data.draw(st.lists(st.integers(0, first + len(cons) - 1), min_size=1, max_size=8))
    tmpl = " ".join(f"${r}" for r in refs)
    want = " ".join(str(100 + r - first) if r >= first and cons[r - first] == "n" else f"${r}" for r in refs)
    assert immediates_in_template(tmpl, cons, args, first) == want


CP_ASYNC = r'''
template <int N> __device__ void copy(unsigned dst, const void *src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %2;" :: "r"(dst), "l"(src), "%s"(N) : "memory");
}
__global__ void k(const unsigned *a, unsigned *out) {
  __shared__ unsigned s[256];
  copy<16>((unsigned)__cvta_generic_to_shared(s + 4 * threadIdx.x), a + 4 * threadIdx.x);
  asm volatile("cp.async.wait_group %%0;" :: "n"(0));
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x ^ 1];
}
'''


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_libcu_cp_async_with_an_immediate_size_is_a_copy_of_that_size(tmp_path, arch):
    src = tmp_path / "cp.cu"
    src.write_text(CP_ASYNC.replace("%s", "n"))
    asm = compile_file(src, arch, emit="asm").output      # src-size = cp-size: 16 bytes, none zero-filled
    assert len(re.findall(r"global_load_(?:dwordx4|b128)", asm)) == 1 and len(re.findall(r"ds_(?:write|store)_b128", asm)) == 1
    assert "v_cndmask" not in asm


def test_a_cp_size_in_a_register_is_an_error_as_for_ptxas(tmp_path):
    """PTX ISA 8.7, 9.7.9.25: cp-size is an integer constant; an "r" operand is a register in the
    PTX nvcc writes, even where its value is known."""
    src = tmp_path / "cp.cu"
    src.write_text(CP_ASYNC.replace("%s", "r"))
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942", emit="llvm")
    assert "cp.cu:3:3: error:" in str(e.value) and "'$2' must be a constant" in str(e.value)     # the asm statement (innermost user line)


def test_a_decimal_float_constant_is_the_double_rounded_to_the_instructions_type():
    """PTX ISA 4.5.3: `setp.ge.f32 p, x, -0.5` (cuSZp) and `add.f32 d, x, 1e-3` read decimal
    constants as doubles, rounded to the instruction's float type."""
    f = np.array([-1.0, -0.5, -0.49999997, 0.0, 2.0, np.nan, -np.inf, 1e-3] * 4, np.float32)
    bits = f.view(np.uint32).astype(np.int64)
    tr = translate("{ .reg .pred p; .reg .f32 t; setp.ge.f32 p, $1, -0.5; add.f32 t, $1, 1e-3; "
                   "selp.b32 $0, t, 0f7FC00000, p; }", ["i32"], [("float", "%f")], {}, "t", 32, "%res")
    lanes = Lanes(32, {"%f": bits})
    lanes.run(tr.lines)
    want = np.where(f >= np.float32(-0.5), f + np.float32(1e-3), np.float32(np.nan)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(lanes.env["%res"], np.int64).astype(np.uint32).view(np.float32), want)


@pytest.mark.parametrize("hint, extra", [(".L2::128B", ""), (".L2::256B", ""), (".L2::cache_hint", ", $2")])
def test_cp_async_cache_and_prefetch_hints_copy_the_same_bytes(hint, extra):
    """.L2::64B/128B/256B and .L2::cache_hint (with its cache-policy operand) choose what is
    cached, not what is copied: the same loads and stores as the plain cp.async."""
    inputs = [("i32", "%dst"), ("i64", "%src"), ("i64", "%policy")]
    plain = translate("cp.async.cg.shared.global [$0], [$1], 16;", [], inputs, {}, "t", 32)
    hinted = translate(f"cp.async.cg.shared.global{hint} [$0], [$1], 16{extra};", [], inputs, {}, "t", 32)
    assert hinted.lines == plain.lines


@pytest.mark.parametrize("policy", ["createpolicy.fractional.L2::evict_first.b64 p, 1.0;",
                                    "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 p, 0.5;",
                                    "createpolicy.fractional.L2::evict_normal.b64 p;", "createpolicy.cvt.L2.b64 p, $2;",
                                    "createpolicy.range.global.L2::evict_last.L2::evict_first.b64 p, [$1], 64, 128;"])
def test_a_cache_policy_made_in_the_block_moves_the_same_bytes(policy):
    """Marlin's copy: `createpolicy.fractional.L2::evict_first.b64 p, 1.0;` then
    `cp.async.cg.shared.global.L2::cache_hint [d], [s], 16, p;` (PTX ISA "createpolicy": an opaque
    policy that only .L2::cache_hint operands read): the loads and stores of the plain copy; an
    ld with the policy loads the same word, and the policy itself, written out, is 0."""
    inputs = [("i32", "%dst"), ("i64", "%src"), ("i64", "%policy")]
    plain = translate("cp.async.cg.shared.global [$0], [$1], 16;", [], inputs, {}, "t", 32)
    hinted = translate(f"{{ .reg .b64 p; {policy} cp.async.cg.shared.global.L2::cache_hint [$0], [$1], 16, p; }}",
                       [], inputs, {}, "t", 32)
    assert hinted.lines == plain.lines
    load = [("i64", "%src"), ("i64", "%policy")]
    plain_ld = translate("ld.global.b32 $0, [$1];", ["i32"], load, {}, "t", 32, "%r")
    hinted_ld = translate(f"{{ .reg .b64 p; {policy.replace('$2', '$1').replace('[$1]', '[$2]')} "
                          "ld.global.L2::cache_hint.b32 $0, [$1], p; }", ["i32"], load, {}, "t", 32, "%r")
    assert hinted_ld.lines == plain_ld.lines
    lanes = Lanes(32, {"%src": np.zeros(32, np.int64), "%policy": np.zeros(32, np.int64)})
    written = translate(policy.replace(" p,", " $0,").replace(" p;", " $0;").replace("$2", "$1").replace("[$1]", "[$2]"),
                        ["i64"], load, {}, "t", 32, "%res")
    lanes.run(written.lines)
    assert list(np.asarray(lanes.env["%res"])) == [0] * 32


@pytest.mark.parametrize("policy", ["createpolicy.fractional.L2::evict_first.b32 $0, 1.0;",
                                    "createpolicy.fractional.L1::evict_first.b64 $0, 1.0;",
                                    "createpolicy.cvt.L1.b64 $0, $1;", "createpolicy.b64 $0;"])
def test_cache_policy_forms_the_ptx_isa_does_not_have_are_named(policy):
    with pytest.raises(PtxBlockError, match="only createpolicy"):
        translate(policy, ["i64"], [("i64", "%a")], {}, "t", 32, "%res")


@pytest.mark.parametrize("block, ref", [
    ("rcp.rn.f32 $0, $1;", lambda x, y: np.float32(1) / x), ("rcp.approx.f32 $0, $1;", lambda x, y: np.float32(1) / x),
    ("div.rn.f32 $0, $1, $2;", lambda x, y: x / y), ("sqrt.rn.f32 $0, $1;", lambda x, y: np.sqrt(x)),
    ("sqrt.approx.f32 $0, $1;", lambda x, y: np.sqrt(x)),
    ("rsqrt.approx.f32 $0, $1;", lambda x, y: (1.0 / np.sqrt(x.astype(np.float64))).astype(np.float32))])
def test_float_division_reciprocal_and_square_root(block, ref):
    """.rn is IEEE round to nearest even; .approx.f32 (xmrig's rcp.approx.f32) is within 1-2 ulp of
    the quotient or root in PTX, which the correctly rounded value is."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-1e4, 1e4, 24), [0.0, -0.0, np.inf, np.nan, 1e-40, 3.0, 7.0, -2.0]]).astype(np.float32)
    y = np.concatenate([rng.uniform(-50, 50, 24), [1.0, 2.0, 0.0, 1.0, 3.0, 0.0, -0.0, np.inf]]).astype(np.float32)
    bits = [v.view(np.uint32).astype(np.int64) for v in (x, y)]
    tr = translate(block, ["float"], [("float", "%x"), ("float", "%y")], {}, "t", 32, "%res")
    lanes = Lanes(32, {"%x": bits[0], "%y": bits[1]})
    lanes.run(tr.lines)
    with np.errstate(all="ignore"):
        want = ref(x, y).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(lanes.env["%res"], np.int64).astype(np.uint32).view(np.float32), want)
