"""The compile report both drivers (AMD, NVIDIA) produce: one entry per shuffle site, per chain and
per kernel, in text and JSON (docs/report-schema.md), and the helpers that describe a site."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cuda import INTRINSIC_MODES, cuda_call
from ..ir.frames import place
from ..ir.sites import MODE_NAMES, Site
from ..ir.text import inline_frames
from ..lanes import s32


@dataclass
class SiteReport:
    location: str
    function: str
    cuda: str
    cls: str
    lowering: list[str]
    cost: float
    baseline_cost: float
    proof: str
    notes: list[str] = field(default_factory=list)
    inlined: list[str] = field(default_factory=list)    # innermost frame first, then its call sites
    intrinsic: str | None = None     # the call as written when the site is inside one (`__match_any_sync`)

    def to_json(self) -> dict[str, Any]:
        return {"location": self.location, "function": self.function, "cuda": self.cuda, "class": self.cls,
                "lowering": self.lowering, "cost": self.cost, "baseline_cost": self.baseline_cost,
                "proof": self.proof, "notes": self.notes, "inlined": self.inlined,
                "intrinsic": self.intrinsic}


@dataclass
class CompileResult:
    arch: str
    wave: int
    ir: str
    sites: list[SiteReport]
    output: bytes | str | None = None
    kernels: list[dict[str, Any]] = field(default_factory=list)
    chains: list[ChainReport] = field(default_factory=list)
    loads: list[dict[str, Any]] = field(default_factory=list)     # NVIDIA: load -> shuffle entries
    notes: list[str] = field(default_factory=list)     # about the whole file (skipped host-only headers)
    times: dict[str, float] = field(default_factory=dict)   # stage -> wall seconds (shflx.timing)


@dataclass
class ChainReport:
    """One reduction/scan chain: what it computes, and how it was lowered (issue 5 report)."""

    location: str
    function: str
    shape: str
    op: str
    type: str
    width: int | None
    live: str
    shuffles: int
    status: str                  # "re-synthesized" | "step by step"
    reason: str
    family: str
    lowering: list[str]
    cost: float | None           # None: the shuffles are lowered (and costed) as separate sites
    step_by_step_cost: float | None
    baseline_cost: float
    proof: str
    inlined: list[str] = field(default_factory=list)    # its first shuffle's frames, as a site's
    intrinsic: str | None = None     # the call as written that holds it (`cub::WarpReduce::Sum`)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def placed(entries: list[SiteReport] | list[ChainReport], lines: list[str], indices: list[int]) -> None:
    """Each entry's location, inlined chain and intrinsic as written (ir.frames.place), from the
    line `lines[indices[k]]` of its (first) shuffle: the user's innermost line, the header frames
    inside it, the CUB / cooperative-groups / CUDA call it is in."""
    for entry, frames in zip(entries, inline_frames(lines, indices)):
        where, entry.inlined, entry.intrinsic = place(frames)
        entry.location = where or entry.location


def describe_site(site: Site) -> str:
    """The CUDA call the operands spell (cuda.cuda_call), else the PTX form."""
    mode = MODE_NAMES.get(site.mode.value & 3, "?") if site.mode.kind == "const" else "?"
    if mode != "?" and site.c.kind == "const" and site.mask.kind == "const":
        b = str(s32(site.b.value)) if site.b.kind == "const" else f"<{site.b.kind}>"
        call = cuda_call(mode, b, site.c.value, site.mask.value)
        if call is not None:
            return call
    def op(o):  # noqa: E306
        return hex(o.value & 0xFFFFFFFF) if o.kind == "const" else f"<{o.kind}>"
    return f"shfl.sync.{mode} b={op(site.b)} c={op(site.c)} mask={op(site.mask)}"


def classify_site(site: Site, src: np.ndarray | None) -> str:
    if src is None:
        return "uniform" if all(o.kind in ("const", "uniform") for o in (site.b, site.c)) else "dynamic"
    mode = MODE_NAMES[site.mode.value & 3]
    lanes = np.arange(32)
    if mode == "bfly":
        return "xor"
    if mode in ("up", "down"):
        return mode
    if site.b.kind == "const":          # idx with one source lane: each segment reads one lane
        return "broadcast"
    for w in (2, 4, 8, 16, 32):
        for k in range(1, w):
            if np.array_equal(src, (lanes & ~(w - 1)) | ((lanes + k) & (w - 1))):
                return "rotate"
    return "constant map"


def kernel_summaries(info: Any, reports: list[SiteReport], chains: list[ChainReport] = ()) -> list[dict[str, Any]]:
    """Per kernel: registers, LDS, wave size (code-object metadata note), its shuffle sites and chains."""
    meta = {k.get(".name"): k for k in ((info.metadata or {}).get("amdhsa.kernels") or [])}
    out = []
    for name in info.kernels:
        m = meta.get(name, {})
        # every chain of the kernel is counted (as the file's summary counts them); a chain lowered
        # step by step is costed through its sites, so only re-synthesized ones add their cost
        n_chains = sum(c.function == name for c in chains)
        mine = [r for r in reports if r.function == name] + [c for c in chains if c.function == name
                                                              and c.cost is not None]
        out.append({"name": name, "vgprs": m.get(".vgpr_count"), "sgprs": m.get(".sgpr_count"),
                    "agprs": m.get(".agpr_count"), "lds_bytes": m.get(".group_segment_fixed_size"),
                    "wavefront_size": m.get(".wavefront_size"), "shuffle_sites": sum(r.function == name for r in reports),
                    "chains": n_chains,
                    "cost": sum(r.cost for r in mine), "baseline_cost": sum(r.baseline_cost for r in mine)})
    return out


def instruction_counts(asm: str) -> dict[str, int]:
    """Cross-lane instruction counts by class from an asm listing."""
    classes = {"ds_bpermute": r"\bds_bpermute", "ds_swizzle": r"\bds_swizzle", "dpp": r"_dpp\b",
               "permlane": r"\bv_permlane", "readlane": r"\bv_readlane|v_readfirstlane", "writelane": r"\bv_writelane"}
    out = {k: 0 for k in classes}
    for line in asm.splitlines():
        s = line.strip()
        if not s or s.startswith((";", ".", "//")) or s.endswith(":"):
            continue
        for k, pat in classes.items():
            if re.search(pat, s):
                out[k] += 1
    return out



# The note on a site or chain whose emitted code did not read back as its proven plan (an emitter
# bug shflx caught: the exact general lowering was used instead). `internal_warnings` turns each
# into a compiler-style warning on stderr, so the fallback is never silent.
READBACK_FAILED = "internal: the emitted code did not read back as the proven plan"
# The note on a file whose parallel code generation failed (driver.amd: it was compiled whole instead).
PARTS_FAILED = "internal: code generation in parallel parts failed"


def internal_warnings(entry: dict[str, Any]) -> list[str]:
    """One `LOCATION: warning: ...` line per site or chain of a report entry that fell back because
    of a bug in shflx, asking for a report."""
    found = [(s["location"], n) for s in entry.get("sites", ()) for n in s.get("notes", ())
             if n.startswith(READBACK_FAILED)]
    found += [(c["location"], c.get("reason") or "") for c in entry.get("chains", ())
              if (c.get("reason") or "").startswith(READBACK_FAILED)]
    return [f"{where}: warning: the code shflx emitted for this shuffle did not match its proven plan"
            f"{detail.removeprefix(READBACK_FAILED)}, so the exact general lowering (ds_bpermute) was used "
            f"instead ({entry.get('arch')}); this is a bug in shflx, please report it" for where, detail in found] + \
        [f"{entry.get('file')}: warning: code generation in parallel parts failed{n.removeprefix(PARTS_FAILED)}, so the "
         f"module was compiled whole ({entry.get('arch')}); this is a bug in shflx, please report it"
         for n in entry.get("notes", ()) if n.startswith(PARTS_FAILED)]


def relative(where: str, cwd: str | None = None) -> str:
    """A "file:line:col" frame with its file relative to the working directory when it is under it
    (as clang prints a file named relative to it), else as it is: one convention for .cu and .hip."""
    m = re.match(r"^(/[^:]*)(.*)$", where)
    if m is None:
        return where
    path, rest = m.groups()
    base = cwd if cwd is not None else os.getcwd()
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return where
    return where if rel.startswith("..") else f"{rel}{rest}"


def written(site: dict[str, Any]) -> str:
    """A site's call as the user wrote it: the CUDA call its operands spell, after the intrinsic or
    library call it is inside (`__match_any_sync`, `cub::WarpReduce::Sum`) when that is another."""
    cuda, intrinsic = site["cuda"], site.get("intrinsic")
    return f"{intrinsic}, through {cuda}" if intrinsic and not cuda.startswith(f"{intrinsic}(") else cuda


def chain_inside(chain: dict[str, Any]) -> str:
    """` in cub::WarpReduce::Sum` for a chain inside an intrinsic or library call, else ""."""
    name = chain.get("intrinsic")
    return f" in {name}" if name and name not in INTRINSIC_MODES else ""


def _relative_entries(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cwd = os.getcwd()
    for item in items:
        item["location"] = relative(item["location"], cwd)
        if item.get("inlined"):
            item["inlined"] = [relative(f, cwd) for f in item["inlined"]]
    return items


def compile_entry(res: CompileResult, source: str, arch: str, output: str, asm: bool = False,
                  **extra: Any) -> dict[str, Any]:
    """The report entry of one (file, target) compile (docs/report-schema.md), as `shflx compile`
    and the build launcher both write it; `arch` as given (a target ID keeps its features);
    `extra` keys (the launcher's `semantics`) go in too."""
    resynth = [c for c in res.chains if c.cost is not None]     # the others are costed per site
    entry = {"file": source, "arch": arch, "wave": res.wave, "output": output, "notes": res.notes, **extra,
             "sites": _relative_entries([r.to_json() for r in res.sites]),
             "chains": _relative_entries([c.to_json() for c in res.chains]),
             "kernels": res.kernels,
             "summary": {"sites": len(res.sites), "chains": len(res.chains),
                         "cost": sum(r.cost for r in res.sites) + sum(c.cost for c in resynth),
                         "baseline_cost": sum(r.baseline_cost for r in res.sites)
                         + sum(c.baseline_cost for c in resynth)}}
    if arch.startswith("sm_"):
        entry["loads"] = res.loads
        entry["summary"]["rewritten_loads"] = sum(e.get("status") == "rewritten" for e in res.loads)
    if asm:
        entry["summary"]["instructions"] = instruction_counts(res.output)
    return entry
