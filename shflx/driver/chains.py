"""The chain pass of `shflx compile` for AMD: every reduction/scan chain re-synthesized as a whole
where that is allowed, proven and cheaper (behind amd.guard's run-time check where its lanes were
read off threadIdx.x), chains of several values per step reported, and the line edits that put a
chain's helper call in place of its shuffles (NVIDIA's redux.sync uses them too)."""
from __future__ import annotations

import re
from typing import Any

from ..amd.asm import step_asm
from ..amd.guard import GUARD_COST, PREMISE, PREMISE_NOTE, dispatcher_ir, premise_ir
from ..amd.llvm_ir import function_ir, local_name
from ..cuda import FULL_MASK
from ..ir.demand import module_demands
from ..ir.rewrite import INLINE_ATTRS, rewrite
from ..ir.sites import find_sites
from ..ir.text import functions as ir_functions
from ..match.cost import bpermute_cost
from ..pattern import format_pattern
from ..target import Target
from ..verify.readback import emitted_differences
from .cache import lower, synthesize
from .report import READBACK_FAILED, ChainReport, placed


def lower_chains(ir: str, target: Target, fp_reassoc: bool = False) -> tuple[str, list[ChainReport]]:
    """Every reduction/scan chain re-synthesized as a whole where that is allowed and cheaper; the
    others are left to per-site lowering, with the reason in the report (DESIGN decision 5)."""
    from ..chains import classify, reassociation_allowed
    from ..ir.chains import find_chains
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
            entry.reason = f"{READBACK_FAILED} ({wrong[0]})"
            entry.cost = None
            reports.append(entry)
            continue
        call = f"call i32 @{name}(i32 {chain.start})"
        premised, place, prelude = "", None, ""
        if chain.from_tid:                    # recognized lanes read off threadIdx.x: amd.guard
            conds = guard_conditions(chain)
            position = call_position(lines, conds, max(s.line_index for s in chain.sites), chain.result_line)
            if position is None:
                entry.reason = ("a guard read off threadIdx.x is not computed in the shuffles' block before "
                                "the chain's result, where the chain as written could be chosen at run time")
                entry.cost = None
                reports.append(entry)
                continue
            written, need_w, wrong = written_ir(chain, target, f"{name}.all", INLINE_ATTRS, lower)
            if wrong:                         # an emitter bug: keep the chain as written (DESIGN 6)
                entry.reason = f"{READBACK_FAILED} ({wrong[0]})"
                entry.cost = None
                reports.append(entry)
                continue
            guarded = [*written, dispatcher_ir(f"{name}.guard", name, f"{name}.all", INLINE_ATTRS, len(conds))]
            need = need | need_w
            place, again = position
            call = (f"call i32 @{name}.guard(i32 {chain.start}, i1 %{PREMISE}"
                    + "".join(f", i1 {c}.{name}.again" if c in again else f", i1 {c}" for c in conds) + ")")
            prelude = "\n".join(f"{c}.{name}.again = {rhs}" for c, rhs in again.items())   # one name per chain
        merged = merge_edits(lines, edits, chain_edits(lines, chain, call, name, prelude=prelude, after=place))
        if merged is None:
            entry.reason = ("its call would replace a line another re-synthesized chain's edits change "
                            "(the chain as written is kept)")
            entry.cost = None
            reports.append(entry)
            continue
        edits = merged
        if chain.from_tid:
            functions += guarded
            premises.add(chain.function)
            entry.cost += GUARD_COST
            premised = "; " + PREMISE_NOTE + " (the chain as written)"
        functions.append(fn)
        needed |= need
        entry.status, entry.family = "re-synthesized", out.family
        entry.lowering = [step_asm(s, target) for s in out.plan.steps]
        entry.reason = (f"{format_pattern(coll)}; {len(out.families)} proven plans compared "
                        f"({', '.join(f'{n} {c:g}' for n, c in sorted(out.families.items(), key=lambda kv: kv[1]))})"
                        + premised)
        reports.append(entry)
    placed(reports, lines, [c.sites[0].line_index for c in chains])
    needed |= insert_premises(lines, edits, premises, target.wave)
    out = rewrite(ir, edits, functions, needed, final=False)
    kept = [frozenset((c.function, s.result) for s in c.sites) if r.status == "step by step" else frozenset()
            for c, r in zip(chains, reports)]
    return out, group_chain_reports(out, target, reports, kept)


