"""`shflx launch -- clang++ ... -c a.hip -o a.o`: shflx inside an existing build.

As a compiler launcher (CMake's CMAKE_HIP_COMPILER_LAUNCHER, a Makefile's `$(LAUNCH) $(CXX)`) it
keeps the user's compiler for everything but device code. Per `-c` of a HIP/CUDA source:
  1. device IR per --offload-arch: HIP sources (.hip, .cpp ...) through the user's own compiler
     (`--cuda-device-only -emit-llvm`, its HIP headers: HIP's wave-wide semantics, the shuffles
     arrive as ds_bpermute); CUDA sources (.cu) through shflx's CUDA front end (32-lane warps);
  2. shflx lowers every shuffle (proven) and links one code object per target;
  3. the code objects go into a clang offload bundle (codegen.bundle);
  4. the original command runs with `--cuda-host-only -Xclang -fcuda-include-gpubinary -Xclang
     BUNDLE`: the host object embeds shflx's code objects, and the host compile writes the depfile
     (-MD/-MF stay on it), so the build's header dependencies are the compiler's own.
Every other command (links, -E, -M, commands without an AMD target) runs unchanged."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ShflxError, ToolchainError, UsageError
from ..schemas import versioned
from .inputs import check_compile_files
from .report import compile_entry, internal_warnings

HIP_SUFFIXES = (".hip", ".cpp", ".cc", ".cxx", ".c++", ".C", ".hpp")
CUDA_SUFFIXES = (".cu",)
# flags of the user's command that only concern the host object or its depfile
DEP_SWITCHES = ("-MD", "-MMD", "-MP", "-MG", "-M", "-MM")
DEP_VALUED = ("-MF", "-MT", "-MQ")
LAUNCH_OPTIONS = ("--baseline", "--report-file", "-Rpass=shflx", "--no-chains", "--fp-reassoc", "--cmake-toolchain")


@dataclass
class Command:
    """A compiler command, read as far as the launcher needs: what it compiles, for which targets."""
    argv: list[str]
    source: str | None = None
    output: str | None = None
    compile_only: bool = False
    language: str | None = None                   # -x VALUE
    targets: list[str] = field(default_factory=list)
    passthrough: str | None = None                # why the command runs unchanged

    @property
    def cuda(self) -> bool:
        """CUDA semantics: `-x cuda`, or a .cu file compiled as HIP (CMake's HIP language on .cu)."""
        return self.language == "cuda" or (self.source or "").endswith(CUDA_SUFFIXES)


def read_command(argv: list[str]) -> Command:
    """The parts of a clang/hipcc command the launcher acts on; anything it does not model is left in
    the command for the compiler to read."""
    from .flags import check_target_id, expand_response_files, split_targets

    words = expand_response_files(argv)
    cmd = Command(words)
    sources = []
    k = 1
    while k < len(words):
        w = words[k]
        if w == "-c":
            cmd.compile_only = True
        elif w == "-o":
            cmd.output = words[k + 1] if k + 1 < len(words) else None
            k += 1
        elif w.startswith("-o") and len(w) > 2:
            cmd.output = w[2:]
        elif w == "-x":
            cmd.language = words[k + 1] if k + 1 < len(words) else None
            k += 1
        elif w.startswith("-x") and len(w) > 2:
            cmd.language = w[2:]
        elif w.startswith(("--offload-arch=", "--cuda-gpu-arch=")):
            cmd.targets += [t for t in split_targets(w.split("=", 1)[1], w.split("=")[0]) if not t.startswith("sm_")]
        elif w in ("--offload-arch", "--cuda-gpu-arch") and k + 1 < len(words):
            cmd.targets += [t for t in split_targets(words[k + 1], w) if not t.startswith("sm_")]
            k += 1
        elif w in ("-E", "-M", "-MM", "-S", "--cuda-host-only", "--cuda-device-only", "-fgpu-rdc", "-emit-llvm"):
            cmd.passthrough = f"{w} in the command"
        elif w in ("-I", "-isystem", "-include", "-D", "-U", "-MF", "-MT", "-MQ", "-Xclang", "-mllvm", "-iquote",
                   "-idirafter", "-L", "-l", "-Xlinker", "-target", "--target", "-arch", "-Xarch_device",
                   "-Xarch_host", "-Xoffload-linker"):
            k += 1                                  # a flag and its value: the value is no source
        elif not w.startswith("-") and Path(w).suffix in HIP_SUFFIXES + CUDA_SUFFIXES:
            sources.append(w)
        k += 1
    cmd.targets = list(dict.fromkeys(cmd.targets))
    for t in cmd.targets:
        check_target_id(t)
    if not cmd.compile_only:
        cmd.passthrough = cmd.passthrough or "not a -c compile"
    elif len(sources) != 1:
        cmd.passthrough = cmd.passthrough or f"{len(sources)} source files"
    elif not cmd.targets:
        cmd.passthrough = cmd.passthrough or "no --offload-arch"
    cmd.source = sources[0] if len(sources) == 1 else None
    if cmd.language not in (None, "hip", "cuda"):
        cmd.passthrough = cmd.passthrough or f"-x {cmd.language}"
    return cmd


# The host pass's target (clang's, since LLVM 4): the bundle it embeds is shflx's and holds the real ones
HOST_PASS_TARGET = "--offload-arch=gfx900"


def _targets_dropped(words: list[str]) -> list[str]:
    """The command without its --offload-arch / --cuda-gpu-arch flags."""
    out, k = [], 0
    while k < len(words):
        if words[k] in ("--offload-arch", "--cuda-gpu-arch"):
            k += 2
            continue
        if not words[k].startswith(("--offload-arch=", "--cuda-gpu-arch=")):
            out.append(words[k])
        k += 1
    return out


def _strip(words: list[str], drop_targets: bool) -> list[str]:
    """The command without -o, -c, depfile flags (and --offload-arch): the device compile's base."""
    out, k = [], 0
    while k < len(words):
        w = words[k]
        if w in ("-o",) + DEP_VALUED:
            k += 2
            continue
        if w in ("-c",) + DEP_SWITCHES or (w.startswith("-o") and len(w) > 2) or \
                any(w.startswith(d) and len(w) > len(d) for d in DEP_VALUED):
            k += 1
            continue
        out.append(w)
        k += 1
    return _targets_dropped(out) if drop_targets else out


def compiler_env(argv0: str) -> dict[str, str] | None:
    """The environment the HIP compiler `argv0` runs in for an AMD target: hipcc (ROCm's or
    Debian's) chooses its platform from HIP_PLATFORM or from what it finds (nvcc on PATH makes it
    dispatch to nvcc, which knows no `-x hip`), so it runs with HIP_PLATFORM=amd; None (inherit)
    for any other compiler."""
    return {**os.environ, "HIP_PLATFORM": "amd"} if Path(argv0).name.startswith("hipcc") else None


def describe_compiler(argv0: str) -> str:
    """`argv0` as a message names it: the command, where PATH found it, and HIP_PLATFORM=amd for hipcc."""
    import shutil
    where = shutil.which(argv0)
    said = argv0 if not where or where == argv0 else f"{argv0} ({where})"
    return said + (" with HIP_PLATFORM=amd" if compiler_env(argv0) is not None else "")


def _run(argv: list[str], what: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=1800, env=compiler_env(argv[0]))
    except OSError as e:
        raise ToolchainError(f"cannot run {what} ({argv[0]}): {e.strerror or e}") from None
    except subprocess.TimeoutExpired:
        raise ToolchainError(f"{what} did not finish within 1800 s ({argv[0]})") from None


def hip_device_ir(cmd: Command, target_id: str, out: Path) -> None:
    """The user's compiler, device side only, one target: LLVM bitcode at `out`."""
    from .flags import debug_wanted

    lines = [] if debug_wanted(cmd.argv) else ["-gline-tables-only"]     # the report's locations
    argv = _strip(cmd.argv, drop_targets=True) + [f"--offload-arch={target_id}", "--cuda-device-only",
                                                  *lines, "-emit-llvm", "-c", "-o", str(out)]
    proc = _run(argv, "the device compile")
    if proc.returncode != 0 or not out.is_file():
        sys.stderr.write(proc.stderr)
        raise ShflxError(f"the device compile of {cmd.source} for {target_id} failed "
                         f"({argv[0]} exited with {proc.returncode})")
    if proc.stderr:
        sys.stderr.write(proc.stderr)


def cuda_options(cmd: Command) -> tuple[str, ...]:
    """The preprocessor and language words of the user's command that shflx's CUDA front end takes
    (-I, -isystem, -include, -D, -U, -std=), in order."""
    words, out, k = cmd.argv, [], 1
    while k < len(words):
        w = words[k]
        p = next((p for p in ("-isystem", "-include", "-iquote", "-idirafter", "-I", "-D", "-U") if w.startswith(p)), None)
        if p and w == p and k + 1 < len(words):
            out += [p, words[k + 1]]
            k += 1
        elif p:
            out += [p, w[len(p):]]
        elif w.startswith("-std="):
            out.append(w)
        k += 1
    return tuple(out)


def users_code_object_version(cmd: Command, target_id: str, probe: bool = True) -> int:
    """The code object version the user's compiler writes: its -mcode-object-version=N, else what
    it puts in an empty HIP device module (`probe`), else 4 (clang before 17 wrote no flag: v4)."""
    from ..ir.moduleflags import code_object_version

    given = [w.split("=", 1)[1] for w in cmd.argv if w.startswith("-mcode-object-version=")]
    if given and given[-1].isdigit():
        return int(given[-1])
    if probe:
        try:
            proc = subprocess.run([cmd.argv[0], "-x", "hip", "--cuda-device-only", "-nogpuinc", "-nogpulib",
                                   f"--offload-arch={target_id}", "-emit-llvm", "-S", "-o", "-", "-"],
                                  input="", capture_output=True, text=True, timeout=600, env=compiler_env(cmd.argv[0]))
        except (OSError, subprocess.TimeoutExpired):        # the host compile will say what is wrong
            proc = None
        found = code_object_version(proc.stdout) if proc and proc.returncode == 0 else None
        if found:
            return found
    return 4


@dataclass
class Options:
    baseline: bool = False
    report_file: str | None = None
    remarks: bool = False
    chains: bool = True
    fp_reassoc: bool = False


def device_code_objects(cmd: Command, opts: Options, tmp: Path) -> tuple[dict[str, bytes], list[dict]]:
    """One linked code object per target of the command, shuffles lowered; and the report entries."""
    from ..frontend.clang import FrontendOptions
    from ..ir.moduleflags import code_object_version
    from .amd import compile_file
    from .flags import base_arch, debug_wanted, feature_words, opt_wanted, target_features
    from .inputs import read_ir

    objects, report = {}, []
    wave64 = any(w in ("-mwavefrontsize64",) for w in cmd.argv)
    debug = bool(debug_wanted(cmd.argv))
    opt = opt_wanted(cmd.argv)
    for tid in cmd.targets:
        if cmd.cuda:            # the front end writes the version's implicit-argument reads (blockDim:
            cov = users_code_object_version(cmd, tid)           # v4 the dispatch packet, v5 the kernarg)
            fe = FrontendOptions(opt=opt, extra=(*cuda_options(cmd), *feature_words(tid), f"-mcode-object-version={cov}"))
            source = Path(cmd.source)
        else:
            source = tmp / f"device-{tid.replace(':', '_')}.bc"
            hip_device_ir(cmd, tid, source)
            fe = FrontendOptions()
            cov = None if code_object_version(read_ir(source)) else users_code_object_version(cmd, tid, probe=False)
        res = compile_file(source, base_arch(tid), wave=64 if wave64 else None, opts=fe, baseline=opts.baseline,
                           fp_reassoc=opts.fp_reassoc, chains=opts.chains, features=target_features(tid),
                           debug_info=debug, code_object_version=cov,
                           nvcc_names=False)   # the user's host stub registers clang's kernel names
        objects[tid] = res.output
        entry = compile_entry(res, cmd.source, tid, cmd.output, semantics="cuda" if cmd.cuda else "hip")
        for line in internal_warnings(entry):       # a bug shflx caught: never a silent fallback
            print(line, file=sys.stderr)
        report.append(versioned(entry))
    return objects, report


def host_compile(cmd: Command, bundle: Path) -> int:
    """The user's command, host side only, embedding `bundle`; its output and exit status."""
    from ..frontend.clang import INCLUDE, version_macros

    extra = ["--cuda-host-only", "-Xclang", "-fcuda-include-gpubinary", "-Xclang", str(bundle)]
    if cmd.cuda:                # the kernels' CUDA intrinsics, declared for the host parse, and the
        # CUDA runtime API on HIP's (cuda_on_hip/); first on the path, before a CUDA toolkit's headers
        extra += ["-I", str(INCLUDE / "cuda_on_hip"), "-include", str(INCLUDE / "shflx_cuda_on_hip.h"),
                  *host_header_args(), *version_macros()]
    rest = cmd.argv[1:]
    if cmd.cuda:    # the device code is shflx's, so the host pass names one target every HIP compiler knows
        rest = _targets_dropped(rest) + [HOST_PASS_TARGET]  # (an older one rejects gfx942, and hipcc given none
                                                           # runs rocm_agent_enumerator, which fails with no GPU)
    argv = cmd.argv[:1] + extra + rest
    try:
        if not cmd.cuda:
            return subprocess.run(argv, env=compiler_env(argv[0])).returncode
        proc = _host_pass_as_nvcc_reads(argv, bundle.parent)
    except OSError as e:
        raise ToolchainError(f"cannot run the host compile ({argv[0]}): {e.strerror or e}") from None
    sys.stderr.write(unsupported_in_one_line(proc.stderr))
    return proc.returncode


def _host_pass_as_nvcc_reads(argv: list[str], tmp: Path) -> subprocess.CompletedProcess:
    """The host pass of a .cu, compiled again (as the device pass is: frontend.clang) where clang's
    diagnostics show source that nvcc reads and clang does not (nvcc_syntax: `k << <g, b >> > (...)`
    ...; a rewritten copy in a VFS overlay under `tmp`) or a program's function named as a clang
    builtin (nvcc_differences: renamed by a macro)."""
    from ..frontend import nvcc_syntax
    from ..frontend.nvcc_differences import RENAMED, builtin_clashes

    fixed: list[nvcc_syntax.Fix] = []
    for _ in range(64):
        proc = subprocess.run(argv, env=compiler_env(argv[0]), stderr=subprocess.PIPE, text=True, errors="replace")
        if proc.returncode == 0:
            break
        said = _plain(proc.stderr)
        new_fixes = [f for f in nvcc_syntax.fixes(said) + _geometry_redeclarations(said) if f not in fixed]
        renames = [w for w in (f"-D{n}={RENAMED}{n}" for n in builtin_clashes(said)) if w not in argv]
        if new_fixes:
            fixed += new_fixes
            yaml = str(nvcc_syntax.overlay(fixed, tmp))         # rewritten in place each round
            argv = argv if yaml in argv else [*argv, "-ivfsoverlay", yaml]
        elif renames:
            argv = [*argv, *renames]
        else:
            break
    return proc


_GEOMETRY_AT = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): error: redeclaration of "
                          r"'(?P<name>threadIdx|blockIdx|blockDim|gridDim)' with a different type")
