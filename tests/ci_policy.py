"""CI=true turns skips into failures: in CI every prerequisite (../shared, nvcc/ptxas, the AMD
emulator) is set up, so a test that skips there hides a broken set-up instead of reporting it.

Imported by tests/conftest.py and hw_tests/amd/conftest.py (its pytest hooks are used as theirs).
The skips that stay skips under CI are listed in ALLOWED_IN_CI, each with why."""
from __future__ import annotations

import os
import re

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"

# reason pattern -> why it may skip in CI too
ALLOWED_IN_CI: dict[str, str] = {
    r"this ptxas does not know sm_\d+": "the CUDA 13 ptxas no longer assembles that NVIDIA target (sm_70, "
                                        "sm_72, sm_75); the test runs for every target it knows",
    r"which shflx does not model": "a real AMD GPU of a target shflx has no model for (hw_tests on hardware)",
    r"the third-party CUDA corpus is not at": "the corpus is leaving shared/ (third-party code is kept nowhere; "
                                              "its manifest brings the files in where a run needs them): its "
                                              "cases skip with this one line, and nothing else in CI depends on "
                                              "it (tests/corpus_location.py)",
    r"nvidia-cublas-cu12 is not installed": "a 581 MB wheel (856 MB installed) for 0.6 MB of headers, not part of "
                                            "shflx[cuda]; the check runs where it is installed",
}


def allowed_in_ci(reason: str) -> bool:
    return any(re.search(p, reason) for p in ALLOWED_IN_CI)


def _reason(longrepr) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:           # (path, line, "Skipped: why")
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(getattr(longrepr, "longrepr", longrepr))


def _failure(reason: str) -> str:
    return (f"CI=true: this test skipped, which counts as a failure in CI (a prerequisite is missing): "
            f"{reason}")


def _fail_skip(report) -> None:
    if not IN_CI or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = _reason(report.longrepr)
    if not allowed_in_ci(reason):
        report.outcome = "failed"
        report.longrepr = _failure(reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_skip(outcome.get_result())
