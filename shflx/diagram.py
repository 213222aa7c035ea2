"""Lane diagrams of a plan: which input lane every lane holds after every step (`shflx lower --diagram`).

A plan is easier to see than to read: one row per step (the input first, the target's map last),
one column per lane, each cell the input lane it holds (Provenance domain, the same Gathers the
prover uses). Text for a terminal, in blocks of 16 lanes (a DPP row); SVG for documents, each cell
coloured by the input lane it holds so a permutation shows as a pattern. Pure: Plan in, text out."""
from __future__ import annotations

from dataclasses import dataclass
from html import escape

import numpy as np

from .emulate import Provenance, Trace, walk
from .lanes import OPEN, UNDEF, ZERO, LaneMap
from .plan import Plan

BLOCK = 16                       # lanes per text block: one DPP row
SENTINEL_CELLS = {ZERO: "0!", UNDEF: "?", OPEN: "~"}
LEGEND = "cells: the input lane held; 0! an injected 0, ? garbage, ~ an open question; * differs from the target"


@dataclass(frozen=True)
class Row:
    name: str                    # "x", a step id, or "want"
    note: str                    # the instruction (or what the row is)
    src: np.ndarray              # per lane: input lane or sentinel
    care: np.ndarray | None = None


def rows(plan: Plan, want: LaneMap | None = None) -> list[Row]:
    """The input, every step in order, and (when given) the target map."""
    from .amd.asm import step_asm

    env = walk(plan, Provenance(plan.wave), Trace())
    out = [Row("x", "the input: lane i holds x[i]", np.arange(plan.wave))]
    for step in plan.steps:
        out.append(Row(step.id, step_asm(step, plan.on).split("   ;")[0], np.asarray(env[step.id])))
    if plan.result not in {s.id for s in plan.steps}:
        out.append(Row(plan.result, "the result", np.asarray(env.get(plan.result, np.arange(plan.wave)))))
    if want is not None:
        out.append(Row("want", f"the target '{plan.target}'", want.src, want.care))
    return out


def _cell(src: int) -> str:
    return SENTINEL_CELLS.get(src, str(src))


def text(plan: Plan, want: LaneMap | None = None) -> str:
    """The diagram for a terminal: steps listed, then blocks of 16 lanes, one line per row."""
    rs = rows(plan, want)
    result = plan.result
    got = next((r.src for r in rs if r.name == result), np.arange(plan.wave))
    name_w = max(len(r.name) for r in rs) + 1
    lines = [f"{plan.target or 'plan'} on {plan.arch} (wave{plan.wave}): which input lane each lane holds"]
    lines += [f"  {r.name:<{name_w}} {r.note}" for r in rs]
    for start in range(0, plan.wave, BLOCK):
        lanes = range(start, min(start + BLOCK, plan.wave))
        lines.append("")
        lines.append((f"{'lane':<{name_w}}" + "".join(f"{i:>3} " for i in lanes)).rstrip())
        for r in rs:
            cells = []
            for i in lanes:
                mark = " "
                if r.care is not None and not r.care[i]:
                    c = "."
                else:
                    c = _cell(int(r.src[i]))
                    if r.name == "want" and _wrong(int(got[i]), int(r.src[i])):
                        mark = "*"
                cells.append(f"{c:>3}{mark}")
            lines.append((f"{r.name:<{name_w}}" + "".join(cells)).rstrip())
    lines.append("")
    lines.append(LEGEND + ("; . a lane whose result does not matter" if want is not None else ""))
    return "\n".join(lines) + "\n"


def _wrong(got: int, want: int) -> bool:
    return got != want or got < 0


def _colour(src: int, wave: int) -> str:
    if src < 0:
        return {ZERO: "#ffffff", UNDEF: "#bbbbbb", OPEN: "#e0c0ff"}[src]
    hue = (src * 360 // wave) % 360
    return f"hsl({hue},70%,{72 if src % 2 else 62}%)"


def svg(plan: Plan, want: LaneMap | None = None, cell: int = 18) -> str:
    """The diagram as a standalone SVG: one row of coloured cells per step, labelled with the step
    id and its instruction; target cells that differ are outlined in red."""
    rs = rows(plan, want)
    got = next((r.src for r in rs if r.name == plan.result), np.arange(plan.wave))
    label_w = 8 * max(len(r.name) for r in rs) + 16
    grid_w = cell * plan.wave
    note_w = 8 * max(len(r.note) for r in rs)
    top = 40
    width = label_w + grid_w + 16 + note_w
    height = top + cell * len(rs) + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="monospace" font-size="{cell * 0.5:g}">',
           f'<text x="4" y="16" font-size="13">{escape(plan.target or "plan")} on {escape(plan.arch)} '
           f'(wave{plan.wave}): which input lane each lane holds</text>']
    for i in range(plan.wave):
        out.append(f'<text x="{label_w + i * cell + cell / 2:g}" y="{top - 6}" text-anchor="middle">{i}</text>')
    for k, r in enumerate(rs):
        y = top + k * cell
        out.append(f'<text x="4" y="{y + cell * 0.7:g}">{escape(r.name)}</text>')
        for i in range(plan.wave):
            s = int(r.src[i])
            dont_care = r.care is not None and not r.care[i]
            fill = "#f4f4f4" if dont_care else _colour(s, plan.wave)
            stroke = "#d00" if r.name == "want" and not dont_care and _wrong(int(got[i]), s) else "#666"
            out.append(f'<rect x="{label_w + i * cell}" y="{y}" width="{cell}" height="{cell}" '
                       f'fill="{fill}" stroke="{stroke}" stroke-width="{2 if stroke == "#d00" else 0.5}"/>')
            label = "" if dont_care else _cell(s)
            out.append(f'<text x="{label_w + i * cell + cell / 2:g}" y="{y + cell * 0.68:g}" '
                       f'text-anchor="middle">{escape(label)}</text>')
        out.append(f'<text x="{label_w + grid_w + 8}" y="{y + cell * 0.7:g}">{escape(r.note)}</text>')
    out.append(f'<text x="4" y="{height - 12}">{escape(LEGEND)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
