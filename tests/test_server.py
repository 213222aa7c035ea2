"""The compile server (SHFLX_SERVER=on), tried as a build uses it: a served command writes the same
bytes, lines and exit codes as the command line, in the client's directory, umask and streams; a
signal sent to the client reaches the worker; a server that cannot be used costs only speed; and
a server is shared only by clients of the same code and environment."""
from __future__ import annotations

import json
import marshal
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shflx.server import address, protocol

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "patterns" / "kernels" / "butterfly" / "kernel.cu"
KERNELS = ROOT / "patterns" / "kernels"


@pytest.fixture
def server_dir():
    """A private directory short enough for a socket path (pytest's tmp_path can be too long);
    every server started there is stopped afterwards."""
    d = Path(tempfile.mkdtemp(prefix="sx", dir="/tmp"))
    yield d
    shflx("server", "stop", env={"SHFLX_SERVER_DIR": str(d)})
    deadline = time.time() + 20
    while time.time() < deadline and list(d.glob("*.sock")):
        time.sleep(0.1)
    shutil.rmtree(d, ignore_errors=True)


def shflx(*args: str, env: dict | None = None, cwd: Path | None = None, **kw) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "shflx", *args], capture_output=True, text=True, env=full,
                          cwd=cwd, **kw)


def served(d: Path, **extra: str) -> dict:
    return {"SHFLX_SERVER": "on", "SHFLX_SERVER_DIR": str(d), **extra}


def servers(d: Path) -> list[dict]:
    """What each server in `d` says of itself (asked over its socket, as `shflx server status` does)."""
    from shflx.server.control import _ask
    return [json.loads(said) for p in sorted(d.glob("*.sock")) if (said := _ask(p, "status"))]


def test_a_served_compile_writes_what_the_command_line_writes(server_dir, tmp_path):
    r = shflx("compile", str(KERNEL), "--offload-arch", "gfx942", "-o", str(tmp_path / "local.hsaco"),
              env={"SHFLX_SERVER": "off"})
    assert r.returncode == 0, r.stderr
    for name in ("first", "second"):
        r = shflx("compile", str(KERNEL), "--offload-arch", "gfx942", "-o", str(tmp_path / f"{name}.hsaco"),
                  env=served(server_dir))
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert (tmp_path / f"{name}.hsaco").read_bytes() == (tmp_path / "local.hsaco").read_bytes()
    (one,) = servers(server_dir)
    assert one["served"] == 2 and one["running"] == 0


@pytest.mark.parametrize("case", ["syntax", "missing", "target", "flag"])
def test_errors_through_the_server_are_the_command_lines_lines_and_codes(server_dir, tmp_path, case):
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k(int *p) { p[0] = __shfl_xor_sync(0xffffffff, p[1], 1) +; }\n")
    args = {"syntax": [str(bad), "--offload-arch", "gfx942"],
            "missing": [str(tmp_path / "none.cu"), "--offload-arch", "gfx942"],
            "target": [str(KERNEL), "--offload-arch", "gfx4242"],
            "flag": [str(KERNEL), "--offload-arch", "gfx942", "--no-such-flag"]}[case]
    out = tmp_path / "out.hsaco"
    local = shflx("compile", *args, "-o", str(out), env={"SHFLX_SERVER": "off"})
    remote = shflx("compile", *args, "-o", str(out), env=served(server_dir))
    assert local.returncode in (1, 2) and "error:" in local.stderr and "Traceback" not in local.stderr
    assert (remote.returncode, remote.stdout, remote.stderr) == (local.returncode, local.stdout, local.stderr)
    assert not out.exists()
    assert servers(server_dir), "the error came from a server"


