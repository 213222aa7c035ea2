"""`shflx compile` as a compiler: quiet on success, remarks with -Rpass=shflx, -E, -MD, target IDs,
-g0, -mcode-object-version, and outputs that name no path of the installed package."""
from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from shflx.driver.report import instruction_counts
from shflx.frontend.clang import INCLUDE

ROOT = Path(__file__).resolve().parents[1]
HELPER = '''#include "helper.h"
__global__ void k(int *p) {
  int v = p[threadIdx.x];
  p[threadIdx.x] = rotate(v);
}
'''
HEADER = '''#pragma once
__device__ inline int rotate(int v) {
  return __shfl_sync(0xffffffff, v, (threadIdx.x + 1) & 31);
}
'''


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "shflx", "compile", *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture
def src(tmp_path):
    (tmp_path / "helper.h").write_text(HEADER)
    path = tmp_path / "k.cu"
    path.write_text(HELPER)
    return path


def elf_flags(blob: bytes) -> tuple[int, int]:
    """(EI_ABIVERSION, e_flags) of a 64-bit ELF: the code object version and the target ID bits."""
    assert blob[:4] == b"\x7fELF"
    return blob[8], struct.unpack_from("<I", blob, 48)[0]


def test_quiet_success_remarks_at_the_inner_line_and_report_file(src, tmp_path):
    report = tmp_path / "r.json"
    r = run(str(src), "--offload-arch=gfx942", "-o", str(tmp_path / "k.hsaco"), "-Rpass=shflx",
            "--report", "json", "--report-file", str(report))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    remark = [ln for ln in r.stderr.splitlines() if "remark:" in ln]
    # the shuffle is on helper.h line 3, inlined into k.cu line 4: the remark points at the header
    assert len(remark) == 1 and remark[0].startswith(f"{tmp_path / 'helper.h'}:3:") and remark[0].endswith("[-Rpass=shflx]")
    assert f"{src}:4:" in r.stderr and "note: inlined from here" in r.stderr
    (entry,) = json.loads(report.read_text())          # always a list (docs/report-schema.md)
    assert entry["sites"][0]["inlined"][0].startswith(f"{tmp_path / 'helper.h'}:3:")
    # one convention (issue 27): the report places the site where the remark does, the user's
    # innermost line; the kernel line it was inlined into follows in `inlined`
    assert entry["sites"][0]["location"].startswith(f"{tmp_path / 'helper.h'}:3:")
    assert entry["sites"][0]["inlined"][1].startswith(f"{src}:4:") and entry["sites"][0]["intrinsic"] == "__shfl_sync"
    r = run(str(src), "--offload-arch=gfx942", "-o", str(tmp_path / "k.hsaco"))
    assert r.returncode == 0 and r.stdout == "" and "remark" not in r.stderr


def test_a_kept_ds_bpermute_remark_says_why(tmp_path):
    """The JSON report has the reason a site keeps the exact general lowering; so does its remark."""
    src = tmp_path / "d.cu"
    src.write_text("__global__ void k(const int *in, int *out) {\n  int v = in[threadIdx.x];\n"
                   "  out[threadIdx.x] = __shfl_sync(0xffffffff, v, v & 31) + __shfl_xor_sync(0xffffffff, v, 1);\n}\n")
    r = run(str(src), "--offload-arch=gfx942", "-o", str(tmp_path / "d.hsaco"), "-Rpass=shflx")
    assert r.returncode == 0, r.stderr
    texts = [ln.split(" remark: ", 1)[1] for ln in r.stderr.splitlines() if " remark: " in ln]
    kept, moved = sorted(texts, key=lambda ln: "ds_bpermute" not in ln)
    assert "ds_bpermute" in kept and " because the source lane or width differs between lanes at run time;" in kept
    assert "ds_bpermute" not in moved and " because " not in moved


def test_no_install_path_in_outputs_and_g0_drops_line_tables(src, tmp_path):
    out = tmp_path / "k.hsaco"
    assert run(str(src), "--offload-arch=gfx1100", "-o", str(out)).returncode == 0
    blob = out.read_bytes()
    assert str(INCLUDE).encode() not in blob and str(INCLUDE.parent).encode() not in blob
    assert b".debug_line" in blob                              # line tables by default
    assert run(str(src), "--offload-arch=gfx1100", "-o", str(tmp_path / "twice.hsaco")).returncode == 0
    assert (tmp_path / "twice.hsaco").read_bytes() == blob     # deterministic
    assert run(str(src), "--offload-arch=gfx1100", "-o", str(out), "-g0").returncode == 0
    assert b".debug_line" not in out.read_bytes() and b".debug_info" not in out.read_bytes()
    again = tmp_path / "again.hsaco"
    assert run(str(src), "--offload-arch=gfx1100", "-o", str(again), "-g0").returncode == 0
    assert again.read_bytes() == out.read_bytes()              # deterministic


