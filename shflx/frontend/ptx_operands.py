"""Inline PTX operands whose constraints AMDGPU's clang rejects ("=f", "l", "d", "h"): CUB's
float and 64-bit shuffle steps, DeepSpeed's conversions. clang checks a constraint against the
device target before shflx sees the asm, and AMDGPU has no f/l/d/h registers, so such a file is
compiled again from its preprocessed text with those constraints written as "r" (a register of the
operand's own type). The asm template is untouched; ir.inline_ptx then reads the PTX with each
operand's LLVM type (float, i64, double, half), as it does for "r". Only files clang rejected for
this reason, and files that read CCCL or NVIDIA's cooperative groups (whose headers hold such asm),
take the second path; line markers keep diagnostics and debug lines on the original files."""
from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from ..errors import InputError, Location
from ..files import tool_text
from . import nvcc_syntax
from .nvcc_differences import RENAMED, builtin_clashes, renamed_note
from .asm_constraints import rewrite_constraints
from .cuda_sdk import AMD_READS_AS_IS, NO_ASM
from .clang import (PRELUDE, FrontendOptions, cc1_args, check_failure, compile_to_ir as clang_compile_to_ir,
                    explain_diagnostics, preprocess, run_device_clang)
from .host_only import noted_headers, unhelped
from .toolchain import find_clang, host_cxx_args

# clang's diagnostic for a constraint the target lacks
REJECTED = re.compile(r"error: invalid (?:input|output) constraint '[=+&]*[fldh]' in asm")


def compile_to_ir(source: Path, cpu: str, wave: int, opts: FrontendOptions, selectable_wave: bool) -> str:
    """frontend.clang.compile_to_ir, with a second path for inline PTX operand constraints AMDGPU
    lacks: preprocess, rewrite the constraints (rewrite_constraints), compile the rewritten text.
    A file that reads CCCL or NVIDIA's cooperative groups (whose headers hold such asm) takes the
    second path at once: its first compile would only fail, after parsing all of them (seconds)."""
    if not may_need_rewrite(source, search_dirs(opts)):
        try:
            return clang_compile_to_ir(source, cpu, wave, opts, selectable_wave)
        except InputError as e:
            if not REJECTED.search(str(e)):
                raise
    tool = find_clang(opts.llvm_bin)
    with tempfile.TemporaryDirectory(prefix="shflx-ptxops-") as tmp:
        pre, ll = Path(tmp) / "device.hipi", Path(tmp) / "device.ll"
        read_as_nvcc: list[nvcc_syntax.Fix] = []
        renamed: list[str] = []              # the program's names that clash with clang builtins
        for _ in range(16):                  # rounds of the fixes of frontend/nvcc_syntax.py
            opts = replace(opts, defines=(*opts.defines, *(f"{n}={RENAMED}{n}" for n in renamed
                                                            if f"{n}={RENAMED}{n}" not in opts.defines)))
            text, notes = preprocess(source, cpu, wave, opts, selectable_wave, read_as_nvcc)
            notes += [renamed_note(n) for n in renamed]
            rewritten = rewrite_constraints(text)
            pre.write_text(rewritten)
            # the -E run wrote the depfile; debug info names the source's directory, not this one
            compile_opts = replace(opts, extra=(*without_depfile(opts.extra), f"-fdebug-prefix-map={tmp}={source.parent}"))
            args = cc1_args(pre, cpu, wave, ll, compile_opts, selectable_wave, host_cxx_args(tool), Path(tmp))
            args = _without_prelude([("hip-cpp-output" if a == "hip" and args[k - 1] == "-x" else a)
                                     for k, a in enumerate(args)])
            proc, retried = run_device_clang(tool, args, compile_opts.opt > 0)
            if proc.returncode == 0:
                notes += retried
                break
            # diagnostics name the original files (line markers), their columns the expanded lines
            compiled = nvcc_syntax.preprocessed_lines(rewritten.encode())
            new_fixes = [f for f in nvcc_syntax.fixes(proc.stderr, compiled=compiled) if f not in read_as_nvcc]
            clashes = [n for n in builtin_clashes(proc.stderr) if n not in renamed]
            if not new_fixes and not clashes:
                break
            read_as_nvcc += new_fixes
            renamed += clashes
        _check(proc, source, notes)
        return "".join(n + "\n" for n in notes) + tool_text(ll)


