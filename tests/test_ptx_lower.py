"""`shflx lower PATTERN --arch sm_NN --ptx` writes a .version every target accepts: at least the
PTX ISA LLVM itself uses for that processor (sm_100a needs 8.6, sm_120 8.7), checked with ptxas
where it is installed (a target this ptxas no longer knows, e.g. sm_70 with CUDA 13, is skipped)."""
from __future__ import annotations

import re
import subprocess

import pytest

from shflx.codegen.nvptx import ptx_version
from shflx.errors import ToolchainError
from shflx.isa import known_nvidia_targets
from shflx.nvidia.ptx import ptx_for_pattern
from shflx.nvidia.ptxas import real_ptxas


def _version(v: str) -> tuple[int, int]:
    major, minor = v.split(".")
    return int(major), int(minor)


@pytest.mark.parametrize("sm", known_nvidia_targets())
def test_lowered_ptx_version_suits_the_target(sm, tmp_path):
    text = ptx_for_pattern("xor 1", sm, target_min_version=ptx_version(sm))
    version = re.search(r"^\.version (\S+)$", text, flags=re.M).group(1)
    assert _version(version) >= _version(ptx_version(sm))
    try:
        ptxas = real_ptxas()
    except ToolchainError:
        pytest.skip("ptxas not installed")
    src = tmp_path / "p.ptx"
    src.write_text(text)
    r = subprocess.run([ptxas, f"-arch={sm}", "-c", str(src), "-o", str(tmp_path / "p.o")],
                       capture_output=True, text=True)
    if r.returncode and "is not defined for option" in r.stderr:
        pytest.skip(f"this ptxas does not know {sm}")
    assert r.returncode == 0, r.stderr
