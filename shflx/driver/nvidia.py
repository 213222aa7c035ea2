"""`shflx compile --offload-arch sm_NN`: CUDA device code -> PTX (-> cubin), shuffles re-synthesized.

Flow: clang (CUDA device mode, triple nvptx64-nvidia-cuda, the shflx prelude under __NVPTX__) ->
NVPTX LLVM IR whose shuffles are the prelude's markers -> integer reduction chains become
`llvm.nvvm.redux.sync.*` (proven with the chain machinery of shflx.chains; behind a block-shape
guard when the live lanes were read off threadIdx.x) -> each other marker becomes one
`llvm.nvvm.shfl.sync.<mode>.i32`, with immediate operands wherever a source lane computed from
%laneid gives a map that one uniform (mode, b, c) realizes (checked on all 32 lanes with the CUDA
model) -> LLVM (llvmlite) NVPTX codegen -> the PTX pass of `shflx ptx` (its sites and load ->
shuffle with the cost model; its redux.sync rewrite is off here: the chains were decided on the IR,
where they have source lines) -> ptxas for a cubin. The report has the compile command's schema
(docs/report-schema.md)."""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .report import ChainReport, CompileResult, SiteReport, classify_site, describe_site, placed
from .inputs import check_resolved

# Device functions the CUDA driver links into every module (printf, the device heap, assert).
NVPTX_PROVIDED = ("vprintf", "malloc", "free", "__assertfail")
from ..cuda import FULL_MASK, shfl_sync, uniform_table
from ..errors import InputError, Location, ToolchainError, UsageError
from ..files import check_source_text
from ..frontend.clang import GPU_RDC, FrontendOptions, compile_to_nvptx_ir, compile_with_cuda_headers
from ..frontend import nvcc_syntax
from ..frontend.host_only import skipped_headers
from ..frontend.cuda_sdk import CudaSdk, find_cuda_sdk
from ..ir.nvvm import as_markers
from ..ir.symbols import nvcc_kernel_names
from ..isa import NvidiaTarget, known_nvidia_targets, nvidia_target
from ..ir.sites import MODE_NAMES, TID_LANE_NOTE, Site, find_sites, site_map
from ..lanes import s32
from ..amd.llvm_ir import combine_ir
from ..ir.text import declared_names, user_frame_locations
from ..ir.rewrite import replace_call, rewrite
from ..timing import recording, stage

EMITS = ("cubin", "ptx", "llvm")
# -fgpu-rdc, as nvcc's -rdc=true: the PTX declares what other files define (.extern), and the cubin is
# ptxas's relocatable object (ptxas -c, an ELF of type ET_REL) for nvlink, which links the files' device
# code, and NVIDIA's device runtime library cudadevrt for kernels launched from device code (CUDA C++
# Programming Guide, "CUDA Dynamic Parallelism", "Compilation and Linking"; PTX ISA, "Linking Directives")
RDC_NOTE = ("relocatable device code (-fgpu-rdc): functions and variables other files define are left to the "
            "device link (nvlink; a kernel launched from device code needs NVIDIA's device runtime, cudadevrt)")
INTRINSIC = "llvm.nvvm.shfl.sync.{mode}.i32"


@dataclass(frozen=True)
class Shfl:
    """The operands of the one shfl.sync a site becomes (IR operand text for each)."""

    mode: str
    mask: str
    b: str
    c: str

    def ptx(self) -> str:
        def show(v: str) -> str:  # noqa: E306
            return hex(int(v) & 0xFFFFFFFF) if re.fullmatch(r"-?\d+", v) else "%r"
        return f"shfl.sync.{self.mode}.b32 %r, %v, {show(self.b)}, {show(self.c)}, {show(self.mask)}"


def nvidia_arch(arch: str) -> NvidiaTarget:
    """The isa target for an --offload-arch sm_NN, or UsageError listing the known ones."""
    if arch not in known_nvidia_targets():
        raise UsageError(f"unknown --offload-arch '{arch}'; known NVIDIA targets: {', '.join(known_nvidia_targets())}")
    return nvidia_target(arch)


