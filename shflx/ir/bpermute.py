"""`llvm.amdgcn.ds.bpermute` calls in AMDGPU IR from other front ends (HIP's `__shfl_*`): the lane
each hardware lane reads, when the address is a function of the lane alone, so it can be re-synthesized."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .evaluate import LaneEvaluator
from .text import call_sites, operand_token, own_bodies, split_args

_BPERM = re.compile(r"^(?P<res>%[\w.\-]+) = (?:tail )?call [^@]*@llvm\.amdgcn\.ds\.bpermute(?:\.i32)?\((?P<args>.*)\)(?P<rest>[^()]*)$")


@dataclass
class BpermuteSite:
    function: str
    line_index: int
    result: str
    value: str
    lanes: tuple[int, ...] | None     # lane each hardware lane reads, when the address is lane-only
    location: str = "?"
    from_tid: bool = False            # the address reads threadIdx.x: the lane only in some block shapes


def find_bpermute_sites(ir: str, wave: int) -> list[BpermuteSite]:
    """Every ds.bpermute call; `lanes` only where the address is a function of the hardware lane in
    every block shape: mbcnt, the linear thread id's low bits, constants. threadIdx.x is the lane
    only where the block's rows are whole waves (in a (16, 4) block hardware lane 16 has
    threadIdx.x 0), and no run-time check guards a bpermute, so an address read off it has none."""
    out = []
    for ev, k, m, where in call_sites(ir, _BPERM, "@llvm.amdgcn.ds.bpermute", own_bodies(ir, LaneEvaluator)):
        addr, value = (operand_token(a) for a in split_args(m.group("args")))
        tid = ev._uses_tid(addr, set())
        lanes = None if tid else ev.lane_values(addr, wave)
        out.append(BpermuteSite(ev.name, k, m.group("res"), value, lanes, where, from_tid=tid))
    return out
