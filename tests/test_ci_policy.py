"""tests/ci_policy.py: under CI=true a skip fails with its reason, except the listed ones."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ci_policy import allowed_in_ci

TESTS = Path(__file__).resolve().parent

CONFTEST = "from ci_policy import pytest_make_collect_report, pytest_runtest_makereport  # noqa: F401\n"
SAMPLE = '''
import pytest

def test_needs_shared():
    pytest.skip("/x/shared/spec/golden_sequences.yaml not present")

def test_old_target():
    pytest.skip("this ptxas does not know sm_70")

@pytest.mark.parametrize("vid", [])
def test_empty(vid):
    pass

@pytest.mark.xfail(strict=True, reason="known bug")
def test_known_bug():
    assert False
'''


def _run(tmp_path: Path, ci: str) -> subprocess.CompletedProcess:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    env = dict(os.environ, CI=ci, PYTHONPATH=str(TESTS))
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfEs", "test_sample.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_under_ci_a_skip_fails_with_its_reason(tmp_path):
    r = _run(tmp_path, "true")
    assert r.returncode == 1, r.stdout
    assert "golden_sequences.yaml not present" in r.stdout and "counts as a failure in CI" in r.stdout
    assert "1 failed, 1 skipped, 1 xfailed, 1 error" in r.stdout, r.stdout        # the empty set fails at setup


def test_outside_ci_skips_stay_skips(tmp_path):
    r = _run(tmp_path, "")
    assert r.returncode == 0 and "3 skipped" in r.stdout and "1 xfailed" in r.stdout, r.stdout


@pytest.mark.parametrize("reason,allowed", [("this ptxas does not know sm_70", True),
                                            ("the GPU is gfx1010 (x), which shflx does not model; known: ", True),
                                            ("ptxas not found", False), ("nvcc/ptxas not found on PATH", False),
                                            ("no AMD emulator: amdemu cannot be imported", False),
                                            ("the third-party CUDA corpus is not at /x/corpus (set SHFLX_CORPUS to "
                                             "a folder with its MANIFEST.tsv)", True)])
def test_the_allowed_list(reason, allowed):
    assert allowed_in_ci(reason) is allowed


def test_without_the_corpus_its_cases_skip_in_one_line_also_in_ci(tmp_path):
    """The corpus is leaving shared/: its tests say where they looked and skip, CI=true or not."""
    test = f"{TESTS / 'test_frontend_real.py'}::test_corpus_units_compile_as_written"
    env = dict(os.environ, CI="true", SHFLX_CORPUS=str(tmp_path / "no-corpus"))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", test],
                       cwd=TESTS.parent, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "3 skipped" in r.stdout, r.stdout
    assert f"the third-party CUDA corpus is not at {tmp_path / 'no-corpus'}" in r.stdout
