"""`shflx ptx` and `shflx ptxas`: reports, atomic output, and bad input (file:line and reason,
non-zero exit, the input untouched, nothing partial written)."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shflx.cli import main

from conftest import ptxas_path
from test_ptx_sites import bfly, kernel

ROOT = Path(__file__).resolve().parents[1]
GOOD = kernel(bfly((16, 8, 4, 2, 1)))


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_report_only_then_rewrite_atomically(tmp_path, capsys):
    src = tmp_path / "k.ptx"
    src.write_text(GOOD)
    before = _digest(src)
    assert main(["ptx", str(src), "--report", "json", "--no-load-shuffle"]) == 0
    [rep] = json.loads(capsys.readouterr().out)
    assert rep["summary"]["sites"] == 5 and rep["summary"]["rewritten_chains"] == 1
    assert rep["output"] is None and rep["arch"] == "sm_90" and rep["ptx_version"] == "8.0"
    assert rep["chains"][0]["location"] == f"{src}:{GOOD.splitlines().index(next(l for l in GOOD.splitlines() if 'shfl' in l)) + 1}"
    assert sorted(os.listdir(tmp_path)) == ["k.ptx"]            # report only: nothing written
    out = tmp_path / "o" / "k2.ptx"
    assert main(["ptx", str(src), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "rewritten" in text and f"wrote {out}" in text
    assert "redux.sync.add.s32" in out.read_text() and "shfl" not in out.read_text()
    assert _digest(src) == before
    assert sorted(os.listdir(out.parent)) == ["k2.ptx"]         # no temp file left behind


@pytest.mark.parametrize("text, line, words", [
    (GOOD.replace("\tret;", "\tadd.s32 %r1, , %r2;\n\tret;"), None, "empty operand"),
    (GOOD.replace("{\n", "{\n\t@ bra $x;\n", 1), 10, "guard"),
    (GOOD.replace("\n}\n", "\n"), 5, "missing closing"),
    (GOOD.replace(".target sm_90", ".target sm_52"), 2, "unsupported .target sm_52"),
    (GOOD.replace(".version 8.0", ".version 9.5"), 1, "unsupported PTX .version 9.5"),
    ("\x7fELF\x02\x01\x01", 1, "not PTX"),
])
def test_bad_input_names_file_line_and_reason_and_writes_nothing(tmp_path, capsys, text, line, words):
    src = tmp_path / "bad.ptx"
    src.write_text(text)
    before = _digest(src)
    out = tmp_path / "out.ptx"
    code = main(["ptx", str(src), "-o", str(out), "--no-load-shuffle"])
    err = capsys.readouterr().err
    assert code == 2 and words in err, err
    if line is None:
        line = text.splitlines().index("\tadd.s32 %r1, , %r2;") + 1
    assert err.startswith(f"{src}:{line}:"), err
    assert "Traceback" not in err
    assert not out.exists() and _digest(src) == before
    assert sorted(os.listdir(tmp_path)) == ["bad.ptx"]


def test_unsupported_target_lists_the_supported_ones(tmp_path, capsys):
    src = tmp_path / "t.ptx"
    src.write_text(GOOD.replace(".target sm_90", ".target sm_61"))
    assert main(["ptx", str(src)]) == 2
    err = capsys.readouterr().err
    for t in ("sm_70", "sm_80", "sm_90", "sm_100a", "sm_120"):
        assert t in err


def test_missing_file_and_unknown_sm(tmp_path, capsys):
    assert main(["ptx", str(tmp_path / "nope.ptx")]) == 2
    assert "nope.ptx" in capsys.readouterr().err
    src = tmp_path / "k.ptx"
    src.write_text(GOOD)
    assert main(["ptx", str(src), "--sm", "52"]) == 2
    assert "unknown NVIDIA target 'sm_52'" in capsys.readouterr().err


def test_ptxas_wrapper_without_ptxas_fails_cleanly(tmp_path, monkeypatch, capsys):
    src = tmp_path / "k.ptx"
    src.write_text(GOOD)
    before = _digest(src)
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    wrapper = fake_bin / "ptxas"                                   # our own wrapper must be skipped
    wrapper.write_text("#!/bin/sh\nexec shflx ptxas \"$@\"\n")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake_bin))
    monkeypatch.delenv("SHFLX_PTXAS", raising=False)
    monkeypatch.setattr("shflx.nvidia.ptxas._wheel_ptxas", lambda: None)      # nor NVIDIA's nvcc wheel
    code = main(["ptxas", "-arch=sm_90", str(src), "-o", str(tmp_path / "k.cubin")])
    err = capsys.readouterr().err
    assert code == 2 and "ptxas not found" in err and "SHFLX_PTXAS" in err and "Traceback" not in err
    assert _digest(src) == before and not (tmp_path / "k.cubin").exists()
    monkeypatch.setenv("SHFLX_PTXAS", str(tmp_path / "missing-ptxas"))
    assert main(["ptxas", "-arch=sm_90", str(src), "-o", str(tmp_path / "k.cubin")]) == 2
    assert "SHFLX_PTXAS" in capsys.readouterr().err
    assert _digest(src) == before and sorted(os.listdir(tmp_path)) == ["bin", "k.ptx"]


def test_ptxas_wrapper_rewrites_a_copy_and_passes_every_argument(tmp_path, monkeypatch):
    """A recording fake ptxas: it must get the same arguments with the input replaced by a rewritten copy."""
    src = tmp_path / "k.ptx"
    src.write_text(GOOD)
    before = _digest(src)
    log = tmp_path / "args.json"
    fake = tmp_path / "realptxas"
    fake.write_text(f"#!{sys.executable}\nimport json, sys\nargs = sys.argv[1:]\n"
                    "ptx = [a for a in args if a.endswith('.ptx')][0]\n"
                    f"json.dump({{'args': args, 'text': open(ptx).read()}}, open({str(log)!r}, 'w'))\n"
                    "sys.exit(7)\n")
    fake.chmod(0o755)
    monkeypatch.setenv("SHFLX_PTXAS", str(fake))
    args = ["-arch=sm_90", "-O3", "--maxrregcount", "64", str(src), "-o", str(tmp_path / "k.cubin")]
    assert main(["ptxas", *args]) == 7                            # ptxas's own exit code
    got = json.loads(log.read_text())
    k = args.index(str(src))
    assert got["args"][:k] == args[:k] and got["args"][k + 1:] == args[k + 1:]
    assert got["args"][k] != str(src) and got["args"][k].endswith("k.ptx")
    assert "redux.sync.add.s32" in got["text"]
    assert _digest(src) == before
    assert not Path(got["args"][k]).exists()                       # the temp copy is gone


def test_ptxas_wrapper_end_to_end_with_the_real_ptxas(tmp_path, monkeypatch):
    monkeypatch.delenv("SHFLX_PTXAS", raising=False)       # the wrapper below must find it on PATH
    if ptxas_path() is None:
        pytest.skip("ptxas not on PATH")
    src = tmp_path / "k.ptx"
    src.write_text(GOOD)
    before = _digest(src)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("SHFLX_PTXAS", None)
    r = subprocess.run([sys.executable, "-m", "shflx", "ptxas", "-arch=sm_90", str(src), "-o",
                        str(tmp_path / "k.cubin")], capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "1 rewrite(s) before ptxas" in r.stderr
    assert (tmp_path / "k.cubin").read_bytes()[:4] == b"\x7fELF" and _digest(src) == before


def test_report_names_the_cuda_line_from_loc(tmp_path, capsys):
    lines = []
    for ln in GOOD.splitlines():
        if "shfl.sync" in ln:
            lines.append("\t.loc\t1 5 2")
        lines.append(ln)
    src = tmp_path / "k.ptx"
    src.write_text("\n".join(lines) + '\n\t.file\t1 "k.cu"\n')
    assert main(["ptx", str(src), "--report", "json", "--no-load-shuffle"]) == 0
    [rep] = json.loads(capsys.readouterr().out)
    assert {s["source_location"] for s in rep["sites"]} == {"k.cu:5:2"}
    assert rep["chains"][0]["source_location"] == "k.cu:5:2"
    assert main(["ptx", str(src), "--no-load-shuffle"]) == 0
    assert f"{src}:" in (out := capsys.readouterr().out) and "(k.cu:5:2)" in out


def test_ptxas_of_the_nvcc_wheel_when_none_is_on_path(tmp_path, monkeypatch):
    """shflx[cuda] brings NVIDIA's nvcc wheel, whose ptxas serves when PATH has none."""
    from shflx.nvidia.ptxas import real_ptxas
    wheel = pytest.importorskip("nvidia.cuda_nvcc", reason="NVIDIA's nvcc wheel is not installed (shflx[cuda])")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("SHFLX_PTXAS", raising=False)
    found = Path(real_ptxas())
    assert found.name == "ptxas" and found.is_relative_to(Path(list(wheel.__path__)[0]))
