"""`shflx compile`'s command line, read the way clang and nvcc read theirs.

argparse cannot: `-isystem` is not `-i system`, `-gencode` is not `-g`, `-Os` is not `-O s`, and
`@file` expands in place. Every flag is in one of the tables below; anything else is a clear
UsageError naming it, never a guess. docs/compile-flags.md lists them (flag, before, after).

Where each flag goes: `device` words reach shflx's device front end (clang -cc1); `host` words
reach the host compile of `-c` only; `deps` (-MD/-MF/...) go to whichever compile writes the
depfile. Target IDs (`gfx942:xnack+`) are checked here; the target itself where it is resolved."""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Location, UsageError
from .nvcc_spellings import nvcc_words

# relocatable device code (nvcc's -rdc=true; its -dc is -c with it, driver.nvcc_spellings): sm_NN
# device code compiled to a relocatable object for nvlink (an extern __device__ function, a kernel
# launch from device code with cudadevrt). On AMD each file's device code is linked into its own
# code object, as without the flag: a file that defines what its device code uses compiles the same;
# one that does not is a one-line error naming what is undefined (driver.inputs.check_resolved)
RDC = ("-fgpu-rdc", "-rdc=true", "--relocatable-device-code=true", "-dc")
# flag -> (attribute, value) for flags that take no argument
SWITCHES = {
    "-c": ("action", "c"), "-S": ("action", "S"), "-E": ("action", "E"), "--link": ("action", "link"),
    "--baseline": ("baseline", True), "--wave64": ("wave64", True), "-mwavefrontsize64": ("wave64", True),
    "-mno-wavefrontsize64": ("wave64", False), "--fp-reassoc": ("fp_reassoc", True),
    "--no-chains": ("no_chains", True), "--load-shuffle": ("load_shuffle", True), "-Rpass=shflx": ("remarks", True),
    "-Wshflx-headers": ("header_warnings", True), "-Wno-shflx-headers": ("header_warnings", False), "--debug": ("traceback", True),
    "--time-report": ("time_report", True), "-ftime-report": ("time_report", True),
    "-g0": ("debug", False), "-ggdb0": ("debug", False), "-g": ("debug", True), "-ggdb": ("debug", True),
    "-gline-tables-only": ("debug", True), "-gdwarf": ("debug", True),
    "--cuda-device-only": ("action", "device"), "--offload-device-only": ("action", "device"),
    **{w: ("rdc", w) for w in RDC},
}
# flags with one value, separate (`-o x`) or joined (`-ox`, `--report=x`): flag -> attribute
VALUED = {
    "-o": "output", "--emit": "emit", "--report": "report", "--report-file": "report_file",
    "--llvm-bin": "llvm_bin", "-j": "jobs", "-x": "language", "--host-cxx": "host_cxx",
    "-mcode-object-version": "code_object_version", "--prefer": "prefer",
}
# the HIP installation flags users pass to hipcc/clang: for -c's HIP compiler (host object, and the
# device IR of a .hip source); shflx's own CUDA front end needs none of them
HIP_VALUED = ("--rocm-path", "--hip-path", "--hip-device-lib-path", "--rocm-device-lib-path", "--hip-version")
HIP_SWITCHES = ("-nogpulib", "-nogpuinc", "--no-offload-new-driver", "--offload-new-driver")
# preprocessor flags: kept in order (a -D then a -U of the same name differ from the reverse)
PREPROCESSOR = ("-D", "-U", "-I", "-isystem", "-include", "-idirafter", "-iquote")
DEPFILE_SWITCHES = ("-MD", "-MMD", "-MP")
DEPFILE_VALUED = ("-MF", "-MT", "-MQ")
TARGET_FLAGS = ("--offload-arch", "--cuda-gpu-arch", "-arch", "--gpu-architecture")
# -f flags that mean something to device code -> their clang -cc1 spelling (each checked against
# clang 22's cc1); every other -f flag is host-only (-fPIC, -fvisibility=..., ...)
DEVICE_F = {"-ffast-math": ["-ffast-math"], "-fno-fast-math": ["-fno-fast-math"],
            "-ffinite-math-only": ["-ffinite-math-only"], "-funsafe-math-optimizations": ["-funsafe-math-optimizations"],
            "-fexceptions": ["-fexceptions", "-fcxx-exceptions"], "-fno-exceptions": [], "-fno-rtti": ["-fno-rtti"],
            "-fno-gnu-inline-asm": ["-fno-gnu-inline-asm"], "-fms-extensions": ["-fms-extensions"],
            "-fno-strict-aliasing": ["-relaxed-aliasing"], "-fstrict-aliasing": ["-fstrict-aliasing"],
            "-funsigned-char": ["-fno-signed-char"],
            "-fno-signed-char": ["-fno-signed-char"], "-fchar8_t": ["-fchar8_t"], "-fno-char8_t": ["-fno-char8_t"],
            "-fcolor-diagnostics": ["-fcolor-diagnostics"]}