# cc1 words naming a directory searched for `#include "..."` (the CLI's -I dirs are such words)
_SEARCH_WORDS = ("-I", "-iquote", "-isystem", "-idirafter")


def search_dirs(opts: FrontendOptions) -> tuple[str, ...]:
    """The directories the front end searches for a quoted include: `includes`, then those the
    cc1 words name (`-I DIR`, as the CLI passes its -I flags, or `-IDIR`)."""
    words, out = opts.extra, list(opts.includes)
    for k, w in enumerate(words):
        if w in _SEARCH_WORDS and k + 1 < len(words):
            out.append(words[k + 1])
        elif w.startswith("-I") and len(w) > 2:
            out.append(w[2:])
    return tuple(out)


# CCCL's headers and NVIDIA's that the AMD pass reads as they are (cooperative groups' memory.h and
# the awbarrier helpers hold "l" operands; not cuda_sdk.NO_ASM), as the source or a header of the project names them
_NVIDIA_ASM_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](?:(?:cub|thrust|nv|cuda)/|(?:%s)\b)'
                                 % "|".join(re.escape(name) for name in AMD_READS_AS_IS
                                            if name not in NO_ASM), re.M)
_QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def may_need_rewrite(source: Path, includes: tuple[str, ...] = (), depth: int = 4) -> bool:
    """Whether the file, or a header it includes with quotes (found beside the includer or in
    `includes`, `depth` levels deep), includes CCCL or NVIDIA's cooperative groups, pipeline or
    awbarrier headers, or writes an asm operand rewrite_constraints
    changes. Only chooses which path runs first; both give the same IR."""
    seen: set[Path] = set()
    todo = [(source, 0)]
    while todo:
        path, level = todo.pop()
        if path in seen or level > depth:
            continue
        seen.add(path)
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        if _NVIDIA_ASM_INCLUDE.search(text) or ("asm" in text and rewrite_constraints(text) != text):
            return True
        for name in _QUOTED_INCLUDE.findall(text):
            for base in (path.parent, *map(Path, includes)):
                if (base / name).is_file():
                    todo.append(((base / name).resolve(), level + 1))
                    break
    return False


def without_depfile(words: tuple[str, ...]) -> tuple[str, ...]:
    """cc1 words less the depfile ones (-dependency-file F, -MT T, -sys-header-deps, -MP)."""
    out, k = [], 0
    while k < len(words):
        if words[k] in ("-dependency-file", "-MT"):
            k += 2
            continue
        if words[k] not in ("-sys-header-deps", "-MP"):
            out.append(words[k])
        k += 1
    return tuple(out)


def _without_prelude(args: list[str]) -> list[str]:
    """The preprocessed text already holds the prelude: drop `-include PRELUDE`."""
    out, k = [], 0
    while k < len(args):
        if args[k] == "-include" and k + 1 < len(args) and args[k + 1] == str(PRELUDE):
            k += 2
            continue
        out.append(args[k])
        k += 1
    return out


def _check(proc: subprocess.CompletedProcess, source: Path, notes: list[str] = ()) -> None:
    """A failed compile as shflx's error; where the preprocessing stood in a missing host-only
    header, the header is what is said (as frontend.clang says it), with the first error it led to."""
    if proc.returncode != 0:
        check_failure(proc, source)
        diag = explain_diagnostics(proc.stderr.strip(), "AMD")
        stood = noted_headers(list(notes))
        if stood and "error: shflx does not support" not in diag:      # what shflx said already stands
            after = next((ln for ln in proc.stderr.splitlines() if ": error: " in ln), None)
            diag = unhelped(*stood[0], "AMD", after and explain_diagnostics(after, "AMD"))
        raise InputError(f"the CUDA front end rejected the source:\n{diag}", Location(str(source)))
