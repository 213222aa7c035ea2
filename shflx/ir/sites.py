"""Warp-shuffle sites in AMDGPU (or NVPTX) LLVM IR: the prelude's markers
`call i32 @__shflx_shfl_sync(mode, mask, v, b, c)`, each operand classified by the evaluator, with
the source location from the line tables."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from .body import module_functions
from .evaluate import SHUFFLE_MARKER as MARKER, Operand
from .text import call_sites, operand_token, split_args

TID_LANE_NOTE = ("operand computed from threadIdx.x: assumes the CUDA lane is threadIdx.x % 32 "
                 "(1-D blocks, or blockDim.x a multiple of 32), as the source itself does")
MODE_NAMES = {0: "up", 1: "down", 2: "bfly", 3: "idx"}
_CALL = re.compile(r"^(?P<res>%[\w.\-]+) = (?:tail |musttail |notail )?call [^@]*@" + MARKER +
                   r"\((?P<args>.*)\)(?P<rest>[^()]*)$")     # args may hold constant expressions


@dataclass
class Site:
    function: str
    line_index: int              # line number (0-based) in the module text
    result: str
    mode: Operand
    mask: Operand
    value: str                   # IR operand carrying the shuffled value
    b: Operand
    c: Operand
    location: str = "?"          # file:line:col
    notes: list[str] = field(default_factory=list)

    @property
    def constant_map(self) -> bool:
        return all(op.kind in ("const", "lane") for op in (self.mode, self.b, self.c)) and self.mode.kind == "const"


def find_sites(ir: str) -> list[Site]:
    """The marker sites of `ir`, read once per module text (the chain, demand and lowering passes
    each ask); every call gets its own Site objects, whose notes the passes add to."""
    return [replace(s, notes=list(s.notes)) for s in _module_sites(ir)]


@lru_cache(maxsize=4)
def _module_sites(ir: str) -> tuple[Site, ...]:
    sites = []
    # each function's body is the module's shared one (ir.body), which the chain and demand passes
    # read next: classifying the operands is the first thing done with it
    for fn, k, m, where in call_sites(ir, _CALL, f"@{MARKER}(", module_functions(ir).body):
        args = [operand_token(a) for a in split_args(m.group("args"))]
        if len(args) != 5:
            continue
        site = Site(fn.name, k, m.group("res"), fn.classify(args[0]), fn.classify(args[1]), args[2],
                    fn.classify(args[3], low_bits=True), fn.classify(args[4], per_lane=True), where)
        if any(o.from_tid for o in (site.b, site.c)):
            site.notes.append(TID_LANE_NOTE)
        sites.append(site)
    return tuple(sites)


def site_map(site: Site) -> tuple[str, np.ndarray] | None:
    """(mode, source lanes 0..31, read-only) of a constant-map site; None when the map is not constant."""
    if not site.constant_map:
        return None
    return _lane_map(site.mode.value & 3, site.b.value if site.b.kind == "const" else site.b.lanes,
                     site.c.value if site.c.kind == "const" else site.c.lanes)


@lru_cache(maxsize=4096)
def _lane_map(mode_bits: int, b: int | tuple[int, ...], c: int | tuple[int, ...]) -> tuple[str, np.ndarray]:
    """site_map of one (mode, b, c), computed once (a module repeats them); the lanes read-only."""
    from ..cuda import shfl_sync

    mode = MODE_NAMES.get(mode_bits)
    src, _ = shfl_sync(mode, b if isinstance(b, int) else np.array(b, dtype=np.int64),
                       c if isinstance(c, int) else np.array(c, dtype=np.int64))
    src = np.array(src)
    src.flags.writeable = False
    return mode, src