_GEOMETRY_DECL = rb"extern\s+const\s+(?:dim3|uint3)\s+%s\s*;"


def _geometry_redeclarations(said: str) -> list:
    """A program's `extern const dim3 blockDim;` (ccminer's and ethminer's host code, for editors):
    CUDA's device_launch_parameters.h declares blockDim so, which nvcc reads as the same declaration
    again; HIP's blockDim is an object of another type, so the program's declaration is read as
    nothing (a Fix that removes it). Any other form of the declaration stays clang's error."""
    from ..frontend.nvcc_syntax import Fix

    out = []
    for m in map(_GEOMETRY_AT.match, said.splitlines()):
        if not m:
            continue
        try:
            text = Path(m["file"]).read_bytes()
        except OSError:
            continue
        lines = text.splitlines(keepends=True)
        row = int(m["line"]) - 1
        if row >= len(lines):
            continue
        start = sum(len(ln) for ln in lines[:row])
        decl = re.search(_GEOMETRY_DECL % m["name"].encode(), lines[row])
        if decl and decl.start() < int(m["col"]) <= decl.end():
            out.append(Fix(m["file"], start + decl.start(), b"", f"{m['file']}:{m['line']}:{m['col']}",
                           f"the program's declaration of '{m['name']}' (CUDA's own) read as nothing",
                           decl.end() - decl.start()))
    return out


