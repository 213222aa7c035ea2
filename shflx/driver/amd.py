"""`shflx compile`: CUDA/HIP device code -> AMD code object, every warp shuffle lowered and reported.

Flow (DESIGN.md): clang (HIP device mode, shflx prelude, -O) -> AMDGPU LLVM IR -> recognize the
shuffle markers -> lower each constant site with the synthesizer (proven), every other site with
the exact general lowering -> rewrite the IR -> llvmlite verify + codegen -> ld.lld -> .hsaco,
with a report per site and per kernel. Nothing unproven is emitted (DESIGN decision 6)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..amd import general
from ..amd.asm import step_asm
from ..amd.llvm_ir import function_ir, local_name
from ..errors import InputError, UsageError
from ..files import check_source_text
from ..frontend.clang import PRELUDE_PREFIX, FrontendOptions
from ..frontend.host_only import skipped_headers
from ..frontend.ptx_operands import compile_to_ir     # clang, plus inline PTX "=f"/"l"/"d"/"h" operands
from ..ir.symbols import nvcc_kernel_names
from ..ir.inline_ptx import InlinePtxError, translate_inline_ptx
from ..ir.rewrite import INLINE_ATTRS, replace_call, rewrite
from ..amd.guard import GUARD_COST, PREMISE_NOTE, dispatcher_ir, premise_ir
from ..cuda import FULL_MASK
from ..ir.demand import Demand, module_demands
from ..ir.sites import MODE_NAMES, find_sites, site_map
from ..ir.text import functions as ir_functions, inline_chains
from ..isa import known_amd_targets
from ..match.broadcast import helper_differences, helper_ir, uniform_broadcast
from ..match.cost import bpermute_cost
from ..pattern import format_pattern
from ..target import Target, resolve_target
from ..verify.readback import emitted_differences
from .cache import lower, synthesize
from .inputs import check_resolved, read_ir
from .report import ChainReport, CompileResult, SiteReport, classify_site, describe_site, kernel_summaries, source_location

EMITS = ("hsaco", "obj", "asm", "llvm")
PREMISE = "shflx.tid_is_lane"          # the i1 amd.guard's check defines at a function's entry


def lower_chains(ir: str, target: Target, fp_reassoc: bool = False) -> tuple[str, list[ChainReport]]:
    """Every reduction/scan chain re-synthesized as a whole where that is allowed and cheaper; the
    others are left to per-site lowering, with the reason in the report (DESIGN decision 5)."""
    from ..chains import classify, reassociation_allowed
    from ..chains.ir import find_chains
    from ..chains.written import guard_conditions, written_ir

    sites = find_sites(ir)
    chains = find_chains(ir, sites)
    if not chains:
        return ir, group_chain_reports(ir, target, [], [])
    lines = ir.splitlines()
    edits: dict[int, str] = {}
    functions: list[str] = []
    needed: set[str] = set()
    reports: list[ChainReport] = []
    premises: set[str] = set()         # functions that need amd.guard's check at their entry
    for k, chain in enumerate(chains):
        first = chain.sites[0]
        coll = classify(chain.steps, chain.live) if not chain.blockers else chain.blockers[0]
        per_shuffle = bpermute_cost(target) + target.cost("valu")
        entry = ChainReport(first.location, chain.function, chain.shape, chain.fn, chain.type, None,
                            chain.live_note, len(chain.steps), "step by step", "", "step by step", [],
                            None, None, per_shuffle * len(chain.steps), "per site")
        if isinstance(coll, str):
            entry.reason = coll
            reports.append(entry)
            continue
        entry.width = None if coll.bits else coll.width
        allowed = reassociation_allowed(chain.fn, fp_reassoc or chain.reassoc)
        out = synthesize(coll, target, None, chain.steps, reassoc=allowed)
        entry.cost, entry.step_by_step_cost, entry.baseline_cost = out.plan.cost, out.step_by_step_cost, out.baseline_cost
        entry.proof = out.plan.proof["status"]
        if not allowed:
            entry.reason = (f"float {chain.fn} without `reassoc` (pass --fp-reassoc to allow re-association): "
                            "the CUDA order of operations is kept")
            entry.cost = None
            reports.append(entry)
            continue
        if out.family == "step by step":
            entry.reason = "no re-synthesized plan is cheaper than the chain as written"
            entry.cost = None
            reports.append(entry)
            continue
        name = f"shflx.chain.{k}"
        fn, need = function_ir(out.plan, name, INLINE_ATTRS)
        wrong = emitted_differences(out.plan, fn, local_name)
        if wrong:                             # an emitter bug: keep the chain as written (DESIGN 6)
            entry.reason = f"internal: the emitted code did not read back as the proven plan ({wrong[0]})"
            entry.cost = None
            reports.append(entry)
            continue
        call = f"call i32 @{name}(i32 {chain.start})"
        premised, place = "", None
        if chain.from_tid:                    # recognized lanes read off threadIdx.x: amd.guard
            conds = guard_conditions(chain)
            place = call_position(lines, conds, max(s.line_index for s in chain.sites), chain.result_line)
            if place is None:
                entry.reason = ("a guard read off threadIdx.x is not computed in the shuffles' block before "
                                "the chain's result, where the chain as written could be chosen at run time")
                entry.cost = None
                reports.append(entry)
                continue
            written, need_w, wrong = written_ir(chain, target, f"{name}.all", INLINE_ATTRS)
            if wrong:                         # an emitter bug: keep the chain as written (DESIGN 6)
                entry.reason = f"internal: the emitted code did not read back as the proven plan ({wrong[0]})"
                entry.cost = None
                reports.append(entry)
                continue
            functions += written
            needed |= need_w
            functions.append(dispatcher_ir(f"{name}.guard", name, f"{name}.all", INLINE_ATTRS, len(conds)))
            call = (f"call i32 @{name}.guard(i32 {chain.start}, i1 %{PREMISE}"
                    + "".join(f", i1 {c}" for c in conds) + ")")
            premises.add(chain.function)
            entry.cost += GUARD_COST
            premised = "; " + PREMISE_NOTE + " (the chain as written)"
        functions.append(fn)
        needed |= need
        edits.update(chain_edits(lines, chain, call, name, after=place))
        entry.status, entry.family = "re-synthesized", out.family
        entry.lowering = [step_asm(s, target) for s in out.plan.steps]
        entry.reason = (f"{format_pattern(coll)}; {len(out.families)} proven plans compared "
                        f"({', '.join(f'{n} {c:g}' for n, c in sorted(out.families.items(), key=lambda kv: kv[1]))})"
                        + premised)
        reports.append(entry)
    needed |= insert_premises(lines, edits, premises, target.wave)
    out = rewrite(ir, edits, functions, needed, final=False)
    kept = [frozenset((c.function, s.result) for s in c.sites) if r.status == "step by step" else frozenset()
            for c, r in zip(chains, reports)]
    return out, group_chain_reports(out, target, reports, kept)


def group_chain_reports(ir: str, target: Target, reports: list[ChainReport],
                        chain_sites: list[frozenset[tuple[str, str]]]) -> list[ChainReport]:
    """`reports` plus one entry per chain that shuffles several values per step (chains.groups),
    found in `ir` after the single-value chains were rewritten; `chain_sites[k]` names the
    shuffles (function, marker) of `reports[k]`. A kept single-value chain that a multi-value
    chain contains (its values are used between the steps: by the other values) is reported as
    that chain; each shuffle keeps its own site entry (lowered for the lanes used)."""
    from ..chains.groups import find_group_chains

    sites = find_sites(ir)
    groups = find_group_chains(ir, sites, set())
    if not groups:
        return reports
    demands = module_demands(ir)
    per_shuffle = bpermute_cost(target) + target.cost("valu")
    out = list(reports)
    dropped: set[int] = set()
    for g in groups:
        keys = frozenset((s.function, s.result) for step in g.steps for s in step)
        inside = [k for k, own in enumerate(chain_sites) if own and own <= keys]
        if g.values == 1 and inside:
            continue                              # the single-value chain's own entry says it
        dropped.update(inside)
        lanes = [demands.get(step[0].line_index) for step in g.steps]
        used = ", ".join(f"{d.lanes_tid:#x}" if d is not None else "?" for d in lanes)
        last = lanes[-1]
        live = "every lane" if last is None or last.lanes_tid == FULL_MASK else (
            f"lanes {last.lanes:#x}" if last.lanes == last.lanes_tid else
            f"lanes {last.lanes_tid:#x} where the CUDA lane is threadIdx.x % 32 (checked at run time), else every lane")
        shuffles = sum(len(step) for step in g.steps)
        out.append(ChainReport(
            g.steps[0][0].location, g.function, g.shape, "as written", ", ".join(g.types), None,
            f"{live} (ir.demand)", shuffles, "step by step",
            f"{g.values} value(s) shuffled per step with one lane map and combined by the code's own "
            f"instructions, kept as written (every lane's order of operations is the code's); each "
            f"step's shuffles are lowered for the lanes the later steps use ({used})", "per site", [],
            None, None, per_shuffle * shuffles, "per site"))
    return [r for k, r in enumerate(out) if k not in dropped]


def chain_edits(lines: list[str], chain: Any, call: str, name: str, call_type: str = "i32",
                prelude: str = "", after: int | None = None) -> dict[int, str]:
    """Line edits that replace a chain by `call` (returning `call_type`): its shuffle markers become
    dead copies, the call goes right after the last one (where the shuffles ran: clang may sink the
    last combine under a branch, and a cross-lane call there would run on fewer lanes), or after
    line `after` of the same block when that is later (a guard condition the call passes), and the
    line that defined the chain's result copies the call's value (`prelude`: one instruction placed
    before the call; a float result from an i32 call is a bitcast)."""
    edits = {}
    for site in chain.sites:
        line = lines[site.line_index]
        indent = line[: len(line) - len(line.lstrip())]
        edits[site.line_index] = f"{indent}{site.result} = freeze i32 {site.value}"
    last = max(site.line_index for site in chain.sites)
    if after is not None and after > last:
        edits.setdefault(after, lines[after])
        last = after
    indent = lines[last][: len(lines[last]) - len(lines[last].lstrip())]
    dbg = re.search(r"(, !dbg ![0-9]+)", lines[chain.result_line])
    call += dbg.group(1) if dbg else ""
    head = f"{indent}{prelude}\n" if prelude else ""
    placed = f"{head}{indent}%{name}.v = {call}"                       # a name: results may be numbered
    edits[last] = placed if chain.result_line == last else f"{edits[last]}\n{placed}"
    line = lines[chain.result_line]
    indent = line[: len(line) - len(line.lstrip())]
    if chain.type == "float" and call_type == "i32":
        copy = f"{indent}{chain.result} = bitcast i32 %{name}.v to float"
    else:
        copy = f"{indent}{chain.result} = freeze {call_type} %{name}.v"
    edits[chain.result_line] = f"{edits[last]}\n{copy}" if chain.result_line == last else copy
    return edits


def is_uniform_broadcast(site: Any) -> bool:
    """A width-32 idx shuffle of a warp-uniform lane under the full constant mask (match.broadcast)."""
    return (site.b.kind == "uniform" and site.c.kind == "const" and site.c.value & 0x1F1F == 0x1F
            and site.mask.kind == "const" and site.mask.value & 0xFFFFFFFF == 0xFFFFFFFF)


def lower_module(ir: str, target: Target, baseline: bool = False,
                 used_lanes: bool = True) -> tuple[str, list[SiteReport]]:
    """Every marker in `ir` replaced by its proven lowering; a report entry per site. A constant
    map is lowered for the lanes that use its result (ir.demand) when that is cheaper; lanes read
    off threadIdx.x only behind the run-time check of amd.guard."""
    sites = find_sites(ir)
    demands = {} if baseline or not used_lanes else module_demands(ir)
    premises: set[str] = set()         # functions that need amd.guard's check at their entry
    edits: dict[int, str] = {}
    functions: list[str] = []
    needed: set[str] = set()
    reports: list[SiteReport] = []
    lines = ir.splitlines()
    helpers: set[str] = set()
    base_cost = bpermute_cost(target)
    wave = target.wave

    def define(name: str, made: tuple[str, set[str]] | None = None, maker=None) -> None:
        """Append a lowering function (and its declarations) once per module."""
        nonlocal needed
        if name in helpers:
            return
        fn, need = made if made is not None else maker()
        functions.append(fn)
        needed |= need
        helpers.add(name)

    for k, site in enumerate(sites):
        mapped = None if baseline else site_map(site)
        guarded = None
        if site.mode.kind != "const":
            raise InputError(f"{site.location}: a shuffle whose mode is not a constant (internal prelude misuse)")
        mode = MODE_NAMES[site.mode.value & 3]
        cls = classify_site(site, mapped[1] if mapped else None)
        plan = None
        if mapped is not None:
            src = mapped[1]
            mask = site.mask.value & 0xFFFFFFFF if site.mask.kind == "const" else 0xFFFFFFFF
            text = "map " + ",".join(str(int(v)) for v in src) + (f" mask {mask:#x}" if mask != 0xFFFFFFFF else "")
            runtime = site.mask.kind != "const"
            plan = lower(text, target, runtime_mask=runtime)
            plan, guarded = used_lanes_plans(text, plan, demands.get(site.line_index), target, runtime, site.notes)
            if all(s.op == "ds.bpermute" for s in plan.steps) and plan.steps:
                plan = None                   # the general lowering computes the index with ALU ops
        if plan is not None:
            name = f"shflx.site.{k}"
            made = function_ir(plan, name, INLINE_ATTRS)
            wrong = emitted_differences(plan, made[0], local_name)
            if guarded is not None and not wrong:
                all_lanes = function_ir(guarded, f"{name}.all", INLINE_ATTRS)
                wrong = emitted_differences(guarded, all_lanes[0], local_name)
            if wrong:                         # an emitter bug: the exact general lowering (DESIGN 6)
                plan = None
                site.notes.append(f"internal: the emitted code did not read back as the proven plan ({wrong[0]})")
        broadcast = None
        if plan is None and not baseline and mode == "idx" and is_uniform_broadcast(site):
            name = "shflx.uniform_idx"
            broadcast = uniform_broadcast(target)
            made = helper_ir(broadcast, name, INLINE_ATTRS)
            wrong = helper_differences(broadcast, made[0])
            if wrong:                         # an emitter bug: the exact general lowering (DESIGN 6)
                broadcast = None
                site.notes.append(f"internal: the emitted broadcast did not read back as its proven plans ({wrong[0]})")
        if plan is not None and guarded is not None:
            define(name, made)
            define(f"{name}.all", all_lanes)
            define(f"{name}.guard", (dispatcher_ir(f"{name}.guard", name, f"{name}.all", INLINE_ATTRS), set()))
            premises.add(site.function)
            edits[site.line_index] = replace_call(lines[site.line_index], site, f"{name}.guard",
                                                  [site.value, f"i1 %{PREMISE}"])
            reports.append(SiteReport(site.location, site.function, describe_site(site), cls,
                                      [step_asm(s, target) for s in plan.steps] or ["(no instruction)"],
                                      plan.cost + GUARD_COST, base_cost, plan.proof["status"],
                                      site.notes + [PREMISE_NOTE] + list(plan.proof.get("assumptions", []))))
        elif plan is not None:
            define(name, made)
            edits[site.line_index] = replace_call(lines[site.line_index], site, name, [site.value])
            lowering = [step_asm(s, target) for s in plan.steps] or ["(no instruction: every lane keeps its value)"]
            reports.append(SiteReport(site.location, site.function, describe_site(site), cls, lowering, plan.cost,
                                      base_cost, plan.proof["status"],
                                      site.notes + list(plan.proof.get("assumptions", []))))
        elif broadcast is not None:
            define(name, made)
            edits[site.line_index] = replace_call(lines[site.line_index], site, name, [site.value, site.b.text])
            reports.append(SiteReport(site.location, site.function, describe_site(site), "broadcast (uniform lane)",
                                      ["v_readlane_b32 (lane b & 31 of each CUDA warp)"]
                                      + (["v_readlane_b32 (lane (b & 31) | 32)", "v_cndmask_b32 (upper half)"]
                                         if wave == 64 else []),
                                      broadcast.cost, base_cost, "proved",
                                      ["warp-uniform source lane with the full mask: readlane, proven for every b & 31"]
                                      + site.notes + list(broadcast.assumptions)))
        else:
            name = f"shflx.general.{mode}"
            define(name, maker=lambda: general.function_ir(mode, wave, name))
            edits[site.line_index] = replace_call(lines[site.line_index], site, name,
                                                  [site.mask.text, site.value, site.b.text, site.c.text])
            why = "baseline" if baseline else ("per-lane dynamic operands" if cls == "dynamic" else
                                               "runtime operands" if cls == "uniform" else "nothing cheaper proven")
            reports.append(SiteReport(site.location, site.function, describe_site(site), cls,
                                      ["ds_bpermute_b32 (exact general lowering: index from the CUDA formula)"],
                                      base_cost, base_cost, "exact by construction", [why] + site.notes))
    for rep, frames in zip(reports, inline_chains(lines, [site.line_index for site in sites])):
        rep.inlined = user_frames(frames)
    needed |= insert_premises(lines, edits, premises, wave)
    return rewrite(ir, edits, functions, needed), reports


def insert_premises(lines: list[str], edits: dict[int, str], premises: set[str], wave: int) -> set[str]:
    """Edits that define amd.guard's check `%PREMISE` at the entry of each function in `premises`
    (where every lane of the wave is active) unless it is there already; the declarations needed."""
    needed: set[str] = set()
    for name, start, end, _ in ir_functions(lines):
        if name not in premises or any(f"%{PREMISE} = " in line for line in lines[start:end]):
            continue
        check, need = premise_ir(PREMISE, wave)
        needed |= need
        first = start + 1
        if re.match(r"^[\w.\-]+:", lines[first]):          # after the entry block's label
            edits[first] = "\n".join([lines[first], *check])
        else:
            edits[first] = "\n".join([*check, edits.get(first, lines[first])])
    return needed


def call_position(lines: list[str], conds: list[str], last: int, result: int) -> int | None:
    """The line after which a chain's call can go that also sees the guard conditions `conds`:
    the last shuffle (`last`) or, in its basic block, the latest line defining one of them before
    the chain's result (`result`); a condition defined above the block must be in the entry block,
    which dominates it. None when a condition is defined elsewhere."""
    place = last
    for cond in conds:
        define = re.compile(rf"^\s*{re.escape(cond)} = ")
        k = next((j for j in range(last + 1, result) if define.match(lines[j])), None)
        if k is not None and not any(re.match(r"^[\w.\-]+:", lines[j]) for j in range(last, k)):
            place = max(place, k)
        elif k is None and not defined_above(lines, cond, last):
            return None
    return place


def defined_above(lines: list[str], token: str, last: int) -> bool:
    """Whether `token` is defined above line `last` in its basic block, or in its function's entry
    block (so it dominates a call placed right after line `last`)."""
    k = last - 1
    while k >= 0 and not lines[k].startswith("define "):
        if re.match(rf"^\s*{re.escape(token)} = ", lines[k]):
            return True
        if re.match(r"^[\w.\-]+:", lines[k]):                  # the block's label: look in the entry block
            break
        k -= 1
    start = k
    while start >= 0 and not lines[start].startswith("define "):
        start -= 1
    for j in range(start + 1, last):
        if re.match(rf"^\s*{re.escape(token)} = ", lines[j]):
            return True
        if lines[j].startswith("}") or (j > start + 1 and re.match(r"^[\w.\-]+:", lines[j])):
            return False
    return False


def used_lanes_plans(text: str, plan: Any, demand: Demand | None, target: Target, runtime: bool,
                     notes: list[str]) -> tuple[Any, Any]:
    """(the plan to use, the plan for all lanes when the first holds only behind amd.guard's check,
    else None): the cheapest of `plan` (every lane), the plan for the demanded lanes, and the plan
    for the lanes read off threadIdx.x (priced with the check's branch)."""
    if demand is None:
        return plan, None
    if demand.lanes != FULL_MASK:
        narrow = lower(f"{text} lanes {demand.lanes:#x}", target, runtime_mask=runtime)
        if narrow.cost < plan.cost:
            notes.append(f"its result is used on lanes {demand.lanes:#x} only (ir.demand)")
            plan = narrow
    if demand.lanes_tid != demand.lanes:
        narrow = lower(f"{text} lanes {demand.lanes_tid:#x}", target, runtime_mask=runtime)
        if narrow.cost + GUARD_COST < plan.cost:
            notes.append(f"its result is used on lanes {demand.lanes_tid:#x} only (ir.demand), read off threadIdx.x")
            return narrow, plan
    return plan, None


def user_frames(frames: list[str]) -> list[str]:
    """The frames of a site's location that are the user's: shflx's own CUDA layer and HIP's warp
    function headers (hip/amd_detail/) drop out, unless nothing else is left."""
    mine = [f for f in frames if not f.startswith(PRELUDE_PREFIX) and "/hip/amd_detail/" not in f]
    return mine or frames


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
        ir = compile_to_ir(source, target.llvm_cpu, wave, opts, _selectable_wave(target))
        if nvcc_names and source.suffix != ".hip":     # CUDA sources: kernel symbols as nvcc names them
            ir = nvcc_kernel_names(ir)
    try:
        return translate_inline_ptx(ir, wave)
    except InlinePtxError as e:
        raise InputError(e.what, source_location(e.location, source)) from None


def compile_file(source: Path, arch: str | Target, *, wave: int | None = None, emit: str = "hsaco",
                 opts: FrontendOptions = FrontendOptions(), baseline: bool = False,
                 fp_reassoc: bool = False, chains: bool = True, features: tuple[str, ...] = (),
                 debug_info: bool = True, code_object_version: int | None = None,
                 nvcc_names: bool = True, used_lanes: bool = True) -> CompileResult:
    """The driver entry point: `arch` (a name or a Target) is resolved here, once, with `wave` and
    `features` (a target ID's: +xnack, -sramecc), and passed down. `debug_info=False` (-g0) drops the
    line tables from the output once the report has read them; `code_object_version` overrides the module's;
    `used_lanes=False` lowers every shuffle for all lanes (benchmarks compare the two)."""
    if isinstance(arch, str) and arch not in known_amd_targets():
        raise UsageError(f"unknown --offload-arch '{arch}'; known: {', '.join(known_amd_targets())}")
    target = resolve_target(arch, wave, features)
    wave = target.wave
    if emit not in EMITS:
        raise UsageError(f"--emit {emit} is not for AMD targets; for {target.name}: {', '.join(EMITS)}")
    ir = device_ir(source, target, opts, nvcc_names)
    if code_object_version is not None:
        from ..ir.moduleflags import with_code_object_version
        ir = with_code_object_version(ir, code_object_version)
    more: list[SiteReport] = []
    found: list[ChainReport] = []
    if not baseline:                     # only the input's own ds.bpermute calls, before ours exist
        if chains:
            ir, found = lower_chains(ir, target, fp_reassoc)
        ir, more = lower_bpermutes(ir, target)
    lowered, reports = lower_module(ir, target, baseline, used_lanes)
    reports += more
    check_resolved(lowered, source)
    if not debug_info:
        from ..ir.debuginfo import strip_debug_info
        lowered = strip_debug_info(lowered)
    codegen = _codegen(lowered, target, opts)
    result = CompileResult(target.name, wave, lowered, reports, chains=found, notes=skipped_headers(ir))
    if emit == "llvm":
        result.output = lowered
        return result
    if emit == "asm":
        result.output = codegen(lowered, target.llvm_cpu, wave=wave, emit="asm")
        return result
    obj = codegen(lowered, target.llvm_cpu, wave=wave, emit="obj")
    if emit == "obj":
        result.output = obj
        return result
    from ..codegen.inspect import inspect_code_object
    from ..codegen.link import link_hsaco

    hsaco = link_hsaco(obj)
    result.output = hsaco
    result.kernels = kernel_summaries(inspect_code_object(hsaco), reports, found)
    return result


def _selectable_wave(target: Target) -> bool:
    """Whether clang must be told the wave size (+wavefrontsizeNN): on targets that run both."""
    return len(target.isa.waves) > 1


def _codegen(ir: str, target: Target, opts: FrontendOptions) -> Any:
    """llvmlite's codegen, or clang's backend for modules with inline asm (llvmlite ships no AMDGPU
    asm parser and aborts on them)."""
    from ..codegen.llvm import compile_ir

    features = target.id_features
    if not re.search(r"\bcall [^\n]*\basm\b", ir):
        return lambda text, cpu, *, wave, emit: compile_ir(text, cpu, wave=wave, emit=emit, features=features)
    from ..frontend.clang import codegen_with_clang

    return lambda text, cpu, *, wave, emit: codegen_with_clang(text, cpu, wave, emit, _selectable_wave(target),
                                                               opts.llvm_bin, features)


def lower_bpermutes(ir: str, target: Target) -> tuple[str, list[SiteReport]]:
    """ds.bpermute calls with lane-only addresses (HIP's __shfl in IR from hipcc, Triton, ...):
    where each 32-lane half reads inside itself with the same map, the synthesizer's proven plan
    replaces the call; any other one is kept (it is already exact) and reported."""
    from ..ir.bpermute import find_bpermute_sites

    wave = target.wave
    sites = find_bpermute_sites(ir, wave)
    if not sites:
        return ir, []
    lines = ir.splitlines()
    edits, functions, needed, reports = {}, [], set(), []
    half = wave == 64 and target.has("ds_bpermute_half_wave64")
    base_cost = bpermute_cost(target)
    for k, site in enumerate(sites):
        keep = SiteReport(site.location, site.function, "llvm.amdgcn.ds.bpermute", "dynamic",
                          ["ds_bpermute_b32 (kept)"], base_cost, base_cost, "unchanged", [])
        if site.lanes is None:
            keep.notes.append("the address is not a function of the lane id alone")
            reports.append(keep)
            continue
        lanes = np.arange(wave)
        idx = np.array(site.lanes) >> 2
        src = ((lanes & 32) | (idx & 31)) if half else idx & (wave - 1)
        warp = src[:32]
        if (warp >> 5 != 0).any() or (wave == 64 and not np.array_equal(src[32:], warp + 32)):
            keep.cls = "constant map"
            keep.notes.append("the map crosses 32-lane halves or differs between them")
            reports.append(keep)
            continue
        plan = lower("map " + ",".join(map(str, warp.tolist())), target)
        if plan.steps and all(s.op == "ds.bpermute" for s in plan.steps):   # no steps: each lane's own value
            keep.cls = "constant map"
            keep.notes.append("nothing cheaper proven")
            reports.append(keep)
            continue
        name = f"shflx.bperm.{k}"
        fn, need = function_ir(plan, name, INLINE_ATTRS)
        wrong = emitted_differences(plan, fn, local_name)
        if wrong:                             # an emitter bug: keep the (exact) ds_bpermute
            keep.cls = "constant map"
            keep.notes.append(f"internal: the emitted code did not read back as the proven plan ({wrong[0]})")
            reports.append(keep)
            continue
        functions.append(fn)
        needed |= need
        line = lines[site.line_index]
        dbg = re.search(r"(, !dbg ![0-9]+)", line)
        indent = line[: len(line) - len(line.lstrip())]
        edits[site.line_index] = f"{indent}{site.result} = call i32 @{name}(i32 {site.value}){dbg.group(1) if dbg else ''}"
        reports.append(SiteReport(site.location, site.function, "llvm.amdgcn.ds.bpermute (lane-only address)",
                                  "constant map", [step_asm(s, target) for s in plan.steps]
                                  or ["(no instruction: every lane keeps its value)"], plan.cost,
                                  base_cost, plan.proof["status"], list(plan.proof.get("assumptions", []))))
    for rep, frames in zip(reports, inline_chains(lines, [site.line_index for site in sites])):
        rep.inlined = user_frames(frames)
    return rewrite(ir, edits, functions, needed, final=False), reports


