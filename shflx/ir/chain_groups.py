"""Chains whose steps shuffle several values with one lane map, combined by the code's own
instructions: argmax/argmin on (value, index), Welford (count, mean, M2), online softmax (max,
rescaled sum), 64-bit values shuffled as two 32-bit halves, half2 with a written-out combine.

A step is the set of constant-map, full-mask shuffles of one basic block with the same operands;
step B follows step A when every value B shuffles is computed (through per-lane instructions,
selects, phis and branches that only compute) from what A shuffled or received, and nothing else
shuffled feeds it. The combine in between is left exactly as written (compares, branches,
divisions, transcendental calls), so no reassociation is assumed and the order of operations of
every lane is the code's; what shflx changes is each shuffle's lowering, which must be right only
on the lanes the following steps and the final uses read (ir.demand). Text in, facts out."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..cuda import FULL_MASK
from .body import FunctionIR, module_functions
from .demand import DIVISIONS, PER_LANE_OPS, is_per_lane_call
from .reach import reached_union
from .sites import MODE_NAMES, Site

@dataclass
class GroupChain:
    """Steps (each a list of sites with one lane map, in line order) and the values' IR types."""

    function: str
    steps: list[list[Site]]
    types: tuple[str, ...]

    @property
    def values(self) -> int:
        return len(self.steps[0])

    @property
    def shape(self) -> str:
        modes = {MODE_NAMES[s[0].mode.value & 3] for s in self.steps}
        return {frozenset({"bfly"}): "butterfly", frozenset({"down"}): "down-tree",
                frozenset({"up"}): "up-scan"}.get(frozenset(modes), "mixed")


def find_group_chains(ir: str, sites: list[Site], taken: set[int]) -> list[GroupChain]:
    """Chains of two or more steps among `sites` (constant maps, constant full masks), leaving out
    the sites of `taken` (line indices of single-value chains already recognized)."""
    by_fn: dict[str, list[Site]] = {}
    for s in sites:
        if (s.line_index not in taken and s.constant_map and s.mask.kind == "const"
                and s.mask.value & FULL_MASK == FULL_MASK):
            by_fn.setdefault(s.function, []).append(s)
    if not by_fn:
        return []
    module = module_functions(ir)
    out: list[GroupChain] = []
    for name, start, end, params in module.spans:
        mine = by_fn.get(name)
        if not mine or len(mine) < 2:
            continue
        body = module.body(name, start, end, params)
        out += _chains_in(body, mine)
    return out


def _chains_in(body: FunctionIR, sites: list[Site]) -> list[GroupChain]:
    groups: dict[tuple, list[Site]] = {}
    for s in sorted(sites, key=lambda s: s.line_index):
        key = (body.block_at(s.line_index), s.mode.value & 3, s.b.value if s.b.kind == "const" else s.b.lanes,
               s.c.value if s.c.kind == "const" else s.c.lanes)
        groups.setdefault(key, []).append(s)
    step_of = {s.result: key for key, members in groups.items() for s in members}
    fed_by: dict[tuple, set[tuple]] = {}            # step -> the steps whose shuffles feed its values
    fed = shuffles_fed(body, step_of)               # bit k: the k-th shuffle of step_of
    step_bits: dict[tuple, int] = {}
    for k, key in enumerate(step_of.values()):
        step_bits[key] = step_bits.get(key, 0) | 1 << k
    for key, members in groups.items():
        bits = 0
        for s in members:
            bits |= fed(s.result)
        for step, mask in step_bits.items():
            if bits & mask:
                fed_by.setdefault(step, set()).add(key)
    successor: dict[tuple, tuple] = {}
    for key, sources in fed_by.items():
        # the latest source: every other source feeds it too (a step's own values carry the
        # earlier steps' results forward, so those reach the later shuffles as well)
        latest = [a for a in sources if a != key and sources - {a, key} <= fed_by.get(a, set())]
        if key in sources or len(latest) != 1 or len(groups[latest[0]]) != len(groups[key]):
            continue
        if latest[0] in successor:                  # two steps follow one: no chain through it
            successor[latest[0]] = None
        else:
            successor[latest[0]] = key
    successor = {a: b for a, b in successor.items() if b is not None}
    heads = [k for k in successor if k not in successor.values()]
    out = []
    for head in sorted(heads, key=lambda k: groups[k][0].line_index):
        run, seen = [head], {head}
        while run[-1] in successor and successor[run[-1]] not in seen and successor[run[-1]][1] == head[1]:
            run.append(successor[run[-1]])          # one shuffle mode (a final broadcast is a use)
            seen.add(run[-1])
        if len(run) >= 2:               # the types inside the chain (a first value may be a constant)
            types = tuple(_value_type(body, s) for s in groups[run[1]])
            if types == ("64-bit (low half)", "64-bit (high half)"):
                types = ("64-bit (two 32-bit halves)",)
            out.append(GroupChain(body.name, [groups[k] for k in run], types))
    return out


