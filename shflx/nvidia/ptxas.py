"""`shflx ptxas ARGS...`: rewrite the input PTX, then run NVIDIA's ptxas with the same arguments.

Why: nvcc, clang and NVHPC all call `ptxas`; a wrapper earlier on PATH (a script running
`shflx ptxas "$@"`) gives every one of them shflx's PTX rewrites with no build change. The input
file is never modified: the rewritten PTX goes to a temporary file whose name replaces the input's
in the argument list. PTX whose .target/.version shflx does not support is passed through as is
(with a note), because the real ptxas may well accept it; malformed PTX is an error."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from ..errors import ToolchainError
from . import ptxir
from .ptxpass import read_ptx, run

_VALUE_OPTS = {"-o", "--output-file", "-arch", "--gpu-name", "-m", "--machine", "-maxrregcount",
               "--maxrregcount", "-O", "--opt-level", "-e", "--entry", "--def-load-cache",
               "--def-store-cache", "-dlcm", "-dscm", "-fmad", "--fmad", "--compile-as-tools-patch"}


def real_ptxas() -> str:
    """SHFLX_PTXAS, else the first `ptxas` on PATH that is not a shflx wrapper."""
    env = os.environ.get("SHFLX_PTXAS")
    if env:
        if not (Path(env).is_file() and os.access(env, os.X_OK)):
            raise ToolchainError(f"SHFLX_PTXAS={env} is not an executable file")
        return env
    me = {Path(p).resolve() for p in (sys.argv[0], shutil.which("shflx") or "") if p}
    for d in os.environ.get("PATH", "").split(os.pathsep):
        cand = Path(d or ".") / "ptxas"
        if not (cand.is_file() and os.access(cand, os.X_OK)) or cand.resolve() in me:
            continue
        with open(cand, "rb") as f:
            if b"shflx" in f.read(4096):
                continue                     # our own wrapper script
        return str(cand)
    wheel = _wheel_ptxas()
    if wheel is not None:
        return wheel
    raise ToolchainError("ptxas not found: install the CUDA toolkit's ptxas on PATH, install "
                         "shflx's cuda extra (`pip install '.[cuda]'` in the shflx checkout: NVIDIA's nvcc wheel has it), or set SHFLX_PTXAS to it (shflx ptxas "
                         "rewrites the PTX and then runs the real ptxas)")


def _wheel_ptxas() -> str | None:
    """ptxas of NVIDIA's nvcc wheel (shflx[cuda]), when no ptxas is on PATH."""
    import importlib.util

    spec = importlib.util.find_spec("nvidia.cuda_nvcc") if importlib.util.find_spec("nvidia") else None
    for loc in (spec.submodule_search_locations or []) if spec else []:
        cand = Path(loc) / "bin" / "ptxas"
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    return None


def _input_index(args: Sequence[str]) -> int | None:
    """Index of the input .ptx among ptxas's arguments (the one operand that is not an option value)."""
    skip = False
    for k, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a.startswith("-"):
            skip = a in _VALUE_OPTS
            continue
        if a.endswith(".ptx"):
            return k
    return None


def _arch(args: Sequence[str]) -> str | None:
    for k, a in enumerate(args):
        for opt in ("-arch", "--gpu-name"):
            if a.startswith(opt + "="):
                return a.split("=", 1)[1]
            if a == opt and k + 1 < len(args):
                return args[k + 1]
    return None


def wrap(args: Sequence[str]) -> int:
    """Rewrite, run the real ptxas, return its exit code."""
    ptxas = real_ptxas()                       # first: a missing ptxas fails before anything else
    args = list(args)
    k = _input_index(args)
    if k is None:
        return subprocess.run([ptxas, *args]).returncode
    path = args[k]
    text = read_ptx(path)
    arch = _arch(args)
    try:
        result = run(text, path, sm=ptxir.supported_target(arch) if arch else None)
    except ptxir.UnsupportedPtx as e:
        print(f"{e.where}: note: passed to ptxas unchanged: {e.reason}", file=sys.stderr)
        return subprocess.run([ptxas, *args]).returncode
    if result.rewritten == 0:
        return subprocess.run([ptxas, *args]).returncode
    with tempfile.TemporaryDirectory(prefix="shflx-ptxas-") as tmp:
        out = Path(tmp) / Path(path).name
        out.write_text(result.text)
        args[k] = str(out)
        print(f"shflx: {path}: {result.rewritten} rewrite(s) before ptxas", file=sys.stderr)
        return subprocess.run([ptxas, *args]).returncode
