"""CUDA/HIP source -> optimized LLVM IR with clang's device front end and our prelude: AMDGPU
(HIP mode) for gfx targets, NVPTX (CUDA mode, the same prelude under __NVPTX__) for sm targets.

Optimization runs here (-O levels as given) so constant loops are unrolled before recognition;
line tables are kept so every shuffle site can be reported with its file:line:col."""
from __future__ import annotations

import re
import signal
import subprocess
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import InputError, Location, ToolchainError
from ..files import tool_text
from . import nvcc_syntax
from .cuda_sdk import (CCCL_HINT, SHIMS, CudaSdk, amd_header_args, cccl_include, libdevice_path, nvidia_header_overlay,
                       package_dir, runtime_version)
from .host_only import leading_notes, missing_host_header, note, stand_in, stood_in, unhelped
from .unprovided import named_missing_header
from .nvcc_differences import RENAMED, builtin_clashes, cccl_dialect, renamed_note, said_by_shflx
from .toolchain import HOST_TRIPLE, find_clang, gcc_include_dir, host_cxx_args

INCLUDE = Path(__file__).resolve().parent / "include"
# The CUDA toolkit version the device code is compiled as (__CUDACC_VER_MAJOR__/MINOR__; CUDART_VERSION
# is cuda_runtime_api.h's): that of NVIDIA's headers it reads, as nvcc is its toolkit's version, so
# code that tests it takes the branch nvcc of this version would take (without them real code
# silently compiled its fallback branch: a FasterTransformer block reduction did) and CCCL finds
# compiler and headers of one version. 12.9 where the headers are missing (the prelude then says so).
CUDA_VERSION = runtime_version() or (12, 9)
PRELUDE = INCLUDE / "shflx_cuda.h"
# What INCLUDE reads as in debug info (-fdebug-prefix-map): outputs name no install path
PRELUDE_PREFIX = "<shflx>/include"
# Floating-point contraction as nvcc's default -fmad=true: a product feeding a sum may become one
# fma also across statements (ptxas fuses mul/add without .rn; the CUDA C Programming Guide,
# "Floating-Point Standard": nvcc fuses by default). "-honor-pragmas", so that the CUDA layer's
# own `#pragma clang fp contract(off)` regions (math algorithms that place their fmas) still hold;
# a user's -ffp-contract=fast means the same with them. __SHFLX_FP_CONTRACT_MODE tells the
# headers which mode to restore after such a region (0 off, 1 on, 2 fast).
FP_CONTRACT = "fast-honor-pragmas"
FP_CONTRACT_MODES = {"off": 0, "on": 1, "fast": 2, "fast-honor-pragmas": 2}
# No type-based alias analysis unless asked for (-fstrict-aliasing): CUDA code reads and writes
# the same memory through different types as a matter of course (a __half array loaded and stored
# as uint4, float4 views of float arrays), and nvcc's builds compute what the code means. With
# clang's default, DeepSpeed's fused_ln<__half, 1, 8> compiled to a copy of its input: the uint4
# reads of the buffer were forwarded past the __half stores (hw_tests/corpus_cases.py, on the emulator).
STRICT_ALIASING = "-fstrict-aliasing"
GPU_RDC = "-fgpu-rdc"           # relocatable device code (sm_NN), among FrontendOptions.extra


@dataclass(frozen=True)
class FrontendOptions:
    includes: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    opt: int = 3
    debug: bool = True
    llvm_bin: str | None = None
    extra: tuple[str, ...] = ()     # more cc1 words (-std=, -isystem, -U, -W, -Xclang ...), after ours
    header_warnings: bool = False   # -Wshflx-headers: LLVM's warnings inside CUDA/CCCL headers too


def _amdgpu_target(cpu: str, wave: int, selectable_wave: bool) -> list[str]:
    """cc1's AMDGPU target: the cpu, and the wave size where the cpu runs both (GFX10+)."""
    args = ["-cc1", "-triple", "amdgcn-amd-amdhsa", "-target-cpu", cpu]
    return args + (["-target-feature", f"+wavefrontsize{wave}"] if selectable_wave else [])


