"""Trust at the edges (issue 26): outputs, inputs, caches and messages hold against odd files, other
users and forged data. Each case is a regression test of one item of the issue (its number in the
test's name); each is a one-line error naming the file and the reason with a non-zero exit, or
works. Never a traceback, a hang, a partial output or a changed input.

Cases that need a second local user (a cache directory another user owns) create one with
`useradd` when running as root (as CI does) and remove it afterwards. Cases that need a directory
this process cannot write run shflx without CAP_DAC_OVERRIDE (`setpriv`) when running as root."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ci_policy import IN_CI
from conftest import clean_error

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "patterns" / "kernels" / "butterfly" / "kernel.cu"
PLAN = ROOT / "patterns" / "plans" / "correct" / "gfx90a_xor5_two_dpp.json"
ROOT_USER = os.geteuid() == 0
XOR1_KERNEL = ("__global__ void k(int *out, const int *in) {\n  int v = in[threadIdx.x];\n"
               "  out[threadIdx.x] = __shfl_xor_sync(0xffffffff, v, 1);\n}\n")


def shflx(*args: str, env: dict | None = None, cwd: Path | None = None, prefix: tuple[str, ...] = (),
          stdout=subprocess.PIPE, timeout: float = 600) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    for k, v in list(full.items()):
        if v is None:
            del full[k]
    return subprocess.run([*prefix, sys.executable, "-m", "shflx", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=full, cwd=cwd, timeout=timeout)


def need(condition: bool, why: str) -> None:
    """Skip without `condition` (a prerequisite of the environment); under CI=true, fail."""
    if not condition:
        (pytest.fail if IN_CI else pytest.skip)(why)


@pytest.fixture
def src(tmp_path) -> Path:
    p = tmp_path / "k.cu"
    shutil.copy(KERNEL, p)
    return p


# ------------------------------------------------------------------------------ 1: special outputs

def _device(path: Path, minor: int) -> Path:
    """A character device like /dev/null (1,3) or /dev/full (1,7) at `path` (root makes one with
    mknod; anyone else writes to the real one, which they cannot replace)."""
    if not ROOT_USER:
        return Path({3: "/dev/null", 7: "/dev/full"}[minor])
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except OSError as e:
        need(False, f"cannot make a device node here ({e.strerror})")
    return path


def test_1_output_to_a_device_is_written_in_place_not_replaced(src, tmp_path):
    null = _device(tmp_path / "null", 3)
    r = shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(null))
    assert r.returncode == 0, r.stderr
    assert stat.S_ISCHR(os.stat(null).st_mode)                       # still the device
    full = _device(tmp_path / "full", 7)
    r = shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(full))
    clean_error(r, 2, f"cannot write {full}", "No space left on device")
    assert stat.S_ISCHR(os.stat(full).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(("null", "full", "cache"))) == ["k.cu"]


def test_1_output_to_a_fifo_is_written_into_it(src, tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    keep = os.open(fifo, os.O_RDWR)             # a writer of our own: opening never blocks, reads end when it closes
    rfd = os.open(fifo, os.O_RDONLY)
    got: list[bytes] = []

    def read_all() -> None:
        chunks = []
        while chunk := os.read(rfd, 65536):
            chunks.append(chunk)
        got.append(b"".join(chunks))
    reader = threading.Thread(target=read_all)
    reader.start()
    try:
        r = shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(fifo), timeout=300)
    finally:
        os.close(keep)
        reader.join()
        os.close(rfd)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and got and got[0][:4] == b"\x7fELF"


def test_1_output_to_dev_stdout_goes_to_the_descriptor(src, tmp_path):
    out = tmp_path / "captured.ll"
    with open(out, "w") as f:                                        # standard output is a regular file
        r = shflx("compile", str(src), "--offload-arch", "gfx942", "--emit", "llvm", "-o", "/dev/stdout", stdout=f)
    assert r.returncode == 0, r.stderr
    assert os.path.islink("/dev/stdout") and "amdgcn" in out.read_text()


# ------------------------------------------------------------------------------ 3: no output names an input

@pytest.mark.parametrize("flags", [["--report-file", "{x}"], ["-MD", "-MF", "{x}"], ["-E", "-o", "{x}"], ["-o", "{x}"],
                                   ["-S", "-o", "{x}"], ["--emit", "asm", "-o", "{x}"], ["-c", "-o", "{x}"],
                                   ["-MD", "-MF", "./{x}"], ["-o", "{abs}"]])
def test_3_no_output_of_any_kind_overwrites_the_source(src, flags):
    before = src.read_bytes()
    words = [w.format(x=src.name, abs=src) for w in flags]
    r = shflx("compile", src.name, "--offload-arch", "gfx942", *words, cwd=src.parent)
    clean_error(r, 2, "would overwrite the input")
    assert src.read_bytes() == before


@pytest.mark.parametrize("which", ["include", "response"])
def test_3_an_output_may_not_name_an_include_or_a_response_file(src, tmp_path, which):
    header = tmp_path / "pre.h"
    header.write_text("#define PRE 1\n")
    rsp = tmp_path / "args.rsp"
    rsp.write_text(f"--offload-arch gfx942 -include {header}\n")
    victim = header if which == "include" else rsp
    before = victim.read_bytes()
    r = shflx("compile", str(src), f"@{rsp}", "--report-file", str(victim), cwd=tmp_path)
    clean_error(r, 2, "would overwrite the input")
    assert victim.read_bytes() == before


def test_3_ptx_and_launch_outputs_may_not_name_their_input(tmp_path):
    ptx = tmp_path / "in.ptx"
    ptx.write_text(".version 7.0\n.target sm_80\n.address_size 64\n")
    before = ptx.read_bytes()
    clean_error(shflx("ptx", str(ptx), "-o", str(ptx)), 2, "would overwrite the input")
    assert ptx.read_bytes() == before
    hip = tmp_path / "a.hip"
    hip.write_text("int main() { return 0; }\n")
    r = shflx("launch", "--report-file", str(hip), "--", "clang++", "-x", "hip", "--offload-arch=gfx90a", "-c",
              str(hip), "-o", str(tmp_path / "a.o"))
    clean_error(r, 2, "would overwrite the input")
    assert hip.read_text() == "int main() { return 0; }\n"


SPELLINGS = ["plain", "dot", "absolute", "updown", "symlink", "hardlink", "double_slash", "symlinked_dir"]


def _spell(how: str, work: Path, name: str) -> str:
    """Another name of work/name (relative to `work`, the current directory of the check)."""
    if how == "plain":
        return name
    if how == "dot":
        return f"./{name}"
    if how == "absolute":
        return str(work / name)
    if how == "updown":
        (work / "sub").mkdir(exist_ok=True)
        return f"sub/../{name}"
    if how == "double_slash":
        return f".//{name}"
    if how == "symlink":
        link = work / f"link-{name}"
        if not link.is_symlink():
            link.symlink_to(work / name)
        return link.name
    if how == "hardlink":
        hard = work / f"hard-{name}"
        if not hard.exists():
            os.link(work / name, hard)
        return hard.name
    d = work / "dirlink"                                            # symlinked_dir
    if not d.is_symlink():
        d.symlink_to(work)
    return f"dirlink/{name}"


NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,8}\.(cu|h|rsp|hsaco|d|txt)", fullmatch=True)
FLAGS = st.sampled_from(["-o", "-MF", "--report-file", "-E -o", "-S -o", "-c -o"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES, other=NAMES, how=st.sampled_from(SPELLINGS), flag=FLAGS, role=st.sampled_from(["source", "include", "response"]))
def test_3_property_an_output_naming_an_input_in_any_spelling_is_refused(name, other, how, flag, role):
    """files.check_outputs, the one check every command runs: an output that is an input under any
    spelling (relative, ./, absolute, .., //, a symlink, a hard link, a symlinked directory) is a
    UsageError naming the flag; a distinct path is accepted."""
    from shflx.errors import UsageError
    from shflx.files import check_outputs

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / name).write_text("int x;\n")
        inputs = {"source": [name, "main.cu"], "include": ["main.cu", name], "response": ["main.cu", name]}[role]
        (work / "main.cu").write_text("int y;\n") if name != "main.cu" else None
        cwd = os.getcwd()
        os.chdir(work)
        try:
            spelled = _spell(how, work, name)
            with pytest.raises(UsageError, match=f"{flag.split()[-1]} .* would overwrite the input"):
                check_outputs(inputs, [(flag.split()[-1], spelled)])
            if other not in (name, "main.cu"):
                check_outputs(inputs, [(flag.split()[-1], other)])     # a distinct path: accepted
                assert not (work / other).exists()                     # and the check wrote nothing
        finally:
            os.chdir(cwd)


# ------------------------------------------------------------------------------ 4: caches are untrusted

def _forge_every_row_with(store: Path, forged_target: str) -> int:
    """Replace every row of the plan cache but the one for `forged_target` by that row's plan, with
    a digest recomputed as anyone can (sha256 of key, newline, plan text). Returns how many."""
    db = sqlite3.connect(store)
    rows = db.execute("SELECT key, plan FROM proven").fetchall()
    donor = next(p for _, p in rows if json.loads(p)["target"] == forged_target)
    n = 0
    for k, p in rows:
        if p != donor:
            digest = hashlib.sha256(f"{k}\n{donor}".encode()).hexdigest()
            db.execute("UPDATE proven SET plan = ?, digest = ? WHERE key = ?", (donor, digest, k))
            n += 1
    db.commit()
    db.close()
    return n


def _reference_sources(plan: dict) -> list:
    """Which input lane each lane holds after `plan`, by the independent reference model."""
    from tests.reference import amd_ref
    return amd_ref.ref_replay(plan)


def test_4_a_forged_plan_cache_row_warns_once_and_the_proven_plan_is_used(tmp_path):
    cache = tmp_path / "plans"
    env = {"SHFLX_CACHE_DIR": str(cache)}
    kernel = tmp_path / "x1.cu"
    kernel.write_text(XOR1_KERNEL)
    for pattern in ("xor 1", "xor 2"):
        assert shflx("lower", pattern, "--arch", "gfx942", "-q", env=env).returncode == 0
    honest = shflx("compile", str(kernel), "--offload-arch", "gfx942", "--report", "json", "-o", str(tmp_path / "a.hsaco"),
                   env={"SHFLX_CACHE": "off"})
    assert honest.returncode == 0, honest.stderr
    first = shflx("compile", str(kernel), "--offload-arch", "gfx942", "-o", str(tmp_path / "b.hsaco"), env=env)
    assert first.returncode == 0 and first.stderr == "", first.stderr       # the kernel's own rows, honest
    assert _forge_every_row_with(cache / "plans.sqlite3", "xor 2") >= 2     # 'xor 1' and the kernel's site

    r = shflx("compile", str(kernel), "--offload-arch", "gfx942", "--report", "json", "-o", str(tmp_path / "c.hsaco"),
              env=env)
    assert r.returncode == 0, r.stderr
    warnings = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "warning" in warnings[0] and "solving it again" in warnings[0], r.stderr
    site, = json.loads(r.stdout)[0]["sites"]
    expected, = json.loads(honest.stdout)[0]["sites"]
    assert site["proof"] == "proved" and site["lowering"] == expected["lowering"]
    assert (tmp_path / "c.hsaco").read_bytes() == (tmp_path / "a.hsaco").read_bytes()

    lo = shflx("lower", "xor 1", "--arch", "gfx942", "--json", env=env)
    assert lo.returncode == 0 and lo.stderr.count("warning") == 1, lo.stderr
    plan = json.loads(lo.stdout)
    assert plan["target"] == "xor 1" and plan["proof"]["status"] == "proved"
    assert _reference_sources(plan) == [("x", lane ^ 1) for lane in range(64)]     # the exact lane model
    again = shflx("lower", "xor 1", "--arch", "gfx942", "--json", env=env)     # the row was replaced
    assert again.returncode == 0 and again.stderr == "" and json.loads(again.stdout)["steps"] == plan["steps"]


def test_4_a_forged_chain_row_is_a_miss_by_its_multiset_check(tmp_path, monkeypatch, capsys):
    """A chain's row replaced by another chain's plan (digest recomputed): one warning, and the plan
    used is one the multiset proof accepts for the chain asked for, the same as solved afresh."""
    from shflx import chains
    from shflx.driver import cache
    from shflx.pattern import parse_pattern
    from shflx.plan import plan_to_dict
    from shflx.target import resolve_target
    from shflx.verify.api import prove

    monkeypatch.setenv("SHFLX_CACHE_DIR", str(tmp_path / "chains"))
    target = resolve_target("gfx942", None)
    want, other = parse_pattern("reduce add"), parse_pattern("reduce add width 16")
    cache._CHAINS.clear()                    # solved in this test, not taken from an earlier test's memo
    chains._synthesize.cache_clear()
    fresh = cache.synthesize(want, target)
    cache.synthesize(other, target)
    assert _forge_every_row_with(tmp_path / "chains" / "plans.sqlite3", "reduce add width 16") == 1
    cache._CHAINS.clear()                                        # a new process: nothing looked up yet
    chains._synthesize.cache_clear()
    capsys.readouterr()
    got = cache.synthesize(want, target)
    err = capsys.readouterr().err
    assert err.count("warning") == 1 and "solving it again" in err, err
    assert prove(got.plan, "reduce add").proved and not prove(got.plan, "reduce add width 16").proved
    assert plan_to_dict(got.plan)["steps"] == plan_to_dict(fresh.plan)["steps"]


@contextlib.contextmanager
def another_user():
    """A second local user (uid), made with useradd and removed afterwards; root only."""
    need(ROOT_USER and shutil.which("useradd") is not None, "a second local user needs root and useradd")
    name = f"shflx{os.getpid() % 100000}"
    made = subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                          capture_output=True, text=True)
    need(made.returncode == 0, f"useradd failed: {made.stderr.strip()}")
    try:
        import pwd
        yield pwd.getpwnam(name).pw_uid
    finally:
        subprocess.run(["userdel", name], capture_output=True)


def test_4_a_cache_directory_of_another_user_is_not_used(tmp_path):
    cache = tmp_path / "theirs"
    cache.mkdir(mode=0o755)
    with another_user() as uid:
        os.chown(cache, uid, uid)
        r = shflx("lower", "xor 1", "--arch", "gfx942", env={"SHFLX_CACHE_DIR": str(cache)})
        assert r.returncode == 0 and "proved" in r.stdout, r.stderr
        warnings = [line for line in r.stderr.splitlines() if line.strip()]
        assert len(warnings) == 1 and "owned by another user" in warnings[0] and str(cache) in warnings[0], r.stderr
        assert list(cache.iterdir()) == []                              # nothing read, nothing written
        cache.chmod(0o700)


@pytest.mark.parametrize("mode", [0o775, 0o757, 0o777])
def test_4_a_cache_directory_others_can_write_is_not_used(tmp_path, mode):
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(mode)
    r = shflx("lower", "xor 1", "--arch", "gfx942", env={"SHFLX_CACHE_DIR": str(cache)})
    assert r.returncode == 0 and "proved" in r.stdout, r.stderr
    warnings = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "writable by" in warnings[0] and f"{mode:04o}" in warnings[0], r.stderr
    assert list(cache.iterdir()) == []


def test_4_a_new_cache_directory_is_private(tmp_path):
    cache = tmp_path / "new" / "shflx"
    assert shflx("lower", "xor 1", "--arch", "gfx942", env={"SHFLX_CACHE_DIR": str(cache)}).returncode == 0
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700 and (cache / "plans.sqlite3").is_file()


@pytest.mark.parametrize("injected", [["-include", "{evil}"], ["-D", "SHFLX_FORGED=1"], ["-internal-isystem", "relative/dir"],
                                      ["-internal-isystem", "{missing}"]])
def test_4_toolchain_facts_accept_only_the_shapes_shflx_writes(src, tmp_path, injected):
    cache = tmp_path / "tc"
    env = {"SHFLX_CACHE_DIR": str(cache)}
    assert shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(tmp_path / "a.hsaco"), env=env).returncode == 0
    evil = tmp_path / "evil.h"
    evil.write_text("#error forged toolchain.json was used\n")
    store = cache / "toolchain.json"
    known = json.loads(store.read_text())
    asked = [k for k in known if json.loads(k)[0] == "host c++ headers"]
    need(bool(asked), "this clang's host C++ words are not remembered (a tool run through Python)")
    for k in asked:
        known[k] = known[k] + [w.format(evil=evil, missing=tmp_path / "gone") for w in injected]
    store.write_text(json.dumps(known))
    src.write_text(src.read_text() + "\n#ifdef SHFLX_FORGED\n#error forged define was used\n#endif\n")
    r = shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(tmp_path / "b.hsaco"), env=env)
    assert r.returncode == 0, r.stderr
    rewritten = json.loads(store.read_text())
    assert all(w.format(evil=evil, missing=tmp_path / "gone") not in rewritten[k] for k in asked for w in injected[1:])


# ------------------------------------------------------------------------------ 12..19

@pytest.mark.parametrize("order", [("nvtx3/a", "nvtx3/a/b.h"), ("nvtx3/a/b.h", "nvtx3/a")])
def test_12_stand_ins_whose_names_collide_both_serve(src, tmp_path, order):
    text = "".join(f"#include <{h}>\n" for h in order) + KERNEL.read_text()
    src.write_text(text)
    report = tmp_path / "r.txt"
    r = shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(tmp_path / "k.hsaco"), "--report-file", str(report))
    assert r.returncode == 0, r.stderr
    notes = report.read_text()
    assert all(f"skipped host-only header {h} " in notes for h in order), notes


def test_13_a_file_name_that_is_not_utf8(tmp_path):
    name = os.fsdecode(b"n\xffx.cu")
    src = tmp_path / name
    shutil.copy(KERNEL, src)
    out = tmp_path / os.fsdecode(b"o\xfe.hsaco")
    r = shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(out), "--report-file", str(tmp_path / os.fsdecode(b"r\xfd.txt")))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"
    report = (tmp_path / os.fsdecode(b"r\xfd.txt")).read_bytes()
    assert b"n\xffx.cu:6:41: " in report, report[:400]               # sites located in the file, by its own name
    r = shflx("compile", str(src), "--offload-arch", "gfx942", "-E", stdout=subprocess.PIPE)
    assert r.returncode == 0 and "UnicodeDecodeError" not in r.stderr, r.stderr
    r = shflx("compile", str(src), "--offload-arch", "sm_90", "--emit", "ptx", "-o", str(tmp_path / "k.ptx"))
    assert r.returncode == 0, r.stderr


def test_14_a_plan_number_of_5000_digits_is_a_clean_error(tmp_path):
    good = json.loads(PLAN.read_text())
    text = json.dumps(good, indent=1).replace('"wave": 64', '"wave": ' + "9" * 5000)
    plan = tmp_path / "big.json"
    plan.write_text(text)
    clean_error(shflx("verify", str(plan)), 2, f"{plan}:3:", "5000 digits")
    clean_error(shflx("lower", "xor " + "7" * 5000, "--arch", "gfx942"), 2, "out of range")


@pytest.mark.parametrize("kind", ["cu", "ll", "json", "ptx", "rsp", "include"])
def test_15_a_fifo_as_input_is_an_error_not_a_hang(tmp_path, src, kind):
    fifo = tmp_path / f"in.{kind}"
    os.mkfifo(fifo)
    args = {"cu": ["compile", str(fifo), "--offload-arch", "gfx942"],
            "ll": ["compile", str(fifo), "--offload-arch", "gfx942"],
            "json": ["verify", str(fifo)], "ptx": ["ptx", str(fifo)], "rsp": ["compile", f"@{fifo}"],
            "include": ["compile", str(src), "--offload-arch", "gfx942", "-include", str(fifo)]}[kind]
    try:
        r = shflx(*args, timeout=120)           # a hang would wait for a writer that never comes
    except subprocess.TimeoutExpired:
        pytest.fail(f"shflx {' '.join(args)} waited on the FIFO")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "FIFO" in r.stderr, r.stderr
    assert str(fifo) in r.stderr


def test_16_verify_on_a_directory_reports_every_plan_past_an_unknown_target(tmp_path):
    good = json.loads(PLAN.read_text())
    (tmp_path / "a_unknown_target.json").write_text(json.dumps(dict(good, arch="gfx9999")))
    (tmp_path / "b_good.json").write_text(json.dumps(good))
    r = shflx("verify", str(tmp_path))
    clean_error(r, 2, "a_unknown_target.json: error: unknown target 'gfx9999'")
    assert f"{tmp_path / 'b_good.json'}: proved" in r.stdout, r.stdout


def _without_dac_override() -> tuple[str, ...]:
    """A prefix that runs a command without root's power to write what its mode forbids."""
    if not ROOT_USER:
        return ()
    need(shutil.which("setpriv") is not None, "setpriv (util-linux) runs root without CAP_DAC_OVERRIDE")
    return ("setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--inh-caps", "-dac_override,-dac_read_search")


def test_17_an_unwritable_home_and_output_directory_name_the_directory(src, tmp_path):
    home_parent = tmp_path / "homes"
    home_parent.mkdir()
    ro_out = tmp_path / "ro_out"
    ro_out.mkdir()
    home_parent.chmod(0o555)
    ro_out.chmod(0o555)
    env = {"HOME": str(home_parent / "nonexistent"), "SHFLX_CACHE_DIR": None, "XDG_CACHE_HOME": None,
           "ZIG_GLOBAL_CACHE_DIR": None}
    try:
        r = shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(ro_out / "k.hsaco"), env=env,
                  prefix=_without_dac_override())
        clean_error(r, 2, f"the directory {ro_out} is not writable")
        assert "zig" not in r.stderr and list(ro_out.iterdir()) == []
        out = tmp_path / "w"
        out.mkdir()
        r = shflx("compile", str(src), "--offload-arch", "gfx942", "-o", str(out / "k.hsaco"), env=env,
                  prefix=_without_dac_override())
        assert r.returncode == 0, r.stderr                           # the unwritable HOME only costs speed
        assert (out / "k.hsaco").read_bytes()[:4] == b"\x7fELF"
    finally:
        home_parent.chmod(0o755)
        ro_out.chmod(0o755)


