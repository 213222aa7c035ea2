"""The redux.sync block-shape guard (issue 6's fix), checked by meaning: for every block shape,
the guard that shflx emits (in PTX and in LLVM IR) must be true exactly when every thread's CUDA
lane equals threadIdx.x % 32, computed here from the definition of the lane (the linear thread id
modulo 32, CUDA Programming Guide "Thread Hierarchy"), not from shflx's formula."""
from __future__ import annotations

import re

import pytest

from shflx.nvidia.redux import GUARD_CODE

SHAPES = [(x, y, z) for x in (1, 2, 3, 8, 16, 24, 31, 32, 33, 48, 64, 96, 128, 1024)
          for y in (1, 2, 3, 4) for z in (1, 2, 3) if x * y * z <= 1024]


def lane_is_tid_x_mod_32(x: int, y: int, z: int) -> bool:
    return all((tx + x * (ty + y * tz)) % 32 == tx % 32
               for tz in range(z) for ty in range(y) for tx in range(x))


def _ptx_guard(ntid: tuple[int, int, int]) -> bool:
    """A tiny PTX interpreter for the instructions GUARD_CODE uses (PTX ISA: mov, and, setp.eq with
    an optional .and combining predicate, or.pred)."""
    regs = {"%ntid.x": ntid[0], "%ntid.y": ntid[1], "%ntid.z": ntid[2]}
    val = lambda a: regs[a] if a in regs else int(a, 0)  # noqa: E731
    for op, args in GUARD_CODE:
        a = args.split()
        if op == "mov.u32":
            regs[a[0]] = val(a[1])
        elif op == "and.b32":
            regs[a[0]] = val(a[1]) & val(a[2])
        elif op == "setp.eq.u32":
            regs[a[0]] = val(a[1]) == val(a[2])
        elif op == "setp.eq.and.u32":
            regs[a[0]] = (val(a[1]) == val(a[2])) and regs[a[3]]
        elif op == "or.pred":
            regs[a[0]] = regs[a[1]] or regs[a[2]]
        else:
            raise AssertionError(f"the test does not know {op}")
    return bool(regs["pg"])


def _ir_guard(ntid: tuple[int, int, int]) -> bool:
    """The LLVM IR guard of the compile path, evaluated line by line."""
    from shflx.chains.shape import ChainStep
    from shflx.cuda import intrinsic_operands
    from shflx.driver.nvidia import guarded_redux_ir

    class Chain:
        steps = (ChainStep(intrinsic_operands("__shfl_xor_sync", 1), "add"),)
        fn, type = "add", "i32"
    text = guarded_redux_ir("g", "llvm.nvvm.redux.sync.add", Chain(), set())
    env = {f"%n{d}": v for d, v in zip("xyz", ntid)}
    for line in text.splitlines():
        m = re.match(r"\s*(%\w+) = (and|or|icmp eq) (?:i32|i1) (%\w+|\d+), (%\w+|\d+)$", line)
        if not m:
            continue
        a, b = (env[o] if o.startswith("%") else int(o) for o in m.group(3, 4))
        env[m.group(1)] = {"and": lambda: a & b, "or": lambda: a | b, "icmp eq": lambda: int(a == b)}[m.group(2)]()
    return bool(env["%g"])


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_the_guard_holds_exactly_when_the_lane_is_threadidx_x_mod_32(shape):
    want = lane_is_tid_x_mod_32(*shape)
    assert _ptx_guard(shape) == want
    assert _ir_guard(shape) == want