def cc1_args(source: Path, cpu: str, wave: int, out: Path, opts: FrontendOptions, selectable_wave: bool,
             host: tuple[str, ...], scratch: Path) -> list[str]:
    """AMDGPU: HIP device mode (clang's HIP language rules match CUDA's for device code), parsed
    against the x86_64 host (`-aux-triple`, the host's C/C++ headers `host`) as nvcc does. NVIDIA's
    CCCL (CUB, Thrust, libcu++) and its headers the layer reads as they are (cooperative groups:
    cuda_sdk.AMD_READS_AS_IS, shown through an overlay written into `scratch`) are searched after
    the user's directories, as nvcc searches its toolkit's: the real headers, beneath the CUDA layer."""
    args = [*_amdgpu_target(cpu, wave, selectable_wave), "-aux-triple", HOST_TRIPLE, "-fcuda-is-device",
            "-x", "hip", *host, *amd_header_args(), *_printf_args(opts), *_cuda_not_hip(source),
            *(["-D__SHFLX_LIBDEVICE"] if libdevice_path() is not None else []),
            *_hidden_visibility(opts), *_common_args(source, wave, out, _without_rdc(opts))]
    cccl = cccl_include()
    if cccl is not None:
        args[-1:-1] = ["-isystem", str(cccl)]
    return args[:-1] + nvidia_header_overlay(scratch) + host_after() + args[-1:]


def _without_rdc(opts: FrontendOptions) -> FrontendOptions:
    """AMD links each file's device code into its own code object, relocatable or not (driver.flags.RDC)."""
    return replace(opts, extra=tuple(w for w in opts.extra if w != GPU_RDC))


# Host headers searched after everything else, as nvcc's host compiler finds them: libstdc++-only
# headers that the ziglang wheel's libc++ lacks (bits/stdc++.h, stood in by one that includes every
# standard header; AMD only) and GCC's own include directory (omp.h, openacc.h).
HOST_STANDINS = INCLUDE / "host"


def host_after(amd: bool = True) -> list[str]:
    gcc = gcc_include_dir()
    return (["-idirafter", str(HOST_STANDINS)] if amd else []) + (["-idirafter", gcc] if gcc else [])


# What clang's HIP mode defines that tells code it is being compiled by hipcc: a .cu file is CUDA
# (nvcc defines none of them), and a project's `#ifdef __HIPCC__` branch includes the system's
# <hip/hip_runtime.h>, which then fails against the CUDA layer. The layer itself tests none of them
# (it uses clang's __HIP_MEMORY_SCOPE_* and __AMDGPU__/__AMDGCN__, which stay).
HIP_MACROS = ("__HIPCC__", "__HIP__", "__HIP_DEVICE_COMPILE__")


def _cuda_not_hip(source: Path) -> list[str]:
    """-U for clang's HIP macros, except for .hip sources (which are HIP)."""
    return [] if source.suffix == ".hip" else [f"-U{m}" for m in HIP_MACROS]


def _hidden_visibility(opts: FrontendOptions) -> list[str]:
    """Device code's symbols hidden, as clang's HIP toolchain compiles AMDGPU device code: the code
    object is a shared object, and a call to a non-inlined __device__ function of default visibility
    (preemptible) is a relocation ld.lld refuses ("R_AMDGPU_REL32_LO cannot be used against symbol").
    Kernels and the __device__ / __constant__ variables the host can name stay visible (clang gives
    them protected visibility). A -fvisibility among the user's words wins."""
    if any(w.startswith("-fvisibility") for w in opts.extra):
        return []
    return ["-fvisibility=hidden", "-fapply-global-visibility-to-externs"]


def _printf_args(opts: FrontendOptions) -> list[str]:
    """Device printf as ROCm's buffered printf (`-mprintf-kind=buffered`, the OpenCL protocol the HIP
    runtime also serves): clang writes each call's record into the buffer that __printf_alloc
    (shflx_cuda.h) reserves in the hidden printf-buffer kernel argument, whose slot in the implicit
    arguments depends on the code object version (v4: 3, v5 and later: 9)."""
    cov = next((w.split("=", 1)[1] for w in reversed(opts.extra) if w.startswith("-mcode-object-version=")), "")
    return ["-mprintf-kind=buffered", f"-D__SHFLX_PRINTF_BUFFER_SLOT={3 if cov == '4' else 9}"]