def host_header_args() -> list[str]:
    """The macro naming NVIDIA's math_constants.h (macros only) in the CUDA runtime wheel
    (frontend.cuda_sdk.REAL_HEADERS), which cuda_on_hip/ reads as the device pass does. (Its
    cuComplex.h is not: it includes the wheel's own vector_types.h, NVIDIA's device API.)"""
    from ..frontend.cuda_sdk import REAL_HEADERS, amd_header_args

    return [w for w in amd_header_args() if w.startswith(f"-D{REAL_HEADERS['math_constants.h']}=")]


_DIAGNOSTIC = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<kind>error|fatal error|warning|note|remark): "
                         r"(?P<text>.*)$")
_UNAVAILABLE = re.compile(r"^'[^']+' is unavailable: (?P<what>shflx does not support .*)$")
# a program's own declaration of a thread-geometry variable (ccminer, ethminer: `extern const dim3
# blockDim;` under #ifndef __CUDA_ARCH__), which CUDA's device_launch_parameters.h declares so too
_GEOMETRY = re.compile(r"^redeclaration of '(?P<name>threadIdx|blockIdx|blockDim|gridDim|warpSize)' with a different "
                       r"type: .*$")
# a cudaDeviceProp field that HIP's hipDeviceProp_t lacks (HIP 5.2: sharedMemPerBlockOptin ...)
_NO_FIELD = re.compile(r"^no member named '(?P<field>\w+)' in '(?:struct )?hipDeviceProp_t'(?:; did you mean .*)?$")
_SUMMARY = re.compile(r"^\d+ (?P<rest>errors? generated.*)$")
_COLOR = re.compile(r"\x1b\[[0-9;]*m")
_INCLUDED = re.compile(r"^(?:In file included from |\s+from ).+:\d+:$")          # clang's include stack
_NOT_FOUND = re.compile(r"^'(?P<name>[^']+)' file not found$")
# NVIDIA headers host code may include that the HIP runtime has no counterpart of, and why
HOST_UNPROVIDED = {
    r"cudaTypedefs\.h": "the driver API's function pointer types (PFN_cu*) are not provided for host code; cuda.h's "
                         "functions are",
    r"cuda_bf16\.h": "CUDA's bfloat16 types are not provided for host code",
    r"cooperative_groups/\w+\.h": "HIP's cooperative groups, which the host pass parses the kernels with, have no such "
                                  "header",
    r"(?:cub|thrust)/.+": "CUB and Thrust are not provided for host code; their HIP counterparts are hipCUB and "
                          "rocThrust",
    r"(?:cublas\w*|cufft\w*|curand\w*|cusparse\w*|cusolver\w*|nvrtc|nvml|nccl|cudnn\w*|npp\w*|nvjpeg|"
    r"nvToolsExt\w*|nvtx3/\w+)\.h": "NVIDIA's library has no implementation on AMD; its HIP counterpart is a "
                                    "different API",
}


