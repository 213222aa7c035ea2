"""One function of LLVM IR text as a compiler pass needs it: SSA definitions with their module line,
the users of every value, basic blocks with their branches and successors, post-dominators, and
the CUDA lanes a lane condition can be true on (the lane-function evaluator over threadIdx.x and
mbcnt). Text in, facts out; shared by the chain recognizer and the lane-demand analysis."""
from __future__ import annotations

import re
from functools import cached_property, lru_cache

from ..cuda import FULL_MASK
from .constants import ModuleConstants
from .evaluate import MAX_BLOCK_THREADS, TID_X_CALLS, LaneEvaluator, phi_incoming
from .reach import reached_union
from .text import DEF, LABEL, LABEL_REF, constant_tables, function_waves, functions

_TOKEN = re.compile(r"%[\w.\-]+")
_LITERAL = re.compile(r"-?\d+|true|false")
# _slice_facts' flags
_UNEVALUABLE, _MBCNT, _WORKITEM = 1, 2, 4
_READS_TID = 1                     # from_tid's flag
_COND_BR = re.compile(r"^br i1 (%[\w.\-]+), label %([\w.\-]+), label %([\w.\-]+)")


class FunctionIR(LaneEvaluator):
    """One function's SSA defs (with their module line), uses, basic blocks and lane conditions."""

    def __init__(self, name: str, lines: list[str], params: list[str], first: int,
                 constants: ModuleConstants | None = None, wave: int = 64):
        super().__init__(name, lines, params, constants, wave)
        self.line_of: dict[str, int] = {}
        self.users: dict[str, list[str | int]] = {}
        self.block_of: list[str] = []
        self.branch_to: dict[str, tuple[str, str, bool]] = {}   # block -> (pred block, cond, taken-if-true)
        self.edges: dict[tuple[str, str], tuple[str, bool]] = {}  # (block, successor) -> (cond, taken-if-true)
        block = "entry"
        for k, line in enumerate(lines, first):
            stripped = line.strip()
            m = LABEL.match(stripped)
            if m and not stripped.startswith(("%", "call", "store")):
                block = m.group(1)
            self.block_of.append(block)
            d = DEF.match(line)
            target = d.group(1) if d else k
            if d:
                self.line_of[d.group(1)] = k
            body = d.group(2) if d else stripped
            for tok in set(_TOKEN.findall(body.split(", !")[0])):
                self.users.setdefault(tok, []).append(target)
            br = _COND_BR.match(stripped) if stripped.startswith("br ") else None
            if br:
                self.branch_to.setdefault(br.group(2), (block, br.group(1), True))
                self.branch_to.setdefault(br.group(3), (block, br.group(1), False))
                if br.group(2) != br.group(3):
                    self.edges[(block, br.group(2))] = (br.group(1), True)
                    self.edges[(block, br.group(3))] = (br.group(1), False)
        self.first = first
        self.lines = lines
        self.preds: dict[str, int] = {}
        for line in lines:
            for lab in LABEL_REF.findall(line):
                self.preds[lab] = self.preds.get(lab, 0) + 1

    def line(self, k: int) -> str:
        """The text of module line `k` (a user that defines no value: a store, a branch, a call)."""
        return self.lines[k - self.first]

    def block_at(self, k: int) -> str:
        return self.block_of[k - self.first]

    @cached_property
    def successors(self) -> dict[str, list[str]]:
        """Block -> the blocks its terminator can branch to (every `label %B` in the block, so a
        multi-line `switch` counts), in block order; a block of `ret`/`unreachable` has none."""
        out: dict[str, list[str]] = {}
        for line, block in zip(self.lines, self.block_of):
            succ = out.setdefault(block, [])
            for lab in LABEL_REF.findall(line):
                if lab not in succ:
                    succ.append(lab)
        return out

    @cached_property
    def _post_dominators(self) -> dict[str, int]:
        """Block -> bitset (over the order of `successors`) of the blocks on every path from it to
        a function exit (itself included); every bit set where no exit is reachable."""
        names = list(self.successors)
        index = {b: i for i, b in enumerate(names)}
        every = (1 << len(names)) - 1
        pdom = {b: (1 << index[b]) if not self.successors[b] else every for b in names}
        changed = True
        while changed:
            changed = False
            for b in reversed(names):
                succ = [s for s in self.successors[b] if s in index]
                if not succ:
                    continue
                meet = every
                for s in succ:
                    meet &= pdom[s]
                new = meet | 1 << index[b]
                if new != pdom[b]:
                    pdom[b], changed = new, True
        return pdom

    @cached_property
    def _reach_exit(self) -> set[str]:
        """The blocks from which a function exit (a block without successors) is reachable."""
        preds: dict[str, list[str]] = {}
        for b, succ in self.successors.items():
            for s in succ:
                preds.setdefault(s, []).append(b)
        out = {b for b, succ in self.successors.items() if not succ}
        todo = list(out)
        while todo:
            for p in preds.get(todo.pop(), []):
                if p not in out:
                    out.add(p)
                    todo.append(p)
        return out

    def ipdom(self, block: str) -> str | None:
        """The immediate post-dominator of `block` (where its branches meet again); None when no
        exit is reachable from it or nothing post-dominates it but the exit."""
        pdom = self._post_dominators
        names = list(self.successors)
        mine = pdom.get(block)
        if mine is None or block not in self._reach_exit:
            return None
        strict = [names[i] for i in range(len(names)) if mine >> i & 1 and names[i] != block]
        best = [d for d in strict if bin(pdom[d]).count("1") == bin(mine).count("1") - 1]
        return best[0] if best else None

    def branch_region(self, block: str) -> list[str] | None:
        """The blocks a conditional branch at the end of `block` chooses between: those reachable
        from it before its immediate post-dominator (where every path meets again). None when it
        has no post-dominator or the region holds a cycle (a lane taking another path might then
        never arrive)."""
        join = self.ipdom(block)
        if join is None:
            return None
        region: list[str] = []
        todo = [s for s in self.successors.get(block, []) if s != join]
        while todo:
            b = todo.pop()
            if b == block:
                return None                       # a path back to the branch: a loop
            if b in region:
                continue
            region.append(b)
            todo += [s for s in self.successors.get(b, []) if s != join]
        inside = set(region)
        state: dict[str, int] = {}                # depth-first search for a cycle inside the region
        for start in region:
            stack = [(start, iter(self.successors.get(start, [])))]
            if state.get(start):
                continue
            state[start] = 1
            while stack:
                node, it = stack[-1]
                nxt = next((s for s in it if s in inside), None)
                if nxt is None:
                    state[node] = 2
                    stack.pop()
                elif state.get(nxt) == 1:
                    return None
                elif not state.get(nxt):
                    state[nxt] = 1
                    stack.append((nxt, iter(self.successors.get(nxt, []))))
        return region

    def op(self, tok: str) -> str:
        inst = self.defs.get(tok, "")
        return inst.split()[0] if inst else ""

    def aliases(self, tok: str) -> set[str]:
        """`tok` and every bitcast of it, transitively, both ways."""
        out, todo = {tok}, [tok]
        while todo:
            t = todo.pop()
            src = self._copy_of(t)
            if src is not None and src not in out:
                out.add(src)
                todo.append(src)
            for u in self.users.get(t, []):
                if isinstance(u, str) and self._copy_of(u) == t and u not in out:
                    out.add(u)
                    todo.append(u)
        return out

    def _copy_of(self, tok: str) -> str | None:
        """The value `tok` copies: a bitcast, or `add X, 0` (the PTX translator's moves)."""
        inst = self.defs.get(tok, "")
        if inst.startswith("bitcast "):
            return self.operands(inst)[0]
        m = re.match(r"^add i32 (%[\w.\-]+), 0(,|$)", inst)
        return m.group(1) if m else None

    def _conjuncts(self, cond: str, negate: bool) -> list[str]:
        """The parts of `cond` that must all hold (negate=False: and; negate=True: or)."""
        inst = self.defs.get(cond, "")
        ops = self.operands(inst) if inst else []
        if len(ops) == 2 and inst.startswith("and i1 ") and not negate:
            return ops
        if len(ops) == 2 and inst.startswith("or i1 ") and negate:
            return ops
        if len(ops) == 3 and inst.startswith("select i1 "):
            if not negate and ops[2] == "false":
                return ops[:2]
            if negate and ops[1] == "true":
                return [ops[0], ops[2]]
        return []

    def from_tid(self, tok: str) -> bool:
        """Whether anything in `tok`'s backward slice (through loads and phis too: conservative)
        reads threadIdx.x: lanes read off it assume lane = threadIdx.x % 32."""
        return bool(self._reach_flags(tok, self._tid_node) & _READS_TID)

    def _tid_node(self, tok: str) -> tuple[int, list[str]]:
        """from_tid's graph: every defined operand of every instruction."""
        inst = self.defs.get(tok, "")
        if any(c in inst for c in TID_X_CALLS):
            return _READS_TID, []
        if self.linear_bits(tok) is not None:      # the lane exactly, whatever the block's shape
            return 0, []
        return 0, [o for o in _TOKEN.findall(inst) if o in self.defs]

    def _slice_node(self, tok: str) -> tuple[int, list[str]]:
        """The lane-condition slice's graph (what its text holds; a param or load ends it)."""
        if _LITERAL.fullmatch(tok):
            return 0, []
        inst = self.defs.get(tok)
        if self.linear_bits(tok) is not None:      # low bits of the linear thread id: the lane's
            return 0, []
        if inst is None or inst.split()[0] == "load":
            return _UNEVALUABLE, []
        flags = (_MBCNT if "mbcnt" in inst else 0) | (_WORKITEM if "workitem.id" in inst else 0)
        if inst.split()[0] in ("call", "tail"):
            return flags, []
        return flags, phi_incoming(inst) if inst.startswith("phi ") else self.operands(inst)

    def _slice_facts(self, tok: str) -> int:
        """What `tok`'s backward slice holds, as flags: _UNEVALUABLE where it reaches a param or
        a load (the lane condition is then not a function of the thread id), _MBCNT and
        _WORKITEM where an instruction of it names mbcnt or workitem.id."""
        return self._reach_flags(tok, self._slice_node)

    @cached_property
    def _reach_memo(self) -> dict[str, dict]:
        """Per graph (_tid_node, _slice_node): the unions reached_union has completed."""
        return {}

    def _reach_flags(self, root: str, node) -> int:
        """reached_union over the graph `node` describes, its unions kept per function and graph."""
        return reached_union(root, node, self._reach_memo.setdefault(node.__name__, {}))

    def lane_condition(self, cond: str, negate: bool = False, exact: bool = False) -> int | None:
        """CUDA lanes (bit per lane 0..31) for which `cond` can be true in some warp of a block,
        when it is a function of the thread id alone; None otherwise. A conjunction (`and i1`,
        `select i1 a, i1 b, i1 false`; or the negation of a disjunction) can be true only where
        each of its lane-decidable parts can: the intersection of those bounds the lanes.
        `exact`: the lanes where it is true in every warp alike (a step's guard must be the same
        mask in each warp; the union above only bounds which lanes use a value), else None."""
        key = (cond, negate, exact)
        memo = self.__dict__.setdefault("_lane_memo", {})
        if key not in memo:
            memo[key] = self._lane_condition(cond, negate, exact)
        return memo[key]

    def _lane_condition(self, cond: str, negate: bool, exact: bool) -> int | None:
        facts = self._slice_facts(cond)
        if facts & _UNEVALUABLE:
            if exact:
                return None
            parts = self._conjuncts(cond, negate)
            known = [k for k in (self.lane_condition(p, negate) for p in parts) if k is not None]
            if not known:
                return None
            out = FULL_MASK
            for k in known:
                out &= k
            return out
        masks = self._warp_masks(cond, facts, lambda v: (v & 1) != negate)
        if masks is None:
            return None
        if exact:
            return masks[0] if all(m == masks[0] for m in masks) else None
        out = 0
        for m in masks:
            out |= m
        return out

    def _warp_masks(self, tok: str, facts: int, holds) -> list[int] | None:
        """Per warp of a block (or per 32-lane half, for mbcnt), the lanes where `holds(value of
        tok)`; None when the slice (its `_slice_facts`) cannot be evaluated per thread."""
        if facts & _MBCNT and facts & _WORKITEM or facts & (_MBCNT | _WORKITEM) and self.wide_linear(tok):
            return None                   # one thread number cannot stand for both (wide_linear)
        ids = range(self.wave) if facts & _MBCNT else range(MAX_BLOCK_THREADS)
        per_warp: dict[int, int] = {}
        try:
            values = self.full_values(tok, len(ids))
        except (KeyError, ValueError, IndexError, ZeroDivisionError):
            return None
        for tid, v in zip(ids, values):
            if holds(v):
                per_warp[tid // 32] = per_warp.get(tid // 32, 0) | 1 << (tid % 32)
        return [per_warp.get(w, 0) for w in range(len(ids) // 32)]

    def switch_lanes(self, block: str, target: str) -> tuple[int, str] | None:
        """(CUDA lanes that can go from `block` to `target` through the `switch` ending it, its
        value) when the switch value is a function of the thread id; None otherwise."""
        sw = re.match(r"^switch (i\d+) (\S+), label %([\w.\-]+) \[(.*)\]$", self.exits.get(block, ""))
        if not sw:
            return None
        bits = (1 << int(sw.group(1)[1:])) - 1
        cases = {int(c) & bits: lab for c, lab in re.findall(r"i\d+ (-?\d+), label %([\w.\-]+)", sw.group(4))}
        facts = self._slice_facts(sw.group(2))
        if facts & _UNEVALUABLE:
            return None
        masks = self._warp_masks(sw.group(2), facts, lambda v: cases.get(v & bits, sw.group(3)) == target)
        if masks is None:
            return None
        out = 0
        for m in masks:
            out |= m
        return out, sw.group(2)


class ModuleFunctions:
    """The functions of one module's IR text, each FunctionIR built when first asked for and
    then shared (with what it has memoized) by every pass over the same text: the chain, chain
    group and demand passes each read the largest modules' functions."""

    def __init__(self, ir: str):
        self.lines = ir.splitlines()
        self.spans = functions(self.lines)        # (name, first line, last line, uniform params)
        self._tables: ModuleConstants | None = None
        self._waves: dict[str, int] | None = None
        self._bodies: dict[int, FunctionIR] = {}

    def body(self, name: str, start: int, end: int, params: list[str]) -> FunctionIR:
        """The function `name` of `spans` (its `define` on line `start`, `}` on `end`)."""
        got = self._bodies.get(start)
        if got is None:
            if self._tables is None:
                self._tables, self._waves = constant_tables(self.lines), function_waves(self.lines)
            got = self._bodies[start] = FunctionIR(name, self.lines[start + 1:end], params, start + 1,
                                                   self._tables, self._waves.get(name, 64))
        return got


@lru_cache(maxsize=1)
def module_functions(ir: str) -> ModuleFunctions:
    """The ModuleFunctions of `ir`, one per module text (the passes over a module run in turn)."""
    return ModuleFunctions(ir)
