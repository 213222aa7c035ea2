"""The exact general lowering of shfl.sync: any b, c and member mask, per lane, via ds_bpermute.

The PTX pseudocode (cuda_ptx_shfl.md §2.2) as a short list of i32 operations, rendered to LLVM IR
and also evaluated with numpy so tests check the emitted arithmetic against the CUDA model for
every b and c. The source lane is kept inside the lane's own 32-lane half (DESIGN decision 2),
which is also what GFX10/11 wave64 ds_bpermute needs (spec §6). Used for runtime-uniform and
per-lane dynamic operands, for maps nothing cheaper was proven for, and for --baseline (this is
how HIP's headers lower every shuffle)."""
from __future__ import annotations

from typing import Callable

import numpy as np

# (result, op, a, b): ops are LLVM i32 instructions; "icmp.sle"/"icmp.sge" give i1, "select" uses
# the i1 in a with operands b = (then, else).
COMMON = [
    ("bval", "and", "%b", "31"), ("cval", "and", "%c", "31"), ("c8", "lshr", "%c", "8"),
    ("seg", "and", "%c8", "31"), ("nseg", "xor", "%seg", "-1"), ("minl", "and", "%lane", "%seg"),
    ("cl", "and", "%cval", "%nseg"), ("maxl", "or", "%minl", "%cl"),
]
BY_MODE = {
    "up": [("j", "sub", "%lane", "%bval"), ("ok", "icmp.sge", "%j", "%maxl")],
    "down": [("j", "add", "%lane", "%bval"), ("ok", "icmp.sle", "%j", "%maxl")],
    "bfly": [("j", "xor", "%lane", "%bval"), ("ok", "icmp.sle", "%j", "%maxl")],
    "idx": [("tb", "and", "%bval", "%nseg"), ("j", "or", "%minl", "%tb"), ("ok", "icmp.sle", "%j", "%maxl")],
}
TAIL = [("src", "select", "%ok", ("%j", "%lane")), ("srcw", "or", "%src", "%half"), ("addr", "shl", "%srcw", "2")]

_NUMPY: dict[str, Callable] = {
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor, "add": np.add, "sub": np.subtract,
    "lshr": lambda a, b: (a & 0xFFFFFFFF) >> b, "shl": lambda a, b: a << b,
    "icmp.sle": lambda a, b: a <= b, "icmp.sge": lambda a, b: a >= b,
}


def ops(mode: str) -> list[tuple]:
    return COMMON + BY_MODE[mode] + TAIL


def evaluate(mode: str, hw_lane: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The lane each hardware lane reads (what `index >> 2` is), computed by the op list itself."""
    env = {"%b": np.asarray(b, np.int64), "%c": np.asarray(c, np.int64) & 0xFFFFFFFF,
           "%lane": hw_lane & 31, "%half": hw_lane & 32}
    val = lambda t: env[t] if isinstance(t, str) and t.startswith("%") else int(t)  # noqa: E731
    for res, op, a, bb in ops(mode):
        if op == "select":
            env["%" + res] = np.where(val(a), val(bb[0]), val(bb[1]))
        else:
            env["%" + res] = _NUMPY[op](val(a), val(bb))
    return env["%addr"] >> 2


def lane_prologue(wave: int) -> list[str]:
    """IR defining %hw (hardware lane), %lane (CUDA lane) and %half (32 on the upper half)."""
    return ["  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)",
            "  %hw = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)" if wave == 64 else "  %hw = add i32 %lo, 0",
            "  %lane = and i32 %hw, 31", "  %half = and i32 %hw, 32"]


def render(op_list: list[tuple]) -> list[str]:
    """The op list as LLVM IR instructions."""
    lines = []
    for res, op, a, b in op_list:
        if op == "select":
            lines.append(f"  %{res} = select i1 {a}, i32 {b[0]}, i32 {b[1]}")
        elif op.startswith("icmp."):
            lines.append(f"  %{res} = icmp {op[5:]} i32 {a}, {b}")
        else:
            lines.append(f"  %{res} = {op} i32 {a}, {b}")
    return lines


def function_ir(mode: str, wave: int, name: str) -> tuple[str, set[str]]:
    """`i32 @name(i32 %mask, i32 %v, i32 %b, i32 %c)`: the exact CUDA result on every lane."""
    lines = lane_prologue(wave) + render(ops(mode))
    lines.append("  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %v)")
    body = "\n".join(lines)
    text = (f"define internal i32 @{name}(i32 %mask, i32 %v, i32 %b, i32 %c) alwaysinline convergent nounwind {{\n"
            f"entry:\n{body}\n  ret i32 %r\n}}\n")
    return text, {"mbcnt", "ds.bpermute"}
