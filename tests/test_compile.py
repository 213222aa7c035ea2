"""`shflx compile` on the example kernels (patterns/kernels) for the six main targets, and on bad input.

Checks: a valid AMDGPU code object with the kernels and metadata; every shuffle site recognized,
lowered and reported with its source line; no marker survives; the final asm has no more
ds_bpermute than the --baseline build, none where no site needed the general lowering; DPP moves
are folded into their consumers where LLVM allows it."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from shflx.driver.amd import compile_file
from shflx.driver.report import instruction_counts
from shflx.errors import InputError, ToolchainError, UsageError
from shflx.frontend.clang import FrontendOptions

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "patterns" / "kernels"
FAMILIES = sorted(p.name for p in KERNELS.iterdir() if (p / "kernel.cu").exists())
TARGETS = ("gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1200")


@lru_cache(maxsize=None)
def build(family: str, arch: str, baseline: bool = False, emit: str = "asm"):
    return compile_file(KERNELS / family / "kernel.cu", arch, emit=emit, baseline=baseline)


@pytest.mark.parametrize("arch", TARGETS)
@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_compiles_and_every_site_is_lowered(family, arch):
    res = build(family, arch)
    assert "@__shflx_shfl_sync" not in res.ir        # (debug info may still name it)
    assert res.sites or res.chains, "each family has shuffles"
    for s in res.sites + res.chains:
        assert re.match(rf".*{family}/kernel\.cu:\d+:\d+$", s.location), s.location
        assert s.proof in ("proved", "exact by construction", "per site")
        assert s.cost is None or s.cost <= s.baseline_cost
    general = sum("exact general lowering" in s.lowering[0] for s in res.sites)
    counts = instruction_counts(res.output)
    if general == 0 and not any("ds_bpermute" in " ".join(s.lowering) for s in res.sites):
        assert counts["ds_bpermute"] == 0, (family, arch, counts)


@pytest.mark.parametrize("arch", ("gfx942", "gfx1100"))
def test_shflx_never_uses_more_bpermutes_than_the_baseline(arch):
    total_shflx = total_base = 0
    for family in FAMILIES:
        ours = instruction_counts(build(family, arch).output)["ds_bpermute"]
        base = instruction_counts(build(family, arch, baseline=True).output)["ds_bpermute"]
        assert ours <= base, (family, ours, base)
        total_shflx += ours
        total_base += base
    assert total_shflx < total_base / 3


def test_dpp_folds_into_the_consumer():
    asm = build("butterfly", "gfx1100").output
    assert re.search(r"v_(add|max)_\w+_dpp .*(quad_perm|row_)", asm), "a DPP move folded into an ALU op"


@pytest.mark.parametrize("arch", TARGETS)
def test_code_object_is_valid(arch):
    from shflx.codegen.inspect import inspect_code_object

    res = build("butterfly", arch, emit="hsaco")
    info = inspect_code_object(res.output)
    assert set(info.kernels) >= {"butterfly_sum_f32", "butterfly_max_i32_w16", "butterfly_or_u32_w8"}
    assert info.has_metadata_note


def test_dynamic_and_uniform_sites_use_the_exact_general_lowering():
    res = build("gather", "gfx942")
    assert [s.cls for s in res.sites] == ["dynamic"]
    res = build("runtime_broadcast", "gfx1100")            # a uniform lane with the full mask: readlane
    assert [s.cls for s in res.sites] == ["broadcast (uniform lane)"] * 3     # an argument; a ballot's leader; a broadcast
    assert instruction_counts(res.output)["ds_bpermute"] == 0 and instruction_counts(res.output)["readlane"] >= 3
    res = build("runtime_broadcast", "gfx942")             # wave64: the ballot and broadcast lanes differ between warps
    assert sorted(s.cls for s in res.sites) == ["broadcast (uniform lane)", "dynamic", "dynamic"]
    res = build("runtime_width", "gfx942")                 # a runtime width (a loop phi): the general lowering
    assert {s.cls for s in res.sites} <= {"uniform", "dynamic"}
    assert all("exact general lowering" in s.lowering[0] for s in res.sites)


def test_lane_only_operands_become_constant_maps():
    res = build("rotate", "gfx1100")
    assert {s.cls for s in res.sites} >= {"rotate", "constant map"}
    for s in res.sites:                      # proven plans, or the exact fallback as the best plan
        assert s.proof == "proved" or s.notes[0] == "nothing cheaper proven", (s.cls, s.notes)
        assert any("threadIdx.x % 32" in n for n in s.notes)
    assert any(s.proof == "proved" and s.cls == "rotate" for s in res.sites)


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "shflx", "compile", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_outputs_and_json_report(tmp_path):
    src = KERNELS / "downtree" / "kernel.cu"
    r = run(str(src), "--offload-arch", "gfx942", "--offload-arch", "gfx1200", "-o", str(tmp_path / "k.hsaco"),
            "--report", "json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert [e["arch"] for e in rep] == ["gfx942", "gfx1200"]
    assert (tmp_path / "k.gfx942.hsaco").stat().st_size > 0 and (tmp_path / "k.gfx1200.hsaco").exists()
    site = rep[0]["sites"][0]
    assert set(site) >= {"location", "cuda", "class", "lowering", "cost", "baseline_cost", "proof"}
    r = run(str(src), "--offload-arch", "gfx1100", "--emit", "llvm", "-o", str(tmp_path / "k.ll"))
    assert r.returncode == 0 and "llvm.amdgcn" in (tmp_path / "k.ll").read_text()


@pytest.mark.parametrize("source, args, code, fragment", [
    ("__global__ void k(int *p) { p[0] = 1 }\n", (), 2, "expected ';'"),
    ('__global__ void k(int **p) { p[0] = (int *)malloc(4); }\n', (), 2, "shflx does not support 'malloc' in device code on AMD targets"),
    ('struct S { int v; };\n__global__ void k(S **p) {\n  p[0] = new S;\n}\n', (), 2,
     "bad.cu:3:10: error: shflx does not support 'operator new' in device code on AMD targets (the device heap"),
    ('struct S { int v; };\n__global__ void k(S **p) {\n  delete p[0];\n}\n', (), 2,
     "bad.cu:3:3: error: shflx does not support 'operator delete' in device code on AMD targets"),
    ("__global__ void k(int *p) { p[0] = __shfl_sync(0xffffffff, p[1], 0); }\n", ("--offload-arch", "gfx999"), 2,
     "unknown --offload-arch 'gfx999'; known: gfx801"),
    ("__global__ void k(int *p) { p[0] = 0; }\n", ("--llvm-bin", "/nonexistent"), 2, "--llvm-bin=/nonexistent"),
])
def test_bad_input_gets_a_clear_error_and_no_output(tmp_path, source, args, code, fragment):
    src = tmp_path / "bad.cu"
    src.write_text(source)
    out = tmp_path / "bad.hsaco"
    arch = () if "--offload-arch" in args else ("--offload-arch", "gfx942")
    r = run(str(src), *arch, *args, "-o", str(out))
    assert r.returncode == code and fragment in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not out.exists()


def test_unreadable_and_binary_inputs(tmp_path):
    r = run(str(tmp_path / "missing.cu"), "--offload-arch", "gfx942")
    assert r.returncode == 2 and "missing.cu" in r.stderr
    blob = tmp_path / "blob.cu"
    blob.write_bytes(bytes(range(256)) * 4)
    r = run(str(blob), "--offload-arch", "gfx942")
    assert r.returncode == 2 and "blob.cu" in r.stderr and "Traceback" not in r.stderr


def test_inline_ptx_shuffles_are_lowered_and_other_ptx_is_named(tmp_path):
    src = tmp_path / "asm.cu"
    src.write_text("""__global__ void k(int *p) {
  int v = p[threadIdx.x], r, q;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(16), "r"(31), "r"(0xffffffff));
  asm volatile("shfl.sync.idx.b32 %0, %1, 3, 0x181f, 0xffffffff;" : "=r"(q) : "r"(r));
  p[threadIdx.x] = q;
}
""")
    res = compile_file(src, "gfx1100", emit="asm")
    assert [s.location.split(":")[-2] for s in res.sites] == ["3", "4"]
    assert all(s.proof == "proved" for s in res.sites)
    assert instruction_counts(res.output)["ds_bpermute"] == 0
    bad = tmp_path / "bad.cu"
    bad.write_text('__global__ void k(int *p) {\n  int r;\n  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));\n  p[0] = r;\n}\n')
    with pytest.raises(InputError) as e:
        compile_file(bad, "gfx1100")
    assert "bad.cu:3" in str(e.value) and "mov.u32" in str(e.value)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_inline_ptx_laneid_is_the_cuda_lane(arch):
    """cub::LaneId()'s `mov.u32 %0, %%laneid;` becomes the lane in the hardware wave & 31, so a
    source lane computed from it is a lane-only operand (proved, no threadIdx.x note)."""
    res = build("lane_arith", arch)
    from_laneid = [s for s in res.sites if not any("threadIdx.x" in n for n in s.notes)]
    assert len(from_laneid) == 2 and all(s.proof == "proved" for s in from_laneid)
    assert "%laneid" not in res.ir and "llvm.amdgcn.mbcnt.lo" in res.ir


def test_directories_compile_in_parallel(tmp_path):
    out = tmp_path / "out"
    r = run(str(KERNELS / "shift"), str(KERNELS / "scan"), "--offload-arch", "gfx942", "-o", str(out), "-j", "2")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["scan_kernel.gfx942.hsaco", "shift_kernel.gfx942.hsaco"]
    # progress only past ~2 s (driver.progress), over the run, one line per finished job in a log
    assert "[2/2]" not in r.stderr and all(ln.startswith("compile: ") for ln in r.stderr.splitlines())


def test_doctor_names_every_part():
    r = subprocess.run([sys.executable, "-m", "shflx", "doctor"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    for part in ("clang", "ld.lld", "llvmlite", "z3-solver", "AMD GPU", "plan cache"):
        assert part in r.stdout


def test_llvm_ir_from_hip_gets_its_lane_only_bpermutes_replaced(tmp_path):
    """tests/data/hip_shuffles.ll: a ds.bpermute with address (lane ^ 5) << 2 (HIP's __shfl_xor) and
    one rotating all 64 lanes (crosses halves: kept, it is already exact)."""
    res = compile_file(ROOT / "tests" / "data" / "hip_shuffles.ll", "gfx942", emit="asm")
    assert [s.proof for s in res.sites] == ["proved", "unchanged"]
    assert "crosses 32-lane halves" in res.sites[1].notes[0]
    assert instruction_counts(res.output)["ds_bpermute"] == 1
    nv = tmp_path / "nv.ll"
    nv.write_text('target triple = "nvptx64-nvidia-cuda"\n')
    with pytest.raises(InputError, match="not AMDGPU LLVM IR"):
        compile_file(nv, "gfx942")


def test_hand_written_bpermute_next_to_cuda_shuffles(tmp_path):
    src = tmp_path / "mixed.cu"
    src.write_text("""__global__ void k(int *p) {
  int v = p[threadIdx.x];
  int a = __builtin_amdgcn_ds_bpermute((int)((__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)) ^ 1) << 2), v);
  p[threadIdx.x] = a + __shfl_xor_sync(0xffffffff, v, 2);
}
""")
    res = compile_file(src, "gfx1100", emit="asm")
    assert sorted(s.proof for s in res.sites) == ["proved", "proved"]
    assert instruction_counts(res.output)["ds_bpermute"] == 0


def test_undefined_device_functions_fail_loudly(tmp_path):
    src = tmp_path / "ext.cu"
    src.write_text("__device__ int helper(int);\n__global__ void k(int *p) { p[0] = helper(p[1]); }\n")
    out = tmp_path / "ext.hsaco"
    r = run(str(src), "--offload-arch", "gfx942", "-o", str(out))
    assert r.returncode == 2 and "undefined device function" in r.stderr and "helper" in r.stderr
    assert not out.exists()


def test_amdgpu_inline_asm_compiles_and_bad_asm_is_named(tmp_path):
    src = tmp_path / "asm.cu"
    src.write_text('__global__ void k(int *p) {\n  int r;\n  asm volatile("v_mov_b32 %0, 7" : "=v"(r));\n'
                   '  p[0] = r + __shfl_xor_sync(0xffffffff, p[1], 1);\n}\n')
    out = tmp_path / "asm.hsaco"
    r = run(str(src), "--offload-arch", "gfx942", "-o", str(out))
    assert r.returncode == 0 and out.stat().st_size > 0, r.stderr
    bad = tmp_path / "bad.cu"
    bad.write_text('__global__ void k(int *p) {\n  int r;\n  asm volatile("bogus.instr %0" : "=v"(r));\n  p[0] = r;\n}\n')
    r = run(str(bad), "--offload-arch", "gfx942", "-o", str(tmp_path / "bad.hsaco"))
    assert r.returncode == 2 and "invalid instruction" in r.stderr and not (tmp_path / "bad.hsaco").exists()


def test_a_lane_dependent_load_is_never_taken_as_uniform(tmp_path):
    """The readlane special case needs a warp-uniform lane: a per-lane table read is not one."""
    src = tmp_path / "tbl.cu"
    src.write_text("__constant__ int table[64];\n"
                   "__global__ void k(int *p) { p[threadIdx.x] = __shfl_sync(0xffffffff, p[threadIdx.x], "
                   "table[threadIdx.x & 63]); }\n")
    res = compile_file(src, "gfx1100", emit="asm")
    assert [s.cls for s in res.sites] == ["dynamic"]
    assert "exact general lowering" in res.sites[0].lowering[0]


def test_prefer_lds_free_compiles_a_row_swap_without_the_lds(tmp_path):
    """`--prefer lds-free`: CUDA's xor 16 on gfx942 becomes DPP wave-shift chains instead of one
    ds_swizzle (the cheapest plan), and the report says so."""
    src = tmp_path / "swap.cu"
    src.write_text("__global__ void k(int *p) {\n  int v = p[threadIdx.x];\n"
                   "  p[threadIdx.x] = __shfl_xor_sync(0xffffffff, v, 16);\n}\n")
    cheapest = compile_file(src, "gfx942", emit="asm")
    free = compile_file(src, "gfx942", emit="asm", prefer="lds-free")
    assert instruction_counts(cheapest.output)["ds_swizzle"] == 1
    counts = instruction_counts(free.output)
    assert counts["ds_swizzle"] == 0 and counts["ds_bpermute"] == 0 and counts["dpp"] >= 16, counts
    assert all(s.proof == "proved" for s in free.sites)
