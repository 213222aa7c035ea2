"""The command line as a clang/nvcc user meets it (issue 27): help for every flag, --version on every
subcommand, choices listed for every enumerated option, one exit-code table, and the small API
fixes (plan_to_json, dir(shflx)). In-process (shflx.cli.main) wherever that is enough: fast."""
from __future__ import annotations

import json
import re
import stat
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import shflx  # noqa: E402
from shflx import cli  # noqa: E402
from shflx.driver import flags as F  # noqa: E402
from shflx.driver.flags import parse_compile_args  # noqa: E402

PLANS = ROOT / "patterns" / "plans"


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    """shflx.cli.main in this process: (exit code, stdout, stderr); argparse's exits included."""
    try:
        code = cli.main(list(argv))
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 0
    out = capsys.readouterr()
    return code, out.out, out.err


SUBCOMMANDS = ["verify", "lower", "compile", "launch", "coverage", "ptx", "ptxas", "doctor", "targets", "server"]


@pytest.mark.parametrize("command", [c for c in SUBCOMMANDS if c != "ptxas"])
def test_every_subcommand_answers_version_and_help(capsys, command):
    code, out, err = run_main(capsys, command, "--version")
    assert code == 0 and out.strip() == f"shflx {shflx.__version__}", (out, err)
    code, out, err = run_main(capsys, command, "--help")
    assert code == 0 and out.startswith(f"usage: shflx {command}") and "--version" in out, err
    assert not err


@pytest.mark.parametrize("command", ["coverage", "doctor", "targets", "launch", "compile", "ptxas"])
def test_every_subcommand_has_a_description(capsys, command):
    parser = cli._build_parser()
    sub = next(a for a in parser._subparsers._group_actions if a.dest == "command").choices[command]
    assert sub.description and len(sub.description) > 40, command


def test_compile_help_lists_every_flag_with_defaults_and_choices(capsys):
    code, out, _ = run_main(capsys, "compile", "--help")
    assert code == 0
    words = set(re.findall(r"(?<![\w-])(-{1,2}[A-Za-z][\w-]*=?)", out))
    flags = [*F.SWITCHES, *F.VALUED, *F.TARGET_FLAGS, *F.PREPROCESSOR, *F.DEPFILE_SWITCHES, *F.DEPFILE_VALUED,
             "-Xclang", "-Xcompiler", "-Xptxas", "-std=", "-gencode", "-W", "-w", "-O0", "-Ofast", "-g0"]
    missing = [f for f in flags if f.rstrip("=") not in {w.rstrip("=") for w in words} and f not in out]
    assert not missing, missing
    for choices in (F.EMIT_CHOICES, F.REPORT_CHOICES, F.PREFER_CHOICES, F.LANGUAGE_CHOICES, F.CODE_OBJECT_VERSIONS):
        assert "{" + ",".join(choices) + "}" in out, choices
    assert "(default: cycles)" in out and "default -O3" in out and "default: hsaco / cubin" in out


def test_compile_help_and_version_also_after_other_flags(capsys):
    code, out, _ = run_main(capsys, "compile", "k.cu", "--offload-arch", "gfx942", "-O2", "--version")
    assert code == 0 and out.startswith("shflx ")
    code, out, _ = run_main(capsys, "compile", "-isystem", "/x", "-Os", "-h")
    assert code == 0 and "--emit {" in out


def test_launch_help_lists_its_options_and_version_stops_before_the_command(capsys):
    code, out, _ = run_main(capsys, "launch", "--help")
    assert code == 0 and "usage: shflx launch [OPTIONS] -- COMPILER ARGS..." in out
    for opt in ("--baseline", "--report-file", "-Rpass=shflx", "--no-chains", "--fp-reassoc", "--cmake-toolchain"):
        assert opt in out
    code, out, _ = run_main(capsys, "launch", "--version")
    assert code == 0 and out.startswith("shflx ")


def test_launch_passes_a_compilers_own_help_through(capfd, tmp_path):
    """`--help` after `--` belongs to the wrapped compiler."""
    tool = tmp_path / "cc"
    tool.write_text("#!/bin/sh\necho \"compiler got $*\"\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    for argv in (["launch", "--", str(tool), "--help"], ["launch", str(tool), "--help"],
                 ["launch", "--report-file", "r/", str(tool), "--version"]):
        assert cli.main(argv) == 0
        out = capfd.readouterr().out
        assert out.startswith("compiler got --") and "usage: shflx" not in out, out


