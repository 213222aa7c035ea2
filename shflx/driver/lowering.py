"""The shuffle-site passes of `shflx compile` for AMD: every shuffle marker of a module replaced by
its proven lowering (a synthesized plan, the readlane broadcast of a uniform lane, or the exact
general lowering), and the input's own lane-only ds.bpermute calls replaced where a plan is
cheaper; a report entry per site. Each emitted helper is read back against its plan before it
is used (DESIGN decision 6)."""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..amd import general
from ..amd.asm import step_asm
from ..amd.guard import GUARD_COST, PREMISE, PREMISE_NOTE, dispatcher_ir
from ..amd.llvm_ir import function_ir, local_name
from ..cuda import FULL_MASK
from ..errors import InputError
from ..ir.rewrite import INLINE_ATTRS, replace_call, rewrite
from ..ir.demand import Demand, module_demands
from ..ir.sites import MODE_NAMES, find_sites, site_map
from ..match.broadcast import helper_differences, helper_ir
from ..match.cost import bpermute_cost
from ..target import Target
from ..verify.readback import emitted_differences
from .cache import lower, uniform_broadcast
from .chains import insert_premises
from .report import READBACK_FAILED, SiteReport, classify_site, describe_site, placed


def is_uniform_broadcast(site: Any) -> bool:
    """A width-32 idx shuffle of a warp-uniform lane under the full constant mask (match.broadcast)."""
    return (site.b.kind == "uniform" and site.c.kind == "const" and site.c.value & 0x1F1F == 0x1F
            and site.mask.kind == "const" and site.mask.value & 0xFFFFFFFF == 0xFFFFFFFF)


def lower_module(ir: str, target: Target, baseline: bool = False,
                 used_lanes: bool = True) -> tuple[str, list[SiteReport]]:
    """Every marker in `ir` replaced by its proven lowering, a report entry per site: the synthesized
    plan of a constant map (for the lanes that use its result, ir.demand, where that is cheaper;
    lanes read off threadIdx.x only behind the run-time check of amd.guard), else the readlane
    broadcast of a warp-uniform lane, else the exact general lowering (always, with `baseline`)."""
    sites = find_sites(ir)
    demands = {} if baseline or not used_lanes else module_demands(ir)
    premises: set[str] = set()         # functions that need amd.guard's check at their entry
    lines = ir.splitlines()
    helpers = _Helpers()
    edits: dict[int, str] = {}
    reports: list[SiteReport] = []
    base_cost = bpermute_cost(target)
    shared: dict[tuple, tuple] = {}    # one plan, helper and read-back per distinct lowering (_site_plan)
    for k, site in enumerate(sites):
        mapped = None if baseline else site_map(site)
        if site.mode.kind != "const":
            raise InputError(f"{site.location}: a shuffle whose mode is not a constant (internal prelude misuse)")
        mode = MODE_NAMES[site.mode.value & 3]
        cls = classify_site(site, mapped[1] if mapped else None)
        synthesized = _site_plan(site, mapped[1], target, f"shflx.site.{k}", demands.get(site.line_index), shared) \
            if mapped is not None else None
        if synthesized is not None:
            plan, name, made, all_lanes = synthesized
            helpers.define(name, made)
            if all_lanes is not None:             # the narrow plan behind the per-wave check
                helpers.define(f"{name}.all", all_lanes)
                helpers.define(f"{name}.guard", (dispatcher_ir(f"{name}.guard", name, f"{name}.all", INLINE_ATTRS), set()))
                premises.add(site.function)
                edits[site.line_index] = replace_call(lines[site.line_index], site, f"{name}.guard",
                                                      [site.value, f"i1 %{PREMISE}"])
                reports.append(_plan_report(site, cls, plan, target, base_cost, guarded=True))
                continue
            edits[site.line_index] = replace_call(lines[site.line_index], site, name, [site.value])
            reports.append(_plan_report(site, cls, plan, target, base_cost))
            continue
        broadcast = None
        if not baseline and mode == "idx" and is_uniform_broadcast(site):
            broadcast = _site_broadcast(site, target, "shflx.uniform_idx")
        if broadcast is not None:
            helpers.define("shflx.uniform_idx", broadcast[1])
            edits[site.line_index] = replace_call(lines[site.line_index], site, "shflx.uniform_idx",
                                                  [site.value, site.b.text])
            reports.append(_broadcast_report(site, broadcast[0], target.wave, base_cost))
            continue
        name = f"shflx.general.{mode}"
        helpers.define(name, maker=lambda: general.function_ir(mode, target.wave, name))
        edits[site.line_index] = replace_call(lines[site.line_index], site, name,
                                              [site.mask.text, site.value, site.b.text, site.c.text])
        reports.append(_general_report(site, cls, baseline, base_cost))
    placed(reports, lines, [site.line_index for site in sites])
    helpers.needed |= insert_premises(lines, edits, premises, target.wave)
    return rewrite(ir, edits, helpers.functions, helpers.needed), reports


