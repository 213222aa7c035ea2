"""Lines of hand-written CUDA API in shflx's CUDA layer (issue 25, "The imitations go").

Counted: code lines (not blank, not only a comment) of what imitates NVIDIA's CUDA API: every
header of `shflx/frontend/include/stubs/` and `shflx_cuda_host.h` (the host side of the runtime
API). Listed apart, not in the total: the prelude `shflx_cuda.h` (mostly the
compiler's part: builtins, shuffles, atomics), the wrapper that reads NVIDIA's cuda_runtime.h
(`shflx_cuda_runtime.h`), and the host-only stand-ins for libraries that are not
installed (`shflx_cublas*_host.h`), which stay by design.

    python benchmarks/cuda_api_lines.py            # a table, then the total (945 before issue 25's
                                                   # runtime headers, 242 after)
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

INCLUDE = Path(__file__).resolve().parent.parent / "shflx" / "frontend" / "include"
API = ("stubs/*.h", "shflx_cuda_host.h")
APART = ("shflx_cuda.h", "shflx_cuda_runtime.h", "shflx_cublas_host.h", "shflx_cublaslt_host.h")
_COMMENT = re.compile(r"^\s*(//.*)?$")


def code_lines(path: Path) -> int:
    """Lines that are neither blank nor only a `//` comment (the layer writes no /* */ blocks)."""
    return sum(1 for line in path.read_text().splitlines() if not _COMMENT.match(line))


def api_files(include: Path = INCLUDE) -> list[Path]:
    return sorted(p for pattern in API for p in include.glob(pattern))


def main() -> int:
    total = 0
    for p in api_files():
        n = code_lines(p)
        total += n
        print(f"{n:6d}  {p.relative_to(INCLUDE)}")
    print(f"{total:6d}  total hand-written CUDA API")
    for name in APART:
        if (INCLUDE / name).is_file():
            print(f"{code_lines(INCLUDE / name):6d}  {name} (not counted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