def test_ptxas_help_and_version_show_shflx_first_then_nvidias(capfd, tmp_path, monkeypatch):
    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\necho \"NVIDIA ptxas answering $*\"\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("SHFLX_PTXAS", str(fake))
    assert cli.main(["ptxas", "--help"]) == 0
    out = capfd.readouterr().out
    assert out.startswith("usage: shflx ptxas") and out.index("A ptxas wrapper") < out.index("NVIDIA ptxas answering --help")
    assert cli.main(["ptxas", "--version"]) == 0
    out = capfd.readouterr().out
    assert out.startswith(f"shflx {shflx.__version__} (ptxas wrapper)") and "answering --version" in out


def test_ptxas_help_without_a_ptxas_still_shows_shflxs_part(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SHFLX_PTXAS", str(tmp_path / "none"))
    code, out, _ = run_main(capsys, "ptxas", "--help")
    assert code == 0 and out.startswith("usage: shflx ptxas") and "not found" in out


@pytest.mark.parametrize("words, fragment", [
    (["--emit", "bogus"], "invalid value 'bogus' for --emit; valid values: hsaco, obj, asm, llvm, cubin, ptx"),
    (["--report", "xml"], "valid values: text, json"),
    (["--prefer", "fast"], "valid values: cycles, lds-free"),
    (["-x", "c"], "valid values: cuda, hip"),
    (["-mcode-object-version=3"], "valid values: 4, 5, 6"),
    (["-foo"], "unknown flag '-foo'"),
])
def test_bad_compile_flags_are_one_line_usage_errors(capsys, words, fragment):
    code, out, err = run_main(capsys, "compile", "k.cu", "--offload-arch", "gfx942", *words)
    assert code == 2 and fragment in err and err.count("\n") == 1 and err.startswith("shflx: error: "), err
    assert "internal error" not in err and not out


def test_documented_f_flags_pass_and_others_do_not():
    f = parse_compile_args(["k.cu", "--offload-arch=gfx942", "-fPIC", "-fvisibility=hidden", "-fno-rtti",
                            "-ffp-contract=off", "-fsanitize=address", "-fno-omit-frame-pointer"])
    assert f.host == ["-fPIC", "-fvisibility=hidden", "-fno-rtti", "-ffp-contract=off", "-fsanitize=address",
                      "-fno-omit-frame-pointer"]
    assert f.device == ["-fno-rtti", "-ffp-contract=off"]
    doc = (ROOT / "docs" / "compile-flags.md").read_text()
    for flag in ("-fPIC", "-fvisibility=", "-fsanitize="):
        assert flag in doc
    for flag in ("-foo", "-fbogus", "-fno-such-thing"):
        with pytest.raises(shflx.errors.UsageError, match=f"unknown flag '{flag}'"):
            parse_compile_args(["k.cu", "--offload-arch=gfx942", flag])


def test_enumerated_options_of_other_subcommands_list_their_choices(capsys):
    for argv in (["lower", "xor 1", "--arch", "gfx942", "--prefer", "fast"], ["ptx", "k.ptx", "--report", "xml"],
                 ["lower", "xor 1", "--arch", "gfx942", "--diagram", "png"], ["server", "restart"]):
        code, _, err = run_main(capsys, *argv)
        assert code == 2 and "invalid choice" in err and "choose from" in err, (argv, err)


def test_coverage_help_names_the_default_targets():
    from shflx.driver.coverage import DEFAULT_TARGETS
    assert cli.COVERAGE_DEFAULTS == ", ".join(DEFAULT_TARGETS)


# -- exit codes: one table (README "Exit codes"), the same in every subcommand

def test_a_bad_pattern_is_the_usage_code_not_the_refuted_code(capsys):
    code, _, err = run_main(capsys, "lower", "xro 5", "--arch", "gfx942")
    assert code == 2 and "unknown pattern kind 'xro'" in err
    code, _, err = run_main(capsys, "lower", "xor 5", "--arch", "gfx999")
    assert code == 2


@pytest.mark.parametrize("plans, code", [
    (["correct/gfx942_xor1.json"], 0),
    (["wrong/gfx942_xor2_wrong_quad_perm.json"], 1),                                   # refuted
    (["wrong/gfx942_row_xmask_illegal.json"], 2),                                      # invalid
    (["unknown/gfx1100_fi0_reads_inactive_lane_q1.json"], 3),                          # unknown
    (["wrong/gfx942_xor2_wrong_quad_perm.json", "unknown/gfx1100_fi0_reads_inactive_lane_q1.json"], 1),
    (["wrong/gfx942_xor2_wrong_quad_perm.json", "wrong/gfx942_row_xmask_illegal.json"], 2),
    (["wrong", "unknown"], 2),                                                          # the Quick start's
])
def test_verify_exit_codes_and_which_wins(capsys, plans, code):
    got, _, _ = run_main(capsys, "verify", "-q", *(str(PLANS / p) for p in plans))
    assert got == code


def test_readme_has_one_exit_code_table_that_matches_the_code():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `?(\d+)`? \| (.+?) \|$", section, re.M))
    assert set(rows) >= {"0", "1", "2", "3", "130"}, rows
    assert (cli.EXIT_PROVED, cli.EXIT_REFUTED, cli.EXIT_INVALID, cli.EXIT_UNKNOWN) == (0, 1, 2, 3)
    assert "refuted" in rows["1"] and "usage" in rows["2"] and "input" in rows["2"]
    assert "2, then 1, then 3" in section
    assert shflx.errors.InputError("x").exit_code == shflx.errors.UsageError("x").exit_code == 2


# -- reports: --report and --report-file

@pytest.mark.parametrize("words, fmt", [
    ([], "text"), (["--report-file", "r.txt"], "text"), (["--report-file", "r.JSON"], "json"),
    (["--report", "text", "--report-file", "r.json"], "text"), (["--report", "json", "--report-file", "r.txt"], "json"),
    (["--report", "json"], "json"),
])
def test_report_format_follows_the_flag_then_the_extension(words, fmt):
    assert parse_compile_args(["k.cu", "--offload-arch=gfx942", *words]).report_format == fmt


def test_report_text_without_a_file_prints_it_and_a_json_file_gets_json(tmp_path, capsys):
    src = ROOT / "patterns" / "kernels" / "shift" / "kernel.cu"
    code, out, err = run_main(capsys, "compile", str(src), "--offload-arch", "gfx942", "-o",
                              str(tmp_path / "k.hsaco"), "--report", "text")
    assert code == 0, err
    assert "shuffle site(s)" in out and "kernel " in out
    code, out, err = run_main(capsys, "compile", str(src), "--offload-arch", "gfx942", "-o",
                              str(tmp_path / "k.hsaco"), "--report-file", str(tmp_path / "r.json"))
    assert code == 0 and out == "", err
    assert json.loads((tmp_path / "r.json").read_text())[0]["arch"] == "gfx942"
    code, out, err = run_main(capsys, "compile", str(src), "--offload-arch", "gfx942", "-o", "-", "--report", "text")
    assert code == 2 and "--report-file" in err


# -- the Python API

def test_plan_to_json_is_text_and_plan_to_dict_the_dict(tmp_path, capsys):
    plan = shflx.lower("xor 1", "gfx942")
    text = shflx.plan_to_json(plan)
    assert isinstance(text, str) and json.loads(text)["schema_version"] >= 1
    assert isinstance(shflx.plan_to_dict(plan), dict) and "schema_version" not in shflx.plan_to_dict(plan)
    path = tmp_path / "p.json"
    path.write_text(text)                                        # the issue: write_text of it failed
    assert shflx.load_plan(path).steps == plan.steps
    code, _, _ = run_main(capsys, "verify", "-q", str(path))
    assert code == 0


def test_the_public_names_are_the_api():
    names = [n for n in dir(shflx) if not n.startswith("_")]
    assert not {"Any", "TYPE_CHECKING", "annotations"} & (set(dir(shflx)) | set(shflx.__all__))
    assert set(names) == {n for n in shflx.__all__ if not n.startswith("_")}, names
    assert {"plan_to_json", "plan_to_dict"} <= set(shflx.__all__)


def test_doctor_says_what_missing_means_and_prints_no_python_reprs(capsys):
    code, out, _ = run_main(capsys, "doctor")
    assert out.startswith("MISSING marks what") and "b'" not in out and "shflx: error:" not in out


def test_targets_has_a_header(capsys):
    code, out, _ = run_main(capsys, "targets")
    assert code == 0 and out.splitlines()[0].split() == ["target", "gen", "family", "features"]


def test_hip_probe_reasons_have_no_bytes_reprs():
    from shflx.runtime.hip import _plain
    raw = RuntimeError("failed to dlopen 'b'libamdhip64.so'': b'libamdhip64.so: cannot open shared object file'")
    assert _plain(raw) == "failed to dlopen 'libamdhip64.so': 'libamdhip64.so: cannot open shared object file'"