def _plain(line: str) -> str:
    """A diagnostic line without its colors (-fdiagnostics-color=always, as CMake may pass)."""
    return _COLOR.sub("", line)


def unsupported_in_one_line(stderr: str) -> str:
    """The host compile's diagnostics with each use of a CUDA runtime name HIP lacks (or of a
    cudaDeviceProp field, or a program's blockDim ...: _said_by_shflx) as one line,
    `file:line:col: error: shflx does not support 'cudaX' on AMD targets`: clang's prefix, source
    excerpt and note into cuda_on_hip/ dropped, and so are the errors the same line led to (the name
    is declared both as a type and a value: cuda_on_hip/cuda_runtime.h). An NVIDIA header with no
    HIP counterpart (HOST_UNPROVIDED) is said the same way at its #include. Anything else unchanged."""
    blocks: list[list[str]] = [[]]             # a diagnostic: its header line and what clang printed under it
    for line in stderr.splitlines(keepends=True):
        if _DIAGNOSTIC.match(_plain(line)) or _SUMMARY.match(_plain(line)) or _plain(line).startswith("In file included from"):
            if blocks[-1] and not _INCLUDED.match(_plain(blocks[-1][-1]).rstrip("\n")):
                blocks.append([])
        blocks[-1].append(line)
    heads = [next((m for m in (_DIAGNOSTIC.match(_plain(ln)) for ln in b) if m), None) for b in blocks]
    lines = {(m["file"], m["line"]) for m in heads if m and m["kind"] == "error" and _said_by_shflx(m["text"])}
    missing = [_unprovided(m) for m in heads]
    if not lines and not any(missing):
        return stderr
    out, errors, dropping, stack = [], 0, False, []
    for block, m, why in zip(blocks, heads, missing):
        if why:                                 # one line at the #include; clang stops there
            out += [ln for ln in block if _INCLUDED.match(_plain(ln).rstrip("\n"))] + \
                [f"{m['file']}:{m['line']}:{m['col']}: error: shflx does not support '{why[0]}' on AMD targets ({why[1]})\n"]
            errors += 1
            continue
        if m is None:
            summary = _SUMMARY.match(_plain(block[0])) if block else None
            out += [f"{errors} {summary['rest']}\n"] if summary else block
            continue
        if m["kind"] == "note":                 # a note belongs to the diagnostic before it
            if not dropping:
                out += block
            continue
        unavailable = _said_by_shflx(m["text"]) if m["kind"] == "error" else None
        dropping = (m["file"], m["line"]) in lines
        own = [ln for ln in block if _INCLUDED.match(_plain(ln).rstrip("\n"))]
        if dropping and not unavailable:        # its include stack, clang's only one, goes to the next
            stack = stack or own
            continue
        out += [] if own else stack
        stack = []
        if unavailable:
            out += own + [f"{m['file']}:{m['line']}:{m['col']}: error: {unavailable}\n"]
        else:
            out += block
        errors += m["kind"] in ("error", "fatal error")
    return "".join(out)