def group_chain_reports(ir: str, target: Target, reports: list[ChainReport],
                        chain_sites: list[frozenset[tuple[str, str]]]) -> list[ChainReport]:
    """`reports` plus one entry per chain that shuffles several values per step (ir.chain_groups),
    found in `ir` after the single-value chains were rewritten; `chain_sites[k]` names the
    shuffles (function, marker) of `reports[k]`. A kept single-value chain that a multi-value
    chain contains (its values are used between the steps: by the other values) is reported as
    that chain; each shuffle keeps its own site entry (lowered for the lanes used)."""
    from ..ir.chain_groups import find_group_chains

    sites = find_sites(ir)
    groups = find_group_chains(ir, sites, set())
    if not groups:
        return reports
    demands = module_demands(ir)
    per_shuffle = bpermute_cost(target) + target.cost("valu")
    out = list(reports)
    dropped: set[int] = set()
    starts: list[int] = []                        # the line of each new entry's first shuffle
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
        starts.append(g.steps[0][0].line_index)
        out.append(ChainReport(
            g.steps[0][0].location, g.function, g.shape, "as written", ", ".join(g.types), None,
            f"{live} (the lanes that use the result)", shuffles, "step by step",
            f"{g.values} value(s) shuffled per step with one lane map and combined by the code's own "
            f"instructions, kept as written (every lane's order of operations is the code's); each "
            f"step's shuffles are lowered for the lanes the later steps use ({used})", "per site", [],
            None, None, per_shuffle * shuffles, "per site"))
    placed(out[len(reports):], ir.splitlines(), starts)
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


def merge_edits(lines: list[str], edits: dict[int, str], new: dict[int, str]) -> dict[int, str] | None:
    """`edits` with one more chain's `new` line edits. Two chains whose calls go after the same line
    (the two values of a pair scan, each after the guard condition both pass) keep the line and
    both insertions, in order; any other line both would change: None (a dict update would drop
    the first chain's call and leave its result undefined)."""
    out = dict(edits)
    for k, text in new.items():
        if k not in out:
            out[k] = text
            continue
        line = lines[k]
        if out[k].split("\n", 1)[0] != line or text.split("\n", 1)[0] != line:
            return None
        out[k] = out[k] + text[len(line):]
    return out


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


def call_position(lines: list[str], conds: list[str], last: int, result: int) -> tuple[int, dict[str, str]] | None:
    """Where a chain's call can go that also sees the guard conditions `conds`: after the last
    shuffle (`last`) or, in its basic block, the latest line defining one of them before the
    chain's result (`result`); a condition defined above the block must be in the entry block,
    which dominates it. A condition computed in a later block (clang sinks a compare into the
    branch that uses the chain's result) is computed again right after `last` when it is one pure
    instruction on values the call sees: (the line, {condition: its new name = its definition}).
    None when a condition is defined elsewhere."""
    place, again = last, {}
    for cond in conds:
        define = re.compile(rf"^\s*{re.escape(cond)} = ")
        k = next((j for j in range(last + 1, result) if define.match(lines[j])), None)
        if k is not None and not any(re.match(r"^[\w.\-]+:", lines[j]) for j in range(last, k)):
            place = max(place, k)
        elif k is not None and (copy := _pure_copy(lines, lines[k], last)) is not None:
            again[cond] = copy
        elif k is not None or not defined_above(lines, cond, last):
            return None
    return place, again


# One pure integer instruction on two operands (a compare of the lane against a step, its bits)
_PURE = re.compile(r"^\s*%[\w.\-]+ = (?P<rhs>(?:icmp(?: samesign)? \w+|(?:and|or|xor|add|sub|shl|lshr|ashr|mul)"
                   r"(?: (?:nuw|nsw|disjoint|exact))*) i\d+ (?P<a>[%\w.\-]+), (?P<b>[%\w.\-]+))(?:, !dbg ![0-9]+)?$")


def _pure_copy(lines: list[str], definition: str, last: int) -> str | None:
    """The right-hand side of `definition` when it is a _PURE instruction whose operands are
    constants or values defined where a call after line `last` sees them; else None."""
    m = _PURE.match(definition)
    if m is None:
        return None
    for operand in (m["a"], m["b"]):
        if operand.startswith("%") and not defined_above(lines, operand, last + 1):
            return None
    return m["rhs"]


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