def nvptx_cc1_args(source: Path, sm: str, ptx_feature: str, out: Path, opts: FrontendOptions,
                   scratch: Path) -> list[str]:
    """NVPTX: CUDA device mode; `ptx_feature` (+ptxNN) is the PTX ISA the backend will emit, so the
    builtins clang allows (redux.sync needs ptx70) match what codegen can do. NVIDIA's headers the
    layer reads as they are (cuda_fp16.h, ...) come through the overlay, and CCCL is searched, as
    for AMD."""
    args = ["-cc1", "-triple", "nvptx64-nvidia-cuda", "-target-cpu", sm, "-target-feature", ptx_feature,
            "-aux-triple", HOST_TRIPLE, "-fcuda-is-device", "-x", "cuda", *host_cxx_args(find_clang(opts.llvm_bin))]
    common = _common_args(source, 32, out, opts)
    # .loc lines only, like nvcc -lineinfo: full debug info makes ptxas refuse optimized code
    common = [("-debug-info-kind=line-directives-only" if a.startswith("-debug-info-kind=") else a) for a in common]
    cccl = cccl_include()                     # <nv/target>, which cuda_fp16.h includes
    return args + common[:-1] + (["-isystem", str(cccl)] if cccl else []) + nvidia_header_overlay(scratch, amd=False) + common[-1:]


def fp_contract(opts: FrontendOptions) -> str:
    """The -ffp-contract mode the device code is compiled with: the user's last one, else nvcc's."""
    given = [a.split("=", 1)[1] for a in opts.extra if a.startswith("-ffp-contract=")]
    mode = given[-1] if given else FP_CONTRACT
    return "fast-honor-pragmas" if mode == "fast" else mode


def version_macros() -> list[str]:
    """nvcc's version macros and cuda.h's CUDA_VERSION, as CUDA_VERSION says: the device pass's, and
    the host pass's of `shflx launch` (both halves of a file take the same `#if CUDA_VERSION` branch)."""
    major, minor = CUDA_VERSION
    return [f"-D__CUDACC_VER_MAJOR__={major}", f"-D__CUDACC_VER_MINOR__={minor}", "-D__CUDACC_VER_BUILD__=0",
            f"-DCUDA_VERSION={major * 1000 + minor * 10}"]


def _common_args(source: Path, wave: int, out: Path, opts: FrontendOptions) -> list[str]:
    contract = fp_contract(opts)
    extra = [a for a in opts.extra if not a.startswith("-ffp-contract=") and a != STRICT_ALIASING]
    aliasing = [] if STRICT_ALIASING in opts.extra else ["-relaxed-aliasing"]
    args = ["-std=c++17", "-fms-extensions", "-fgnuc-version=4.2.1", f"-O{opts.opt}", "-emit-llvm",
            *version_macros(), "-include", str(PRELUDE), "-I", str(INCLUDE / "stubs"), f"-D__SHFLX_WAVE__={wave}",
            "-fno-threadsafe-statics", f"-ffp-contract={contract}",
            f"-D__SHFLX_FP_CONTRACT_MODE={FP_CONTRACT_MODES.get(contract, 1)}", *aliasing, "-o", str(out)]
    if opts.debug:
        args += ["-debug-info-kind=line-tables-only", "-dwarf-version=5"]
    for inc in opts.includes:
        args += ["-I", inc]
    for d in opts.defines:
        args += ["-D", d]
    return args + [f"-fdebug-prefix-map={INCLUDE}={PRELUDE_PREFIX}", *extra, str(source)]


def compile_to_ir(source: Path, cpu: str, wave: int, opts: FrontendOptions, selectable_wave: bool) -> str:
    """LLVM IR text of the AMDGPU device code; clang's diagnostics become an InputError (exit 1)."""
    host = host_cxx_args(find_clang(opts.llvm_bin))
    return _run_front_end(source, opts, lambda out, tmp: cc1_args(source, cpu, wave, out, opts, selectable_wave, host, tmp),
                          optimized_amd=opts.opt > 0)


def compile_to_nvptx_ir(source: Path, sm: str, ptx_feature: str, opts: FrontendOptions) -> str:
    """LLVM IR text of the NVPTX device code with the shflx prelude (see nvptx_cc1_args)."""
    return _run_front_end(source, opts, lambda out, tmp: nvptx_cc1_args(source, sm, ptx_feature, out, opts, tmp), "NVIDIA")