def test_the_worker_runs_in_the_clients_directory_umask_and_streams(server_dir, tmp_path):
    shutil.copy(KERNEL, tmp_path / "k.cu")
    assert shflx("server", "start", env=served(server_dir), preexec_fn=lambda: os.umask(0o022)).returncode == 0
    for mode in ("off", "on"):
        r = shflx("compile", "k.cu", "--offload-arch", "gfx942", "--report", "json", "-o", f"k-{mode}.hsaco",
                  env={**served(server_dir), "SHFLX_SERVER": mode}, cwd=tmp_path,
                  preexec_fn=lambda: os.umask(0o077))
        assert r.returncode == 0, r.stderr
        assert (tmp_path / f"k-{mode}.hsaco").stat().st_mode & 0o777 == 0o600
        report = json.loads(r.stdout)
        assert report[0]["file"] == "k.cu" and report[0]["output"] == f"k-{mode}.hsaco"
    assert len(servers(server_dir)) == 1
    # a launched command's own output, exit code and standard input go through too
    r = shflx("launch", "--", "/bin/sh", "-c", "read x; echo out $x; echo err >&2; exit 3",
              env=served(server_dir), input="in\n")
    assert (r.returncode, r.stdout, r.stderr) == (3, "out in\n", "err\n")


def test_ctrl_c_reaches_the_worker_and_leaves_no_partial_output(server_dir, tmp_path):
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "shflx", "compile", str(KERNELS), "--offload-arch", "gfx942",
                          "-j", "2", "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, env={**os.environ, "PYTHONPATH": str(ROOT), **served(server_dir)},
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 180
    while time.time() < deadline and not (out.exists() and any(out.iterdir())):
        time.sleep(0.1)
    t0 = time.time()
    os.killpg(p.pid, signal.SIGINT)                      # the terminal's Ctrl-C: the client's group only
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "interrupted" in err, (p.returncode, err[-500:])
    assert "Traceback" not in err and "ForkPoolWorker" not in err, err
    assert time.time() - t0 < 10
    names = sorted(q.name for q in out.iterdir())
    assert names and all(n.endswith(".gfx942.hsaco") and not n.startswith(".") for n in names)
    assert len(names) < len(list(KERNELS.glob("*/kernel.cu")))
    deadline = time.time() + 10
    while time.time() < deadline and servers(server_dir)[0]["running"]:
        time.sleep(0.1)
    assert servers(server_dir)[0]["running"] == 0


def test_a_killed_worker_is_one_line_with_the_signals_exit_code(server_dir, tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "shflx", "compile", str(KERNELS), "--offload-arch", "gfx942",
                          "-j", "1", "-o", str(tmp_path / "out")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env={**os.environ, "PYTHONPATH": str(ROOT), **served(server_dir)})
    deadline = time.time() + 120
    workers: list[int] = []
    while time.time() < deadline and not workers:
        workers = [w for s in servers(server_dir) for w in s["workers"]]
        time.sleep(0.05)
    assert workers
    os.kill(workers[0], signal.SIGKILL)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 128 + signal.SIGKILL, err
    assert err.splitlines()[-1] == "shflx: error: the compile server's worker was killed by SIGKILL"


def test_sigterm_to_the_client_ends_the_worker_and_the_client_by_sigterm(server_dir, tmp_path):
    """make stops a build with SIGTERM to its jobs: the worker's group gets it, and the client ends
    the way a compile in its own process would have, killed by SIGTERM; no partial output."""
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "shflx", "compile", str(KERNELS), "--offload-arch", "gfx942",
                          "-j", "1", "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT), **served(server_dir)})
    deadline = time.time() + 120
    workers: list[int] = []
    while time.time() < deadline and not workers:
        workers = [w for s in servers(server_dir) for w in s["workers"]]
        time.sleep(0.05)
    assert workers
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == -signal.SIGTERM, (p.returncode, err)
    deadline = time.time() + 10
    while time.time() < deadline and servers(server_dir)[0]["running"]:
        time.sleep(0.1)
    assert servers(server_dir)[0]["running"] == 0
    assert not out.exists() or all(not q.name.startswith(".") for q in out.iterdir())


