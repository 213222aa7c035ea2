"""Reference verdict for a shflx plan: parse its ``target`` text and compare the symbolic replay
(amd_ref.ref_replay) with what CUDA semantics (cuda_ref) require on every care lane.

Target grammar (whitespace separated; ints may be decimal, negative, or 0x-hex):

    idx|up|down|xor ARG [width W]          CUDA intrinsic semantics; W power of two 1..32 (default 32)
    shfl.MODE b=B c=C                      raw PTX shfl.sync, MODE in up|down|bfly|idx
    map s0,s1,...,s31                      lane i must hold x[s_i]
    reduce OP [width W]                    every lane = OP over its width-W segment
    reduce OP bits B                       every lane = OP over the lanes j with (i ^ j) & ~B == 0
    scan OP [width W] [exclusive]          prefix over seg_start..i (exclusive: ..i-1)
    ... [mask M]                           CUDA member mask (any form)
    ... [lanes M]                          reduce/scan only: only these lanes' results matter

OP in add min max and or xor fadd fmin fmax (min/max are signed int).  A CUDA warp is 32 lanes;
on a wave64 plan AMD lane 32+i is CUDA lane i of a second, independent warp whose inputs are
x[32..63].
"""

from __future__ import annotations

from collections import Counter

from .amd_ref import (
    IDZ_FNS, RefIllegal, RefPlanError, mentions, ref_replay, to_multiset, xval,
)
from .cuda_ref import ref_intrinsic, ref_shfl

WARP = 32

# target OP -> the plan combine fn that implements it
OP_TO_FN = {"add": "add", "min": "smin", "max": "smax", "and": "and", "or": "or", "xor": "xor",
            "fadd": "fadd", "fmin": "fmin", "fmax": "fmax", "umin": "umin", "umax": "umax", "mul": "mul",
            "fmul": "fmul"}

_INTRINSIC_HEADS = {"idx": "__shfl_sync", "up": "__shfl_up_sync", "down": "__shfl_down_sync",
                    "xor": "__shfl_xor_sync"}


def _int(tok: str) -> int:
    try:
        return int(tok, 0)
    except ValueError:
        raise RefPlanError(f"bad integer {tok!r} in target") from None


def _pow2_width(tok: str) -> int:
    w = _int(tok)
    if w < 1 or w > 32 or (w & (w - 1)):
        raise RefPlanError(f"width must be a power of two in 1..32, got {w}")
    return w