def synthesize_site(site: Site) -> tuple[Shfl, str] | None:
    """A cheaper single shfl.sync for a site whose b is a per-lane function of the lane id: one
    uniform (mode, b, c) with immediate operands that reads, on every one of the 32 lanes, the
    same source lane (and so the same value, under the same member mask). None if there is none.

    Only for a b computed from %laneid (cub::LaneId()): with b from threadIdx.x the map holds only
    when the CUDA lane is threadIdx.x % 32, which 2-D blocks with blockDim.x % 32 != 0 break, and
    the original shuffle is correct for every block shape, so it is kept."""
    mapped = site_map(site)
    if mapped is None or site.b.kind != "lane" or site.b.from_tid:
        return None
    src = np.asarray(mapped[1], np.int8)
    hit = uniform_table().get(src.tobytes())
    if hit is None:
        return None
    mode, b, c = hit
    again, _ = shfl_sync(mode, b, c)            # exhaustive check over the 32 lanes
    if not np.array_equal(np.asarray(again, np.int64), src.astype(np.int64)):
        return None
    return Shfl(mode, site.mask.text, str(b), str(c)), \
        f"proved: shfl.sync.{mode} b={b} c={c:#x} reads the same source lane as the site on all 32 lanes"


def lower_shuffles(ir: str, target: NvidiaTarget, baseline: bool = False) -> tuple[str, list[SiteReport]]:
    """Every marker in `ir` replaced by one llvm.nvvm.shfl.sync call; a report entry per site."""
    lines = ir.splitlines()
    edits: dict[int, str] = {}
    reports: list[SiteReport] = []
    used: set[str] = set()
    sites = find_sites(ir)
    for site in sites:
        if site.mode.kind != "const":
            raise InputError(f"{site.location}: a shuffle whose mode is not a constant (internal prelude misuse)")
        mode = MODE_NAMES[site.mode.value & 3]
        written = Shfl(mode, site.mask.text, site.b.text, site.c.text)
        cost_of = {True: target.cost("shfl"), False: target.cost("shfl_reg")}
        as_written = cost_of[site.b.kind == "const"]
        mapped = site_map(site)
        cls = classify_site(site, mapped[1] if mapped else None)
        found = None if baseline else synthesize_site(site)
        chosen, proof, notes = written, "unchanged", list(site.notes)
        if found is not None:
            chosen, proof = found
            notes.append("the per-lane source lane is replaced by immediate operands (no lane-id arithmetic)")
        elif site.b.kind == "lane" and site.b.from_tid and not baseline:
            notes = [n for n in notes if n != TID_LANE_NOTE]
            notes.append("source lane computed from threadIdx.x: kept as written (an immediate form is exact "
                         "only when the lane is threadIdx.x % 32; compute it from %laneid to allow it)")
        elif site.b.kind == "lane" and not baseline:
            notes.append("no single uniform shfl.sync realizes this map: the source lane stays per-lane")
        used.add(chosen.mode)
        edits[site.line_index] = replace_call(lines[site.line_index], site, INTRINSIC.format(mode=chosen.mode),
                                              [chosen.mask, site.value, chosen.b, chosen.c])
        cost = cost_of[found is not None or site.b.kind == "const"]
        reports.append(SiteReport(site.location, site.function, describe_site(site), cls, [chosen.ptx()], cost,
                                  as_written, proof, notes))
    placed(reports, lines, [site.line_index for site in sites])
    declared = declared_names(ir)
    decls = [_DECLS[n] for n in sorted(INTRINSIC.format(mode=m) for m in used) if n not in declared]
    return rewrite(ir, edits, decls, set()), reports


def lower_reductions(ir: str, target: NvidiaTarget, version: tuple[int, int]) -> tuple[str, list[ChainReport]]:
    """Shuffle reduction chains whose live lanes hold the whole-warp reduction (proven by
    chains.shape.classify with the multiset semantics, then replayed with numpy) -> one
    llvm.nvvm.redux.sync call, where the op and type have a redux.sync form on `target`. Every
    other chain is reported with the reason and left to per-site lowering."""
    from ..chains import classify
    from ..ir.chains import find_chains
    from ..nvidia.redux import decide_collective

    sites = find_sites(ir)
    chains = find_chains(ir, sites)
    module = _ReduxEdits(ir.splitlines())
    reports: list[ChainReport] = []
    steps_cost = target.cost("shfl") + target.cost("alu")
    for chain in chains:
        first = chain.sites[0]
        coll = classify(chain.steps, chain.live) if not chain.blockers else chain.blockers[0]
        entry = ChainReport(first.location, chain.function, chain.shape, chain.fn, chain.type, None,
                            chain.live_note, len(chain.steps), "step by step", "", "step by step", [], None,
                            steps_cost * len(chain.steps), steps_cost * len(chain.steps), "per site")
        reports.append(entry)
        if isinstance(coll, str):
            entry.reason = coll
            continue
        entry.width = None if coll.bits else coll.width
        dec = decide_collective(chain, coll, True, [target], version, chain.live_note)
        kept = _kept_as_written(chain, dec)
        if kept is not None:
            entry.reason = kept
            continue
        if chain.live_from_tid:        # exact only when lane == threadIdx.x % 32: check at run time
            module.guarded_redux(entry, chain, dec, target, len(reports))
        else:
            module.redux(entry, chain, dec, target, len(reports))
        entry.status, entry.family, entry.proof = "re-synthesized", "redux.sync", "proved"
    placed(reports, module.lines, [c.sites[0].line_index for c in chains])
    if not module.edits:
        return ir, reports
    declared = declared_names(ir)
    decls = [_DECLS[n] for n in sorted(module.used) if n not in declared]
    return rewrite(ir, module.edits, decls + module.functions, module.needed, final=False), reports


