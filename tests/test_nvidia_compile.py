"""`shflx compile --offload-arch sm_NN`: CUDA -> NVPTX IR (clang) -> shflx rewrites -> PTX (llvmlite)
-> cubin (ptxas, where installed), on the example kernels and on bad input.

Checks: every family compiles and every marker becomes one shfl.sync; the PTX parses (shflx's own
reader) and ptxas accepts it; per-lane source lanes from %laneid get immediate operands only when
one uniform shfl.sync reads the same lane on all 32 lanes (hypothesis over lane arithmetic), the
threadIdx.x ones are kept; whole-warp integer reductions become redux.sync where the target has
it and stay shuffles, with the reason, where it does not."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from shflx.cuda import shfl_sync
from shflx.errors import InputError, ToolchainError, UsageError
from shflx.nvidia import ptxir
from shflx.frontend.clang import FrontendOptions
from shflx.driver.nvidia import compile_cuda, cuda_headers, synthesize_site
from shflx.ir.evaluate import Operand
from shflx.ir.sites import Site
from tests.reference.cuda_ref import MODES as REF_MODES, ref_shfl

from conftest import ptxas_path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "patterns" / "kernels"
FAMILIES = sorted(p.name for p in KERNELS.iterdir() if (p / "kernel.cu").exists())
HAVE_PTXAS = ptxas_path() is not None


@lru_cache(maxsize=None)
def build(family: str, arch: str = "sm_90", emit: str = "ptx", baseline: bool = False):
    return compile_cuda(KERNELS / family / "kernel.cu", arch, emit=emit, baseline=baseline)


def shfl_lines(ptx: str) -> list[str]:
    return [ln.strip() for ln in ptx.splitlines() if re.match(r"\s*(@\S+\s+)?shfl\.sync\.", ln)]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_compiles_to_ptx_with_every_site_reported(family):
    res = build(family)
    assert "@__shflx_shfl_sync(" not in res.ir
    assert res.sites or res.chains or family == "hw_reduce"
    module = ptxir.parse(res.output, f"{family}.ptx")                 # our reader takes LLVM's PTX
    assert module.target == "sm_90" and module.version == "8.0"      # CUDA 12.0's, as NVIDIA's headers need
    assert ptxir.unparse(module) == res.output                         # and round-trips it exactly
    marker_sites = [s for s in res.sites if "inline asm" not in s.location]
    for s in marker_sites:
        assert re.match(rf".*{family}/kernel\.cu:\d+:\d+$", s.location), s.location
        assert s.cost <= s.baseline_cost
        assert s.lowering[0].startswith("shfl.sync.")
    rewritten = [c for c in res.chains if c.cost is not None]
    assert len(shfl_lines(res.output)) >= len(marker_sites)             # LLVM may duplicate, never drop
    assert res.output.count("redux.sync.") >= len(rewritten)


@pytest.mark.skipif(not HAVE_PTXAS, reason="ptxas not installed")
@pytest.mark.parametrize("family", ["chains", "lane_arith", "ptx_predicated", "hw_reduce", "butterfly"])
def test_cubin_assembles_and_reports_registers(family):
    res = build(family, emit="cubin")
    assert res.output[:4] == b"\x7fELF"
    assert res.kernels and all(k["registers"] and k["registers"] > 0 for k in res.kernels)


def test_laneid_arithmetic_gets_immediate_operands_threadidx_is_kept():
    res = build("lane_arith")
    by_col = {s.location.rsplit(":", 2)[1] + ":" + s.location.rsplit(":", 1)[1]: s for s in res.sites}
    assert len(res.sites) == 4
    proved = [s for s in res.sites if s.proof.startswith("proved")]
    kept = [s for s in res.sites if s.proof == "unchanged"]
    assert len(proved) == 2 and len(kept) == 2, by_col
    assert sorted(s.lowering[0].split(",")[2].strip() for s in proved) == ["0x1", "0x2"]
    assert all("threadIdx.x" in " ".join(s.notes) for s in kept)
    lines = shfl_lines(res.output)
    assert any(re.search(r"shfl\.sync\.bfly\.b32\s+%r\d+, %r\d+, 1, 31, -1;", ln) for ln in lines), lines
    assert any(re.search(r"shfl\.sync\.idx\.b32\s+%r\d+, %r\d+, 2, 6175, -1;", ln) for ln in lines), lines
    base = build("lane_arith", baseline=True)
    assert all(s.proof == "unchanged" for s in base.sites)


@lru_cache(maxsize=None)
def uniform_maps() -> frozenset[tuple[int, ...]]:
    """Every 32-lane source map that one shfl.sync with uniform b and c realizes, from the
    independent reference (tests/reference/cuda_ref.py), not from shflx.cuda: each mode x b[4:0]
    x c[4:0] x c[12:8], all the bits of b and c that count. Built once (~2 s), on first use."""
    return frozenset(tuple(ref_shfl(m, b, (seg << 8) | clamp)[0])
                     for m in REF_MODES for b in range(32) for seg in range(32) for clamp in range(32))


def _lane_site(b_lanes: np.ndarray, c: int, mode: int = 3) -> Site:
    return Site("k", 0, "%r", Operand("const", mode, text=str(mode)), Operand("const", -1, text="-1"), "%v",
                Operand("lane", lanes=tuple(int(v) & 0xFFFFFFFF for v in b_lanes), text="%b"),
                Operand("const", c, text=str(c)))


@settings(max_examples=300, deadline=None)
@given(op=st.sampled_from(["xor", "and", "or", "add", "mul"]), k=st.integers(0, 63),
       k2=st.integers(0, 31), width=st.sampled_from([1, 2, 4, 8, 16, 32]),
       mode=st.sampled_from([0, 1, 2, 3]))
def test_synthesized_operands_read_the_same_lane_on_every_lane(op, k, k2, width, mode):
    lane = np.arange(32)
    b = {"xor": lane ^ k, "and": (lane & k) | k2, "or": lane | k, "add": lane + k, "mul": lane * k + k2}[op]
    clamp = 0 if mode == 0 else 31
    c = ((32 - width) << 8) | clamp
    site = _lane_site(b, c, mode)
    found = synthesize_site(site)
    want, _ = shfl_sync(("up", "down", "bfly", "idx")[mode], b, c)
    assert list(want) == ref_shfl(("up", "down", "bfly", "idx")[mode], [int(v) for v in b], c)[0]
    if found is None:          # then no uniform shfl.sync reads the same lanes (b from %laneid here)
        if not site.b.from_tid:
            assert tuple(int(v) for v in want) not in uniform_maps(), (op, k, k2, width, mode, want.tolist())
        return
    shfl, proof = found
    got, _ = shfl_sync(shfl.mode, int(shfl.b), int(shfl.c))
    assert np.array_equal(got, want), (op, k, k2, width, mode, shfl)
    assert shfl.mask == "-1" and proof.startswith("proved")


def test_from_threadidx_is_never_synthesized():
    lane = np.arange(32)
    site = _lane_site(lane ^ 1, 0x1F)
    assert synthesize_site(site) is not None
    site.b = Operand("lane", lanes=tuple(lane ^ 1), text="%b", from_tid=True)
    assert synthesize_site(site) is None


def test_integer_reduction_becomes_redux_sync_only_where_it_exists():
    res = build("chains")
    lane0 = next(c for c in res.chains if c.function == "lane0_max")
    assert lane0.status == "re-synthesized" and lane0.family == "redux.sync"
    assert lane0.cost < lane0.step_by_step_cost
    assert re.search(r"redux\.sync\.max\.s32\s+%r\d+, %r\d+, (-1|%r\d+);", res.output)
    assert "threadIdx.x" in lane0.reason and "%ntid.y" in res.output     # `lane == 0` from threadIdx.x
    fsum = next(c for c in res.chains if c.function == "fsum_reassoc")
    assert fsum.cost is None and "float add" in fsum.reason
    fmax = next(c for c in res.chains if c.function == "fmax_butterfly")
    assert fmax.cost is None and "sm_90" in fmax.reason
    old = build("chains", "sm_75")                                   # no redux.sync before sm_80
    assert all(c.cost is None for c in old.chains)
    assert "redux.sync" not in old.output
    assert any("sm_75" in c.reason for c in old.chains)


def test_redux_kernels_every_reduction_rewritten_lane0_ones_guarded():
    """hw_tests/nvidia/redux_kernels.cu: *_r kernels are whole-warp reductions on their live lanes,
    *_keep ones are not; lane-0 uses read off threadIdx.x get the block-shape guard, butterflies and
    broadcasts from lane 0 do not. (clang sinks the last combine under the lane-0 branch here.)"""
    res = compile_cuda(ROOT / "hw_tests" / "nvidia" / "redux_kernels.cu", "sm_90", emit="ptx")
    by_fn = {c.function: c for c in res.chains}
    for name, c in by_fn.items():
        if name.endswith("_keep"):
            assert c.cost is None, (name, c.reason)
            continue
        assert c.status == "re-synthesized" and c.family == "redux.sync", (name, c.reason)
        assert ("threadIdx.x" in c.reason) == name.startswith("down0_"), (name, c.reason)
    assert len(by_fn) == 22
    module = ptxir.parse(res.output, "redux.ptx")
    for fn in module.functions:
        reds = [i for i in fn.instructions() if i.base == "redux"]
        if fn.name.startswith("down0_"):        # the fallback chain is a separate path: branch, no predicates
            assert len(reds) == 1 and any(i.base == "shfl" for i in fn.instructions())
            assert any(i.base == "bra" for i in fn.instructions())


def test_f32_max_butterfly_becomes_redux_sync_f32_on_sm_100a():
    res = build("chains", "sm_100a")
    fmax = next(c for c in res.chains if c.function == "fmax_butterfly")
    assert fmax.status == "re-synthesized", fmax.reason
    assert re.search(r"redux\.sync\.max\.f32\s+%r\d+, %r\d+, (-1|%r\d+);", res.output)


def test_baseline_keeps_every_shuffle():
    ours, base = build("downtree"), build("downtree", baseline=True)
    assert "redux.sync" not in base.output and "redux.sync" in ours.output
    assert len(shfl_lines(base.output)) > len(shfl_lines(ours.output))


# ------------------------------------------------------------------------------ CLI and bad input

def run(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "shflx", "compile", *args], capture_output=True, text=True,
                          cwd=cwd, env=env)


def test_cli_json_report_for_amd_and_nvidia_together(tmp_path):
    src = KERNELS / "chains" / "kernel.cu"
    r = run(str(src), "--offload-arch", "sm_90", "--offload-arch", "gfx942", "--emit", "llvm",
            "-o", str(tmp_path / "k.ll"), "--report", "json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert [e["arch"] for e in rep] == ["sm_90", "gfx942"]
    assert "nvptx64-nvidia-cuda" in (tmp_path / "k.sm_90.ll").read_text()
    assert rep[0]["summary"]["cost"] < rep[0]["summary"]["baseline_cost"]
    assert any(c["family"] == "redux.sync" for c in rep[0]["chains"])


def test_cli_ptx_output_and_text_report(tmp_path):
    out = tmp_path / "k.ptx"
    report = tmp_path / "report.txt"
    r = run(str(KERNELS / "lane_arith" / "kernel.cu"), "--offload-arch", "sm_90", "--emit", "ptx", "-o", str(out),
            "--report-file", str(report))
    assert r.returncode == 0, r.stderr
    assert out.read_text().startswith("//") and ".target sm_90" in out.read_text()
    assert r.stdout == ""                                  # quiet on success: the report is in the file
    text = report.read_text()
    assert "lane_arith/kernel.cu:15:12" in text and "as written" in text


@pytest.mark.parametrize("args, words", [
    (["--offload-arch", "sm_99"], ["unknown --offload-arch 'sm_99'", "sm_90", "sm_100a"]),
    (["--offload-arch", "sm_90", "--emit", "hsaco"], ["invalid value 'hsaco' for --emit with NVIDIA target sm_90",
                                                      "cubin, ptx, llvm"]),
    (["--offload-arch", "gfx942", "--emit", "cubin"], ["invalid value 'cubin' for --emit with AMD target gfx942",
                                                       "hsaco, obj, asm, llvm"]),
])
def test_bad_target_or_emit_is_a_usage_error(tmp_path, args, words):
    out = tmp_path / "k.out"
    r = run(str(KERNELS / "shift" / "kernel.cu"), *args, "-o", str(out))
    assert r.returncode == 2, (r.returncode, r.stderr)
    for w in words:
        assert w in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not out.exists()


def test_source_error_names_file_and_line(tmp_path):
    src = tmp_path / "bad.cu"
    src.write_text("extern \"C\" __global__ void k(int *o) {\n  o[0] = undefined_name;\n}\n")
    out = tmp_path / "bad.ptx"
    r = run(str(src), "--offload-arch", "sm_90", "--emit", "ptx", "-o", str(out))
    assert r.returncode == 2 and f"{src}:2:" in r.stderr and not out.exists()


def test_precise_math_without_the_cuda_headers_is_named(tmp_path, monkeypatch):
    """The shflx prelude (no shflx[cuda]) has no libdevice: precise expf is an error naming __expf."""
    import shflx.driver.nvidia as nv
    monkeypatch.setattr(nv, "cuda_headers", lambda opts: None)
    src = tmp_path / "m.cu"
    src.write_text("extern \"C\" __global__ void k(float *o) {\n  o[0] = expf(o[1]);\n}\n")
    with pytest.raises(InputError) as e:
        nv.compile_cuda(src, "sm_90", emit="ptx")
    assert "expf" in str(e.value) and "__expf" in str(e.value)


@pytest.mark.skipif(cuda_headers(FrontendOptions()) is None, reason="NVIDIA's CUDA headers are not installed "
                    "(pip install 'shflx[cuda]')")
def test_precise_math_with_the_cuda_headers_is_libdevices(tmp_path):
    """With NVIDIA's headers, expf is libdevice's __nv_expf (linked and inlined): no call is left,
    and it is not the one-instruction __expf (ex2.approx alone)."""
    src = tmp_path / "m.cu"
    src.write_text("extern \"C\" __global__ void k(float *o) {\n  o[0] = expf(o[1]);\n}\n")
    ptx = compile_cuda(src, "sm_90", emit="ptx").output
    assert "call" not in ptx.split(".entry k", 1)[1]
    assert "ex2.approx" in ptx and ptx.count("fma.rn") >= 2


def test_amdgpu_ir_given_for_an_nvidia_target(tmp_path):
    ll = tmp_path / "a.ll"
    ll.write_text('target triple = "amdgcn-amd-amdhsa"\n')
    with pytest.raises(InputError, match="not NVPTX LLVM IR"):
        compile_cuda(ll, "sm_90", emit="ptx")


def test_missing_ptxas_is_a_toolchain_error_and_leaves_no_output(tmp_path, monkeypatch):
    monkeypatch.setenv("SHFLX_PTXAS", str(tmp_path / "no-ptxas"))     # the CLI child inherits it
    out = tmp_path / "k.cubin"
    r = run(str(KERNELS / "shift" / "kernel.cu"), "--offload-arch", "sm_90", "-o", str(out))
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "SHFLX_PTXAS" in r.stderr and not out.exists()
    with pytest.raises(ToolchainError):
        compile_cuda(KERNELS / "shift" / "kernel.cu", "sm_90", emit="cubin")


def test_unknown_emit_in_the_api():
    with pytest.raises(UsageError):
        compile_cuda(KERNELS / "shift" / "kernel.cu", "sm_90", emit="obj")


def test_load_shuffle_opportunities_found_in_clangs_ptx_with_cuda_lines():
    """The PTX pass runs on the PTX LLVM wrote: wave13pt's four x-neighbour loads (as in nvcc's PTX,
    benchmarks/nvidia) are found, proven, and kept by the cost model, each at its CUDA line."""
    res = compile_cuda(ROOT / "benchmarks" / "nvidia" / "kernels" / "wave13pt.cu", "sm_90", emit="ptx",
                       load_shuffle=True)
    assert sorted(e["delta"] for e in res.loads) == [-2, -1, 1, 2]
    assert all(e["status"] == "kept" and "cost model" in e["reason"] for e in res.loads)
    assert {e["source_location"].rsplit(":", 2)[1] for e in res.loads} == {"14", "15"}


def test_sqrtf_and_division_are_ieee_as_nvccs_defaults(tmp_path):
    """nvcc's -prec-sqrt=true and -prec-div=true: sqrtf is sqrt.rn.f32 and `/` div.rn.f32 in the
    PTX, never the .approx forms (clang's CUDA mode alone gives sqrt.approx.f32)."""
    from conftest import compile_for
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float *p) { p[0] = sqrtf(p[1]); p[2] = p[3] / p[4]; p[5] = sqrt(p[6]); }\n")
    ptx = compile_for(src, "sm_90").output
    assert re.search(r"\bsqrt\.rn\.f32\b", ptx) and re.search(r"\bdiv\.rn\.f32\b", ptx), ptx
    assert ".approx" not in ptx
