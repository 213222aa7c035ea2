"""Host-only library headers a device compile may go without.

Real CUDA files include the host APIs of NVIDIA's libraries (`cufft.h`, NCCL, NVTX, ...) for their
host code in the same file (cuBLAS's has shflx's own declarations where its wheel is missing:
shflx_cublas_host.h). Their wheels are large (cuBLAS alone is hundreds of MB)
and nothing in device code can call them, so when one is not installed the device pass goes on
with an empty stand-in for it, and the report says so. Only the headers listed here are stood in
for; a missing project header still stops the compile with clang's `file not found` at its
`#include` line. clang's device pass also parses host functions, so a file whose host code calls
the library fails with the stand-in too: that is reported as the missing header (install the
library's wheel, e.g. nvidia-cublas-cu12), followed by the first error the stand-in led to."""
from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

# header name pattern -> the host library it declares
HOST_ONLY = {
    r"cublas(_v2|_api|Lt|Xt)?\.h": "cuBLAS", r"cusparse(Lt)?\.h": "cuSPARSE",
    r"cufft(XT|w)?\.h": "cuFFT", r"curand\.h": "cuRAND (host API)", r"cusolver(Dn|Sp|Rf|Mg)?\.h": "cuSOLVER",
    r"cudnn(_\w+)?\.h": "cuDNN", r"nccl\.h": "NCCL", r"nvrtc\.h": "NVRTC", r"nvjpeg\.h": "nvJPEG",
    r"npp\w*\.h": "NPP", r"nvToolsExt\w*\.h": "NVTX", r"nvtx3/.*": "NVTX", r"cupti\w*\.h": "CUPTI",
    r"nvml\.h": "NVML", r"mpi\.h": "MPI", r"library_types\.h": "the CUDA library data types (cudaDataType)",
    r"cuda_profiler_api\.h": "the CUDA profiler API", r"cudaProfiler\.h": "the CUDA profiler API",
    r"nvFatbin\.h": "nvFatbin", r"nvJitLink\.h": "nvJitLink", r"nvPTXCompiler\.h": "the PTX Compiler API",
}
_NOT_FOUND = re.compile(r"^(?P<where>.+?:\d+:\d+): fatal error: '(?P<name>[^']+)' file not found$")
NOTE_PREFIX = "; shflx: skipped host-only header "       # carried at the top of the device IR


def library_of(header: str) -> str | None:
    """The host library `header` belongs to, if it is one device code may go without (a plain
    relative name: no `..`, not absolute, so a stand-in stays inside its directory)."""
    parts = PurePosixPath(header).parts
    if not parts or header.startswith("/") or ".." in parts or not re.fullmatch(r"[\w.+/-]+", header):
        return None
    return next((lib for pat, lib in HOST_ONLY.items() if re.fullmatch(pat, header)), None)


def missing_host_header(diagnostics: str) -> tuple[str, str] | None:
    """(header, where) of a host-only header clang could not find, from its diagnostics."""
    for line in diagnostics.splitlines():
        m = _NOT_FOUND.match(line.strip())
        if m and library_of(m.group("name")):
            return m.group("name"), m.group("where")
    return None


def stand_in(root: Path, header: str) -> Path | None:
    """An empty `header` under a directory root/0, root/1, ... (each searched last, with -idirafter):
    the first one where it fits, since `<nvtx3/a>` (a file) and `<nvtx3/a/b.h>` (a directory a/)
    cannot share one tree. Returns that directory when it is new (the caller adds it to the
    search path), else None."""
    if library_of(header) is None:
        raise ValueError(f"not a host-only header name: {header!r}")
    k = 0
    while _collides(root / str(k), header):
        k += 1
    base = root / str(k)
    path = base / header
    if not path.resolve().is_relative_to(base.resolve()):
        raise ValueError(f"not a host-only header name: {header!r}")
    new = not base.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"/* shflx: stand-in for the host-only header {header} ({library_of(header)}): "
                    "not installed, and not needed by device code */\n")
    return base if new else None


def _collides(base: Path, header: str) -> bool:
    """Whether `header` cannot be written under `base`: something is there already by that name,
    or a file stands where one of its directories would be."""
    path = base / header
    if path.exists() or path.is_symlink():
        return True
    return any(p.exists() and not p.is_dir() for p in path.parents if p.is_relative_to(base) and p != base)


def stood_in(root: Path, header: str) -> bool:
    """Whether `header` already has a stand-in under `root` (in any of its directories)."""
    return root.is_dir() and any((d / header).is_file() for d in root.iterdir())


def note(header: str, where: str) -> str:
    return (f"{NOTE_PREFIX}{header} ({library_of(header)}, included at {where}): not installed; the device "
            "pass compiled without it, and nothing in device code used it")


def unhelped(header: str, where: str, vendor: str, led_to: str | None) -> str:
    """shflx's error where a stood-in header did not help: the header, at its #include, and the
    first error the device pass then met (`led_to`, already said as shflx says it)."""
    after = f"; with an empty stand-in, the device pass fails at: {led_to}" if led_to else ""
    return (f"{where}: error: shflx does not support '{header}' on {vendor} targets ({library_of(header)} is not "
            f"installed and host code in this file uses it{after})")


_NOTED = re.compile(re.escape(NOTE_PREFIX) + r"(?P<header>\S+) \(.*, included at (?P<where>\S+?)\): not installed")


def noted_headers(notes: list[str]) -> list[tuple[str, str]]:
    """(header, where) of each stand-in `note()` among `notes`."""
    return [(m["header"], m["where"]) for m in map(_NOTED.match, notes) if m]


def skipped_headers(ir: str) -> list[str]:
    """The notes `note()` left at the top of a device module."""
    return leading_notes(ir, NOTE_PREFIX)


def leading_notes(ir: str, prefix: str) -> list[str]:
    """The comment lines starting with `prefix` at the top of a device module, without "; shflx: "
    (the front end's notes: this module's and nvcc_syntax's)."""
    out = []
    for line in ir.splitlines():
        if not line.startswith(";"):
            break
        if line.startswith(prefix):
            out.append(line[2:].replace("shflx: ", "", 1))
    return out