def shuffles_fed(body: FunctionIR, markers: dict[str, tuple]) -> Callable[[str], int]:
    """A function giving, for a shuffle's result, the shuffles whose value operand is computed from
    it through per-lane instructions (never through another shuffle), as bits (bit k: the k-th
    of `markers`). Every value's shuffles are
    found once for the whole function (ir.reach: strongly connected components of the per-lane
    values, each a bit set of shuffles): linear in the function, not once per shuffle."""
    names = list(markers)
    bit = {m: 1 << k for k, m in enumerate(names)}

    def follows(u: object) -> bool:
        if not isinstance(u, str) or u not in body.defs:
            return False
        if u in markers:
            return True
        inst = body.defs[u]
        op = inst.split()[0]
        return op in PER_LANE_OPS or op in DIVISIONS or op in ("phi", "select") or \
            op in ("call", "tail") and is_per_lane_call(inst)

    succ: dict[str, list[str]] = {}

    def successors(tok: str) -> list[str]:
        if tok not in succ:
            succ[tok] = [u for u in dict.fromkeys(body.users.get(tok, [])) if follows(u)]
        return succ[tok]

    reached: dict[str, int] = {}           # a per-lane value -> the shuffles it feeds (bits)

    def feeds(tok: str) -> tuple[int, list[str]]:
        """The shuffles `tok` feeds directly (bits), and the per-lane values it flows on into."""
        bits = 0
        for u in successors(tok):
            if u in markers:
                bits |= bit[u]
        return bits, [u for u in successors(tok) if u not in markers]

    def shuffles_fed_by(start: str) -> int:
        bits = 0
        for u in successors(start):
            if u in markers:
                bits |= bit[u]
            else:
                bits |= reached_union(u, feeds, reached)
        return bits & ~bit.get(start, 0)
    return shuffles_fed_by


def _value_type(body: FunctionIR, site: Site) -> str:
    """The type the code shuffles: i32, or the float / 64-bit / half2 value the i32 comes from."""
    inst = body.defs.get(site.value, "")
    head = inst.split()[0] if inst else ""
    if head == "bitcast" and " float " in f" {inst} ":
        return "float"
    if re.match(r"^trunc (?:nuw |nsw )*i64 ", inst):
        src = body.defs.get(body.operands(inst)[0], "")
        return "64-bit (high half)" if src.startswith("lshr i64") else "64-bit (low half)"
    return _packed_type(body, site.result) or "i32"


_PACKED = {"half": ("__half", "__half2"), "bfloat": ("__nv_bfloat16", "__nv_bfloat162")}


def _packed_type(body: FunctionIR, tok: str) -> str | None:
    """The CUDA type of a 32-bit shuffle result the code reads as 16-bit floats (`trunc` to i16,
    `bitcast` to half or bfloat): `__half2` / `__nv_bfloat162` when its high half is read as one
    too (`lshr 16`), else `__half` / `__nv_bfloat16`; None otherwise."""
    def as_float16(t: str) -> str | None:
        for u in body.users.get(t, []):
            inst = body.defs.get(u, "") if isinstance(u, str) else ""
            m = re.match(r"^trunc (?:nuw |nsw )*i32 \S+ to i16", inst)
            if not m:
                continue
            for v in body.users.get(u, []):
                cast = re.match(r"^bitcast i16 \S+ to (half|bfloat)\b", body.defs.get(v, "") if isinstance(v, str) else "")
                if cast:
                    return cast.group(1)
        return None
    low = as_float16(tok)
    high = next((kind for u in body.users.get(tok, []) if isinstance(u, str)
                 and re.match(r"^lshr i32 \S+, 16\b", body.defs.get(u, "")) and (kind := as_float16(u))), None)
    kind = low or high
    return None if kind is None else _PACKED[kind][1 if low and high else 0]
