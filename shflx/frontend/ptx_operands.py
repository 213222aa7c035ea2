"""Inline PTX operands whose constraints AMDGPU's clang rejects ("=f", "l", "d", "h"): CUB's
float and 64-bit shuffle steps, DeepSpeed's conversions. clang checks a constraint against the
device target before shflx sees the asm, and AMDGPU has no f/l/d/h registers, so such a file is
compiled again from its preprocessed text with those constraints written as "r" (a register of the
operand's own type). The asm template is untouched; ir.inline_ptx then reads the PTX with each
operand's LLVM type (float, i64, double, half), as it does for "r". Only files clang rejected for
this reason take the second path; line markers keep diagnostics and debug lines on the original
files."""
from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from ..errors import InputError, Location, ToolchainError
from . import nvcc_syntax
from .clang import PRELUDE, FrontendOptions, cc1_args, compile_to_ir as clang_compile_to_ir, explain_diagnostics
from .toolchain import find_clang, host_cxx_args

# clang's diagnostic for a constraint the target lacks
REJECTED = re.compile(r"error: invalid (?:input|output) constraint '[=+&]*[fldh]' in asm")
# PTX register classes (PTX ISA, "Inline PTX Assembly" / nvcc constraints) -> the generic "r"
PTX_LETTERS = "fldh"
_ASM_START = re.compile(r"\b(?:asm|__asm__|__asm)\b(?:\s+(?:volatile|__volatile__|inline|goto))*\s*\(")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def rewrite_constraints(text: str) -> str:
    """`text` with every operand constraint of an asm statement that names a PTX register class
    (f, l, d, h, with its = + & modifiers) written with "r"; templates, clobbers and all other
    text unchanged. A constraint is a string literal directly followed by `(` in the operand
    part (after the first top-level ':') of `asm(...)`."""
    out, pos = [], 0
    for m in _ASM_START.finditer(text):
        if m.start() < pos:
            continue
        end = _closing_paren(text, m.end() - 1)
        if end is None:
            continue
        body = text[m.end():end]
        colon = _first_top_level_colon(body)
        if colon is None:
            continue
        out.append(text[pos:m.end() + colon])
        out.append(_rewrite_operands(body[colon:]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _rewrite_operands(part: str) -> str:
    def one(m: re.Match) -> str:
        lit = m.group(0)
        follow = part[m.end():].lstrip()
        inner = lit[1:-1]
        mods = inner.rstrip(PTX_LETTERS + "r")
        letters = inner[len(mods):]
        if not follow.startswith("(") or not letters or set(mods) - set("=+&") or \
                not set(letters) & set(PTX_LETTERS):
            return lit
        return f'"{mods}r"'
    return _STRING.sub(one, part)


def _closing_paren(text: str, open_at: int) -> int | None:
    """Index of the ')' matching text[open_at] == '(', skipping string and char literals."""
    depth, k = 0, open_at
    while k < len(text):
        c = text[k]
        if c in "\"'":
            m = re.compile(rf"{c}(?:[^{c}\\\n]|\\.)*{c}").match(text, k)
            k = m.end() if m else k + 1
            continue
        depth += c == "("
        depth -= c == ")"
        if depth == 0:
            return k
        k += 1
    return None


def _first_top_level_colon(body: str) -> int | None:
    depth, k = 0, 0
    while k < len(body):
        c = body[k]
        if c == '"':
            k = _STRING.match(body, k).end() if _STRING.match(body, k) else k + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ":" and depth == 0:        # the template is string literals: the first ':' is asm's
            return k
        k += 1
    return None


def compile_to_ir(source: Path, cpu: str, wave: int, opts: FrontendOptions, selectable_wave: bool) -> str:
    """frontend.clang.compile_to_ir, with a second path for inline PTX operand constraints AMDGPU
    lacks: preprocess, rewrite the constraints (rewrite_constraints), compile the rewritten text."""
    try:
        return clang_compile_to_ir(source, cpu, wave, opts, selectable_wave)
    except InputError as e:
        if not REJECTED.search(str(e)):
            raise
    tool = find_clang(opts.llvm_bin)
    host = host_cxx_args(tool)
    with tempfile.TemporaryDirectory(prefix="shflx-ptxops-") as tmp:
        pre, ll = Path(tmp) / "device.hipi", Path(tmp) / "device.ll"
        read_as_nvcc: list[nvcc_syntax.Fix] = []
        for _ in range(16):                  # rounds of the fixes of frontend/nvcc_syntax.py
            args = [("-E" if a == "-emit-llvm" else a) for a in cc1_args(source, cpu, wave, pre, opts, selectable_wave, host)]
            if read_as_nvcc:
                args[-1:-1] = ["-ivfsoverlay", str(nvcc_syntax.overlay(read_as_nvcc, Path(tmp)))]
            _check(_run(tool, args), source)
            pre.write_text(rewrite_constraints(pre.read_text()))
            args = cc1_args(pre, cpu, wave, ll, opts, selectable_wave, host)
            args = _without_prelude([("hip-cpp-output" if a == "hip" and args[k - 1] == "-x" else a)
                                     for k, a in enumerate(args)])
            proc = _run(tool, args)
            new_fixes = [f for f in nvcc_syntax.fixes(proc.stderr) if f not in read_as_nvcc]
            if proc.returncode == 0 or not new_fixes:
                break
            read_as_nvcc += new_fixes       # diagnostics name the original files (line markers)
        _check(proc, source)
        return "".join(f.note() + "\n" for f in read_as_nvcc) + ll.read_text()


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


def _run(tool, args: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([*tool.command, *args], capture_output=True, text=True, timeout=600)
    except OSError as e:
        raise ToolchainError(f"cannot run clang ({' '.join(tool.command)}): {e}") from None
    except subprocess.TimeoutExpired:
        raise ToolchainError("clang did not finish within 600 s") from None


def _check(proc: subprocess.CompletedProcess, source: Path) -> None:
    if proc.returncode != 0:
        diag = explain_diagnostics(proc.stderr.strip(), "AMD") or f"clang exited with {proc.returncode}"
        raise InputError(f"the CUDA front end rejected the source:\n{diag}", Location(str(source)))
