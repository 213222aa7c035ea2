"""ir.reach and what reads it: each value's union of facts over what it reaches, computed once per
value, against a plain search from every value (random graphs with cycles, as phis close loops);
FunctionIR's threadIdx.x and lane-condition slices built on it, against a search and a direct
evaluation of the same IR."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shflx.ir.body import FunctionIR
from shflx.ir.reach import reached_union


@st.composite
def graphs(draw):
    """Nodes 0..n-1, each with a few flag bits and edges to any nodes (self-loops and cycles)."""
    n = draw(st.integers(1, 12))
    flags = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
    edges = [draw(st.lists(st.integers(0, n - 1), max_size=3)) for _ in range(n)]
    order = draw(st.permutations(range(n)))           # the order the queries come in
    return flags, edges, order


def _search(start, children):
    seen, todo = {start}, [start]
    while todo:
        for c in children(todo.pop()):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_reached_union_is_the_union_over_what_a_search_reaches(case):
    flags, edges, order = case
    memo: dict = {}
    calls: list[int] = []

    def node(v):
        calls.append(v)
        return flags[v], edges[v]

    for v in order:                                     # one memo across queries, as a function's passes share it
        want = 0
        for r in _search(v, lambda u: edges[u]):
            want |= flags[r]
        assert reached_union(v, node, memo) == want, (v, flags, edges)
    assert sorted(calls) == sorted(set(calls)), "a node was expanded twice"


@st.composite
def functions(draw):
    """One function's lines: values built from threadIdx.x, the lane id (mbcnt), a parameter, a
    load, adds and xors of earlier values, and phis of any values (loops); then a compare of
    one of them. Returns (lines, the compare's name, the definitions)."""
    n = draw(st.integers(1, 9))
    defs: dict[str, tuple] = {}
    for k in range(n):
        name = f"%t{k}"
        earlier = [f"%t{j}" for j in range(k)]
        kinds = ["tid", "lane", "param", "load", "const"] + (["add", "xor"] if earlier else []) + ["phi"]
        kind = draw(st.sampled_from(kinds))
        if kind in ("add", "xor"):
            defs[name] = (kind, draw(st.sampled_from(earlier)), draw(st.sampled_from(earlier + ["3", "-1"])))
        elif kind == "phi":
            defs[name] = ("phi", draw(st.sampled_from([f"%t{j}" for j in range(n)])),
                          draw(st.sampled_from([f"%t{j}" for j in range(n)])))
        else:
            defs[name] = (kind, draw(st.integers(0, 40)))
    lines = _lines(defs)
    probe = draw(st.sampled_from(list(defs)))
    bound = draw(st.integers(0, 40))
    lines += [f"  %c = icmp ult i32 {probe}, {bound}", "  ret void"]
    return lines, probe, bound, defs


def _lines(defs: dict[str, tuple]) -> list[str]:
    text = {"tid": "call i32 @llvm.amdgcn.workitem.id.x()", "lane": "call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)",
            "load": "load i32, ptr addrspace(1) %p, align 4"}
    lines = ["entry:"]
    for name, d in defs.items():
        if d[0] in text:
            lines.append(f"  {name} = {text[d[0]]}")
        elif d[0] == "param":
            lines.append(f"  {name} = add i32 %n, {d[1]}")
        elif d[0] == "const":
            lines.append(f"  {name} = add i32 {d[1]}, 1")
        elif d[0] == "phi":
            lines.append(f"  {name} = phi i32 [ {d[1]}, %entry ], [ {d[2]}, %loop ]")
        else:
            lines.append(f"  {name} = {d[0]} i32 {d[1]}, {d[2]}")
    return lines


def _operands(d):
    return [o for o in d[1:] if isinstance(o, str) and o.startswith("%t")]


@settings(max_examples=300, deadline=None)
@given(functions())
def test_from_tid_is_a_search_of_the_slice(case):
    lines, probe, _, defs = case
    body = FunctionIR("f", lines, ["%n", "%p"], 0)

    def operands(t):
        return [probe] if t == "%c" else _operands(defs[t])

    for tok in [*defs, "%c"]:
        reach = _search(tok, operands)
        assert body.from_tid(tok) == any(defs[t][0] == "tid" for t in reach if t in defs), (tok, lines)


def _value(defs, tok, tid, lane):
    kind = defs[tok][0]
    if kind == "tid":
        return tid
    if kind == "lane":
        return lane
    if kind == "const":
        return defs[tok][1] + 1
    a = _value(defs, defs[tok][1], tid, lane)
    b = defs[tok][2]
    b = _value(defs, b, tid, lane) if b.startswith("%") else int(b)
    return (a + b if kind == "add" else a ^ b) & 0xFFFFFFFF


@settings(max_examples=300, deadline=None)
@given(functions())
def test_lane_conditions_read_their_slice(case):
    """A compare whose slice reaches a parameter or a load is no lane condition; one of the lane
    id (or of threadIdx.x) alone, without loops, is the lanes where it holds; the lane id and
    threadIdx.x together cannot be evaluated per thread."""
    _check_lane_condition(*case)


def test_lane_conditions_of_every_pair_of_leaves():
    """Exhaustively: two leaves (threadIdx.x, the lane id, a parameter, a load, a constant)
    combined by add or xor, each value compared with a few bounds."""
    from itertools import product

    leaves = ["tid", "lane", "param", "load", "const"]
    for a, b, op, probe, bound in product(leaves, leaves, ("add", "xor"), ("%t0", "%t1", "%t2"), (1, 5, 33)):
        defs = {"%t0": (a, 3), "%t1": (b, 7), "%t2": (op, "%t0", "%t1")}
        lines = _lines(defs) + [f"  %c = icmp ult i32 {probe}, {bound}", "  ret void"]
        _check_lane_condition(lines, probe, bound, defs)


def _check_lane_condition(lines, probe, bound, defs):
    body = FunctionIR("f", lines, ["%n", "%p"], 0, wave=64)
    reach = _search(probe, lambda t: _operands(defs[t]))
    kinds = {defs[t][0] for t in reach}
    got = body.lane_condition("%c")
    if kinds & {"param", "load"} or {"tid", "lane"} <= kinds:
        assert got is None, lines
        return
    if "phi" in kinds:
        return                                          # a loop's value: the evaluator decides
    threads = range(64) if "lane" in kinds else range(1024)
    want = 0
    for t in threads:
        if _value(defs, probe, t, min(t, 32)) < bound:       # mbcnt.lo: lanes 32.. count 32
            want |= 1 << (t % 32)
    assert got == want, lines
