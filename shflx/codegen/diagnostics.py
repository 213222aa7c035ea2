"""LLVM's own warnings from an in-process llvmlite run (`loop not unrolled` for a `#pragma unroll`
it could not honour, ...): LLVM prints them straight to file descriptor 2. Those located in the
CUDA/CCCL/HIP/clang headers (ir.frames.is_header: installed in site-packages, a toolkit) are not
the user's to act on and stay silent unless asked for (`-Wshflx-headers`), as nvcc is silent on
the same file; the others are written back to stderr as LLVM printed them."""
from __future__ import annotations

import os
import re
import sys
import tempfile
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
    """Run the block with fd 2 captured; afterwards its text goes to sys.stderr, without the header
    warnings unless `show_headers`."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):           # no fd 2 to capture (an embedded interpreter): as it is
        yield
        return
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            text = tmp.read().decode(errors="replace")
            kept = text if show_headers else without_header_warnings(text)
            if kept:
                sys.stderr.write(kept)
                sys.stderr.flush()
