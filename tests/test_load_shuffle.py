"""shflx.nvidia.load_shuffle: opportunities found per stencil kernel (PTXASW Table 2 style), the
rewrite's shape, ptxas acceptance, and the cases that must be left alone."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shflx.nvidia import ptxir
from shflx.nvidia.load_shuffle import find, rewrite

from test_symbolic import HEAD, SIGNED, TAIL

DATA = Path(__file__).parent / "data" / "stencils"

# Redundant loads per kernel: a row of 2R+1 loads along x gives 2R (nvcc 13.0 -O3, sm_90 PTX).
EXPECTED = {"vecadd": 0, "sincos": 0, "matvec": 0, "stencil1d5": 4, "stencil1d3_f64": 2, "jacobi": 6,
            "gaussblur": 20, "life": 6, "laplacian": 2, "gradient": 1, "divergence": 2, "wave13pt": 4,
            "tricubic": 48, "uxx1": 3}
FAST = ["stencil1d5", "stencil1d3_f64", "life", "vecadd"]


def parse(name: str) -> tuple[str, ptxir.Module]:
    text = (DATA / f"{name}.ptx").read_text()
    return text, ptxir.parse(text, f"{name}.ptx")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_opportunities_per_kernel(name):
    _, mod = parse(name)
    assert len(find(mod)) == EXPECTED[name]


def test_deltas_of_a_5_point_row():
    _, mod = parse("stencil1d5")
    assert sorted(o.delta for o in find(mod)) == [1, 2, 3, 4]   # all from the [i-2] load


def ptxas_ok(text: str, tmp_path: Path) -> None:
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not found")
    src = tmp_path / "k.ptx"
    src.write_text(text)
    r = subprocess.run([ptxas, "-arch=sm_90", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("name", FAST)
def test_rewrite_assembles(name, tmp_path):
    _, mod = parse(name)
    mod, entries = rewrite(mod, 90, cost_model=False)
    assert all(e.status == "rewritten" for e in entries)
    ptxas_ok(ptxir.unparse(mod), tmp_path)


def test_rewrite_shape_32_and_64_bit():
    _, mod = parse("stencil1d3_f64")
    mod, entries = rewrite(mod, 90, cost_model=False)
    out = ptxir.unparse(mod)
    assert [e.shuffles for e in entries] == [2, 2]                 # two halves per f64
    assert out.count("activemask.b32") == 1                        # once per basic block
    assert out.count("shfl.sync.down.b32") == 4
    assert "setp.eq.and.u32" in out and "%ntid.x" in out           # full warp and ntid.x % 32 == 0
    assert out.count("@!%shxp") == 2 and out.count("ld.global.nc.f64") == 3   # corner-case loads kept
    _, mod = parse("stencil1d5")
    mod, entries = rewrite(mod, 90, cost_model=False)
    out = ptxir.unparse(mod)
    for d in (1, 2, 3, 4):
        assert f", {d}, 0x1f, %shx" in out


def test_cost_model_keeps_every_load_on_sm90():
    text, mod = parse("gaussblur")
    mod, entries = rewrite(mod, 90)
    assert len(entries) == 20 and all(e.status == "kept" for e in entries)
    assert ptxir.unparse(mod) == text
    row = entries[0].as_json()
    assert row["kind"] == "load_shuffle" and row["status"] == "kept" and row["delta"] in range(-31, 32)
    assert "cost model" in row["reason"] and row["cost_after"] >= row["cost_before"] * 0.9


def test_no_opportunity_leaves_the_text_untouched():
    for name in ("vecadd", "matvec"):
        text, mod = parse(name)
        mod, entries = rewrite(mod, 90, cost_model=False)
        assert entries == [] and ptxir.unparse(mod) == text


# ---- soundness: each case must not be rewritten

PAIR = SIGNED + "\tld.global.f32 %f1, [%rd4];\n{mid}\tld.global.f32 %f2, [%rd4+4];\n\tadd.f32 %f3, %f1, %f2;"


def opps(body: str) -> list:
    return find(ptxir.parse(HEAD + body + TAIL, "k.ptx"))


def test_baseline_pair_is_found(tmp_path):
    body = PAIR.format(mid="")
    assert [o.delta for o in opps(body)] == [1]
    mod, _ = rewrite(ptxir.parse(HEAD + body + TAIL, "k.ptx"), 90, cost_model=False)
    ptxas_ok(ptxir.unparse(mod), tmp_path)


def test_line_info_labels_do_not_split_a_block():
    # nvcc -lineinfo and clang -g put `$L__tmpN:` labels between statements; no branch names them,
    # so the two loads are still one straight-line stretch
    assert len(opps(PAIR.format(mid=""))) == len(opps(PAIR.format(mid="$L__tmp1:\n"))) == 1
    # a label that a branch does reach starts a new block: the pair is split
    body = SIGNED + ("\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra {to};\n\tld.global.f32 %f1, [%rd4];\n$L__BB0_1:\n"
                     "\tld.global.f32 %f2, [%rd4+4];\n$L__BB0_2:\n\tadd.f32 %f3, %f1, %f2;")
    assert [o.delta for o in opps(body.format(to="$L__BB0_2"))] == [1]   # $L__BB0_1 unreferenced
    assert opps(body.format(to="$L__BB0_1")) == []


@pytest.mark.parametrize("case,body", [
    ("store between", PAIR.format(mid="\tst.global.f32 [%rd2], %f1;\n")),
    ("barrier between", PAIR.format(mid="\tbar.sync 0;\n")),
    ("atomic between", PAIR.format(mid="\tatom.global.add.u32 %r9, [%rd2], 1;\n")),
    ("different type", SIGNED + "\tld.global.f32 %f1, [%rd4];\n\tld.global.u32 %r9, [%rd4+4];\n"
                                "\tmov.b32 %f2, %r9;\n\tadd.f32 %f3, %f1, %f2;"),
    ("different branch", SIGNED + "\tld.global.f32 %f1, [%rd4];\n\tsetp.eq.s32 %p1, %r1, 0;\n"
                                  "\t@%p1 bra $L_x;\n\tld.global.f32 %f2, [%rd4+4];\n$L_x:\n\tadd.f32 %f3, %f1, %f2;"),
    ("predicated load", SIGNED + "\tld.global.f32 %f1, [%rd4];\n\tsetp.eq.s32 %p1, %r1, 0;\n"
                                 "\t@%p1 ld.global.f32 %f2, [%rd4+4];\n\tadd.f32 %f3, %f1, %f2;"),
    ("volatile", SIGNED + "\tld.volatile.global.f32 %f1, [%rd4];\n\tld.volatile.global.f32 %f2, [%rd4+4];\n"
                          "\tadd.f32 %f3, %f1, %f2;"),
    ("vector", SIGNED + "\tld.global.v2.f32 {%f1, %f4}, [%rd4];\n\tld.global.v2.f32 {%f2, %f5}, [%rd4+8];\n"
                        "\tadd.f32 %f3, %f1, %f2;"),
    ("non-affine index", "\tmul.lo.s32 %r9, %r4, %r4;\n\tmul.wide.s32 %rd3, %r9, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
                         "\tld.global.f32 %f1, [%rd4];\n\tld.global.f32 %f2, [%rd4+4];\n\tadd.f32 %f3, %f1, %f2;"),
    ("indirect index", SIGNED + "\tld.global.u32 %r9, [%rd4];\n\tmul.wide.s32 %rd5, %r9, 4;\n\tadd.s64 %rd6, %rd1, %rd5;\n"
                                "\tld.global.f32 %f1, [%rd6];\n\tld.global.f32 %f2, [%rd6+4];\n\tadd.f32 %f3, %f1, %f2;"),
    ("shared memory", SIGNED + "\tld.shared.f32 %f1, [%rd4];\n\tld.shared.f32 %f2, [%rd4+4];\n\tadd.f32 %f3, %f1, %f2;"),
])
def test_not_rewritten(case, body):
    assert opps(body) == [], case


def test_uniformly_loaded_offset_is_found():
    # y[off + i] and y[off + i + 1] with off loaded from a warp-uniform address: the loaded value is
    # the same function of (memory epoch, address) in every lane, so the pair is still provable.
    body = ("\tld.global.u32 %r9, [%rd1];\n\tadd.s32 %r10, %r9, %r4;\n\tmul.wide.s32 %rd3, %r10, 4;\n"
            "\tadd.s64 %rd4, %rd2, %rd3;\n\tld.global.f32 %f1, [%rd4];\n\tld.global.f32 %f2, [%rd4+4];\n"
            "\tadd.f32 %f3, %f1, %f2;")
    assert [o.delta for o in opps(body)] == [1]


def test_source_register_reused_before_the_load_is_kept(tmp_path):
    body = SIGNED + ("\tld.global.f32 %f1, [%rd4];\n\tadd.f32 %f5, %f1, %f1;\n\tmov.f32 %f1, 0f3F800000;\n"
                     "\tld.global.f32 %f2, [%rd4+4];\n\tadd.f32 %f3, %f5, %f2;")
    mod, entries = rewrite(ptxir.parse(HEAD + body + TAIL, "k.ptx"), 90, cost_model=False)
    out = ptxir.unparse(mod)
    assert len(entries) == 1 and "mov.b32\t%shx" in out      # A's value copied before %f1 is reused
    ptxas_ok(out, tmp_path)