def cuda_driver_args(source: Path, sm: str, cuda_path: Path, sdk: CudaSdk, out: Path, opts: FrontendOptions) -> list[str]:
    """clang's CUDA mode as nvcc's replacement: NVIDIA's headers (`--cuda-path`), clang's wrapper
    headers (`-resource-dir`), libdevice linked for math, the host's libstdc++ as nvcc's host
    compiler sees it; device code only. CUDART_VERSION/CUDA_VERSION come from its headers, but nvcc
    defines __CUDACC_VER_MAJOR__/MINOR__/BUILD__ itself and clang does not: without them code such as
    DeepSpeed's `#if __CUDACC_VER_MAJOR__ >= 11` compiles its pre-CUDA-11 branch."""
    major, minor = sdk.version.split(".")[:2]
    args = ["-x", "cuda", "--cuda-device-only", f"--cuda-gpu-arch={sm}", f"--cuda-path={cuda_path}",
            f"-resource-dir={sdk.resource_dir}", f"--target={HOST_TRIPLE}", "-idirafter", str(SHIMS),
            "-include", str(SHIMS / "shflx_host_helpers.h"),
            "-std=c++17", f"-O{opts.opt}", "-S", "-emit-llvm", "-Wno-unknown-cuda-version", "-o", str(out),
            # nvcc's default -prec-sqrt=true: sqrtf is sqrt.rn.f32 (clang's CUDA mode defaults to
            # sqrt.approx.f32: libdevice asks __nvvm_reflect("__CUDA_PREC_SQRT"), answered here)
            "-mllvm", "-nvvm-reflect-add=__CUDA_PREC_SQRT=1",
            *([] if STRICT_ALIASING in opts.extra else ["-fno-strict-aliasing"]),
            f"-D__CUDACC_VER_MAJOR__={int(major)}", f"-D__CUDACC_VER_MINOR__={int(minor)}", "-D__CUDACC_VER_BUILD__=0"]
    for inc in sdk.includes:              # where clang puts <cuda-path>/include: after the user's dirs
        args += ["-Xclang", "-internal-isystem", "-Xclang", str(inc)]
    if opts.debug:
        args.append("-gline-directives-only")     # .loc lines only, like nvcc -lineinfo
    for inc in opts.includes:
        args += ["-I", inc]
    for d in opts.defines:
        args += ["-D", d]
    # cc1 words; -fstrict-aliasing only leaves -fno-strict-aliasing out (shflx's own marker, no cc1 word);
    # -fgpu-rdc is the driver's own (relocatable device code: extern device functions, device launch)
    return args + [w for word in opts.extra if word != STRICT_ALIASING
                   for w in ((word,) if word == GPU_RDC else ("-Xclang", word))] + \
        host_after(amd=False) + [str(source)]


def compile_with_cuda_headers(source: Path, sm: str, sdk: CudaSdk, opts: FrontendOptions) -> str:
    """LLVM IR text of the NVPTX device code compiled against NVIDIA's real CUDA headers."""
    return _run_front_end(source, opts, lambda out, tmp: cuda_driver_args(source, sm, sdk.lay_out(tmp), sdk, out, opts),
                    "NVIDIA")


def preprocess(source: Path, cpu: str, wave: int, opts: FrontendOptions, selectable_wave: bool,
               fixes: list[nvcc_syntax.Fix] | tuple = ()) -> tuple[str, list[str]]:
    """The AMD device pass's preprocessed text (line markers kept), with `fixes` (nvcc_syntax) read
    into the files, and the notes of the host-only headers stood in for and of the fixes; the
    depfile, if asked for, is written here."""
    host = host_cxx_args(find_clang(opts.llvm_bin))

    def make_args(out: Path, tmp: Path) -> list[str]:
        return [("-E" if a == "-emit-llvm" else a) for a in cc1_args(source, cpu, wave, out, opts, selectable_wave, host, tmp)]
    return _front_end(source, opts, make_args, fixes=fixes)


def _run_front_end(source: Path, opts: FrontendOptions, make_args, vendor: str = "AMD",
                   optimized_amd: bool = False) -> str:
    """clang's output with the notes of stood-in host-only headers at its top (see _front_end)."""
    text, notes = _front_end(source, opts, make_args, vendor, optimized_amd=optimized_amd)
    return "".join(n + "\n" for n in notes) + text