DEVICE_F_JOINED = {"-ffp-contract=": ["-ffp-contract="], "-fdebug-prefix-map=": ["-fdebug-prefix-map="],
                   "-fmacro-prefix-map=": ["-fmacro-prefix-map="],
                   "-ffile-prefix-map=": ["-fdebug-prefix-map=", "-fmacro-prefix-map="]}
REJECTED = {"--cuda-host-only": "shflx compiles device code; use `shflx launch` around the host compiler",
            "-emit-llvm": "use --emit llvm"}
# every -f flag is rejected unless it is one of these (as clang rejects `-foo`): the device's
# share above, and the host compile's usual ones (-c); other host flags go through -Xcompiler
HOST_F = ("-fPIC", "-fpic", "-fPIE", "-fpie", "-fno-pic", "-fno-pie", "-fno-plt", "-fno-common", "-fcommon",
          "-ffunction-sections", "-fdata-sections", "-fomit-frame-pointer", "-fno-omit-frame-pointer",
          "-fvisibility-inlines-hidden", "-fno-color-diagnostics", "-fdiagnostics-color", "-fno-diagnostics-color",
          "-fopenmp", "-fno-openmp", "-fstack-protector", "-fstack-protector-strong", "-fstack-protector-all",
          "-fno-stack-protector", "-fno-math-errno", "-fmath-errno", "-fno-unsafe-math-optimizations",
          "-fno-finite-math-only", "-fcxx-exceptions", "-fno-cxx-exceptions", "-frtti", "-fsigned-char",
          "-fno-unsigned-char", "-fpermissive", "-fno-builtin", "-fwrapv", "-fno-threadsafe-statics")
HOST_F_JOINED = ("-fvisibility=", "-fdiagnostics-color=", "-fsanitize=", "-fno-sanitize=", "-fmessage-length=",
                 "-ftemplate-depth=", "-fconstexpr-depth=", "-fconstexpr-steps=", "-fopenmp=", "-fmax-errors=")
# the values of the enumerated flags (each checked by _check, the error listing them)
EMIT_AMD = ("hsaco", "obj", "asm", "llvm")          # driver.amd.EMITS
EMIT_NVIDIA = ("cubin", "ptx", "llvm")              # driver.nvidia.EMITS
EMIT_CHOICES = tuple(dict.fromkeys(EMIT_AMD + EMIT_NVIDIA))
REPORT_CHOICES = ("text", "json")
PREFER_CHOICES = ("cycles", "lds-free")             # target.PREFERENCES
LANGUAGE_CHOICES = ("cuda", "hip")
CODE_OBJECT_VERSIONS = ("4", "5", "6")
OPT_LEVELS = {"0": 0, "1": 1, "2": 2, "3": 3, "s": 2, "z": 2, "g": 1, "": 1, "fast": 3}
TARGET_ID = re.compile(r"^(gfx[0-9a-f]+)((?::(?:xnack|sramecc)[+-])*)$")
NVIDIA_ARCH = re.compile(r"^(?:sm|compute|lto)_(\d+[af]?)$")