def _said_by_shflx(text: str) -> str | None:
    """shflx's one line for a host compile error's text: a CUDA name HIP lacks (cuda_on_hip/), a
    program's declaration of blockDim ..., a cudaDeviceProp field HIP's lacks; None for any other."""
    if m := _UNAVAILABLE.match(text):
        return m["what"]
    if m := _GEOMETRY.match(text):
        return (f"shflx does not support '{m['name']}' declared by the program on AMD targets (the HIP runtime's "
                "headers declare it as an object of another type)")
    if m := _NO_FIELD.match(text):
        return f"shflx does not support 'cudaDeviceProp::{m['field']}' on AMD targets (HIP's device properties lack it)"
    return None


def _unprovided(m: re.Match | None) -> tuple[str, str] | None:
    """(header, why) for a fatal "'X' file not found" of an NVIDIA header HOST_UNPROVIDED names."""
    found = _NOT_FOUND.match(m["text"]) if m and m["kind"] == "fatal error" else None
    why = next((w for p, w in HOST_UNPROVIDED.items() if found and re.fullmatch(p, found["name"])), None)
    return (found["name"], why) if why else None


def launch_command(argv: list[str], opts: Options) -> int:
    """Run one compiler command with shflx's device code (or unchanged, see read_command)."""
    import json

    from ..codegen.bundle import hip_entry_id, write_bundle
    from .remarks import remarks

    if not argv:
        raise UsageError("shflx launch: no compiler command after `--`")
    cmd = read_command(argv)
    if cmd.passthrough:
        try:
            return subprocess.run(argv).returncode
        except OSError as e:
            raise ToolchainError(f"cannot run {argv[0]}: {e.strerror or e}") from None
    if opts.report_file:
        from ..files import check_outputs
        check_outputs([cmd.source] if cmd.source else [], [("--report-file", report_path(opts.report_file, cmd))])
    with tempfile.TemporaryDirectory(prefix="shflx-launch-") as tmp:
        objects, report = device_code_objects(cmd, opts, Path(tmp))
        bundle = Path(tmp) / "device.hipfb"
        bundle.write_bytes(write_bundle({hip_entry_id(t): o for t, o in objects.items()}))
        code = host_compile(cmd, bundle)
    if code == 0:
        if opts.remarks or "-Rpass=shflx" in cmd.argv:
            for line in remarks(report):
                print(line, file=sys.stderr)
        if opts.report_file:
            from ..files import write_atomically
            write_atomically(report_path(opts.report_file, cmd), json.dumps(report, indent=1) + "\n")
    return code


