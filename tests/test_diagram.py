"""Lane diagrams (`shflx lower --diagram`, `shflx verify --diagram`), progress lines and -v/-q.

The diagram's cells are compared with the independent reference replay (tests/reference/amd_ref),
and its '*' marks with the lanes the reference judges wrong."""
from __future__ import annotations

import io
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import shflx
from shflx import diagram
from shflx.driver.progress import Progress
from shflx.pattern import parse_pattern
from shflx.plan import plan_to_dict
from tests.reference.amd_ref import ref_replay

ROOT = Path(__file__).resolve().parents[1]
WRONG = ROOT / "patterns" / "plans" / "wrong" / "gfx942_xor2_wrong_quad_perm.json"


def _ref_cells(plan) -> list[str]:
    """What the diagram's last step row must show, from the reference replay."""
    out = []
    for v in ref_replay(plan_to_dict(plan)):
        out.append(str(v[1]) if v[0] == "x" else {"zero": "0!", "undef": "?"}.get(v[0], "~"))
    return out


def _grid(text: str, row: str) -> list[str]:
    """The cells of `row` across all lane blocks, marks stripped."""
    cells: list[str] = []
    for line in text.splitlines():
        if line.startswith(row + " ") and not line.startswith(f"  {row}"):
            cells += [c.rstrip("*") for c in line[len(row):].split()]
    return cells


def _marked(text: str) -> list[int]:
    lanes: list[int] = []
    header: list[int] = []
    for line in text.splitlines():
        if line.startswith("lane "):
            header = [int(t) for t in line.split()[1:]]
        elif line.startswith("want "):
            cells = re.findall(r".{3}[ *]", line[len(line.split()[0]) + 1:].ljust(4 * len(header)))
            lanes += [lane for lane, c in zip(header, cells) if c.endswith("*")]
    return lanes


@pytest.mark.parametrize("pattern,arch,wave", [("xor 5", "gfx90a", None), ("down 3 width 16", "gfx1100", None),
                                               ("up 1", "gfx1030", None), ("xor 16", "gfx1100", 64),
                                               ("idx 9 width 16", "gfx942", None)])
def test_text_cells_are_the_reference_replay(pattern, arch, wave):
    plan = shflx.lower(pattern, arch, wave)
    text = diagram.text(plan, parse_pattern(pattern).lane_map(plan.wave))
    last = plan.steps[-1].id if plan.steps else "x"
    assert _grid(text, last) == _ref_cells(plan)
    assert _grid(text, "x") == [str(i) for i in range(plan.wave)]
    assert _marked(text) == []                       # a proven plan: nothing differs from the target


def test_a_wrong_plan_is_marked_where_the_reference_finds_it_wrong():
    plan = shflx.load_plan(WRONG)
    want = parse_pattern(plan.target).lane_map(plan.wave)
    text = diagram.text(plan, want)
    wrong = [i for i, c in enumerate(_ref_cells(plan)) if c != str(int(want.src[i]))]
    assert wrong and _marked(text) == wrong


def test_svg_is_well_formed_with_a_cell_per_lane_and_row():
    plan = shflx.load_plan(WRONG)
    want = parse_pattern(plan.target).lane_map(plan.wave)
    root = ET.fromstring(diagram.svg(plan, want))
    rects = root.findall("{http://www.w3.org/2000/svg}rect")
    rows = 1 + len(plan.steps) + 1                   # x, the steps, want
    assert len(rects) == rows * plan.wave
    red = [r for r in rects if r.get("stroke") == "#d00"]
    assert len(red) == len(_marked(diagram.text(plan, want)))


def shflx_cli(*args):
    return subprocess.run([sys.executable, "-m", "shflx", *args], capture_output=True, text=True)


def test_cli_diagram_verbosity_and_errors():
    r = shflx_cli("lower", "xor 5", "--arch", "gfx942", "--diagram")
    assert r.returncode == 0 and "which input lane each lane holds" in r.stdout and "lane  48" in r.stdout
    r = shflx_cli("lower", "xor 5", "--arch", "gfx942", "--diagram", "svg")
    assert r.returncode == 0 and r.stdout.startswith("<svg")
    r = shflx_cli("lower", "xor 1", "--arch", "sm_90", "--diagram")
    assert r.returncode == 2 and "--diagram is for AMD targets" in r.stderr
    r = shflx_cli("lower", "xor 5", "--arch", "gfx942", "-q")
    assert r.returncode == 0 and all(line.startswith("v_") for line in r.stdout.splitlines())
    r = shflx_cli("lower", "xor 5", "--arch", "gfx942", "-v")
    assert "search: stage" in r.stdout
    r = shflx_cli("verify", "-q", str(ROOT / "patterns" / "plans" / "correct"))
    assert r.returncode == 0 and r.stdout == ""
    r = shflx_cli("verify", "-q", "--diagram", str(WRONG))
    assert r.returncode == 1 and "refuted" in r.stdout and "2*" in r.stdout
    r = shflx_cli("verify", "--json", "--diagram", str(WRONG))
    assert r.returncode == 2 and "does not go with --json" in r.stderr and r.stdout == ""
    r = shflx_cli("verify", "-v", str(ROOT / "patterns" / "plans" / "correct" / "gfx942_xor1.json"))
    assert r.returncode == 0 and "gfx942, wave64, 1 step(s), target 'xor 1'" in r.stdout


