"""-Rpass=shflx: the report as clang-style remarks on stderr, one per shuffle site and chain, so
IDEs and CI annotate the source line (`file:line:col: remark: ... [-Rpass=shflx]`).

A site is placed at its innermost user frame (the shuffle inside a __device__ helper, not the
kernel line it was inlined into); each call site it was inlined into follows as a note."""
from __future__ import annotations

from typing import Any

TAG = "[-Rpass=shflx]"


def remarks(entries: list[dict[str, Any]]) -> list[str]:
    """The remark lines of compile report entries (one entry per file and target)."""
    out = []
    for e in entries:
        arch = e["arch"]
        for c in e.get("chains", []):
            what = f"{c['shape']} {c['op']} {c['type']}"
            how = (f"re-synthesized as {c['family']}, cost {c['cost']:g} vs {c['baseline_cost']:g}, {c['proof']}"
                   if c["status"] == "re-synthesized" else f"lowered shuffle by shuffle: {c['reason']}")
            out.append(f"{c['location']}: remark: {arch}: chain of {c['shuffles']} shuffles ({what}) {how} {TAG}")
        for r in e.get("sites", []):
            frames = [f for f in r.get("inlined") or [r["location"]] if not f.startswith("?")] or [e["file"]]
            steps = "; ".join(step.split("   ;")[0].strip() for step in r["lowering"])
            kept = f" because {r['notes'][0]}" if r["proof"] == "exact by construction" and r["notes"] else ""
            out.append(f"{frames[0]}: remark: {arch}: {r['cuda']} ({r['class'].strip()}) -> {steps}{kept}; cost "
                       f"{r['cost']:g} vs {r['baseline_cost']:g}, {r['proof']} {TAG}")
            out += [f"{f}: note: inlined from here {TAG}" for f in frames[1:]]
    return out
