"""Finding clang (HIP device front end) and ld.lld: an explicit override, ROCm, PATH, the ziglang wheel.

`find_clang()` returns the command prefix or raises ToolchainError naming everything it tried and
what to install. One adapter, no semantics (STYLE.md)."""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import ToolchainError

MIN_CLANG = 17     # AMDGPU HIP device compiles of gfx950/gfx12 need a recent clang


@dataclass(frozen=True)
class Tool:
    command: tuple[str, ...]
    version: str
    origin: str            # "override", "rocm", "path", "ziglang"


def _version(cmd: list[str]) -> str | None:
    try:
        out = subprocess.run([*cmd, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"clang version (\d+)[\d.]*", out.stdout + out.stderr)
    return m.group(0).split()[-1] if m else None


def _candidates() -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for env in ("SHFLX_LLVM_BIN",):
        if os.environ.get(env):
            out.append(("override", [str(Path(os.environ[env]) / "clang")]))
    rocm = os.environ.get("ROCM_PATH") or "/opt/rocm"
    out.append(("rocm", [str(Path(rocm) / "llvm" / "bin" / "clang")]))
    which = shutil.which("clang")
    if which:
        out.append(("path", [which]))
    if importlib.util.find_spec("ziglang") is not None:
        out.append(("ziglang", [sys.executable, "-m", "ziglang", "clang"]))
    return out


@lru_cache(maxsize=4)
def find_clang(llvm_bin: str | None = None) -> Tool:
    tried = []
    cands = [("override", [str(Path(llvm_bin) / "clang")])] if llvm_bin else _candidates()
    for origin, cmd in cands:
        if origin != "ziglang" and not Path(cmd[0]).exists():
            tried.append(f"{cmd[0]} ({origin}): not found")
        elif (version := _version(cmd)) is None:
            tried.append(f"{' '.join(cmd)} ({origin}): does not run")
        elif int(version.split(".")[0]) < MIN_CLANG:
            tried.append(f"{' '.join(cmd)} ({origin}): clang {version} is older than {MIN_CLANG}")
        else:
            return Tool(tuple(cmd), version, origin)
        if origin == "override":           # an explicit choice is never silently replaced
            setting = "--llvm-bin" if llvm_bin else "SHFLX_LLVM_BIN"
            raise ToolchainError(f"{setting}={Path(cmd[0]).parent}: {tried[-1]}; point it at an LLVM or "
                                 "ROCm bin directory with clang (>= {MIN_CLANG}), or unset it".replace(
                                     "{MIN_CLANG}", str(MIN_CLANG)))
    raise ToolchainError("no usable clang for the AMDGPU HIP device front end; tried: " + "; ".join(tried) +
                         ". Install one with `pip install ziglang` (it ships clang), or point --llvm-bin / "
                         "SHFLX_LLVM_BIN at a ROCm or LLVM bin directory")