def _front_end(source: Path, opts: FrontendOptions, make_args, vendor: str = "AMD",
               fixes: list[nvcc_syntax.Fix] | tuple = (), optimized_amd: bool = False) -> tuple[str, list[str]]:
    """Run clang with `make_args(output path, temporary dir)`: its output and the notes of the
    host-only headers stood in for and of what was read as nvcc reads it (`fixes` to start with,
    more as clang's diagnostics call for them); its diagnostics become an InputError.
    `optimized_amd`: the run optimizes AMDGPU device IR (see run_device_clang)."""
    if not source.is_file():
        raise InputError("cannot read the source file", Location(str(source)))
    tool = find_clang(opts.llvm_bin)
    with tempfile.TemporaryDirectory(prefix="shflx-") as tmp:
        out, standins = Path(tmp) / "device.ll", Path(tmp) / "host-only"
        args = make_args(out, Path(tmp))
        notes: list[str] = []
        first_failure = None
        read_as_nvcc = list(fixes)
        if read_as_nvcc:
            args[-1:-1] = ["-ivfsoverlay", str(nvcc_syntax.overlay(read_as_nvcc, Path(tmp)))]
        for _ in range(64):                              # at most 63 missing headers or rounds of fixes
            proc, retried = run_device_clang(tool, args, optimized_amd)
            if proc.returncode == 0 and out.exists():
                return tool_text(out), notes + [f.note() for f in read_as_nvcc] + retried
            new_fixes = [f for f in nvcc_syntax.fixes(proc.stderr) if f not in read_as_nvcc]
            if new_fixes:                               # what nvcc accepts and clang does not
                read_as_nvcc += new_fixes
                yaml = nvcc_syntax.overlay(read_as_nvcc, Path(tmp))     # rewritten in place each round
                if str(yaml) not in args:                   # (NVIDIA's headers have an overlay of their own)
                    args[-1:-1] = ["-ivfsoverlay", str(yaml)]
                continue
            clashes = [n for n in builtin_clashes(proc.stderr) if f"-D{n}={RENAMED}{n}" not in args]
            if clashes:                                 # a program's function named as a clang builtin
                args[-1:-1] = [f"-D{n}={RENAMED}{n}" for n in clashes]
                notes += [renamed_note(n) for n in clashes]
                continue
            missing = missing_host_header(proc.stderr)
            if missing is None or stood_in(standins, missing[0]):
                break
            first_failure = first_failure or proc       # report this one if the stand-ins do not help
            search = stand_in(standins, missing[0])
            if search is not None:                      # before the source, searched last
                args[-1:-1] = ["-idirafter", str(search)]
            notes.append(note(*missing))
        failed = first_failure or proc
        cccl = cccl_missing(failed.stderr, vendor)
        if cccl is not None:
            raise cccl
        check_failure(failed, source)
        diag = explain_diagnostics(failed.stderr.strip(), vendor)
        if first_failure is not None and not _cccl_dialect(failed.stderr.splitlines(), vendor):
            # the stand-ins did not help: one line, with what they led to (CCCL's dialect #error, which
            # clang printed before the missing header, is the cause whatever the header: said above)
            header, where = missing_host_header(first_failure.stderr)
            after = next((ln for ln in proc.stderr.splitlines() if ": error: " in ln), None)
            diag = unhelped(header, where, vendor, after and explain_diagnostics(after, vendor))
        raise InputError(f"the CUDA front end rejected the source:\n{diag}", Location(str(source)))


# Host-only functions device code may call in CUDA but shflx's device side lacks: why, per name.
_PRINTF_WHY = "device printf is ROCm's buffered printf (-mprintf-kind=buffered); the host-call kind is not linked"
_HEAP_WHY = "the device heap (malloc/free, new/delete in kernels) is not provided"
DEVICE_GAPS = {               # the function device code calls -> (the CUDA name, why)
    "__ockl_printf_begin": ("printf", _PRINTF_WHY),
    "__ockl_printf_append_args": ("printf", _PRINTF_WHY), "__ockl_printf_append_string_n": ("printf", _PRINTF_WHY),
    "malloc": ("malloc", _HEAP_WHY), "free": ("free", _HEAP_WHY),
    # device-side new and delete (Itanium C++ ABI, "Operator Encodings": nw, na, dl, da; size_t is m):
    # the same heap (Ray Tracing in One Weekend in CUDA allocates its scene with them in a kernel)
    **{mangled: (f"operator {op}", _HEAP_WHY) for mangled, op in (
        ("_Znwm", "new"), ("_Znam", "new[]"), ("_ZnwmRKSt9nothrow_t", "new"), ("_ZnamRKSt9nothrow_t", "new[]"),
        ("_ZdlPv", "delete"), ("_ZdlPvm", "delete"), ("_ZdaPv", "delete[]"), ("_ZdaPvm", "delete[]"))},
    # the shflx prelude's NVIDIA side (no shflx[cuda]) has no libdevice (AMD's layer defines these)
    "sinf": ("sinf", "no libdevice; use __sinf"), "cosf": ("cosf", "no libdevice; use __cosf"),
    "tanhf": ("tanhf", "no libdevice"),
}
# The texture and surface reads the layer declares (include/shflx_cuda_host.h) each call a marker of
# their own: __shflx_texture_<name>, __shflx_surface_<name>
_IMAGE_MARKER = re.compile(r"__shflx_(?P<kind>texture|surface)_(?P<name>\w+)")
_IMAGE_WHY = {"texture": "texture reads are not provided by the CUDA layer", "surface": "surfaces are not provided by "
              "the CUDA layer"}


