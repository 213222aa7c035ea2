"""Where the third-party CUDA corpus is, for every test, hardware test and benchmark that reads it:
$SHFLX_CORPUS, else `shared/corpus` beside the checkout. The corpus is leaving shared/ (third-party
code is kept committed nowhere; its manifest names repository, commit and path, and the files are
brought into a scratch directory when a benchmark needs them), so a test that needs it skips with
one line saying where it looked, also under CI=true (tests/ci_policy.py allows exactly that reason),
and nothing else in CI depends on it."""
from __future__ import annotations

import os
from pathlib import Path

VARIABLE = "SHFLX_CORPUS"
ROOT = Path(__file__).resolve().parents[1]
ABSENT = "the third-party CUDA corpus is not at"        # the start of the skip reason (ci_policy)


def corpus_dir() -> Path:
    """The corpus folder (holding MANIFEST.tsv), whether or not it is there."""
    return Path(os.environ.get(VARIABLE) or ROOT.parent / "shared" / "corpus")


def absent_reason() -> str:
    """One line naming where the corpus was looked for, or "" when it is there."""
    where = corpus_dir()
    if (where / "MANIFEST.tsv").is_file():
        return ""
    return f"{ABSENT} {where} (set {VARIABLE} to a folder with its MANIFEST.tsv)"


def require_corpus() -> Path:
    """The corpus folder; the calling test skips (in CI too) when it is absent."""
    import pytest

    why = absent_reason()
    if why:
        pytest.skip(why)
    return corpus_dir()
