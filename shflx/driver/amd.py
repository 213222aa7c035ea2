"""`shflx compile`: CUDA/HIP device code -> AMD code object, every warp shuffle lowered and reported.

Flow (DESIGN.md): clang (HIP device mode, shflx prelude, -O) -> AMDGPU LLVM IR -> recognize the
shuffle markers -> lower each constant site with the synthesizer (proven), every other site with
the exact general lowering -> rewrite the IR -> llvmlite verify + codegen -> ld.lld -> .hsaco,
with a report per site and per kernel. Nothing unproven is emitted (DESIGN decision 6). The
passes after the front end (driver.chains, driver.lowering) are imported while clang runs
(driver.prefetch)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import InputError, ToolchainError, UsageError
from ..files import check_source_text
from ..frontend.clang import GPU_RDC, FrontendOptions, fp_contract, optimizer_notes
from ..frontend import nvcc_syntax
from ..frontend.host_only import skipped_headers
from ..frontend.ptx_operands import compile_to_ir     # clang, plus inline PTX "=f"/"l"/"d"/"h" operands
from ..ir.symbols import nvcc_kernel_names
from ..ir.text import has_inline_asm
from ..isa import known_amd_targets
from ..target import Target, resolve_target
from .inputs import check_resolved, read_ir, source_location
from .prefetch import imports_in_background
from ..timing import recording, stage

# What compile_file needs after the front end, imported while clang runs (driver.prefetch)
BACK_END = ("shflx.ir.inline_ptx", "shflx.driver.lowering", "shflx.driver.chains", "shflx.driver.report",
            "shflx.codegen.llvm", "llvmlite.binding", "shflx.codegen.link", "shflx.codegen.inspect",
            "elftools.elf.elffile")

EMITS = ("hsaco", "obj", "asm", "llvm")

# -rdc=true on AMD (driver.flags.RDC): the file's device code is its own code object, as without it
RDC_NOTE = ("relocatable device code (-rdc=true): AMD links this file's device code into its own code object; "
            "what it uses must be defined in the file (an undefined one is an error)")


def device_ir(source: Path, target: Target, opts: FrontendOptions = FrontendOptions(),
              nvcc_names: bool = True) -> str:
    """The optimized AMDGPU IR of a .cu/.hip file (or a .ll/.bc as given), inline PTX translated.
    `nvcc_names`: a .cu file's static kernels get nvcc's symbols (ir/symbols.py); off in the build
    launcher, whose host object comes from the user's clang/hipcc and registers clang's names."""
    wave = target.wave
    if source.suffix in (".ll", ".bc"):
        ir = read_ir(source)
    else:
        check_source_text(source, "CUDA or HIP source")
        with imports_in_background(BACK_END), stage("front end (clang)"):   # imports beside clang
            ir = compile_to_ir(source, target.llvm_cpu, wave, opts, _selectable_wave(target))
        if nvcc_names and source.suffix != ".hip":     # CUDA sources: kernel symbols as nvcc names them
            ir = nvcc_kernel_names(ir)
        ir = _with_libdevice(ir, source)
    from ..ir.directed import define_declared
    from ..ir.inline_ptx import InlinePtxError, translate_inline_ptx

    try:
        with stage("inline PTX"):
            ir = translate_inline_ptx(ir, wave, fp_contract(opts).startswith("fast"))
    except InlinePtxError as e:
        raise InputError(e.what, source_location(e.location, source)) from None
    return define_declared(ir)      # directed roundings the layer's intrinsics and inline PTX call


def _with_libdevice(ir: str, source: Path) -> str:
    """`ir` with the NVIDIA libdevice functions it calls linked in (frontend.libdevice); one that
    cannot be provided on AMD is shflx's one-line error at its first call. A module that calls
    none has no libdevice stage (nor a row in --time-report)."""
    if "@__nv_" not in ir:
        return ir
    from ..codegen.libdevice import link_libdevice
    from .inputs import first_call
    with stage("libdevice"):
        ir, refused = link_libdevice(ir)
    for name, why in sorted(refused.items()):
        if re.search(rf"\bcall [^@]*@{re.escape(name)}\(", ir):
            raise InputError(f"shflx does not support '{name.removeprefix('__nv_')}' on AMD targets (NVIDIA's libdevice "
                             f"version: {why})", first_call(ir, name, source))
    return ir


def compile_file(source: Path, arch: str | Target, *, wave: int | None = None, emit: str = "hsaco",
                 opts: FrontendOptions = FrontendOptions(), baseline: bool = False,
                 fp_reassoc: bool = False, chains: bool = True, features: tuple[str, ...] = (),
                 debug_info: bool = True, code_object_version: int | None = None,
                 nvcc_names: bool = True, prefer: str | None = None, used_lanes: bool = True,
                 codegen_jobs: int = 1) -> Any:
    """The driver entry point: `arch` (a name or a Target) is resolved here, once, with `wave`,
    `features` (a target ID's: +xnack, -sramecc) and the search's preference `prefer` (`--prefer
    lds-free`: target.PREFERENCES), and passed down. `debug_info=False` (-g0) drops the line tables
    from the output once the report has read them; `code_object_version` overrides the module's;
    `used_lanes=False` lowers every shuffle for all lanes (benchmarks compare the two);
    `codegen_jobs`: a large module's code is generated in up to that many parallel parts
    (codegen.partition) for a code object. Returns a report.CompileResult, with the wall time of
    each stage (`times`)."""
    with recording() as times:
        result = _compile_file(source, arch, wave, emit, opts, baseline, fp_reassoc, chains, features, debug_info,
                               code_object_version, nvcc_names, prefer, used_lanes, codegen_jobs)
    result.times = times
    return result


def _compile_file(source: Path, arch: str | Target, wave: int | None, emit: str, opts: FrontendOptions,
                  baseline: bool, fp_reassoc: bool, chains: bool, features: tuple[str, ...], debug_info: bool,
                  code_object_version: int | None, nvcc_names: bool, prefer: str | None, used_lanes: bool,
                  codegen_jobs: int) -> Any:
    if isinstance(arch, str) and arch not in known_amd_targets():
        raise UsageError(f"unknown --offload-arch '{arch}'; known: {', '.join(known_amd_targets())}")
    target = resolve_target(arch, wave, features, prefer)
    wave = target.wave
    if emit not in EMITS:
        raise UsageError(f"--emit {emit} is not for AMD targets; for {target.name}: {', '.join(EMITS)}")
    ir = device_ir(source, target, opts, nvcc_names)
    from .chains import lower_chains
    from .lowering import lower_bpermutes, lower_module
    from .report import PARTS_FAILED, ChainReport, CompileResult, SiteReport, kernel_summaries

    if code_object_version is not None:
        from ..ir.moduleflags import with_code_object_version
        ir = with_code_object_version(ir, code_object_version)
    more: list[SiteReport] = []
    found: list[ChainReport] = []
    if not baseline:                     # only the input's own ds.bpermute calls, before ours exist
        if chains:
            with stage("reduction/scan chains"):
                ir, found = lower_chains(ir, target, fp_reassoc)
        with stage("shuffle lowering"):
            ir, more = lower_bpermutes(ir, target)
    with stage("shuffle lowering"):
        lowered, reports = lower_module(ir, target, baseline, used_lanes)
    reports += more
    check_resolved(lowered, source)
    if not debug_info:
        from ..ir.debuginfo import strip_debug_info
        lowered = strip_debug_info(lowered)
    codegen = _codegen(lowered, target, opts)
    result = CompileResult(target.name, wave, lowered, reports, chains=found,
                           notes=skipped_headers(ir) + nvcc_syntax.notes(ir) + optimizer_notes(ir)
                           + [RDC_NOTE] * (GPU_RDC in opts.extra))
    if emit == "llvm":
        result.output = lowered
        return result
    if emit == "asm":
        result.output = codegen(lowered, target.llvm_cpu, wave=wave, emit="asm")
        return result
    from ..codegen.inspect import inspect_code_object
    from ..codegen.link import link_hsaco

    parts = _parallel_parts(lowered, codegen_jobs) if emit == "hsaco" else None
    if parts is not None:
        try:
            result.output, code_object = _in_parts(parts, lowered, target, opts)
        except ToolchainError as e:           # (never seen) compiled whole after all, and said (report)
            result.notes.append(f"{PARTS_FAILED} ({e.reason})")
            parts = None
    if parts is None:
        obj = codegen(lowered, target.llvm_cpu, wave=wave, emit="obj")
        if emit == "obj":
            result.output = obj
            return result
        with stage("link (ld.lld)"):
            result.output = link_hsaco(obj)
        with stage("code object read"):
            code_object = inspect_code_object(result.output)
    result.kernels = kernel_summaries(code_object, reports, found)
    return result


def _in_parts(parts: list[str], lowered: str, target: Target, opts: FrontendOptions) -> tuple[bytes, Any]:
    """The code object of the module's parts, each compiled in a process of its own at once and
    linked into one, checked to describe each kernel of the module once; and what it holds."""
    from ..codegen.inspect import inspect_code_object
    from ..codegen.link import link_hsaco
    from ..codegen.llvm import compile_parts_in_parallel

    with stage(f"LLVM optimization + code generation ({len(parts)} parts at once)"):
        objects = compile_parts_in_parallel(parts, target.llvm_cpu, wave=target.wave, features=target.id_features,
                                            header_warnings=opts.header_warnings)
    with stage("link (ld.lld)"):
        hsaco = link_hsaco(objects)
    with stage("code object read"):
        code_object = inspect_code_object(hsaco)
        _check_joined(code_object, lowered)
    return hsaco, code_object


# A module this large (IR text) has its code generated in parallel parts when cores are free. Each
# part costs a process (0.12 s to start here) and the split a pass over the text (0.2 s for 13 MB);
# DeepSpeed's swizzled_quantize.cu (13 MB, 72 kernels) takes 15.2 s whole and 2.1 s in 16 parts on
# 16 cores (benchmarks/results/h200_parallel_codegen_swizzled_quantize.json), so a module of a
# third of its size still saves seconds; smaller ones keep the one process.
PARALLEL_MIN_IR = 4_000_000


def _parallel_parts(ir: str, jobs: int) -> list[str] | None:
    """The module's parts for parallel code generation (codegen.partition), or None: one job, a
    small module, or one that must stay whole."""
    if jobs < 2 or len(ir) < PARALLEL_MIN_IR:
        return None
    from ..codegen.partition import split
    with stage("module split"):
        return split(ir, jobs)[0]


def _check_joined(code_object: Any, ir: str) -> None:
    """The code object linked from parts describes every kernel of the module, once."""
    from ..codegen.partition import kernel_names
    described = [k.get(".name") for k in (code_object.metadata or {}).get("amdhsa.kernels", [])]
    if sorted(described) != sorted(code_object.kernels) or set(described) != kernel_names(ir):
        raise ToolchainError("the code object linked from parallel parts does not describe each kernel once "
                             f"({len(described)} described, {len(code_object.kernels)} kernel symbols)")


def _selectable_wave(target: Target) -> bool:
    """Whether clang must be told the wave size (+wavefrontsizeNN): on targets that run both."""
    return len(target.isa.waves) > 1


def _codegen(ir: str, target: Target, opts: FrontendOptions) -> Any:
    """llvmlite's codegen, or clang's backend for modules with inline asm (llvmlite ships no AMDGPU
    asm parser and aborts on them)."""
    from ..codegen.llvm import compile_ir

    features = target.id_features
    if not has_inline_asm(ir):
        return lambda text, cpu, *, wave, emit: compile_ir(text, cpu, wave=wave, emit=emit, features=features,
                                                           header_warnings=opts.header_warnings)
    from ..frontend.clang import codegen_with_clang

    def with_clang(text, cpu, *, wave, emit):   # noqa: E306 - clang's optimization and code generation
        with stage("optimization + code generation (clang)"):
            return codegen_with_clang(text, cpu, wave, emit, _selectable_wave(target), opts.llvm_bin, features)
    return with_clang