def device_gap(name: str) -> tuple[str, str] | None:
    """(the CUDA name, why) of a function device code calls that shflx's device side lacks, or None."""
    m = _IMAGE_MARKER.fullmatch(name)
    return (m["name"], _IMAGE_WHY[m["kind"]]) if m else DEVICE_GAPS.get(name)


_HOST_REF = re.compile(r"^(?P<where>.*?): error: reference to __host__ function '(?P<name>[^']+)' in "
                       r"__(?:device|global|host__ __device)__ function$")


_UNAVAILABLE = re.compile(r"^(?P<where>.*?): error: '[^']+' is unavailable: (?P<what>shflx does not support .*)$")
_NOT_FOUND = re.compile(r"^(?P<where>.*?): fatal error: '(?P<name>[^']+)' file not found$")
# CCCL's public headers: cub/..., thrust/..., nv/target, cuda/std/... and cuda/<name> without an
# extension (cuda/atomic, cuda/barrier, cuda/pipeline); a project's own cuda/foo.h is not one.
CCCL_HEADER = re.compile(r"(?:cub|thrust|nv)/[\w./]+|cuda/std/[\w./]+|cuda/\w+")


def cccl_missing(stderr: str, vendor: str) -> InputError | None:
    """A CCCL header clang did not find because shflx[cuda] is not installed: shflx's one-line
    error at its #include (clang's include stack and caret are not repeated)."""
    if vendor != "AMD" or cccl_include() is not None:
        return None
    for line in stderr.splitlines():
        m = _NOT_FOUND.match(line)
        if m and CCCL_HEADER.fullmatch(m.group("name")):
            path, line_no, col = m.group("where").rsplit(":", 2)
            return InputError(f"shflx does not support '{m.group('name')}' on AMD targets without NVIDIA's CCCL "
                              f"headers (CUB, Thrust, libcu++: {CCCL_HINT})", Location(path, int(line_no), int(col)))
    return None


_INCLUDED_FROM = re.compile(r"^In file included from (?P<file>.+?):(?P<line>\d+):$")
_LAYER_ERROR = re.compile(r'^(?P<where>.*?): error: "(?P<what>shflx does not support .*)"$')
_CUBLAS_NAME = re.compile(r"^(?P<where>.*?): error: (?:use of undeclared identifier|unknown type name) "
                          r"'(?P<name>(?:cublas|CUBLAS_)\w+)'")
_CUBLAS_WHY = ("shflx declares only the common part of cuBLAS's host API (shflx_cublas_host.h); installing "
               "nvidia-cublas-cu12 makes NVIDIA's own cublas_v2.h serve")


_LAYER_ASSERT = re.compile(r"^(?P<where>.*?): error: static assertion failed(?: due to requirement '.*')?: "
                           r"(?P<what>shflx does not support .*)$")
_REQUESTED = re.compile(r"^(?P<where>.*?:\d+:\d+): note: in instantiation of .* requested here$")


def _layer_asserts(lines: list[str]) -> dict[int, str]:
    """A static_assert of the CUDA layer that names what shflx does not support (a template the
    program instantiates, e.g. a wmma fragment shape), said at the program's line that asked for it:
    the first "in instantiation of ... requested here" note outside the layer."""
    out = {}
    for k, line in enumerate(lines):
        m = _LAYER_ASSERT.match(line)
        if not m or str(INCLUDE) not in m.group("where"):
            continue
        for note in lines[k + 1:]:
            if ": error: " in note:
                break
            r = _REQUESTED.match(note)
            if r and str(INCLUDE) not in r.group("where"):
                out[k] = f"{r.group('where')}: error: {m.group('what')}"
                break
    return out