def report_path(given: str, cmd: Command) -> Path:
    """--report-file F, or with a directory (an existing one, or F ending in /) one report per
    object there: DIR/<object name>.shflx.json (a build runs many compiles)."""
    path = Path(given)
    if given.endswith("/") or path.is_dir():
        path.mkdir(parents=True, exist_ok=True)
        return path / f"{Path(cmd.output or Path(cmd.source or 'out').stem).name}.shflx.json"
    return path


def launch(args: list[str]) -> int:
    """`shflx launch [--baseline] [--report-file F] [-Rpass=shflx] -- COMPILER ARGS...`."""
    opts, k = Options(), 0
    while k < len(args) and args[k] != "--" and args[k].startswith("-"):
        w = args[k]
        if w == "--baseline":
            opts.baseline = True
        elif w == "-Rpass=shflx":
            opts.remarks = True
        elif w == "--no-chains":
            opts.chains = False
        elif w == "--fp-reassoc":
            opts.fp_reassoc = True
        elif w == "--cmake-toolchain":          # CMake's CUDA language on shflx (shflx/cmake/shflx-cuda.cmake)
            from importlib.resources import files
            print(files("shflx") / "cmake" / "shflx-cuda.cmake")
            return 0
        elif w.startswith("--report-file="):
            opts.report_file = w.split("=", 1)[1]
        elif w == "--report-file" and k + 1 < len(args):
            opts.report_file = args[k + 1]
            k += 1
        else:
            raise UsageError(f"shflx launch: unknown option '{w}' (options: {', '.join(LAUNCH_OPTIONS)}; "
                             "then `--` and the compiler command)")
        k += 1
    rest = args[k + 1:] if k < len(args) and args[k] == "--" else args[k:]
    if os.environ.get("SHFLX_LAUNCH_OFF"):          # the same build without shflx, for comparisons
        return subprocess.run(rest).returncode if rest else 2
    return launch_command(rest, opts)