@dataclass
class CompileFlags:
    sources: list[str] = field(default_factory=list)
    archs: list[str] = field(default_factory=list)          # target IDs and sm_NN, in order, once each
    action: str = "device"                                  # device code objects | c | S | E | link
    output: str | None = None
    emit: str | None = None
    language: str | None = None                              # -x cuda | hip
    opt: str = "3"
    debug: bool | None = None                                # -g / -g0 (None: line tables, not -g)
    code_object_version: str | None = None
    preprocessor: list[str] = field(default_factory=list)   # -D X -U Y -I dir -isystem dir ...
    device: list[str] = field(default_factory=list)         # -std=, -W*, -w, device -f*, -Xclang words
    host: list[str] = field(default_factory=list)           # host-only words (-fPIC, -m64, -Xcompiler ..)
    deps: list[str] = field(default_factory=list)           # -MD -MMD -MF f -MT t -MQ t -MP
    xptxas: list[str] = field(default_factory=list)
    libraries: list[str] = field(default_factory=list)      # -lNAME -LDIR, in order: --link's link, after the objects
    report: str | None = None        # --report as given (None: the default, see report_format)
    report_file: str | None = None
    remarks: bool = False
    time_report: bool = False        # each compile's stage times on stderr (shflx.timing)
    header_warnings: bool = False    # -Wshflx-headers: LLVM's warnings located in CUDA/CCCL headers
    baseline: bool = False
    wave64: bool = False
    fp_reassoc: bool = False
    no_chains: bool = False
    load_shuffle: bool = False       # NVIDIA: the load -> shuffle search (slow; `shflx ptx` runs it)
    rdc: str | None = None           # -fgpu-rdc as spelled (RDC): sm_NN relocatable device code
    prefer: str = "cycles"           # AMD: the search's preference (target.PREFERENCES)
    llvm_bin: str | None = None
    host_cxx: str | None = None
    jobs: str | None = None
    traceback: bool = False
    response_files: list[str] = field(default_factory=list)  # @file words read (inputs: no output may name one)

    @property
    def opt_level(self) -> int:
        return OPT_LEVELS[self.opt]

    @property
    def report_format(self) -> str:
        """An explicit --report wins; else --report-file's extension (.json: JSON), else text."""
        if self.report:
            return self.report
        return "json" if self.report_file and self.report_file.lower().endswith(".json") else "text"


def expand_response_files(argv: list[str], depth: int = 0, read: list[str] | None = None) -> list[str]:
    """`@file` words replaced by the file's words (shell quoting, nested files), like clang; `read`
    collects the files read. Only a regular file is read (a FIFO is an error, not a hang)."""
    from ..errors import InputError
    from ..files import read_input_text

    out: list[str] = []
    for word in argv:
        if not word.startswith("@") or len(word) == 1:
            out.append(word)
            continue
        path = Path(word[1:])
        if depth > 8:
            raise UsageError(f"{word}: response files nest more than 8 deep")
        try:
            text = read_input_text(path, "a response file")
        except InputError as e:
            why = e.reason.removeprefix("cannot read: ").split(" (expected")[0]
            raise UsageError(f"cannot read the response file: {why}", Location(str(path))) from None
        if read is not None:
            read.append(str(path))
        try:
            words = shlex.split(text, comments=False)
        except ValueError as e:
            raise UsageError(f"{path}: error: unreadable response file ({e})") from None
        out += expand_response_files(words, depth + 1, read)
    return out


def split_targets(value: str, flag: str) -> list[str]:
    """A comma list of targets, each checked: AMD target IDs and NVIDIA sm_NN (compute_NN -> sm_NN)."""
    out = []
    for item in value.split(","):
        item = item.strip()
        if not item:
            raise UsageError(f"{flag}: empty target in '{value}'")
        nv = NVIDIA_ARCH.match(item)
        if nv:
            out.append(f"sm_{nv.group(1)}")
            continue
        m = TARGET_ID.match(item)
        if not m:
            raise UsageError(f"{flag}: '{item}' is not a target ID (gfxNNN[:xnack+|-][:sramecc+|-] or sm_NN)")
        feats = [f[:-1] for f in m.group(2).split(":")[1:]]
        if len(set(feats)) != len(feats):
            raise UsageError(f"{flag}: '{item}' names a feature twice")
        out.append(item)
    return out


def gencode_targets(value: str) -> list[str]:
    """nvcc's `arch=compute_NN,code=sm_NN` or `code=[sm_NN,compute_NN]`: the sm_NN it builds for."""
    m = re.fullmatch(r"arch=(?:compute|sm)_\w+,code=(\[[^\]]*\]|[\w]+)", value.replace('"', ""))
    if not m:
        raise UsageError(f"-gencode: expected arch=compute_NN,code=sm_NN (or code=[sm_NN,compute_NN]), got '{value}'")
    return split_targets(m.group(1).strip("[]"), "-gencode")


