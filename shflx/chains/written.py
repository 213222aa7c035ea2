"""A chain exactly as the code writes it, as one LLVM IR helper: each shuffle by its own proven
plan (a helper of its own, read back), then the code's combine and guard `select` on the guard's
run-time condition, step by step.

Where a chain's live lanes or step guards were read off threadIdx.x, its re-synthesized plan is
right only where the CUDA lane is threadIdx.x % 32 (amd.guard); other waves run this helper,
which needs no such premise: the conditions are the code's own values, passed in."""
from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np

from ..amd.llvm_ir import combine_ir, function_ir, local_name
from ..match import lower
from ..pattern import Shuffle, format_pattern
from ..plan import Plan
from ..target import Target
from ..verify.readback import emitted_differences


def guard_conditions(chain: Any) -> list[str]:
    """The IR values of the chain's guard conditions, in step order (arguments of the helper)."""
    return [g.cond for g in chain.guards if g is not None]


def written_ir(chain: Any, target: Target, name: str, attrs: str,
               solve: Callable[[str, Target], Plan] = lower) -> tuple[list[str], set[str], list[str]]:
    """(functions, declaration keys, read-back differences) of `i32 @name(i32 %x, i1 %g0, ...)`:
    the chain as written, one `i1` per guarded step (guard_conditions); each shuffle's proven plan
    from `solve` (match.lower, or the driver's cached lowering of it)."""
    functions: list[str] = []
    needed: set[str] = set()
    wrong: list[str] = []
    lines = ["entry:"]
    params = ["i32 %x"]
    value = "%x"
    k = 0
    for t, (step, guard) in enumerate(zip(chain.steps, chain.guards or (None,) * len(chain.steps))):
        plan = solve(format_pattern(Shuffle(step.operands)), target)
        move = f"{name}.m{t}"
        text, need = function_ir(plan, move, attrs)
        wrong += emitted_differences(plan, text, local_name)
        functions.append(text)
        needed |= need
        lines.append(f"  %m{t} = call i32 @{move}(i32 {value})")
        nxt = f"%v{t}"
        cond = ""
        if guard is not None:
            cond = f"%g{k}"
            params.append(f"i1 {cond}")
            k += 1

        def arm(a: str) -> str:
            return {"moved": f"%m{t}", "own": value, "combined": f"%c{t}"}.get(a) or str(_bits(a))
        if step.fn is None:
            if guard is None:
                raise ValueError("a move step without its guard")
            lines.append(f"  {nxt} = select i1 {cond}, i32 {arm(guard.arms[0])}, i32 {arm(guard.arms[1])}")
        elif guard is None:
            lines += combine_ir(nxt, step.fn, value, f"%m{t}", needed)
        elif guard.where == "before":
            lines.append(f"  %s{t} = select i1 {cond}, i32 {arm(guard.arms[0])}, i32 {arm(guard.arms[1])}")
            lines += combine_ir(nxt, step.fn, value, f"%s{t}", needed)
        else:
            lines += combine_ir(f"%c{t}", step.fn, value, f"%m{t}", needed)
            lines.append(f"  {nxt} = select i1 {cond}, i32 {arm(guard.arms[0])}, i32 {arm(guard.arms[1])}")
        value = nxt
    lines.append(f"  ret i32 {value}")
    functions.append(f"define internal i32 @{name}({', '.join(params)}) {attrs} {{\n" + "\n".join(lines) + "\n}\n")
    return functions, needed, wrong


def _bits(const: str) -> int:
    """The i32 bits of an IR constant: an integer, a float literal, or LLVM's hex (a double's
    bits, rounded to float, as LLVM writes float constants)."""
    if re.fullmatch(r"-?\d+", const):
        return int(const)
    if const.startswith("0x"):
        value = np.frombuffer(int(const, 16).to_bytes(8, "little"), np.float64)[0]
    else:
        value = float(const)
    return int(np.float32(value).view(np.int32))