def explain_diagnostics(stderr: str, vendor: str) -> str:
    """clang's diagnostics, with each call from device code to a host-only CUDA/C function said as
    what it is: `file:line:col: error: shflx does not support 'X' in device code on AMD targets (why)`,
    an API the CUDA layer marks unavailable said without clang's `'f' is unavailable:` prefix (a
    layer static_assert that names one, at the program's line that instantiated it), an NVIDIA
    header the layer does not provide named at its #include (unprovided.py), what nvcc also refuses
    or compiles differently said so (nvcc_differences.py), and a cuBLAS name beyond shflx's
    declarations named as such."""
    out = []
    including = None                      # the innermost "In file included from" of this diagnostic
    lines = stderr.splitlines()
    dialect = _cccl_dialect(lines, vendor)
    if dialect:
        return dialect
    asserted = _layer_asserts(lines)
    for k, line in enumerate(lines):
        if k in asserted:
            out.append(asserted[k])
            including = None
            continue
        m = _INCLUDED_FROM.match(line)
        if m or line.startswith("In file included from"):
            including = m or including
            out.append(line)
            continue
        stack, including = including, None
        m = _UNAVAILABLE.match(line)
        if m:
            out.append(f"{m.group('where')}: error: {m.group('what')}")
            continue
        m = _LAYER_ERROR.match(line)
        if m and stack is not None and str(INCLUDE) in m.group("where"):     # a stub's #error: at its #include
            out.append(f"{_include_site(stack)}: error: {m.group('what')}")
            continue
        named = named_missing_header(line, vendor) or said_by_shflx(line, vendor, lines[k + 1:k + 8])
        if named:
            out.append(named)
            continue
        m = _CUBLAS_NAME.match(line)
        if m and vendor == "AMD" and "-idirafter" not in amd_header_args():
            out.append(f"{m.group('where')}: error: shflx does not support '{m.group('name')}' on {vendor} targets "
                       f"({_CUBLAS_WHY})")
            continue
        m = _HOST_REF.match(line)
        if m:
            name = m.group("name")
            why = DEVICE_GAPS.get(name, (name, "it is a host function and shflx has no device version of it"))[1]
            line = f"{m.group('where')}: error: shflx does not support '{name}' in device code on {vendor} targets ({why})"
        out.append(line)
    return "\n".join(out)


def _cccl_dialect(lines: list[str], vendor: str) -> str | None:
    """CCCL 3's C++17 #error said alone (nvcc_differences.cccl_dialect): what clang says after it
    follows from the dialect."""
    toolkit = tuple(str(d) for d in (INCLUDE, cccl_include(), package_dir("nvidia")) if d)
    for k, line in enumerate(lines):
        if "requires at least C++" not in line:
            continue
        frames, j = [], k - 1
        while j >= 0 and (m := _INCLUDED_FROM.match(lines[j])):
            frames.insert(0, _include_site(m))
            j -= 1
        said = cccl_dialect(line, frames, vendor, toolkit)
        if said:
            return said
    return None


def _include_site(m: re.Match) -> str:
    """file:line:col of an `#include` clang names as "In file included from file:line:" (the
    column of the header's name)."""
    col = 1
    try:
        text = Path(m["file"]).read_text(errors="replace").splitlines()[int(m["line"]) - 1]
        col = next((k + 1 for k, c in enumerate(text) if c in '<"'), 1)
    except (OSError, IndexError):
        pass
    return f"{m['file']}:{m['line']}:{col}"


# LLVM 22's InferAddressSpaces can leave a null operand in an instruction it rewrites into another
# address space when one of the operand's sources is never rewritten (the PHI case is
# llvm/llvm-project#205749; TensorRT's topkLastDim.cu gets a select `out_buf ? out_idx_buf : in_idx`
# whose false operand is null); the next InstCombine then dies by SIGSEGV and clang prints nothing.
# The pass only turns flat addresses into global or LDS ones, so an AMD device compile that crashed
# is run once more without it: the same meaning, flat accesses where it would have narrowed them.
WITHOUT_INFER_ADDRESS_SPACES = ("-mllvm", "-opt-disable=infer-address-spaces")
OPTIMIZER_NOTE_PREFIX = "; shflx: optimizer: "        # carried at the top of the device IR
# Signals by which a program dies of its own fault (a crash; LLVM's failed assertions abort); any
# other signal stopped clang from outside (Ctrl-C, a kill, the out-of-memory killer): no retry.
CRASH_SIGNALS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGABRT})