def parse_compile_args(argv: list[str]) -> CompileFlags:
    """`shflx compile` words (after @file expansion and nvcc's spellings, driver.nvcc_spellings) ->
    CompileFlags; a UsageError names the first word it does not know. Each family of flags is read by its own function, in this order."""
    f = CompileFlags()
    words = _Words(nvcc_words(expand_response_files(list(argv), read=f.response_files)))
    while words.k < len(words.all):
        w = words.all[words.k]
        if not w.startswith("-") or w == "-":
            f.sources.append(w)
        elif w == "--":
            f.sources += words.all[words.k + 1:]
            break
        elif not any(read(f, w, words) for read in (_mode_flag, _target_flag, _forwarded_flag, _preprocessor_flag,
                                                     _compiler_flag)):
            raise UsageError(f"unknown flag '{w}' (see `shflx compile --help`; other flags: -Xclang X for the "
                             "device front end, -Xcompiler X for the host compile of -c)")
        words.k += 1
    _check(f)
    return f


class _Words:
    """The command's words and the position of the one being read."""

    def __init__(self, words: list[str]):
        self.all, self.k = words, 0

    def value(self, flag: str, rest: str) -> str:
        """The flag's value: joined (`-ox`, `--x=v`) or the next word."""
        if rest:
            return rest[1:] if rest.startswith("=") else rest
        if self.k + 1 >= len(self.all):
            raise UsageError(f"{flag} needs a value")
        self.k += 1
        return self.all[self.k]


def _mode_flag(f: CompileFlags, w: str, words: _Words) -> bool:
    """Rejected flags, shflx's and clang's switches, -g, -O."""
    if w in REJECTED:
        raise UsageError(f"{w}: {REJECTED[w]}")
    if w in SWITCHES:
        attr, v = SWITCHES[w]
        setattr(f, attr, v)
    elif debug_wanted([w]):
        f.debug = True
    elif (m := re.fullmatch(r"-O(\d+|s|z|g|fast)?", w)):
        level = m.group(1) or ""
        if level not in OPT_LEVELS:
            level = "3" if level.isdigit() else level
        f.opt = "1" if level == "" else level
    else:
        return False
    return True


def _target_flag(f: CompileFlags, w: str, words: _Words) -> bool:
    """-gencode / --generate-code, --offload-arch, -arch and their spellings."""
    if w.startswith("-gencode") or w.startswith("--generate-code"):
        flag = "-gencode" if w.startswith("-gencode") else "--generate-code"
        rest = w[len(flag):]
        if rest and not rest.startswith("="):
            raise UsageError(f"unknown flag '{w}'")
        f.archs += gencode_targets(words.value(flag, rest))
    elif (t := next((t for t in TARGET_FLAGS if w == t or w.startswith(t + "=")), None)):
        f.archs += split_targets(words.value(t, w[len(t):]), t)
    else:
        return False
    return True


def _forwarded_flag(f: CompileFlags, w: str, words: _Words) -> bool:
    """Words for another tool: -Xclang (device front end), -Xptxas, -Xcompiler (host)."""
    if w == "-Xclang":
        f.device.append(words.value(w, ""))
    elif w in ("-Xptxas", "--ptxas-options"):
        f.xptxas += words.value(w, "").split(",")
    elif w.startswith("--ptxas-options="):
        f.xptxas += w.split("=", 1)[1].split(",")
    elif w in ("-Xcompiler", "--compiler-options"):
        f.host += words.value(w, "").split(",")
    else:
        return False
    return True


def _preprocessor_flag(f: CompileFlags, w: str, words: _Words) -> bool:
    """-I/-D/-include ..., -std=, and the depfile flags (-MD, -MF ...)."""
    if (p := next((p for p in PREPROCESSOR if w.startswith(p)), None)):
        rest = w[len(p):]
        f.preprocessor += [p, words.value(p, rest)]
    elif w.startswith("-std="):
        f.device.append(w)
    elif w in DEPFILE_SWITCHES:
        f.deps.append(w)
    elif (d := next((d for d in DEPFILE_VALUED if w.startswith(d)), None)):
        f.deps += [d, words.value(d, w[len(d):])]
    else:
        return False
    return True