class _Helpers:
    """The lowering functions a module gets, each defined once, and the declarations they need."""

    def __init__(self) -> None:
        self.functions: list[str] = []
        self.needed: set[str] = set()
        self.names: set[str] = set()

    def define(self, name: str, made: tuple[str, set[str]] | None = None, maker=None) -> None:
        if name in self.names:
            return
        fn, need = made if made is not None else maker()
        self.functions.append(fn)
        self.needed |= need
        self.names.add(name)


def _site_plan(site: Any, src: Any, target: Target, name: str, demand: Demand | None, shared: dict[tuple, tuple]) \
        -> tuple[Any, str, tuple[str, set[str]], tuple[str, set[str]] | None] | None:
    """The synthesizer's proven plan for a constant map, the name of its helper (`name`, or that of
    an earlier site with the same map, mask and demanded lanes: `shared` holds each distinct
    lowering of the module once, plan looked up, helper emitted and read back once), the helper,
    and the helper of the plan for all lanes where the first holds only behind amd.guard's check
    (used_lanes_plans), else None; None where the plan is ds_bpermute (the general lowering
    computes the index with ALU ops instead of a table) or where an emitted helper does not read
    back as its plan (an emitter bug: DESIGN 6, noted on the site)."""
    mask = site.mask.value & 0xFFFFFFFF if site.mask.kind == "const" else 0xFFFFFFFF
    text = "map " + ",".join(str(int(v)) for v in src) + (f" mask {mask:#x}" if mask != 0xFFFFFFFF else "")
    runtime = site.mask.kind != "const"
    key = (text, runtime, demand)
    if key not in shared:
        notes: list[str] = []
        shared[key] = (_distinct_plan(text, runtime, target, name, demand, notes), notes)
    made, notes = shared[key]
    site.notes.extend(notes)
    return made


def _distinct_plan(text: str, runtime: bool, target: Target, name: str, demand: Demand | None, notes: list[str]) \
        -> tuple[Any, str, tuple[str, set[str]], tuple[str, set[str]] | None] | None:
    """_site_plan's answer for one distinct lowering, its notes added to `notes`."""
    plan = lower(text, target, runtime_mask=runtime)
    plan, guarded = used_lanes_plans(text, plan, demand, target, runtime, notes)
    if all(s.op == "ds.bpermute" for s in plan.steps) and plan.steps:
        return None
    made = function_ir(plan, name, INLINE_ATTRS)
    wrong = emitted_differences(plan, made[0], local_name)
    all_lanes = None
    if guarded is not None and not wrong:
        all_lanes = function_ir(guarded, f"{name}.all", INLINE_ATTRS)
        wrong = emitted_differences(guarded, all_lanes[0], local_name)
    if wrong:
        notes.append(f"{READBACK_FAILED} ({wrong[0]})")
        return None
    return plan, name, made, all_lanes