@pytest.mark.parametrize("fault", ["file", "shared", "long"])
def test_without_a_usable_server_directory_it_compiles_here_and_says_why(tmp_path, fault):
    d = tmp_path / "d"
    if fault == "file":
        d.write_text("")
    elif fault == "shared":
        d.mkdir()
        d.chmod(0o777)
    else:
        d = tmp_path / ("x" * 120)
    out = tmp_path / "out.hsaco"
    r = shflx("compile", str(KERNEL), "--offload-arch", "gfx942", "-o", str(out), env=served(d))
    assert r.returncode == 0 and out.stat().st_size > 0, r.stderr
    (line,) = r.stderr.splitlines()
    assert line.startswith("shflx: warning: ") and line.endswith("; compiling without the server")
    assert str(d) in line


@pytest.mark.parametrize("setting", [{"SHFLX_SERVER": "maybe"}, {"SHFLX_SERVER_IDLE": "soon"},
                                     {"SHFLX_SERVER_IDLE": "-1"}])
def test_bad_server_settings_are_one_line_errors(server_dir, tmp_path, setting):
    out = tmp_path / "out.hsaco"
    r = shflx("compile", str(KERNEL), "--offload-arch", "gfx942", "-o", str(out), env={**served(server_dir), **setting})
    (name, value), = setting.items()
    assert r.returncode == 2 and r.stderr.startswith(f"shflx: error: {name}={value!r}: expected"), r.stderr
    assert len(r.stderr.splitlines()) == 1 and not out.exists() and not servers(server_dir)


def test_an_idle_server_exits_and_removes_its_socket(server_dir, tmp_path):
    r = shflx("compile", str(KERNEL), "--offload-arch", "gfx942", "-o", str(tmp_path / "a.hsaco"),
              env=served(server_dir, SHFLX_SERVER_IDLE="1"))
    assert r.returncode == 0, r.stderr
    deadline = time.time() + 30
    while time.time() < deadline and list(server_dir.glob("*.sock")):
        time.sleep(0.1)
    assert not list(server_dir.glob("*.sock"))


def test_a_socket_left_by_a_killed_server_is_replaced(server_dir, tmp_path, monkeypatch):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **served(server_dir)}
    monkeypatch.setenv("SHFLX_SERVER_DIR", str(server_dir))
    path = address.socket_path(env)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(path))
    stale.close()                                       # the file stays; nothing listens
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", str(KERNEL), "--offload-arch", "gfx942", "-o",
                        str(tmp_path / "a.hsaco")], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert [s["socket"] for s in servers(server_dir)] == [str(path)]


def test_clients_of_other_environments_get_their_own_server(server_dir, tmp_path):
    for k, value in enumerate(("a", "b", "a")):
        r = shflx("compile", str(KERNEL), "--offload-arch", "gfx942", "-o", str(tmp_path / f"{k}.hsaco"),
                  env=served(server_dir, SHFLX_TEST_SETTING=value, MAKEFLAGS=f" -j{k + 2} --jobserver-auth=3,4"))
        assert r.returncode == 0, r.stderr
    assert sorted(s["served"] for s in servers(server_dir)) == [1, 2]