def _compiler_flag(f: CompileFlags, w: str, words: _Words) -> bool:
    """Warnings, -f flags (host, and the device's share), valued flags (-o, -j, -x ...), host-only -m."""
    if w == "-w" or re.fullmatch(r"-W(no-)?(error(=[\w-]+)?|[\w+=-]+)", w) and not w[:4] in ("-Wl,", "-Wa,", "-Wp,"):
        f.device.append(w)
    elif w[:4] in ("-Wl,", "-Wa,", "-Wp,"):
        f.host.append(w)
    elif w.startswith("-f") and known_f(w):
        f.host.append(w)
        f.device += device_f(w)
    elif (v := next((v for v in VALUED if w == v or w.startswith(v + "=")
                     or (v in ("-o", "-j", "-x") and w.startswith(v) and len(w) > 2)), None)):
        setattr(f, VALUED[v], words.value(v, w[len(v):]))
    elif re.fullmatch(r"-m(64|32|arch=[\w.-]+|tune=[\w.-]+|cpu=[\w.-]+|no-red-zone|avx\w*|sse\w*|fma|bmi2?)", w):
        f.host.append(w)
    elif w in ("-pthread", "-fPIC", "-pipe", "-v", "--verbose") or w in HIP_SWITCHES:
        f.host.append(w)
    elif (h := next((h for h in HIP_VALUED if w == h or w.startswith(h + "=")), None)):
        f.host.append(f"{h}={words.value(h, w[len(h):])}")       # the HIP compiler of -c reads them
    elif w in NVCC_AS_CLANG or w in NVCC_FAST_MATH:
        if (macro := NVCC_MACROS.get(w.lstrip("-"))):
            f.preprocessor += ["-D", macro]
    elif w in NVCC_DEVICE_DEBUG:
        f.debug = True
        f.preprocessor += ["-D", NVCC_MACROS["G"]]
    elif (m := re.fullmatch(r"-([lL])(.*)", w)):
        f.libraries.append(f"-{m.group(1)}{words.value(w, m.group(2))}")
    elif (m := re.fullmatch(r"(--machine|-m)(=.*)?", w)):
        _choice("--machine", words.value(m.group(1), m.group(2) or ""), ("64",))
        f.host.append("-m64")
    elif w == "--m64":                  # nvcc takes -m64 with two dashes too (cudaLBM's common.mk)
        f.host.append("-m64")
    elif (m := re.fullmatch(r"--Werror(=.*)?", w)):
        kinds = words.value("--Werror", m.group(1) or "").split(",")
        for kind in kinds:
            _choice("--Werror", kind, NVCC_WERROR_KINDS)
    elif (m := re.fullmatch(r"(--?maxrregcount)(=.*)?", w)):
        f.xptxas += ["--maxrregcount", words.value(m.group(1), m.group(2) or "")]
    elif (m := re.fullmatch(r"--?ftz=(\w+)", w)):
        _choice("-ftz", m.group(1), tuple(NVCC_FTZ))
        f.device.append(NVCC_FTZ[m.group(1)])
    else:
        return False
    return True


# nvcc flags that ask for what clang's CUDA and HIP modes do anyway: constexpr functions callable from
# device code (clang's -fcuda-host-device-constexpr, on by default), __device__ lambdas, line tables
# (shflx's default output has them). Accepted and nothing more.
NVCC_AS_CLANG = frozenset(f"{dash}{name}" for dash in ("-", "--") for name in (
    "expt-relaxed-constexpr", "expt-extended-lambda", "extended-lambda", "lineinfo", "generate-line-info"))
# the macros nvcc defines for these flags (nvcc manual, "Pre-defined Macros"), so that code which
# checks for them (cuCollections' `#error` without __CUDACC_EXTENDED_LAMBDA__) sees them
NVCC_MACROS = {"expt-extended-lambda": "__CUDACC_EXTENDED_LAMBDA__", "extended-lambda": "__CUDACC_EXTENDED_LAMBDA__",
               "expt-relaxed-constexpr": "__CUDACC_RELAXED_CONSTEXPR__", "G": "__CUDACC_DEBUG__"}
