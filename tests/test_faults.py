"""Bad input and environment faults, tried as a new user would (issue 13, item 5): each is a clear
one-line error naming the file or setting with a non-zero exit, or keeps working where that is the
promise (a plan cache that cannot be used only costs speed). Never a traceback or an "internal
error", never a partial output, never a changed input."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import clean_error

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "patterns" / "kernels" / "butterfly" / "kernel.cu"
PLAN = ROOT / "patterns" / "plans" / "correct" / "gfx90a_xor5_two_dpp.json"


def shflx(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    for k, v in list(full.items()):
        if v is None:
            del full[k]
    return subprocess.run([sys.executable, "-m", "shflx", *args], capture_output=True, text=True, env=full,
                          cwd=cwd)


@pytest.fixture
def src(tmp_path) -> Path:
    p = tmp_path / "k.cu"
    shutil.copy(KERNEL, p)
    return p


def test_output_equal_to_the_input_is_refused_and_the_input_kept(src):
    before = src.read_bytes()
    clean_error(shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(src)), 2, "would overwrite the input")
    assert src.read_bytes() == before


def test_output_that_is_an_existing_directory_is_refused(src, tmp_path):
    (tmp_path / "out").mkdir()
    clean_error(shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(tmp_path / "out")), 2, "is a directory")
    assert list((tmp_path / "out").iterdir()) == []


def test_output_that_cannot_be_written_names_it_and_leaves_nothing(src, tmp_path):
    out = tmp_path / "k.cu" / "sub" / "k.hsaco"            # under a file: never writable, even as root
    clean_error(shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(out)), 2, f"cannot write {out}")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["k.cu"]   # cache: conftest's


@pytest.mark.parametrize("jobs", ["-3", "0", "two"])
def test_bad_job_counts_are_usage_errors(src, jobs):
    clean_error(shflx("compile", str(src), "--offload-arch", "gfx942", "--offload-arch", "gfx1100", "-j", jobs), 2,
                "positive number of jobs")


@pytest.mark.parametrize("setting", ["file", "corrupted"])
def test_an_unusable_plan_cache_costs_only_speed_and_doctor_says_so(tmp_path, setting):
    if setting == "file":
        cache = tmp_path / "not_a_dir"
        cache.write_text("x")
        text = "is a file, not a directory"
    else:
        cache = tmp_path / "cache"
        cache.mkdir()
        (cache / "plans.sqlite3").write_bytes(b"this is not a database" * 100)
        text = "file is not a database"
    env = {"SHFLX_CACHE_DIR": str(cache)}
    r = shflx("lower", "xor 5", "--arch", "gfx942", env=env)
    assert r.returncode == 0 and "proved" in r.stdout
    warnings = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "warning" in warnings[0] and text in warnings[0], r.stderr
    d = shflx("doctor", env=env)
    assert "UNUSABLE" in d.stdout and text in d.stdout


def test_missing_home_still_lowers(tmp_path):
    env = {"HOME": None, "XDG_CACHE_HOME": None, "SHFLX_CACHE_DIR": None}
    r = shflx("lower", "xor 5", "--arch", "gfx942", env=env, cwd=tmp_path)
    assert r.returncode == 0 and "proved" in r.stdout, r.stderr
    assert "Traceback" not in r.stderr


def test_verify_on_a_directory_names_every_bad_plan_and_goes_on(tmp_path):
    good = json.loads(PLAN.read_text())
    (tmp_path / "a_good.json").write_text(json.dumps(good))
    bad = dict(good, steps=[dict(good["steps"][0], dpp_ctrl="177")] + good["steps"][1:])
    (tmp_path / "b_string.json").write_text(json.dumps(bad))
    (tmp_path / "c_unknown.json").write_text(json.dumps(dict(good, colour=1)))
    (tmp_path / "d_nested.json").write_text("[" * 100000 + "]" * 100000)
    (tmp_path / "e_binary.json").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    (tmp_path / "f_good.json").write_text(json.dumps(good))
    r = shflx("verify", str(tmp_path))
    clean_error(r, 2, "b_string.json", "must be a JSON integer", "c_unknown.json", "unknown key(s) colour",
                "d_nested.json: error: JSON nested too deeply", "e_binary.json: error: not a text file")
    assert r.stdout.count(": proved") == 2, r.stdout          # the good plans before and after


@pytest.mark.parametrize("pattern,same", [("xor 99", "xor 3"), ("down 40", "down 8")])
def test_lane_arguments_out_of_range_are_errors(pattern, same):
    clean_error(shflx("lower", pattern, "--arch", "gfx942"), 2, f"would do '{same}'")


def test_a_malformed_shfl_in_ptx_names_its_line(tmp_path):
    ptx = tmp_path / "bad.ptx"
    ptx.write_text(".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                   " .reg .b32 %r<5>;\n shfl.sync.bfly.b32 %r1, %r0, 1;\n ret;\n}\n")
    clean_error(shflx("ptx", str(ptx)), 2, f"{ptx}:7: error", "takes 5 operands")


def test_llvm_bin_without_clang_is_an_error_naming_the_setting(src, tmp_path):
    out = tmp_path / "k.hsaco"
    clean_error(shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(out),
                      env={"SHFLX_LLVM_BIN": str(tmp_path)}), 2, f"SHFLX_LLVM_BIN={tmp_path}", "not found")
    assert not out.exists()


@pytest.mark.parametrize("content,words", [(b"", None), (b"\x89\xff\xfe\x00", "not a text file"),
                                           (None, "cannot read")])
def test_empty_binary_and_missing_sources(tmp_path, content, words):
    source = tmp_path / "k.cu"
    if content is not None:
        source.write_bytes(content)
    report = tmp_path / "report.txt"
    r = shflx("compile", str(source), "--offload-arch", "gfx942", "-o", str(tmp_path / "k.hsaco"),
              "--report-file", str(report))
    if words is None:
        assert r.returncode == 0 and r.stdout == "" and "0 shuffle site(s)" in report.read_text()
    else:
        clean_error(r, 2, f"{source}: error: {words}")
        assert not (tmp_path / "k.hsaco").exists()


def test_ctrl_c_stops_a_parallel_compile_at_once_with_no_partial_output(tmp_path):
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "shflx", "compile", str(ROOT / "patterns" / "kernels"),
                          "--offload-arch", "gfx942", "-j", "2", "-o", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)},
                         # as from a terminal: a test run started with `&` by a script has SIGINT ignored,
                         # which its children inherit (and Python then keeps)
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 120
    while time.time() < deadline and not (out.exists() and any(out.iterdir())):
        time.sleep(0.1)                                  # the workers have started and written one
    t0 = time.time()
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "interrupted" in err, (p.returncode, err[-500:])
    assert "Traceback" not in err and "ForkPoolWorker" not in err, err
    assert time.time() - t0 < 10
    names = sorted(q.name for q in out.iterdir())
    assert names and all(n.endswith(".gfx942.hsaco") for n in names)     # whole outputs only
    assert len(names) < len(list((ROOT / "patterns" / "kernels").glob("*/kernel.cu")))


@pytest.mark.parametrize("emit,arch", [("llvm", "gfx942"), ("hsaco", "gfx942"), ("ptx", "sm_90")])
def test_dash_o_dash_writes_the_one_output_to_stdout_and_no_file(tmp_path, emit, arch):
    """`-o -` is standard output, as clang reads it: the same bytes `-o FILE` writes, no file "-"."""
    r = shflx("compile", str(KERNEL), "--offload-arch", arch, "--emit", emit, "-o", "file", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    p = subprocess.run([sys.executable, "-m", "shflx", "compile", str(KERNEL), "--offload-arch", arch, "--emit", emit,
                        "-o", "-"], capture_output=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0 and p.stderr == b"", p.stderr
    assert p.stdout == (tmp_path / "file").read_bytes() and len(p.stdout) > 100
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("extra,words", [(["--offload-arch", "gfx1100"], "one output"),
                                          (["--report", "json"], "--report-file")])
def test_dash_o_dash_with_more_than_one_thing_for_stdout_is_a_usage_error(tmp_path, extra, words):
    r = shflx("compile", str(KERNEL), "--offload-arch", "gfx942", *extra, "-o", "-", cwd=tmp_path)
    clean_error(r, 2, words)
    assert r.stdout == "" and list(tmp_path.iterdir()) == []
