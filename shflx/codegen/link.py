"""ld.lld adapter: an AMDGPU relocatable object -> a loadable code object (.hsaco).

A code object is a shared ELF (`ld.lld -shared`), as hipcc and ROCm's comgr make it. The linker
is found in order: $SHFLX_LLVM_BIN, ROCm's LLVM, `ld.lld` on PATH, the ziglang wheel (a pip
dependency of shflx, so a plain `pip install` always has one)."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import ToolchainError, UsageError
from ..frontend.toolchain import ziglang_command

LINK_TIMEOUT_S = 120
ROCM_DEFAULT = Path("/opt/rocm")
_INSTALL = ("install one: `pip install ziglang` (bundles ld.lld), ROCm (/opt/rocm/llvm/bin/ld.lld), "
            "your distribution's lld package, or point SHFLX_LLVM_BIN at a directory holding ld.lld")


def find_lld() -> list[str]:
    """The command prefix that runs ld.lld, or ToolchainError naming every place tried."""
    tried: list[str] = []
    override = os.environ.get("SHFLX_LLVM_BIN")
    if override:
        candidate = Path(override) / "ld.lld"
        if _executable(candidate):
            return [str(candidate)]
        tried.append(f"{candidate} (SHFLX_LLVM_BIN)")
    rocm_dirs = [Path(os.environ[k]) for k in ("ROCM_PATH", "ROCM_HOME") if os.environ.get(k)]
    rocm_dirs.append(ROCM_DEFAULT)
    for rocm in dict.fromkeys(rocm_dirs):
        candidate = rocm / "llvm" / "bin" / "ld.lld"
        if _executable(candidate):
            return [str(candidate)]
        tried.append(str(candidate))
    on_path = shutil.which("ld.lld")
    if on_path:
        return [on_path]
    tried.append("ld.lld on PATH")
    if _ziglang_available():
        return ziglang_command("ld.lld") or [sys.executable, "-m", "ziglang", "ld.lld"]
    tried.append("the ziglang Python package")
    raise ToolchainError(f"cannot find ld.lld (tried {', '.join(tried)}); {_INSTALL}")


def _ziglang_available() -> bool:
    return importlib.util.find_spec("ziglang") is not None


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def link_hsaco(obj: bytes | list[bytes], out_path: str | os.PathLike[str] | None = None) -> bytes:
    """Link one object, or the objects of one module's parts (codegen.partition: their metadata
    notes are joined, codegen.notes), into a code object; returns its bytes and, with `out_path`,
    writes it there.

    No partial output: the file is written beside `out_path` and renamed only on success."""
    objects = [obj] if isinstance(obj, bytes) else obj
    lld = find_lld()
    with tempfile.TemporaryDirectory(prefix="shflx-link-") as tmp:
        sources, dst = [Path(tmp) / f"code{n}.o" for n in range(len(objects))], Path(tmp) / "code.hsaco"
        for src, data in zip(sources, objects):
            src.write_bytes(data)
        cmd = lld + ["-shared", "-o", str(dst), *map(str, sources)]
        try:
            done = subprocess.run(cmd, capture_output=True, timeout=LINK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise ToolchainError(f"ld.lld did not finish within {LINK_TIMEOUT_S} s ({' '.join(lld)})") from None
        except OSError as e:
            raise ToolchainError(f"cannot run {' '.join(lld)}: {e.strerror}") from None
        if done.returncode != 0 or not dst.is_file():
            message = " ".join(done.stderr.decode(errors="replace").split()) or f"exit status {done.returncode}"
            raise ToolchainError(f"ld.lld failed ({' '.join(lld)}): {message}")
        data = dst.read_bytes()
    if len(objects) > 1:
        from .notes import join_metadata_notes
        data = join_metadata_notes(data)
    if out_path is not None:
        from ..files import write_atomically
        try:
            write_atomically(Path(out_path), data)
        except OSError as e:
            raise UsageError(f"cannot write {out_path}: {e.strerror}") from None
    return data