# nvcc's -G (--device-debug): debug information for device code; nvcc also turns device
# optimization off, which shflx does not (its output is the same code at the user's -O, with -g's
# line tables and debug info)
NVCC_DEVICE_DEBUG = ("-G", "--device-debug")
# nvcc's --library (-l) and --library-path (-L) name what the link uses (nvcc manual, "--library");
# a compile (device code, -c) ignores them, as nvcc does when it does not link, and CMake's
# CMAKE_CUDA_FLAGS put them on every compile (FasterTransformer's -ldl). `--link` gives them to its
# link after the objects, where a linker looks for what the objects still need.
# nvcc's --Werror KIND,... (nvcc manual, "--Werror"): nvcc's own warnings of those kinds made errors.
# Its kinds are its front end's diagnostics (calls across execution spaces, launches on the default
# stream, missing __launch_bounds__, ...); shflx's front end is clang's, with its own diagnostics
# (a call across execution spaces is already an error there), so the kinds are checked and no more.
NVCC_WERROR_KINDS = ("all-warnings", "cross-execution-space-call", "reorder", "default-stream-launch",
                     "missing-launch-bounds", "ext-lambda-captures-this", "deprecated-declarations")
# nvcc's -m64 / --machine 64 is `-m64` above (64-bit host code, the only kind CUDA 12 has);
# --maxrregcount N (nvcc manual, "--maxrregcount") is a ptxas option, given to ptxas as nvcc does
# (sm_NN); AMD targets take no register cap, as they take no other -Xptxas word
# nvcc's --use_fast_math (nvcc's short name is the same word with one dash): a license, not a
# meaning. It lets the math functions be their fast intrinsics (CUDA C++ Programming Guide,
# "Intrinsic Functions"), whose bounds the precise functions meet (on AMD the layer's intrinsics are
# the precise functions), and implies --ftz=true --prec-div=false --prec-sqrt=false --fmad=true
# (nvcc manual, "--use_fast_math"); shflx keeps precise division, square root and denormals, and
# contracts as by default. Accepted; the device code is compiled as without it.
NVCC_FAST_MATH = frozenset(("-use_fast_math", "--use_fast_math"))
# nvcc's -ftz=true|false (nvcc manual, "--ftz"): single-precision denormals flushed to zero (inputs
# and results) or kept; clang's FP32 denormal mode, which AMDGPU writes into the kernel descriptor
# (.amdhsa_float_denorm_mode_32) and NVPTX into .ftz instruction forms and libdevice's __CUDA_FTZ.
NVCC_FTZ = {"true": "-fdenormal-fp-math-f32=preserve-sign,preserve-sign", "false": "-fdenormal-fp-math-f32=ieee,ieee"}


def _choice(flag: str, value: str | None, choices: tuple[str, ...], why: str = "") -> None:
    """One error line for a value outside an enumerated flag's choices, listing them."""
    if value is not None and value not in choices:
        raise UsageError(f"invalid value '{value}' for {flag}{why}; valid values: {', '.join(choices)}")


def _check(f: CompileFlags) -> None:
    """Values that must be one of a few; a clear error for each, with the list of choices."""
    if f.language == "cu":
        f.language = "cuda"
    _choice("-x", f.language, LANGUAGE_CHOICES)
    _choice("--report", f.report, REPORT_CHOICES)
    _choice("--prefer", f.prefer, PREFER_CHOICES)
    _choice("-mcode-object-version", f.code_object_version, CODE_OBJECT_VERSIONS)
    _choice("--emit", f.emit, EMIT_CHOICES)
    if f.jobs is not None and (not f.jobs.isdigit() or int(f.jobs) < 1):
        raise UsageError(f"expected a positive number of jobs, got '{f.jobs}'")
    seen: list[str] = []
    for a in f.archs:
        if a not in seen:
            seen.append(a)
    f.archs = seen
    for a in f.archs:
        check_target_id(a)
        if a.startswith("sm_"):
            _choice("--emit", f.emit, EMIT_NVIDIA, f" with NVIDIA target {a}")
        else:
            _choice("--emit", f.emit, EMIT_AMD, f" with AMD target {a}")
    if not f.archs and f.action != "E":
        raise UsageError("no target: give --offload-arch gfxNNN[,...] (AMD) or -arch=sm_NN (NVIDIA)")
    if not f.sources:
        raise UsageError("no input files")
    if f.action in ("c", "S", "E") and len(f.sources) > 1 and f.output:
        raise UsageError(f"-o with -{f.action} takes one input file, got {len(f.sources)}")


