"""`shflx compile -E`: the device source as shflx's front end sees it (CUDA layer, -D/-I/-include
applied), for looking at what a macro or header turned into."""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import InputError, Location, ToolchainError, UsageError


def preprocess(f, sources: list[Path], opts) -> int:
    """`shflx compile -E`: the device source after shflx's CUDA layer and the preprocessor, for the
    first target, on stdout or -o."""
    from ..frontend.clang import cc1_args, nvptx_cc1_args
    from ..frontend.toolchain import find_clang, host_cxx_args
    from ..target import resolve_target
    from .flags import base_arch

    if len(sources) != 1:
        raise UsageError(f"-E takes one input file, got {len(sources)}")
    src, arch = sources[0], f.archs[0]
    if not src.is_file():
        raise InputError("cannot read the source file", Location(str(src)))
    tool = find_clang(opts.llvm_bin)
    with tempfile.TemporaryDirectory(prefix="shflx-E-") as tmp:
        out = Path(f.output) if f.output else Path(tmp) / "out.i"
        if arch.startswith("sm_"):
            args = nvptx_cc1_args(src, arch, "+ptx80", out, opts, Path(tmp))
        else:
            t = resolve_target(base_arch(arch), 64 if f.wave64 else None)
            args = cc1_args(src, t.llvm_cpu, t.wave, out, opts, len(t.isa.waves) > 1, host_cxx_args(tool), Path(tmp))
        args = [("-E" if a == "-emit-llvm" else a) for a in args]
        try:
            proc = subprocess.run([*tool.command, *args], capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise ToolchainError(f"cannot run clang -E ({tool.command[0]}): {e}") from None
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr)
            return 2                                 # an error in the input (README "Exit codes")
        if not f.output:
            sys.stdout.flush()
            sys.stdout.buffer.write(out.read_bytes())      # clang's bytes: a file name need not be UTF-8
            sys.stdout.buffer.flush()
    return 0
