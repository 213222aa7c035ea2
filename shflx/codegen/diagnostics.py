"""LLVM's own warnings from an in-process llvmlite run (`loop not unrolled` for a `#pragma unroll`
it could not honour, ...): LLVM prints them straight to file descriptor 2. Those located in the
CUDA/CCCL/HIP/clang headers (ir.frames.is_header: installed in site-packages, a toolkit) are not
the user's to act on and stay silent unless asked for (`-Wshflx-headers`), as nvcc is silent on
the same file; the others are written back to stderr as LLVM printed them."""
from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from typing import Iterator

from ..ir.frames import is_header

# LLVM's default handler: "warning: FILE:LINE:COL: text"; clang's: "FILE:LINE:COL: warning: text"
_LLVM = re.compile(r"^(?:warning|remark): (?P<path>[^:\n]+):\d+:\d+: ")
_CLANG = re.compile(r"^(?P<path>[^:\n]+):\d+:\d+: (?:warning|remark): ")


def header_warning(line: str) -> bool:
    """Whether `line` is a warning LLVM located in a header that is not the user's."""
    m = _LLVM.match(line) or _CLANG.match(line)
    return bool(m) and is_header(m.group("path"))


def without_header_warnings(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not header_warning(line))


@contextmanager
def llvm_warnings(show_headers: bool = False) -> Iterator[None]:
    """Run the block with fd 2 going through a filter: the header warnings are dropped unless
    `show_headers`, every other line reaches stderr as LLVM wrote it. The filter is a forked
    process, not a thread or a buffer, so the last words of a fatal LLVM error (printed just before
    LLVM aborts this process) still reach stderr."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):           # no fd 2 to capture (an embedded interpreter): as it is
        yield
        return
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                            # the filter: until every writer of the pipe is gone
        try:
            os.close(write)
            _forward(read, saved, show_headers)
        finally:
            os._exit(0)
    os.close(read)
    os.dup2(write, 2)
    os.close(write)
    try:
        yield
    finally:
        os.dup2(saved, 2)                   # the pipe's last writer closes: the filter ends
        os.close(saved)
        os.waitpid(pid, 0)


def _forward(read: int, out: int, show_headers: bool) -> None:
    pending = b""
    while chunk := os.read(read, 65536):
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            text = line.decode(errors="replace")
            if show_headers or not header_warning(text):
                os.write(out, line + b"\n")
    if pending:
        os.write(out, pending)
