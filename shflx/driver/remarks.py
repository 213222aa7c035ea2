"""-Rpass=shflx: the report as clang-style remarks on stderr, one per shuffle site and chain, so
IDEs and CI annotate the source line (`file:line:col: remark: ... [-Rpass=shflx]`).

A site is placed where the report places it (ir.frames): its innermost frame in the user's files
(the shuffle inside a __device__ helper, not the kernel line it was inlined into; the user's call of
CUB, not a line inside CUB), naming the intrinsic or library call it is inside; a note gives the
innermost header frame (where in CUB the shuffle is), and each call site of the user's code it was
inlined into follows as a note."""
from __future__ import annotations

from typing import Any

from .report import chain_inside, written

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
            out.append(f"{c['location']}: remark: {arch}: chain of {c['shuffles']} shuffles{chain_inside(c)} ({what}) "
                       f"{how} {TAG}")
        for r in e.get("sites", []):
            where = r["location"] if not r["location"].startswith("?") else e["file"]
            frames = [f for f in r.get("inlined") or [] if not f.startswith("?")]
            k = frames.index(where) if where in frames else -1
            steps = "; ".join(step.split("   ;")[0].strip() for step in r["lowering"])
            kept = f" because {r['notes'][0]}" if r["proof"] == "exact by construction" and r["notes"] else ""
            out.append(f"{where}: remark: {arch}: {written(r)} ({r['class'].strip()}) -> {steps}{kept}; cost "
                       f"{r['cost']:g} vs {r['baseline_cost']:g}, {r['proof']} {TAG}")
            if k > 0:                    # inside a header (CUB, cooperative groups): its innermost frame
                out.append(f"{frames[0]}: note: the shuffle is here, in {r.get('intrinsic') or 'a header'}"
                           f"{f' ({k - 1} more header frame(s) between)' if k > 1 else ''} {TAG}")
            out += [f"{f}: note: inlined from here {TAG}" for f in frames[k + 1:]] if k >= 0 else []
    return out