def host_compiler(f) -> list[str]:
    """`shflx compile -c`'s HIP compiler: --host-cxx, SHFLX_HOST_CXX, else hipcc or clang++ on PATH
    (hipcc runs with HIP_PLATFORM=amd: compiler_env)."""
    import shlex
    import shutil

    chosen = f.host_cxx or os.environ.get("SHFLX_HOST_CXX")
    if chosen:
        return shlex.split(chosen)
    for name in ("hipcc", "clang++"):
        if shutil.which(name):
            return [name]
    raise ToolchainError("-c needs a HIP compiler for the host object: none of hipcc, clang++ is on PATH; "
                         "name one with --host-cxx or SHFLX_HOST_CXX")


def _check_files(f, src: str, out: str) -> None:
    """`-c`'s files (driver.inputs.check_compile_files): the depfile as -MF names it, else beside -o."""
    mf = [f.deps[k + 1] for k, w in enumerate(f.deps) if w == "-MF"]
    depfile = mf[-1:] or ([str(Path(out).with_suffix(".d"))] if {"-MD", "-MMD"} & set(f.deps) else [])
    check_compile_files(f, [Path(src)], [("-o", out), *(("-MF", d) for d in depfile),
                                         *((("--report-file", f.report_file),) if f.report_file else ())])