def run_device_clang(tool, args: list[str], optimized_amd: bool) -> tuple[subprocess.CompletedProcess, list[str]]:
    """clang with `args`, and once more without LLVM's infer-address-spaces pass where the caller
    says the run optimizes AMDGPU device IR (`optimized_amd`) and clang crashed (see
    WITHOUT_INFER_ADDRESS_SPACES); the note for the report when the second run compiled."""
    proc = _run_clang(tool, args)
    if proc.returncode == -signal.SIGINT:
        raise KeyboardInterrupt           # Ctrl-C reached clang: the build is being stopped
    if not (optimized_amd and _crashed(proc)):
        return proc, []
    again = _run_clang(tool, [*args[:-1], *WITHOUT_INFER_ADDRESS_SPACES, args[-1]])
    if again.returncode != 0:
        return proc, []
    return again, [f"{OPTIMIZER_NOTE_PREFIX}clang was killed by {_signal_name(proc.returncode)} optimizing the device "
                   "code and compiled it without LLVM's infer-address-spaces pass (which clang 22 can leave a null "
                   "operand behind, cf. llvm/llvm-project#205749): the same meaning, with flat memory accesses "
                   "where the pass would have made them global or LDS ones"]


def optimizer_notes(ir: str) -> list[str]:
    """The notes run_device_clang left at the top of a device module."""
    return leading_notes(ir, OPTIMIZER_NOTE_PREFIX)


_ERROR_LINE = re.compile(r"(?:^|: )(?:fatal )?error: ")


def check_failure(proc: subprocess.CompletedProcess, source: Path) -> None:
    """A failed clang run that printed no error (killed by a signal, or an exit status with only
    warnings) as one line naming what happened; clang's warnings are not repeated."""
    if any(_ERROR_LINE.search(line) for line in proc.stderr.splitlines()):
        return
    if _crashed(proc):
        what = f"clang was killed by {_signal_name(proc.returncode)} (a crash of clang itself, not an error in the source)"
    elif proc.returncode < 0:
        what = f"clang was stopped by {_signal_name(proc.returncode)} (from outside: a kill, or the system out of memory)"
    else:
        what = f"clang exited with status {proc.returncode} without an error message"
    raise InputError(f"the CUDA front end failed: {what}", Location(str(source)))


def _crashed(proc: subprocess.CompletedProcess) -> bool:
    return proc.returncode < 0 and -proc.returncode in CRASH_SIGNALS


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _run_clang(tool, args: list[str]) -> subprocess.CompletedProcess:
    """clang with `args`; not starting or not finishing is a ToolchainError."""
    try:
        return subprocess.run([*tool.command, *args], capture_output=True, text=True, timeout=600)
    except OSError as e:
        raise ToolchainError(f"cannot run clang ({' '.join(tool.command)}): {e}") from None
    except subprocess.TimeoutExpired:
        raise ToolchainError("clang did not finish within 600 s") from None


def codegen_with_clang(ir: str, cpu: str, wave: int, emit: str, selectable_wave: bool,
                       llvm_bin: str | None = None, features: tuple[str, ...] = ()) -> bytes | str:
    """Object or asm from IR through clang's backend: used for modules with inline assembly,
    which llvmlite's LLVM cannot assemble (it ships no AMDGPU asm parser)."""
    tool = find_clang(llvm_bin)
    with tempfile.TemporaryDirectory(prefix="shflx-") as tmp:
        src, out = Path(tmp) / "module.ll", Path(tmp) / ("module.s" if emit == "asm" else "module.o")
        src.write_text(ir)
        proc = _run_clang(tool, [*_amdgpu_target(cpu, wave, selectable_wave),
                                 *(w for f in features for w in ("-target-feature", f)),
                                 "-emit-obj" if emit != "asm" else "-S", "-x", "ir", "-O2", str(src), "-o", str(out)])
        if proc.returncode != 0 or not out.exists():
            raise InputError("code generation failed (inline assembly?):\n" + proc.stderr.strip())
        return tool_text(out) if emit == "asm" else out.read_bytes()