FAKE_HIPCC = """#!/bin/sh
echo "HIP_PLATFORM=$HIP_PLATFORM $*" >> "{log}"
case " $* " in *" --cuda-device-only "*) exit 1;; esac
if [ "$HIP_PLATFORM" != amd ]; then echo "nvcc fatal   : Value 'hip' is not defined for option 'x'" >&2; exit 1; fi
[ -n "{fail}" ] && exit 3
out=""; prev=""; for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
printf 'host object' > "$out"
"""


@pytest.mark.parametrize("fail", [False, True])
def test_18_dash_c_runs_hipcc_for_amd_and_names_the_compiler(src, tmp_path, fail):
    """Debian's hipcc dispatches to nvcc when nvcc is on PATH unless HIP_PLATFORM=amd (the stand-in
    here fails as that nvcc does); --rocm-path reaches it; a failure names the compiler that ran."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "hipcc.log"
    hipcc = bin_dir / "hipcc"
    hipcc.write_text(FAKE_HIPCC.format(log=log, fail="yes" if fail else ""))
    hipcc.chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "HIP_PLATFORM": "nvidia",
           "SHFLX_HOST_CXX": None}
    out = tmp_path / "k.o"
    r = shflx("compile", "-c", str(src), "--offload-arch", "gfx90a", "--rocm-path=/usr", "--rocm-path", "/opt/rocm",
              "-o", str(out), env=env)
    host = [line for line in log.read_text().splitlines() if "--cuda-host-only" in line]
    assert host and all(line.startswith("HIP_PLATFORM=amd ") for line in host), log.read_text()
    assert "--rocm-path=/usr" in host[0] and "--rocm-path=/opt/rocm" in host[0]
    if fail:
        clean_error(r, 2, "the host compile", "hipcc", "HIP_PLATFORM=amd", "status 3")
    else:
        assert r.returncode == 0, r.stderr
        assert out.read_text() == "host object"


def test_18_dash_c_with_the_real_hipcc_builds_the_object(tmp_path):
    """Where hipcc is installed (CI installs Debian's), `-c` builds a host object through it, also
    with nvcc on PATH (HIP_PLATFORM=amd)."""
    need(shutil.which("hipcc") is not None, "no hipcc on PATH (apt-get install hipcc)")
    src = tmp_path / "x1.cu"
    src.write_text(XOR1_KERNEL)
    out = tmp_path / "x1.o"
    r = shflx("compile", "-c", str(src), "--offload-arch", "gfx90a", "-o", str(out), env={"SHFLX_HOST_CXX": None})
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"


def test_19_error_lines_cut_long_values(tmp_path):
    good = json.loads(PLAN.read_text())
    plan = tmp_path / "long.json"
    plan.write_text(json.dumps(dict(good, target="map " + ",".join(["1"] * 100_000))))
    r = shflx("verify", str(plan))
    clean_error(r, 2, str(plan))
    assert max(len(line) for line in r.stderr.splitlines()) < 1200, len(r.stderr)
    for args in (["lower", "xor 1 width " + "9" * 4000, "--arch", "gfx942"],
                 ["lower", "map " + ",".join(["1"] * 31 + ["9" * 4000]), "--arch", "gfx942"],
                 ["compile", str(plan), "--offload-arch", "gfx" + "9" * 4000]):
        r = shflx(*args)
        assert r.returncode != 0 and "Traceback" not in r.stderr and r.stderr.strip(), r.stderr[:300]
        assert max(len(line) for line in r.stderr.splitlines()) < 1200, r.stderr[:300]