def test_target_ids_and_code_object_versions_reach_the_elf(src, tmp_path):
    r = run(str(src), "--offload-arch=gfx90a:xnack+,gfx90a:sramecc-:xnack-", "-o", str(tmp_path / "k.hsaco"),
            "-mcode-object-version=4")
    assert r.returncode == 0, r.stderr
    on, off = (elf_flags((tmp_path / name).read_bytes()) for name in ("k.gfx90a:xnack+.hsaco",
                                                                       "k.gfx90a:sramecc-:xnack-.hsaco"))
    # EI_ABIVERSION 2 = code object v4; e_flags xnack bits 8-9 (0x300 on, 0x200 off), sramecc 10-11
    assert on[0] == 2 and off[0] == 2
    assert on[1] & 0x300 == 0x300 and off[1] & 0x300 == 0x200 and off[1] & 0xC00 == 0x800
    assert run(str(src), "--offload-arch=gfx90a", "-o", str(tmp_path / "v6.hsaco"),
               "-mcode-object-version=6").returncode == 0
    assert elf_flags((tmp_path / "v6.hsaco").read_bytes())[0] == 4


def test_preprocess_and_depfile(src, tmp_path):
    r = run(str(src), "--offload-arch=gfx942", "-E", "-DEXTRA=1")
    assert r.returncode == 0 and "rotate(int v)" in r.stdout and "# 1 " in r.stdout
    dep = tmp_path / "k.d"
    r = run(str(src), "--offload-arch=gfx942", "-o", str(tmp_path / "k.hsaco"), "-MMD", "-MF", str(dep),
            "-MT", "k.hsaco")
    assert r.returncode == 0, r.stderr
    text = dep.read_text()
    assert text.startswith("k.hsaco:") and "helper.h" in text and str(src) in text


def test_response_file_and_unknown_flag_on_the_command_line(src, tmp_path):
    rsp = tmp_path / "args.rsp"
    rsp.write_text(f"--offload-arch=gfx942 -o {tmp_path / 'k.s'} -S")
    r = run(str(src), f"@{rsp}")
    assert r.returncode == 0, r.stderr
    counts = instruction_counts((tmp_path / "k.s").read_text())
    assert counts["ds_bpermute"] == 0 and counts["dpp"] + counts["permlane"] > 0
    r = run(str(src), "--offload-arch=gfx942", "-gencodex", "-o", str(tmp_path / "x.hsaco"))
    assert r.returncode == 2 and r.stderr == "shflx: error: unknown flag '-gencodex'\n"
    assert not (tmp_path / "x.hsaco").exists()


def test_nvidia_flags_reach_ptxas(src, tmp_path):
    from conftest import ptxas_path
    if ptxas_path() is None:
        pytest.skip("no ptxas")
    out = tmp_path / "k.cubin"
    r = run(str(src), "-gencode", "arch=compute_90,code=sm_90", "-Xptxas", "-warn-spills", "-o", str(out))
    assert r.returncode == 0 and out.read_bytes()[:4] == b"\x7fELF", r.stderr
    r = run(str(src), "-arch=sm_90", "-Xptxas", "--no-such-ptxas-option", "-o", str(tmp_path / "bad.cubin"))
    assert r.returncode == 2 and "no-such-ptxas-option" in r.stderr and not (tmp_path / "bad.cubin").exists()


def test_time_report_gives_each_stage_and_the_total_on_stderr_only(src, tmp_path):
    report = tmp_path / "r.json"
    r = run(str(src), "--offload-arch=gfx942", "-o", str(tmp_path / "k.hsaco"), "--time-report",
            "--report", "json", "--report-file", str(report))
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0] == f"shflx: time report for {src} (gfx942):", lines
    rows = {ln.split("  ")[1].strip(): float(ln.split()[-3] if ln.endswith("%") else ln.split()[-2])
            for ln in lines[1:] if ln.startswith("  ")}
    assert list(rows)[:1] == ["front end (clang)"] and {"code generation", "link (ld.lld)"} <= set(rows)
    assert "libdevice" not in rows                   # a stage that did not run has no row
    assert abs(rows.pop("total") - sum(rows.values())) < 0.01
    assert "times" not in json.loads(report.read_text())[0]        # a console report, not a schema field
    quiet = run(str(src), "--offload-arch=gfx942", "-o", str(tmp_path / "k.hsaco"))
    assert quiet.returncode == 0 and quiet.stderr == ""
