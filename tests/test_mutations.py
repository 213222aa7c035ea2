"""Mutations the suite must catch (issue 13, item 2): each is applied to a copy of the package and
the tests that guard it are run against that copy; they must fail. The first three miscompile
every affected site while every proof still holds (they break the emitted code, not the plan): the
read-back of emitted helpers (tests/test_readback.py, tests/test_broadcast.py) catches them at
compile time, and the example kernels and primitives executed on the AMD emulator catch them too."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI", "").lower() == "true"


def _emulator_ready() -> str | None:
    """Why the emulator cannot run here, or None."""
    try:
        import amdemu  # noqa: F401
    except ImportError as e:
        return f"amdemu is not importable ({e}); pip install -r ../shared/amdemu/requirements.txt"
    return None


EMULATED = ("hw_tests/amd/test_kernels_hw.py", "hw_tests/amd/test_primitives_hw.py")
EMITTED = ("tests/test_readback.py", *EMULATED)     # read back at compile time, and executed
# (name, file, text, mutated text, tests to run, pytest -k, emulated targets)
MUTATIONS = [
    ("update.dpp old/src swapped", "shflx/amd/primitives.py",
     '_DPP16 = (("old", "value"), ("src", "value"),', '_DPP16 = (("src", "value"), ("old", "value"),',
     EMITTED, "reads_back or scan or excl or exclusive", "gfx1100,gfx942"),
    ("permlane16 sel_lo/sel_hi swapped", "shflx/amd/primitives.py",
     '("sel_lo", "sgpr"), ("sel_hi", "sgpr")', '("sel_hi", "sgpr"), ("sel_lo", "sgpr")',
     EMITTED, "reads_back or butterfly_sum or permlane", "gfx1100"),
    ("wave64 uniform broadcast halves swapped (plan)", "shflx/match/broadcast.py",
     'Select(id="r", a="hi", b="lo", lanes=UPPER_HALF)', 'Select(id="r", a="lo", b="hi", lanes=UPPER_HALF)',
     ("tests/test_broadcast.py", *EMULATED), "instance or runtime_broadcast", "gfx942"),
    ("wave64 uniform broadcast halves swapped (emitted lanes)", "shflx/match/broadcast.py",
     'LANE_OPERANDS = {"lo": "%b.lo", "hi": "%b.hi"}', 'LANE_OPERANDS = {"lo": "%b.hi", "hi": "%b.lo"}',
     ("tests/test_broadcast.py",), "reads_back", ""),
    ("redux.sync block-shape guard constant", "shflx/nvidia/redux.py",
     '("and.b32", "mx nx 31")', '("and.b32", "mx nx 15")', ("tests/test_block_shape_guard.py",), "", ""),
    ("redux.sync guard in LLVM IR", "shflx/driver/nvidia.py",
     '"  %xm = and i32 %nx, 31"', '"  %xm = and i32 %nx, 63"', ("tests/test_block_shape_guard.py",), "", ""),
    ("ds_bpermute cost in isa/ (GFX8/9 family)", "isa/amd/_gfx8.toml", "[costs.ds_bpermute]\ncycles = 54",
     "[costs.ds_bpermute]\ncycles = 44", ("tests/test_isa.py",), "cited_figures", ""),
    ("ds_bpermute cost in isa/ (GFX10+ family)", "isa/amd/_gfx10.toml", "[costs.ds_bpermute]\ncycles = 55",
     "[costs.ds_bpermute]\ncycles = 60", ("tests/test_isa.py",), "cited_figures", ""),
    ("width 0 through the pattern parser", "shflx/pattern.py",
     "if w < 1 or w > CUDA_WARP or w & (w - 1):", "if w < 0 or w > CUDA_WARP or (w and w & (w - 1)):",
     ("tests/test_pattern.py",), "errors_are_clear", ""),
]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("mutant")
    for part in ("shflx", "isa", "patterns", "tests", "hw_tests", "pyproject.toml"):
        src = ROOT / part
        (shutil.copytree if src.is_dir() else shutil.copy)(src, copy / part)
    return copy


@pytest.mark.parametrize("name,path,text,mutant,tests,k,targets", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_the_mutation_is_caught(pristine, tmp_path, name, path, text, mutant, tests, k, targets):
    if targets and (why := _emulator_ready()):
        (pytest.fail if IN_CI else pytest.skip)(f"needs the AMD emulator: {why}")
    work = tmp_path / "repo"
    shutil.copytree(pristine, work, symlinks=True)
    if (ROOT.parent / "shared").exists():
        (tmp_path / "shared").symlink_to(ROOT.parent / "shared")
    target = work / path
    source = target.read_text()
    assert source.count(text) == 1, f"{path} no longer has the text this mutation changes: {text!r}"
    target.write_text(source.replace(text, mutant))
    env = {**os.environ, "PYTHONPATH": str(work), "SHFLX_AMD_DEVICE": "emulator",
           "SHFLX_EMULATED_TARGETS": targets or "gfx942", "SHFLX_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("SHFLX_TEST_INSTALLED", None)
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly",
           *tests, *(["-k", k] if k else [])]
    r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    summary = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
    assert r.returncode == 1 and " failed" in summary, f"{name} was not caught: {summary}\n{r.stderr[-2000:]}"