def compile_object(f) -> int:
    """`shflx compile -c`: the launcher around a HIP compiler command made from the flags."""
    amd = [t for t in f.archs if not t.startswith("sm_")]
    if len(amd) != len(f.archs):
        raise UsageError("-c builds a host object with AMD device code; for sm_NN use -S / --emit ptx|cubin "
                         "(or nvcc with `shflx ptxas`)")
    if len(f.sources) != 1:
        raise UsageError(f"-c takes one input file, got {len(f.sources)}")
    src = f.sources[0]
    out = f.output or Path(src).with_suffix(".o").name
    _check_files(f, src, out)
    lang = f.language or ("cuda" if src.endswith(".cu") else "hip")
    debug = ["-g"] if f.debug else ["-g0"] if f.debug is False else []
    argv = [*host_compiler(f), "-x", "hip", *f.preprocessor, *[w for w in f.device if w.startswith(("-std=", "-W", "-w"))],
            *f.host, f"-O{f.opt}", *debug, *f.deps, *(f"--offload-arch={t}" for t in amd), "-c", src, "-o", out]
    opts = Options(baseline=f.baseline, report_file=f.report_file, remarks=f.remarks, chains=not f.no_chains,
                   fp_reassoc=f.fp_reassoc)
    if "-v" in f.host or "--verbose" in f.host:
        print(f"shflx: -c: the host object by {describe_compiler(argv[0])}", file=sys.stderr)
    cmd = read_command(argv)
    if lang == "cuda":
        cmd.language = "cuda"
    if cmd.passthrough:
        raise UsageError(f"-c: cannot build this object through the launcher ({cmd.passthrough})")
    with tempfile.TemporaryDirectory(prefix="shflx-c-") as tmp:
        from ..codegen.bundle import hip_entry_id, write_bundle
        objects, report = device_code_objects(cmd, opts, Path(tmp))
        bundle = Path(tmp) / "device.hipfb"
        bundle.write_bytes(write_bundle({hip_entry_id(t): o for t, o in objects.items()}))
        code = host_compile(cmd, bundle)
    if code != 0:
        print(f"shflx: error: the host compile of {src} failed: {describe_compiler(argv[0])} exited with status "
              f"{code} (-c's HIP compiler: --host-cxx, SHFLX_HOST_CXX, else hipcc or clang++ on PATH)", file=sys.stderr)
        return 2                                     # `shflx compile -c`: an error (README "Exit codes")
    if opts.remarks:
        from .remarks import remarks
        for line in remarks(report):
            print(line, file=sys.stderr)
    if opts.report_file:
        import json

        from ..files import write_atomically
        write_atomically(Path(opts.report_file), json.dumps(report, indent=1) + "\n")
    return 0


def link_program(f) -> int:
    """`shflx compile --link a.cu b.o -o app` (nvcc's --link): each source's host object as -c makes
    it (an object or archive is taken as it is), then the HIP compiler links them against the HIP runtime (clang's --hip-link: libamdhip64)."""
    from dataclasses import replace

    if any(t.startswith("sm_") for t in f.archs):
        raise UsageError("--link builds a program with AMD device code; for sm_NN use -S / --emit ptx|cubin "
                         "(or nvcc with `shflx ptxas`)")
    if f.deps or f.report_file and len(f.sources) > 1:
        raise UsageError("--link writes one program: no depfile flags, and --report-file with one input file")
    out = f.output or "a.out"
    check_compile_files(f, [Path(s) for s in f.sources], [("-o", out)])
    with tempfile.TemporaryDirectory(prefix="shflx-link-") as tmp:
        objects = []
        for k, src in enumerate(f.sources):
            if src.endswith(LINKED_AS_IS):     # an object a -c made (nvcc links `a.o b.o -o app` too)
                objects.append(src)
                continue
            objects.append(str(Path(tmp) / f"{k}-{Path(src).stem}.o"))
            code = compile_object(replace(f, sources=[src], output=objects[-1], action="c"))
            if code != 0:
                return code
        linker = host_compiler(f)
        argv = [*linker, *(w for w in f.host if w.startswith(("-Wl,", "-pthread", *HIP_LINK_WORDS))), *objects,
                *f.libraries, "--hip-link", "-o", out]
        try:
            done = subprocess.run(argv, env=compiler_env(argv[0]))
        except OSError as e:
            raise ToolchainError(f"cannot run the link ({argv[0]}): {e.strerror or e}") from None
    if done.returncode != 0:
        print(f"shflx: error: the link of {out} failed: {describe_compiler(argv[0])} exited with status "
              f"{done.returncode}", file=sys.stderr)
        return 2
    return 0


# inputs of --link that go to the link unchanged: objects and archives
LINKED_AS_IS = (".o", ".a")

# the HIP installation words of the command that the link needs too (where libamdhip64 is)
HIP_LINK_WORDS = ("--rocm-path", "--hip-path")
