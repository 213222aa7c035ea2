"""Shared test setup: keep caches out of the user's home, find shared/ beside the checkout, and
under CI=true fail instead of skip (ci_policy)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))          # `tests.reference` importable from every test

from ci_policy import IN_CI, pytest_make_collect_report, pytest_runtest_makereport  # noqa: E402,F401 (hooks)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SHFLX_CACHE_DIR", str(tmp_path / "cache"))


def ptxas_path() -> str | None:
    """The ptxas shflx would run (shflx.nvidia.ptxas.real_ptxas: SHFLX_PTXAS, else the first
    non-wrapper `ptxas` on PATH), or None where there is none. Import it as `from conftest import
    ptxas_path` (tests/ is on sys.path under pytest)."""
    from shflx.errors import ToolchainError
    from shflx.nvidia.ptxas import real_ptxas

    try:
        return real_ptxas()
    except ToolchainError:
        return None


def clean_error(r, code: int, *words: str) -> None:
    """A command's failure as the project promises it (a subprocess.CompletedProcess): exit `code`,
    no traceback, error lines on stderr, each of `words` in one of them."""
    assert r.returncode == code, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    errors = [line for line in r.stderr.splitlines() if "error:" in line]
    assert errors, r.stderr
    for w in words:
        assert any(w in line for line in errors), (w, r.stderr)


def compile_for(src: Path, arch: str):
    """`src` compiled for `arch` as far as its IR (AMD) or PTX (sm_NN: skipped where NVIDIA's CUDA
    headers are not installed); the CompileResult."""
    from shflx.driver.amd import compile_file
    from shflx.driver.nvidia import compile_cuda, cuda_headers
    from shflx.frontend.clang import FrontendOptions

    if not arch.startswith("sm_"):
        return compile_file(src, arch, emit="llvm")
    if cuda_headers(FrontendOptions()) is None:
        pytest.skip("NVIDIA's CUDA headers are not installed")
    return compile_cuda(src, arch, emit="ptx")


def shared_path(relative: str) -> Path:
    """SHARED / relative; a test that needs it skips without it, and fails under CI=true (where
    shared/ is beside the checkout)."""
    path = SHARED / relative
    if not path.exists():
        (pytest.fail if IN_CI else pytest.skip)(f"{path} not present (shared/ is beside the checkout in CI)")
    return path


def shared_spec(name: str) -> Path:
    return shared_path(f"spec/{name}")
