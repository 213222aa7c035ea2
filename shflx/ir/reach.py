"""The union of per-value facts over everything a value reaches in a graph with cycles (an SSA
function's operand or use graph: phis close loops), each value's union computed once: strongly
connected components (Tarjan's algorithm, iterative) share one. Linear in the graph, where a
search per query is quadratic on the largest real functions."""
from __future__ import annotations

from typing import Callable, Hashable, Iterable

Node = Callable[[Hashable], "tuple[int, Iterable[Hashable]]"]


def reached_union(root: Hashable, node: Node, memo: dict) -> int:
    """The union (bitwise or) of `node(v)[0]` over every v reachable from `root` (itself
    included) along `node(v)[1]`. `memo` holds the unions already known (one dict per graph) and
    gets every value this call completes."""
    if root in memo:
        return memo[root]
    index: dict[Hashable, int] = {}
    low: dict[Hashable, int] = {}
    acc: dict[Hashable, int] = {}
    stack: list[Hashable] = []
    on_stack: set[Hashable] = set()
    frames: list[tuple[Hashable, Iterable]] = []

    def enter(v: Hashable) -> None:
        index[v] = low[v] = len(index)
        flags, children = node(v)
        acc[v] = flags
        stack.append(v)
        on_stack.add(v)
        frames.append((v, iter(children)))

    enter(root)
    while frames:
        v, children = frames[-1]
        child = next(children, _DONE)
        if child is not _DONE:
            if child in memo:
                acc[v] |= memo[child]
            elif child not in index:
                enter(child)
            elif child in on_stack:         # a cycle back into the component being built
                low[v] = min(low[v], index[child])
            continue
        frames.pop()
        if frames:
            parent = frames[-1][0]
            low[parent] = min(low[parent], low[v])
            acc[parent] |= acc[v]
        if low[v] == index[v]:              # v roots a component, all of whose values are done
            members = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                members.append(w)
                if w == v:
                    break
            total = 0
            for w in members:
                total |= acc[w]
            for w in members:
                memo[w] = total
    return memo[root]


_DONE = object()

__all__ = ["reached_union"]