def test_progress_lines_bar_and_quiet():
    log = io.StringIO()
    p = Progress("coverage", 1, log, tty=False, delay=0)
    p.plan("gfx942 uniform", 2)
    p.plan("gfx942 catalog", 1)
    for g in ("gfx942 uniform", "gfx942 catalog", "gfx942 uniform"):
        p.advance(g)
    lines = log.getvalue().splitlines()
    assert [re.sub(r", [\d.]+ s\)", ")", line) for line in lines] == [
        "coverage: gfx942 catalog done (2/3)", "coverage: gfx942 uniform done (3/3)"]
    bar = io.StringIO()
    p = Progress("coverage", 1, bar, tty=True, delay=0)
    p.plan("g", 2)
    p.advance("g")
    p.advance("g")
    assert bar.getvalue().count("\r") == 2 and "[" + "#" * 30 + "] 2/2" in bar.getvalue()
    assert bar.getvalue().endswith("\n")
    quiet = io.StringIO()
    p = Progress("coverage", 0, quiet, tty=False, delay=0)
    p.plan("g", 2)
    p.advance("g")
    p.advance("g")
    assert quiet.getvalue() == ""


def test_progress_waits_for_a_slow_run_of_several_units():
    """Issue 27: shown for a run over ~2 s with more than one unit of work, silent otherwise (a quick
    two-target compile prints nothing: success is quiet); counted in units (maps), not chunks."""
    now = [0.0]
    quick = io.StringIO()
    p = Progress("compile", 1, quick, tty=True, clock=lambda: now[0])
    p.plan("a.cu (gfx942)", 1)
    p.plan("a.cu (gfx1100)", 1)
    now[0] = 1.5
    p.advance("a.cu (gfx942)")
    now[0] = 2.5                                   # over 2 s, but the run is over: nothing to show
    p.advance("a.cu (gfx1100)")
    assert quick.getvalue() == ""
    one = io.StringIO()
    p = Progress("compile", 1, one, tty=False, clock=lambda: now[0])
    p.plan("a.cu (gfx942)", 1)
    now[0] = 10.0
    p.advance("a.cu (gfx942)")
    assert one.getvalue() == ""                    # one unit: nothing to count
    slow, log = io.StringIO(), io.StringIO()
    for stream, tty in ((slow, True), (log, False)):
        now[0] = 0.0
        p = Progress("coverage", 1, stream, tty=tty, clock=lambda: now[0])
        p.plan("gfx942 uniform", 40)
        p.plan("gfx942 catalog", 20)
        now[0] = 1.0
        p.advance("gfx942 uniform", 20)            # a chunk of 20 maps, under 2 s: silent
        now[0] = 3.0
        p.advance("gfx942 uniform", 20)
        p.advance("gfx942 catalog", 20)
    assert "\r" in slow.getvalue() and "] 40/60" in slow.getvalue() and "] 60/60" in slow.getvalue()
    assert slow.getvalue().endswith("\n") and "20/60" not in slow.getvalue()
    assert [re.sub(r", [\d.]+ s\)", ")", ln) for ln in log.getvalue().splitlines()] == [
        "coverage: gfx942 uniform done (40/60)", "coverage: gfx942 catalog done (60/60)"]


def test_coverage_prints_plain_progress_on_a_pipe(tmp_path):
    r = shflx_cli("coverage", "--arch", "gfx1100", "--limit", "4", "--out", str(tmp_path / "c.json"))
    assert r.returncode == 0, r.stderr
    # lines only once the run is past ~2 s (driver.progress.DELAY): at most one per part, in maps
    done = re.findall(r"^coverage: gfx1100 (\w+) done \((\d+)/(\d+)", r.stderr, re.M)
    assert set(part for part, _, _ in done) <= {"uniform", "catalog"} and len(done) <= 2
    assert all(int(total) > 16 for _, _, total in done)          # maps, not the 16 chunks
    assert "\r" not in r.stderr and (tmp_path / "c.json").exists()
    r = shflx_cli("coverage", "--arch", "gfx1100", "--limit", "4", "--out", str(tmp_path / "d.json"), "-q")
    assert r.returncode == 0 and r.stderr == "" and "wrote" not in r.stdout