def _site_broadcast(site: Any, target: Target, name: str) -> tuple[Any, tuple[str, set[str]]] | None:
    """The proven uniform-broadcast family and its helper `name`; None (noted) if it does not read back."""
    broadcast = uniform_broadcast(target)
    made = helper_ir(broadcast, name, INLINE_ATTRS)
    wrong = helper_differences(broadcast, made[0])
    if wrong:                         # an emitter bug: the exact general lowering (DESIGN 6)
        site.notes.append(f"{READBACK_FAILED} ({wrong[0]})")
        return None
    return broadcast, made


def _plan_report(site: Any, cls: str, plan: Any, target: Target, base_cost: float,
                 guarded: bool = False) -> SiteReport:
    """A synthesized site's entry; `guarded`: the plan runs behind amd.guard's check (its cost counted)."""
    lowering = [step_asm(s, target) for s in plan.steps] or ["(no instruction: every lane keeps its value)"]
    return SiteReport(site.location, site.function, describe_site(site), cls, lowering,
                      plan.cost + (GUARD_COST if guarded else 0), base_cost, plan.proof["status"],
                      site.notes + ([PREMISE_NOTE] if guarded else []) + list(plan.proof.get("assumptions", [])))


def _broadcast_report(site: Any, broadcast: Any, wave: int, base_cost: float) -> SiteReport:
    return SiteReport(site.location, site.function, describe_site(site), "broadcast (uniform lane)",
                      ["v_readlane_b32 (lane b & 31 of each CUDA warp)"]
                      + (["v_readlane_b32 (lane (b & 31) | 32)", "v_cndmask_b32 (upper half)"] if wave == 64 else []),
                      broadcast.cost, base_cost, "proved",
                      ["warp-uniform source lane with the full mask: readlane, proven for every b & 31"]
                      + site.notes + list(broadcast.assumptions))


def _general_report(site: Any, cls: str, baseline: bool, base_cost: float) -> SiteReport:
    why = "--baseline asks for it" if baseline else (
        "the source lane or width differs between lanes at run time" if cls == "dynamic" else
        "the operands are known only at run time" if cls == "uniform" else "nothing cheaper proven")
    return SiteReport(site.location, site.function, describe_site(site), cls,
                      ["ds_bpermute_b32 (exact general lowering: index from the CUDA formula)"],
                      base_cost, base_cost, "exact by construction", [why] + site.notes)


def used_lanes_plans(text: str, plan: Any, demand: Demand | None, target: Target, runtime: bool,
                     notes: list[str]) -> tuple[Any, Any]:
    """(the plan to use, the plan for all lanes when the first holds only behind amd.guard's check,
    else None): the cheapest of `plan` (every lane), the plan for the demanded lanes, and the plan
    for the lanes read off threadIdx.x (priced with the check's branch)."""
    if demand is None:
        return plan, None
    if demand.lanes not in (FULL_MASK, 0):         # 0: no lane reads it (left as it is)
        narrow = lower(f"{text} lanes {demand.lanes:#x}", target, runtime_mask=runtime)
        if narrow.cost < plan.cost:
            notes.append(f"its result is used on lanes {demand.lanes:#x} only")
            plan = narrow
    if demand.lanes_tid not in (demand.lanes, 0):
        narrow = lower(f"{text} lanes {demand.lanes_tid:#x}", target, runtime_mask=runtime)
        if narrow.cost + GUARD_COST < plan.cost:
            notes.append(f"its result is used on lanes {demand.lanes_tid:#x} only, read off threadIdx.x")
            return narrow, plan
    return plan, None


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
            keep.notes.append("the address is read off threadIdx.x, which is the lane only in some block shapes"
                              if site.from_tid else "the address is not a function of the lane id alone")
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
            keep.notes.append(f"{READBACK_FAILED} ({wrong[0]})")
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
    placed(reports, lines, [site.line_index for site in sites])
    return rewrite(ir, edits, functions, needed, final=False), reports