class Target:
    """Parsed target.  kind: "move" (per-lane required source lane) or "collective"."""

    def __init__(self, text: str):
        self.text = text
        toks = text.split()
        if not toks:
            raise RefPlanError("empty target")
        head = toks[0]
        rest = toks[1:]
        self.mask = 0xFFFFFFFF
        self.lanes = 0xFFFFFFFF
        self.width = 32
        self.bits = None           # strided reduce: the lane bits combined over
        self.exclusive = False
        self.op = None
        self.src = None            # for "move": CUDA source lane per CUDA lane (32 entries)

        def take_options(tokens, allowed):
            i = 0
            while i < len(tokens):
                t = tokens[i]
                if t not in allowed:
                    raise RefPlanError(f"unexpected {t!r} in target {text!r}")
                if t == "exclusive":
                    self.exclusive = True
                    i += 1
                    continue
                if i + 1 >= len(tokens):
                    raise RefPlanError(f"{t!r} needs a value in target {text!r}")
                v = tokens[i + 1]
                if t == "width":
                    self.width = _pow2_width(v)
                elif t == "mask":
                    self.mask = _int(v) & 0xFFFFFFFF
                elif t == "lanes":
                    self.lanes = _int(v) & 0xFFFFFFFF
                elif t == "bits":
                    self.bits = _int(v) & 31
                i += 2

        if head in _INTRINSIC_HEADS:
            if not rest:
                raise RefPlanError(f"{head} needs an argument")
            arg = _int(rest[0])
            take_options(rest[1:], ("width", "mask"))
            mode, b, c = ref_intrinsic(_INTRINSIC_HEADS[head], arg, self.width)
            self.kind = "move"
            self.src = ref_shfl(mode, b, c)[0]
        elif head.startswith("shfl."):
            mode = head[len("shfl."):]
            if mode not in ("up", "down", "bfly", "idx"):
                raise RefPlanError(f"bad shfl mode in {text!r}")
            b = c = None
            opts = []
            for t in rest:
                if t.startswith("b="):
                    b = _int(t[2:])
                elif t.startswith("c="):
                    c = _int(t[2:])
                else:
                    opts.append(t)
            if b is None or c is None:
                raise RefPlanError(f"shfl target needs b= and c=: {text!r}")
            take_options(opts, ("mask",))
            self.kind = "move"
            self.src = ref_shfl(mode, b, c)[0]
        elif head == "map":
            if not rest:
                raise RefPlanError("map needs 32 lanes")
            src = [_int(t) for t in rest[0].split(",")]
            if len(src) != WARP or not all(0 <= s < WARP for s in src):
                raise RefPlanError(f"map needs 32 source lanes in 0..31: {text!r}")
            take_options(rest[1:], ("mask",))
            self.kind = "move"
            self.src = src
        elif head in ("reduce", "scan"):
            if not rest or rest[0] not in OP_TO_FN:
                raise RefPlanError(f"{head} needs an OP in {sorted(OP_TO_FN)}: {text!r}")
            self.op = rest[0]
            allowed = ("width", "mask", "lanes") + (("exclusive",) if head == "scan" else ("bits",))
            take_options(rest[1:], allowed)
            self.kind = "collective"
            self.collective = head
        else:
            raise RefPlanError(f"unknown target {text!r}")

    # Required CUDA source lanes of CUDA lane c (within one warp).
    def sources(self, c: int) -> list[int]:
        if self.kind == "move":
            return [self.src[c]]
        if self.collective == "reduce" and self.bits is not None:
            return [j for j in range(WARP) if (c ^ j) & ~self.bits & (WARP - 1) == 0]
        seg = c & ~(self.width - 1)
        if self.collective == "reduce":
            return list(range(seg, seg + self.width))
        end = c if self.exclusive else c + 1
        return list(range(seg, end))

    def is_care(self, c: int) -> bool:
        if not (self.mask >> c) & 1:
            return False
        if self.kind == "collective" and not (self.lanes >> c) & 1:
            return False
        return all((self.mask >> s) & 1 for s in self.sources(c))


def _lane_verdict(actual, target: Target, base: int, c: int) -> str:
    """'ok', 'wrong' or 'open' for one care lane (AMD lane base + c)."""
    if target.kind == "move":
        if actual == xval(base + target.src[c]):
            return "ok"
    else:
        fn = OP_TO_FN[target.op]
        req = Counter({xval(base + s): 1 for s in target.sources(c)})
        got = to_multiset(actual, fn, fn in IDZ_FNS)
        if got == req:
            return "ok"
    if mentions(actual, "undef"):
        return "wrong"
    if mentions(actual, "open"):
        return "open"
    return "wrong"


def ref_judge(plan, *, merge_open: bool = True):
    """("proved" | "refuted" | "unknown" | "illegal", lane_or_None).

    * illegal: some step is not legal on the plan's arch/wave (lane None);
    * refuted: the first (lowest AMD lane) care lane whose value differs from the requirement and
      does not involve an open question, or depends on undef; (None when a reduce/scan plan
      combines with a fn other than the target's);
    * unknown: every differing care lane involves an open-question value (lane = the first one);
    * proved: every care lane matches.
    """
    target = Target(plan.get("target", ""))
    try:
        result = ref_replay(plan, merge_open=merge_open)
    except RefIllegal:
        return ("illegal", None)

    if target.kind == "collective":
        want = OP_TO_FN[target.op]
        for st in plan["steps"]:
            if st.get("op") == "combine" and st.get("fn") != want:
                return ("refuted", None)

    W = plan["wave"]
    first_open = None
    for lane in range(W):
        base = lane & ~(WARP - 1)          # 0, or 32 for the second warp of a wave64
        c = lane & (WARP - 1)
        if not target.is_care(c):
            continue
        v = _lane_verdict(result[lane], target, base, c)
        if v == "wrong":
            return ("refuted", lane)
        if v == "open" and first_open is None:
            first_open = lane
    if first_open is not None:
        return ("unknown", first_open)
    return ("proved", None)


__all__ = ["ref_judge", "Target", "OP_TO_FN"]
