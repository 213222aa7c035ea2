"""Translation validation (issue 13, item 2): the LLVM IR helper emitted for a proven plan is read
back with LLVM's own operand order of every intrinsic and must be that plan, step for step; a
helper that is not falls back to the exact general lowering (DESIGN decision 6)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from shflx.amd import llvm_ir
from shflx.amd.llvm_ir import function_ir, local_name
from shflx.catalog import catalog
from shflx.chains import synthesize
from shflx.driver import amd as driver
from shflx.driver import lowering
from shflx.match import lower
from shflx.pattern import parse_pattern
from shflx.verify.readback import emitted_differences

ROOT = Path(__file__).resolve().parents[1]
TARGETS = [("gfx90a", 64), ("gfx942", 64), ("gfx950", 64), ("gfx1030", 32), ("gfx1100", 32), ("gfx1100", 64),
           ("gfx1200", 32)]
PATTERNS = ["xor 1", "xor 5", "xor 16", "down 1", "up 3", "idx 7", "idx 5 width 8", "down 2 width 16",
            "map " + ",".join(str((i * 5) % 32) for i in range(32)), "xor 3 mask 0xffff"]


@pytest.mark.parametrize("arch,wave", TARGETS)
def test_every_emitted_plan_reads_back_as_itself(arch, wave):
    texts = PATTERNS + [e.text for e in catalog()]
    for text in texts:
        plan = lower(text, arch, wave)
        fn, _ = function_ir(plan, "f")
        assert emitted_differences(plan, fn, local_name) == [], (arch, wave, text)
    for coll in ("reduce add", "reduce fmax", "scan add", "scan umin width 16 exclusive", "reduce add bits 0x1c"):
        plan = synthesize(parse_pattern(coll), arch, wave).plan
        fn, _ = function_ir(plan, "f")
        assert emitted_differences(plan, fn, local_name) == [], (arch, wave, coll)


@pytest.mark.parametrize("text,arch,wave,mutate,what", [
    ("xor 5", "gfx942", 64, lambda t: re.sub(r"update\.dpp\.i32\(i32 ([^,]+), i32 ([^,]+),",
                                             r"update.dpp.i32(i32 \2, i32 \1,", t), "'old'"),
    ("xor 16", "gfx1100", 32, lambda t: re.sub(r"(permlanex16\.i32\(i32 [^,]+, i32 [^,]+, )i32 (-?\d+), i32 (-?\d+)",
                                               r"\1i32 \3, i32 \2", t), "sel_lo"),
    ("down 1", "gfx942", 64, lambda t: re.sub(r"inverse\.ballot\.i64\(i64 (-?\d+)\)",
                                              lambda m: f"inverse.ballot.i64(i64 {int(m.group(1)) ^ 1})", t)
                                       if "inverse.ballot" in t else re.sub(r"lshr i64 (-?\d+),",
                                              lambda m: f"lshr i64 {int(m.group(1)) ^ 1},", t), "lanes"),
    ("idx 5 width 8", "gfx1030", 32, lambda t: t.replace("dpp8.i32(i32 %x, i32 ", "dpp8.i32(i32 %x, i32 1"), "sel"),
])
def test_a_wrong_operand_in_the_emitted_helper_is_found(text, arch, wave, mutate, what):
    plan = lower(text, arch, wave)
    fn, _ = function_ir(plan, "f")
    bad = mutate(fn)
    assert bad != fn, "the mutation did not apply"
    diffs = emitted_differences(plan, bad, local_name)
    assert diffs and what in " ".join(diffs), diffs


def test_a_site_whose_helper_does_not_read_back_gets_the_exact_lowering(tmp_path, monkeypatch):
    """An emitter bug (old and src of update.dpp swapped) is caught at compile time: the site is
    lowered by the exact ds_bpermute formula instead, and the report says why."""
    real = llvm_ir.function_ir

    def swapped(plan, name="f", attrs="#0"):
        fn, need = real(plan, name, attrs)
        return re.sub(r"update\.dpp\.i32\(i32 ([^,]+), i32 ([^,]+),", r"update.dpp.i32(i32 \2, i32 \1,", fn), need

    monkeypatch.setattr(lowering, "function_ir", swapped)
    src = tmp_path / "k.cu"
    src.write_text('extern "C" __global__ void k(const int *in, int *out) {\n'
                   '  int i = threadIdx.x;\n  out[i] = __shfl_xor_sync(0xffffffff, in[i], 5);\n}\n')
    res = driver.compile_file(src, "gfx942", emit="llvm", chains=False)
    (site,) = res.sites
    assert site.proof == "exact by construction" and "ds_bpermute" in site.lowering[0]
    assert any("did not read back as the proven plan" in n for n in site.notes)
    assert "update.dpp" not in res.output.split("; ---- shflx lowerings ----")[1]


def test_an_emitter_bug_caught_at_compile_time_is_a_warning_on_stderr(tmp_path, monkeypatch, capsys):
    """The fallback keeps the build correct, but a user must hear of the bug, as from a compiler's
    internal diagnostics: one warning line at the site, exit 0, the output written."""
    from shflx.cli import main
    real = llvm_ir.function_ir

    def swapped(plan, name="f", attrs="#0"):
        fn, need = real(plan, name, attrs)
        return re.sub(r"update\.dpp\.i32\(i32 ([^,]+), i32 ([^,]+),", r"update.dpp.i32(i32 \2, i32 \1,", fn), need

    monkeypatch.setattr(lowering, "function_ir", swapped)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text('extern "C" __global__ void k(const int *in, int *out) {\n'
                                   '  int i = threadIdx.x;\n  out[i] = __shfl_xor_sync(0xffffffff, in[i], 5);\n}\n')
    assert main(["compile", "k.cu", "--offload-arch", "gfx942", "-o", "k.hsaco", "--no-chains"]) == 0
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("k.cu:3:") and ": warning: " in lines[0], lines
    assert "please report it" in lines[0] and (tmp_path / "k.hsaco").stat().st_size > 0


def test_reads_back_with_an_operand_order_independent_of_the_emitters_table():
    """The read-back transcribes LLVM's operand orders on its own (IntrinsicsAMDGPU.td); the
    primitive table the emitters read must say the same, field for field."""
    from shflx.amd.primitives import PRIMITIVES
    from shflx.verify.readback import INTRINSICS
    from_table = {p.intrinsic.removesuffix(".i32"): (op, tuple(f for f, _ in p.operands))
                  for op, p in PRIMITIVES.items() if p.intrinsic}
    assert from_table == INTRINSICS
