"""hw_tests/amd: name the devices and the shflx under test in pytest's header; under CI=true a
skip is a failure (tests/ci_policy.py)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import shflx
from hw_devices import ROOT, selected

sys.path.insert(0, str(ROOT / "tests"))
from ci_policy import pytest_make_collect_report, pytest_runtest_makereport  # noqa: E402,F401 (hooks)


def pytest_configure(config):
    if os.environ.get("SHFLX_TEST_INSTALLED") == "1" and ROOT in Path(shflx.__file__).resolve().parents:
        raise pytest.UsageError(f"SHFLX_TEST_INSTALLED=1 but shflx is imported from the checkout "
                                f"({shflx.__file__}); run pytest outside it with `-c` pointing at an empty ini")


def pytest_report_header(config):
    sel = selected()
    if not sel.devices:
        return [f"shflx {shflx.__file__}", f"AMD devices: none ({sel.why})"]
    readings = "; ".join(f"{k}={v}" for k, v in getattr(sel.devices[0], "readings", {}).items())
    names = ", ".join(d.arch for d in sel.devices)
    return [f"shflx {shflx.__file__}",
            f"AMD devices ({sel.kind}): {names}" + (f" [emulator readings: {readings}]" if readings else "")]