def test_two_clients_starting_at_once_share_one_server(server_dir):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **served(server_dir)}
    starts = [subprocess.Popen([sys.executable, "-m", "shflx", "server", "start"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env) for _ in range(3)]
    said = [p.communicate(timeout=120) for p in starts]
    assert all(p.returncode == 0 for p in starts), said
    assert len({out for out, _ in said}) == 1 and said[0][0].startswith("shflx compile server: pid ")
    assert len(servers(server_dir)) == 1
    r = shflx("server", "status", env=env)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 1 and "0 compile(s) served" in r.stdout
    r = shflx("server", "stop", env=env)
    assert r.stdout == "stopped 1 shflx compile server(s)\n"
    deadline = time.time() + 20
    while time.time() < deadline and list(server_dir.glob("*.sock")):
        time.sleep(0.1)
    assert shflx("server", "status", env=env).stdout == "no shflx compile server is running\n"


def test_the_key_ignores_only_what_changes_between_the_jobs_of_one_build():
    base = {"PATH": "/usr/bin", "HOME": "/home/u", "SHFLX_CACHE_DIR": "/c"}
    key = address.server_key(base)
    for name in address.VOLATILE:
        assert address.server_key({**base, name: "job 7"}) == key, name
    for name, value in (("PATH", "/opt/bin:/usr/bin"), ("SHFLX_CACHE_DIR", "/d"), ("ROCM_PATH", "/opt/rocm"),
                        ("CUDA_PATH", "/usr/local/cuda"), ("LANG", "C")):
        assert address.server_key({**base, name: value}) != key, name
    assert len(key) == 16 and int(key, 16) >= 0


def test_the_key_follows_the_code(tmp_path, monkeypatch):
    pkg = tmp_path / "shflx"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "sub" / "a.py").write_text("x = 1\n")
    (pkg / "__pycache__").mkdir()
    monkeypatch.setattr(address, "PACKAGE", pkg)
    monkeypatch.setattr(address, "DATA", ())
    key = address.server_key({})
    (pkg / "__pycache__" / "a.pyc").write_bytes(b"\0")          # byte-compiled files do not count
    assert address.server_key({}) == key
    os.utime(pkg / "sub" / "a.py", ns=(0, 10 ** 18))
    assert address.server_key({}) != key
    changed = address.server_key({})
    (pkg / "sub" / "b.toml").write_text("")
    assert address.server_key({}) != changed


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                           max_leaves=30)


@settings(max_examples=60, deadline=None)
@given(request=st.dictionaries(st.text(), json_values, max_size=6), size=st.sampled_from([0, 1, 70000]),
       with_fds=st.booleans())
def test_a_request_arrives_whole_with_its_descriptors(request, size, with_fds):
    """Any dict of JSON-like values (one larger than one read) and three descriptors arrive as sent."""
    request = {**request, "pad": "x" * size}
    a, b = socket.socketpair()
    r, w = os.pipe()
    try:
        with a, b:
            import threading
            t = threading.Thread(target=protocol.send_request, args=(a, request, [r, w, r] if with_fds else None))
            t.start()
            got, fds = protocol.receive_request(b)
            t.join()
            assert got == request and len(fds) == (3 if with_fds else 0)
            if with_fds:                                  # the same pipe: written here, read there
                os.write(fds[1], b"ok")
                assert os.read(r, 2) == b"ok"
            for fd in fds:
                os.close(fd)
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.parametrize("frame", [b"", b"\0\0", b"\0\0\0\x10{}", b"\0\0\0\x02[]", b"\0\0\0\x03{x}",
                                   b"\xff\xff\xff\xff", b"\0\0\0\x05" + marshal.dumps([1]), b"\0\0\0\x01N"])
def test_a_broken_request_is_a_protocol_error(frame):
    a, b = socket.socketpair()
    with a, b:
        a.sendall(frame)
        a.shutdown(socket.SHUT_WR)
        with pytest.raises(protocol.ProtocolError):
            protocol.receive_request(b)


def test_ctrl_c_while_the_server_starts_is_an_interrupt_not_a_traceback(server_dir, tmp_path):
    """The first client waits for a server's imports; Ctrl-C then (or, on a fast machine, once the
    worker runs) ends it with 130 and one line, and no output is written."""
    out = tmp_path / "out.hsaco"
    p = subprocess.Popen([sys.executable, "-m", "shflx", "compile", str(KERNEL), "--offload-arch", "gfx942", "-o",
                          str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT), **served(server_dir)},
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(0.3)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and err.splitlines()[-1] == "shflx: interrupted", (p.returncode, err)
    assert "Traceback" not in err and not out.exists()
