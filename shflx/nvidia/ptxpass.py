"""`shflx ptx` and `shflx ptxas`: PTX text in, rewritten PTX text and a report out.

Why one module: the CLI and the ptxas wrapper run the same pipeline (parse, find shuffle sites
and chains, decide and apply redux.sync, then the load -> shuffle pass of load_shuffle.py, unparse)
and must report it the same way (docs/report-schema.md, PTX section). Nothing here writes files."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..isa import NvidiaTarget, known_nvidia_targets, nvidia_target
from . import ptxir, redux
from .sites import Chain, Site, find_chains, find_sites


@dataclass
class PtxResult:
    file: str
    arch: str
    module: ptxir.Module
    text: str                                 # the rewritten PTX (== input when nothing changed)
    sites: list[dict[str, Any]]
    chains: list[dict[str, Any]]
    loads: list[dict[str, Any]] = field(default_factory=list)
    analysis_ms: float = 0.0

    @property
    def rewritten(self) -> int:
        return sum(c["status"] == "rewritten" for c in self.chains) + \
            sum(e.get("status") == "rewritten" for e in self.loads)

    def to_json(self) -> dict[str, Any]:
        kept = sum(s["cost"] for s in self.sites if s["chain_status"] != "rewritten")
        done = [c for c in self.chains if c["status"] == "rewritten"]
        cost = kept + sum(c["cost"] for c in done)              # shuffles (+ their combines) only
        base = kept + sum(c["step_by_step_cost"] for c in done)
        return {"file": self.file, "arch": self.arch, "ptx_version": self.module.version,
                "ptx_target": self.module.target, "output": None,
                "summary": {"sites": len(self.sites), "chains": len(self.chains),
                            "rewritten_chains": sum(c["status"] == "rewritten" for c in self.chains),
                            "rewritten_loads": sum(e.get("status") == "rewritten" for e in self.loads),
                            "cost": round(cost, 2), "baseline_cost": round(base, 2),
                            "analysis_ms": round(self.analysis_ms, 2)},
                "sites": self.sites, "chains": self.chains, "loads": self.loads}


def sm_name(sm: str | int | None) -> str | None:
    """--sm 90 / sm_90 / 100a -> the isa name, or UsageError listing the known ones."""
    if sm is None:
        return None
    name = str(sm) if str(sm).startswith("sm_") else f"sm_{sm}"
    target = ptxir.supported_target(name)
    if target is None:
        raise UsageError(f"unknown NVIDIA target '{name}'; known: {', '.join(known_nvidia_targets())}")
    return target


def _targets(module: ptxir.Module, sm: str | None) -> list[NvidiaTarget]:
    names = [ptxir.supported_target(module.target)] + ([sm] if sm else [])
    return [nvidia_target(n) for n in dict.fromkeys(names)]


def _site_json(site: Site, file: str, target: NvidiaTarget, where: dict[int, str], chain: int | None,
               status: str) -> dict[str, Any]:
    cost = target.cost("shfl") if site.b.const is not None else target.cost("shfl_reg")
    return {"location": f"{file}:{site.line}", "function": site.function.name, "cuda": site.cuda(),
            "class": site.cls(), "lowering": [site.ins.render().strip()], "cost": cost,
            "baseline_cost": cost, "proof": "unchanged", "notes": [],
            "line": site.line, "ptx": site.ins.render().strip(), "mode": site.mode, "legacy": site.legacy,
            "b": site.b.const if site.b.const is not None else site.b.text,
            "c": site.c.const if site.c.const is not None else site.c.text,
            "mask": site.mask.const if site.mask.const is not None else site.mask.text,
            "predicate": site.pred_out, "chain": chain, "chain_status": status,
            "source_location": where.get(site.line)}


def _chain_json(chain: Chain, dec: redux.Decision, file: str, target: NvidiaTarget,
                where: dict[int, str]) -> dict[str, Any]:
    steps = sum(target.cost("shfl") + target.cost("alu") for _ in chain.sites)
    cost_kind = "redux_sync_f32" if chain.fn in ("fmin", "fmax") else "redux_sync_int"
    cost = (target.cost(cost_kind) + (redux.GUARD_ALU * target.cost("alu") if redux.guarded(chain) else 0)
            if dec.opcode else steps)
    coll = chain.collective
    return {"location": f"{file}:{chain.line}", "function": chain.function.name, "shape": chain.shape,
            "op": chain.fn or "mixed", "type": chain.ptx_type,
            "width": coll.width if coll is not None and not coll.bits else None, "live": chain.live_why,
            "shuffles": len(chain.sites), "status": "rewritten" if dec.opcode else "unchanged",
            "reason": dec.reason, "family": "redux.sync" if dec.opcode else "step by step",
            "lowering": [f"{dec.opcode} {chain.result}, {chain.input}, 0xffffffff;"] if dec.opcode else [],
            "cost": cost, "step_by_step_cost": steps,
            "baseline_cost": steps, "proof": "proved" if dec.opcode else "per site",
            "lines": [s.line for s in chain.sites] + [c.line for c in chain.combines],
            "notes": chain.notes, "source_location": where.get(chain.line)}


def run(text: str, filename: str, sm: str | int | None = None, load_shuffle: bool = True,
        redux_sync: bool = True) -> PtxResult:
    """Parse, report and rewrite one PTX file (InputError for malformed or unsupported PTX)."""
    t0 = time.perf_counter()
    sm = sm_name(sm)
    module = ptxir.parse(text, filename)
    targets = _targets(module, sm)
    main = targets[-1]
    sites = find_sites(module)
    chains = find_chains(module, sites)
    decisions = [redux.decide(c, targets, module.version_tuple) if redux_sync else
                 redux.Decision(None, "the redux.sync rewrite is off for this run") for c in chains]
    of_site: dict[int, tuple[int, str]] = {}
    for k, (c, d) in enumerate(zip(chains, decisions)):
        for s in c.sites:
            of_site[id(s.ins)] = (k, "rewritten" if d.opcode else "unchanged")
    where = ptxir.source_lines(module)          # before any rewrite: the lines are the input's
    site_rows = [_site_json(s, filename, main, where, *of_site.get(id(s.ins), (None, "none"))) for s in sites]
    chain_rows = [_chain_json(c, d, filename, main, where) for c, d in zip(chains, decisions)]
    for c, d in zip(chains, decisions):
        if d.opcode:
            redux.apply(c, d.opcode)
    loads: list[dict[str, Any]] = []
    if load_shuffle:
        from . import load_shuffle as ls
        _, entries = ls.rewrite(module, main.sm, filename=filename)
        loads = [{**e.as_json(), "source_location": where.get(e.line)} for e in entries]
    out = module.unparse()
    return PtxResult(filename, main.name, module, out, site_rows, chain_rows, loads,
                     (time.perf_counter() - t0) * 1000)


def report_text(r: PtxResult) -> str:
    """The human report: one line per site and chain, file:line first."""
    lines = [f"{r.file}: {r.arch}, PTX {r.module.version} .target {r.module.target}: "
             f"{len(r.sites)} shuffle sites, {len(r.chains)} chains, {r.rewritten} rewritten"]
    def at(row: dict[str, Any]) -> str:        # the CUDA line too, when the PTX has .loc
        return f" ({row['source_location']})" if row.get("source_location") else ""
    for s in r.sites:
        chain = f" [chain {s['chain']}, {s['chain_status']}]" if s["chain"] is not None else ""
        lines.append(f"  {s['location']}{at(s)}: {s['function']}: {s['cuda']} ({s['class']}){chain}")
    for k, c in enumerate(r.chains):
        lines.append(f"  {c['location']}{at(c)}: chain {k} in {c['function']}: {c['shape']} {c['op']}.{c['type']} x"
                     f"{c['shuffles']}: {c['status']}: {c['reason']}")
        if c["lowering"]:
            lines.append(f"      -> {c['lowering'][0]}  (cost {c['cost']} vs {c['step_by_step_cost']:.1f})")
        for n in c["notes"]:
            lines.append(f"      note: {n}")
    for e in r.loads:
        lines.append(f"  {r.file}:{e['line']}{at(e)}: {e['function']}: load = lane{e['delta']:+d} of line "
                     f"{e['source_line']}: {e['status']}: {e['reason']}")
    return "\n".join(lines)


def read_ptx(path: str) -> str:
    """The text of a .ptx file, or InputError naming it (missing, unreadable, not text)."""
    from pathlib import Path

    from ..errors import InputError, Location
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", Location(path)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise InputError("not PTX text (not UTF-8)", Location(path, line)) from None