def known_f(word: str) -> bool:
    """A -f flag shflx takes: the device's share (DEVICE_F, DEVICE_F_JOINED) or a usual host flag."""
    return (word in DEVICE_F or word in HOST_F or word.startswith(tuple(DEVICE_F_JOINED))
            or word.startswith(HOST_F_JOINED))


def device_f(word: str) -> list[str]:
    """The cc1 words of a -f flag for the device front end ([] when it is host-only)."""
    if word in DEVICE_F:
        return list(DEVICE_F[word])
    joined = next((j for j in DEVICE_F_JOINED if word.startswith(j)), None)
    return [f"{c}{word[len(joined):]}" for c in DEVICE_F_JOINED[joined]] if joined else []


def check_target_id(target_id: str) -> None:
    """A target ID's features must be ones its processor takes (isa: target_id_features), as
    clang checks them; an unknown processor is left to the compile's own message."""
    from ..isa import known_amd_targets
    from ..target import resolve_target

    base, features = base_arch(target_id), target_features(target_id)
    if not features or base not in known_amd_targets():
        return
    try:
        resolve_target(base, None, features)
    except UsageError as e:
        raise UsageError(f"--offload-arch {target_id}: {e.reason}") from None


def opt_wanted(words: list[str]) -> int:
    """The optimization level a command's -O flags ask for (the last one wins; OPT_LEVELS reads
    -Os/-Oz/-Og/-Ofast as the level shflx's front end runs), 0 without one, as clang's default."""
    return next((OPT_LEVELS.get(w[2:], 2) for w in reversed(words) if w.startswith("-O")), 0)


def debug_wanted(words: list[str]) -> bool | None:
    """What a command's -g flags ask for, the last one winning: True (-g, -g2, -ggdb, -gdwarf-5,
    -gline-tables-only ...), False (-g0, -ggdb0), None (no -g flag)."""
    wanted = None
    for w in words:
        if SWITCHES.get(w, ("", None))[0] == "debug":
            wanted = SWITCHES[w][1]
        elif re.fullmatch(r"-(g|ggdb)[123]|-gdwarf-[2345]", w):
            wanted = True
    return wanted


def base_arch(target_id: str) -> str:
    """gfx942:xnack+ -> gfx942 (sm_NN unchanged)."""
    return target_id.split(":")[0]


def target_features(target_id: str) -> tuple[str, ...]:
    """gfx90a:sramecc+:xnack- -> ('+sramecc', '-xnack'): LLVM target features."""
    return tuple(f"{p[-1]}{p[:-1]}" for p in target_id.split(":")[1:])


def device_words(f: CompileFlags) -> tuple[str, ...]:
    """The cc1 words these flags add to shflx's device front end, in command-line order groups:
    preprocessor, language/diagnostics, the -O spelling (-Os, -Oz, -Og), the code object version."""
    words = list(f.preprocessor) + list(f.device) + (["-fgpu-rdc"] if f.rdc else [])   # frontend.clang.GPU_RDC
    if f.opt in ("s", "z", "g"):
        words.append(f"-O{f.opt}")
    if f.code_object_version:
        words.append(f"-mcode-object-version={f.code_object_version}")
    return tuple(words)


def feature_words(target_id: str) -> tuple[str, ...]:
    """cc1's -target-feature words of a target ID."""
    return tuple(w for feat in target_features(target_id) for w in ("-target-feature", feat))


def depfile_words(f: CompileFlags, output: str) -> tuple[str, ...]:
    """cc1's depfile words for -MD/-MMD (-MF, -MT/-MQ, -MP): the file defaults to OUTPUT.d, the
    target to OUTPUT, as clang's driver does."""
    if not {"-MD", "-MMD"} & set(f.deps):
        return ()
    mf = [f.deps[k + 1] for k, w in enumerate(f.deps) if w == "-MF"]
    targets = [f.deps[k + 1] for k, w in enumerate(f.deps) if w in ("-MT", "-MQ")] or [output]
    words = ["-dependency-file", mf[-1] if mf else str(Path(output).with_suffix(".d"))]
    for t in targets:
        words += ["-MT", t]
    if "-MD" in f.deps:
        words.append("-sys-header-deps")
    if "-MP" in f.deps:
        words.append("-MP")
    return tuple(words)
