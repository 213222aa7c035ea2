"""Reference model of PTX ``shfl.sync`` (cuda_ptx_shfl.md §2.2), transcribed literally.

    lane    = caller's lane id (0..31)
    bval    = b & 31
    cval    = c & 31
    segmask = (c >> 8) & 31
    minLane = lane & segmask
    maxLane = (lane & segmask) | (cval & ~segmask)

    mode | source lane j             | pval
    up   | lane - bval (signed)      | j >= maxLane
    down | lane + bval               | j <= maxLane
    bfly | lane XOR bval             | j <= maxLane
    idx  | minLane OR (bval & ~segm) | j <= maxLane

    if not pval: j = lane;   d = a[j], p = pval
"""

from __future__ import annotations

WARP = 32

# mode -> (source lane j, in-range predicate), both as functions of
# (lane, bval, minLane, maxLane, segmask).  One row per line of the §2.2 table.
_MODE_TABLE = {
    "up":   (lambda lane, bval, lo, hi, seg: lane - bval,              lambda j, hi: j >= hi),
    "down": (lambda lane, bval, lo, hi, seg: lane + bval,              lambda j, hi: j <= hi),
    "bfly": (lambda lane, bval, lo, hi, seg: lane ^ bval,              lambda j, hi: j <= hi),
    "idx":  (lambda lane, bval, lo, hi, seg: lo | (bval & ~seg & 31),  lambda j, hi: j <= hi),
}

MODES = tuple(_MODE_TABLE)


def _per_lane(v, name):
    """An int (uniform operand) or a list of 32 per-lane ints."""
    if isinstance(v, bool):
        raise TypeError(f"{name} must be an int or a list of 32 ints, not bool")
    if isinstance(v, int):
        return [v] * WARP
    v = list(v)
    if len(v) != WARP or not all(isinstance(e, int) and not isinstance(e, bool) for e in v):
        raise ValueError(f"{name} must be an int or a list of {WARP} ints")
    return v


def ref_shfl(mode: str, b, c) -> tuple[list[int], list[bool]]:
    """PTX shfl.sync.<mode>.b32 on one full 32-lane warp.

    Returns (src, pred): src[lane] = the lane whose ``a`` arrives at ``lane`` (own lane when out
    of range) and pred[lane] = the ``p`` output.  ``b`` and ``c`` are ints or lists of 32 ints;
    only b[4:0], c[4:0] and c[12:8] are used (any other bit, and the sign, is ignored).
    """
    if mode not in _MODE_TABLE:
        raise ValueError(f"unknown shfl mode {mode!r}; expected one of {MODES}")
    src_fn, in_range = _MODE_TABLE[mode]
    bs = _per_lane(b, "b")
    cs = _per_lane(c, "c")
    src: list[int] = []
    pred: list[bool] = []
    for lane in range(WARP):
        bval = bs[lane] & 31
        cval = cs[lane] & 31
        segmask = (cs[lane] >> 8) & 31
        min_lane = lane & segmask
        max_lane = (lane & segmask) | (cval & ~segmask & 31)
        j = src_fn(lane, bval, min_lane, max_lane, segmask)
        pval = bool(in_range(j, max_lane))
        if not pval:
            j = lane
        src.append(j)
        pred.append(pval)
    return src, pred


# CUDA intrinsic name -> (PTX mode, clamp).  cuda_ptx_shfl.md §1.2 / §6: clamp 0 for up, else 31.
_INTRINSICS = {
    "__shfl_sync": ("idx", 0x1F),
    "__shfl_up_sync": ("up", 0x00),
    "__shfl_down_sync": ("down", 0x1F),
    "__shfl_xor_sync": ("bfly", 0x1F),
}
_SHORT_NAMES = {"idx": "__shfl_sync", "up": "__shfl_up_sync", "down": "__shfl_down_sync",
                "xor": "__shfl_xor_sync", "__shfl": "__shfl_sync", "__shfl_up": "__shfl_up_sync",
                "__shfl_down": "__shfl_down_sync", "__shfl_xor": "__shfl_xor_sync"}


def ref_intrinsic(name: str, arg, width: int = 32) -> tuple[str, object, int]:
    """(mode, b, c) of a CUDA ``__shfl*_sync(mask, v, arg, width)`` call.

    c = ((32 - width) << 8) | clamp with clamp = 0 for up and 0x1f otherwise.  ``arg`` is passed
    through unchanged as ``b`` (int or per-lane list); the 5-bit truncation happens in ref_shfl.
    ``width`` may be any int in 1..32 (non-powers of two give CUDA-undefined but pseudocode-exact
    results, cuda_ptx_shfl.md §1.2); the power-of-two rule is enforced by the target parser.
    """
    name = _SHORT_NAMES.get(name, name)
    if name not in _INTRINSICS:
        raise ValueError(f"unknown CUDA shuffle intrinsic {name!r}")
    if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width <= 32:
        raise ValueError(f"width must be an int in 1..32, got {width!r}")
    mode, clamp = _INTRINSICS[name]
    c = ((32 - width) << 8) | clamp
    return mode, arg, c


def ref_intrinsic_src(name: str, arg, width: int = 32) -> list[int]:
    """Convenience: source lane per lane of a CUDA intrinsic call."""
    mode, b, c = ref_intrinsic(name, arg, width)
    return ref_shfl(mode, b, c)[0]