def _kept_as_written(chain: Any, dec: Any) -> str | None:
    """Why a chain with a redux.sync decision is still kept as written on NVIDIA (None: it is not)."""
    if dec.opcode is None:
        return dec.reason
    if any(st.guard != FULL_MASK for st in chain.steps):
        return "a step is guarded by a lane condition: kept as written on NVIDIA"
    if chain.live_from_tid and dec.opcode.split(".")[3] == "f32":
        return "live lanes read off threadIdx.x, and no guarded f32 form: kept as written"
    return None


class _ReduxEdits:
    """The edits redux.sync makes to one module: line edits, helper functions, the NVVM intrinsics
    it calls (keys of _DECLS) and the combine intrinsics of guarded helpers (amd.llvm_ir.DECLS keys)."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.edits: dict[int, str] = {}
        self.used: set[str] = set()
        self.needed: set[str] = set()
        self.functions: list[str] = []

    def redux(self, entry: ChainReport, chain: Any, dec: Any, target: NvidiaTarget, k: int) -> None:
        """The chain replaced by one redux.sync call (an f32 chain's i32 start bitcast to float)."""
        from .chains import chain_edits

        op, typ = dec.opcode.split(".")[2:4]
        name = _REDUX_INTRINSIC[(op, typ)]
        self.used.add(name)
        value_type = "float" if typ == "f32" else "i32"
        start, pre = chain.start, ""
        if value_type == "float":      # the chain's start is its i32 view: the intrinsic takes f32
            pre = f"%shflx.redux.{k}.in = bitcast i32 {start} to float"
            start = f"%shflx.redux.{k}.in"
        call = f"call {value_type} @{name}({value_type} {start}, i32 -1)"
        self.edits.update(chain_edits(self.lines, chain, call, f"shflx.redux.{k}", call_type=value_type, prelude=pre))
        entry.reason = dec.reason
        entry.lowering = [f"{dec.opcode} %r, %v, 0xffffffff;"]
        entry.cost = target.cost("redux_sync_f32" if typ == "f32" else "redux_sync_int")

    def guarded_redux(self, entry: ChainReport, chain: Any, dec: Any, target: NvidiaTarget, k: int) -> None:
        """A helper that runs redux.sync where the block shape makes the lane threadIdx.x % 32, else
        the chain as written (guarded_redux_ir)."""
        from .chains import chain_edits
        from ..nvidia.redux import GUARD_ALU, GUARD_NOTE

        op, typ = dec.opcode.split(".")[2:4]
        name = _REDUX_INTRINSIC[(op, typ)]
        self.used.add(name)
        helper = f"shflx.redux.{k}"
        self.functions.append(guarded_redux_ir(helper, name, chain, self.needed))
        self.used.update(f"llvm.nvvm.read.ptx.sreg.ntid.{d}" for d in "xyz")
        self.used.update(INTRINSIC.format(mode=st.operands.mode) for st in chain.steps)
        call = f"call i32 @{helper}(i32 {chain.start})"
        self.edits.update(chain_edits(self.lines, chain, call, helper))
        entry.reason = dec.reason + "; " + GUARD_NOTE
        entry.lowering = [_GUARD_PTX, f"@%g {dec.opcode} %r, %v, 0xffffffff;", "@!%g (the chain as written)"]
        entry.cost = target.cost("redux_sync_int") + GUARD_ALU * target.cost("alu")


_GUARD_PTX = "%g = (ntid.x & 31) == 0 || (ntid.y == 1 && ntid.z == 1)"


def guarded_redux_ir(name: str, redux: str, chain: Any, needed: set[str]) -> str:
    """`i32 @name(i32 %x)`: redux.sync when the block shape makes the CUDA lane threadIdx.x % 32
    (the premise of the live-lane proof), else the chain as written (its steps: full-mask
    shfl.sync with the chain's operands, then the combine, every lane). The combines' intrinsics
    go into `needed`."""
    body = ["entry:",
            *(f"  %n{d} = call i32 @llvm.nvvm.read.ptx.sreg.ntid.{d}()" for d in "xyz"),
            "  %xm = and i32 %nx, 31", "  %xa = icmp eq i32 %xm, 0", "  %y1 = icmp eq i32 %ny, 1",
            "  %z1 = icmp eq i32 %nz, 1", "  %yz = and i1 %y1, %z1", "  %g = or i1 %xa, %yz",
            "  br i1 %g, label %fast, label %slow", "fast:",
            f"  %r = call i32 @{redux}(i32 %x, i32 -1)", "  ret i32 %r", "slow:"]
    v = "%x"
    for k, st in enumerate(chain.steps):
        o = st.operands
        body.append(f"  %m{k} = call i32 @{INTRINSIC.format(mode=o.mode)}(i32 -1, i32 {v}, "
                    f"i32 {s32(o.b)}, i32 {s32(o.c)})")
        body += combine_ir(f"%v{k}", st.fn, v, f"%m{k}", needed)
        v = f"%v{k}"
    body.append(f"  ret i32 {v}")
    return (f"define internal i32 @{name}(i32 %x) alwaysinline convergent nounwind {{\n"
            + "\n".join(body) + "\n}\n")


# redux.sync op and type -> the LLVM intrinsic (llvm/include/llvm/IR/IntrinsicsNVVM.td, int_nvvm_redux_sync_*)
_REDUX_INTRINSIC = {("add", "s32"): "llvm.nvvm.redux.sync.add", ("add", "u32"): "llvm.nvvm.redux.sync.add",
                    ("min", "s32"): "llvm.nvvm.redux.sync.min", ("max", "s32"): "llvm.nvvm.redux.sync.max",
                    ("min", "u32"): "llvm.nvvm.redux.sync.umin", ("max", "u32"): "llvm.nvvm.redux.sync.umax",
                    ("and", "b32"): "llvm.nvvm.redux.sync.and", ("or", "b32"): "llvm.nvvm.redux.sync.or",
                    ("xor", "b32"): "llvm.nvvm.redux.sync.xor",
                    ("min", "f32"): "llvm.nvvm.redux.sync.fmin", ("max", "f32"): "llvm.nvvm.redux.sync.fmax"}
_DECLS = {**{n: (f"declare float @{n}(float, i32)" if n.endswith(("fmin", "fmax")) else f"declare i32 @{n}(i32, i32)")
              for n in _REDUX_INTRINSIC.values()},
          **{f"llvm.nvvm.read.ptx.sreg.ntid.{d}": f"declare i32 @llvm.nvvm.read.ptx.sreg.ntid.{d}()" for d in "xyz"},
          **{INTRINSIC.format(mode=m): f"declare i32 @{INTRINSIC.format(mode=m)}(i32, i32, i32, i32)"
             for m in ("up", "down", "bfly", "idx")}}


def device_ir(source: Path, target: NvidiaTarget, opts: FrontendOptions) -> str:
    """The optimized NVPTX IR of a .cu file, or a .ll/.bc given as is (it must target NVPTX)."""
    from ..codegen.nvptx import TRIPLE, ptx_feature

    if source.suffix in (".ll", ".bc"):
        from .inputs import read_ir
        return read_ir(source, TRIPLE)
    check_source_text(source, "CUDA source")
    sdk = cuda_headers(opts)
    if sdk is None:
        return nvcc_kernel_names(compile_to_nvptx_ir(source, target.name, ptx_feature(target.name), opts))
    ir, _ = as_markers(compile_with_cuda_headers(source, target.name, sdk, opts))
    return nvcc_kernel_names(ir)


PRELUDE_NOTE = ("compiled against the shflx prelude's CUDA subset, not NVIDIA's headers (not installed: "
                "install shflx's cuda extra: pip install '.[cuda]' in the shflx checkout): no CUB/Thrust, no precise math")


def cuda_headers(opts: FrontendOptions) -> CudaSdk | None:
    """NVIDIA's real headers when `shflx[cuda]` (or SHFLX_CUDA_PATH) provides them, else None: the
    shflx prelude's NVPTX side stands in (a subset of the CUDA API; see README)."""
    from ..frontend.toolchain import find_clang

    try:
        return find_cuda_sdk(int(find_clang(opts.llvm_bin).version.split(".")[0]), os.environ.get("SHFLX_CUDA_PATH"))
    except ToolchainError:
        if os.environ.get("SHFLX_CUDA_PATH"):
            raise                               # an explicit choice is never silently replaced
        return None


def compile_cuda(source: Path, arch: str, *, emit: str = "cubin", opts: FrontendOptions = FrontendOptions(),
                 baseline: bool = False, chains_on: bool = True, load_shuffle: bool = False,
                 ptxas_args: tuple[str, ...] = ()) -> CompileResult:
    """Compile one CUDA file for one NVIDIA target; CompileResult.output is the cubin, PTX or IR.
    `baseline`: every shuffle as written, no rewrite (nvcc's behaviour, for comparisons);
    `ptxas_args`: -Xptxas words, after shflx's own.
    `load_shuffle`: run the load -> shuffle search (`--load-shuffle`). Off by default: it proves
    candidate pairs of loads with Z3 one by one (minutes on real files with many kernels: 183 s for
    one 657-instruction kernel of apex's group norm), and on sm_90 its cost model has kept every
    load it found (README); `shflx ptx` runs it by default. `times`: each stage's wall time."""
    with recording() as times:
        result = _compile_cuda(source, arch, emit, opts, baseline, chains_on, load_shuffle, ptxas_args)
    result.times = times
    return result


def _compile_cuda(source: Path, arch: str, emit: str, opts: FrontendOptions, baseline: bool, chains_on: bool,
                  load_shuffle: bool, ptxas_args: tuple[str, ...]) -> CompileResult:
    from ..codegen.nvptx import compile_to_ptx, ptx_version
    from ..nvidia.ptxpass import run

    target = nvidia_arch(arch)
    if emit not in EMITS:
        raise UsageError(f"--emit {emit} is for AMD targets; for {arch}: {', '.join(EMITS)}")
    with stage("front end (clang)"):
        ir = device_ir(source, target, opts)
    chains: list[ChainReport] = []
    if not baseline and chains_on:
        with stage("reduction chains (redux.sync)"):
            ir, chains = lower_reductions(ir, target, _version_tuple(ptx_version(target.name)))
    with stage("shuffle lowering"):
        lowered, reports = lower_shuffles(ir, target, baseline)
    rdc = GPU_RDC in opts.extra
    if not rdc:                 # relocatable device code: nvlink resolves them (RDC_NOTE)
        check_resolved(lowered, source, "NVIDIA", NVPTX_PROVIDED)
    result = CompileResult(arch, 32, lowered, reports, chains=chains, notes=skipped_headers(ir) + nvcc_syntax.notes(ir))
    if rdc:
        result.notes.append(RDC_NOTE)
    if source.suffix not in (".ll", ".bc") and cuda_headers(opts) is None:
        result.notes.append(PRELUDE_NOTE)
    if emit == "llvm":
        result.output = lowered
        return result
    # `.loc` lines name one frame each (no inlined_at with line directives only): the user's line,
    # not the CUDA header's that holds the shuffle (shflx ptx and profilers read them)
    with stage("LLVM optimization + PTX emission"):
        ptx = compile_to_ptx(user_frame_locations(lowered), target.name, opt=max(opts.opt, 1), source=str(source),
                             header_warnings=opts.header_warnings)
    # redux.sync is decided on the IR, where the chains have source lines; the PTX pass's own
    # rewrite runs only when the IR had no chain (e.g. .ll input from another front end, shuffles
    # in inline PTX): it would also meet the fallback chains of guarded helpers
    with stage("PTX pass"):
        passed = run(ptx, str(source), sm=target.name, load_shuffle=load_shuffle and not baseline,
                     redux_sync=chains_on and not baseline and not chains)
    result.loads = passed.loads
    asm = _inline_asm_lines(passed.module)
    result.sites += [_ptx_site(r, source) for r in passed.sites if r["line"] in asm]
    result.chains += [_ptx_chain(c, source) for c in passed.chains if c["status"] == "rewritten"]
    if emit == "ptx":
        result.output = passed.text
        return result
    with stage("ptxas"):
        cubin, info = assemble(passed.text, target.name, opts.opt, ("-c",) * rdc + ptxas_args)
    result.output = cubin
    result.kernels = kernel_summaries(info, result)
    return result


def _version_tuple(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


def _ptx_chain(c: dict[str, Any], source: Path) -> ChainReport:
    """A chain the PTX pass rewrote, in the compile schema, at its CUDA line when the PTX has one."""
    where = c.get("source_location") or f"{source} (PTX line {c['lines'][0]})"
    return ChainReport(where, c["function"], c["shape"], c["op"], c["type"], c["width"], c["live"],
                       c["shuffles"], "re-synthesized", c["reason"], c["family"], c["lowering"], c["cost"],
                       c["step_by_step_cost"], c["baseline_cost"], c["proof"])


def _inline_asm_lines(module: Any) -> set[int]:
    """PTX lines of instructions that came from inline asm (LLVM brackets each block with
    `// begin inline asm` and `// end inline asm`): the shuffles the markers did not cover."""
    from ..nvidia.ptxir import Instruction

    inside, lines = False, set()
    for fn in module.functions:
        for st in fn.body or []:
            if "// begin inline asm" in st.lead:
                inside = True
            if "// end inline asm" in st.lead:
                inside = False
            if inside and isinstance(st, Instruction):
                lines.add(st.line)
    return lines


def _ptx_site(r: dict[str, Any], source: Path) -> SiteReport:
    """A shuffle written as inline PTX, as the PTX pass found it, in the compile schema."""
    where = r.get("source_location") or f"{source} (PTX line {r['line']})"
    return SiteReport(f"{where} (inline asm)", r["function"], r["cuda"], r["class"],
                      r["lowering"], r["cost"], r["baseline_cost"], "unchanged (inline PTX is kept as written)",
                      list(r["notes"]) + ([f"part of PTX chain {r['chain']} ({r['chain_status']})"]
                                          if r["chain"] is not None else []))


def assemble(ptx: str, sm: str, opt: int = 3, extra: tuple[str, ...] = ()) -> tuple[bytes, dict[str, dict[str, int]]]:
    """ptxas -arch=sm -v: (cubin bytes, per kernel its registers/spills from ptxas's info lines)."""
    from ..nvidia.ptxas import real_ptxas

    exe = real_ptxas()
    with tempfile.TemporaryDirectory(prefix="shflx-") as tmp:
        src, out = Path(tmp) / "module.ptx", Path(tmp) / "module.cubin"
        src.write_text(ptx)
        try:
            proc = subprocess.run([exe, f"-arch={sm}", f"-O{min(opt, 3)}", "-v", *extra, str(src), "-o", str(out)],
                                  capture_output=True, text=True, timeout=600)
        except OSError as e:
            raise ToolchainError(f"cannot run ptxas ({exe}): {e.strerror}") from None
        except subprocess.TimeoutExpired:
            raise ToolchainError("ptxas did not finish within 600 s") from None
        if proc.returncode != 0 or not out.exists():
            raise ToolchainError(f"ptxas rejected the generated PTX for {sm}:\n{proc.stderr.strip()}")
        return out.read_bytes(), _ptxas_info(proc.stderr + proc.stdout)


def _ptxas_info(text: str) -> dict[str, dict[str, int]]:
    """ptxas -v: "Compiling entry function 'k'" then "Used N registers" (and spill lines) per kernel."""
    info: dict[str, dict[str, int]] = {}
    current = None
    for line in text.splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?([\w$.]+)'?", line)
        if m:
            current = info.setdefault(m.group(1), {})
            continue
        if current is None:
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m:
            current["registers"] = int(m.group(1))
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            current["spill_bytes"] = int(m.group(1)) + int(m.group(2))
        m = re.search(r"(\d+) bytes smem", line)
        if m:
            current["smem_bytes"] = int(m.group(1))
    return info


def kernel_summaries(info: dict[str, dict[str, int]], result: CompileResult) -> list[dict[str, Any]]:
    """Per kernel: registers and shared memory (ptxas -v), its shuffle sites, chains and costs."""
    out = []
    for name, facts in info.items():
        sites = [r for r in result.sites if r.function == name]
        chains = [c for c in result.chains if c.function == name and c.cost is not None]   # costed as a whole
        out.append({"name": name, "registers": facts.get("registers"), "smem_bytes": facts.get("smem_bytes", 0),
                    "spill_bytes": facts.get("spill_bytes", 0), "shuffle_sites": len(sites),
                    "chains": sum(c.function == name for c in result.chains), "cost": sum(r.cost for r in sites) + sum(c.cost for c in chains),
                    "baseline_cost": sum(r.baseline_cost for r in sites) + sum(c.baseline_cost for c in chains)})
    return out
