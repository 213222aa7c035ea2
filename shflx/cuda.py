"""CUDA/PTX `shfl.sync` semantics, exact as measured on an H100 (spec/cuda_ptx_shfl.md §2.2).

The pseudocode is written once (`shfl_source`) over the shared backend operators, so the same
function is the numpy emulator (per-lane b and c allowed) and the Z3 encoding (symbolic b, c,
mode). Only b[4:0], c[4:0] (clamp) and c[12:8] (segment mask) matter; out-of-range lanes read
their own value and get p = false. The CUDA C++ intrinsics map onto (mode, b, c) as nvcc and clang
do (§1.2, §6); 64-bit values are two 32-bit shuffles and 16-bit values travel packed as {h, h}
(§3.1)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .lanefn import NUMPY, lanes
from .errors import InputError
from .lanes import CUDA_WARP, LaneMap

MODES = ("up", "down", "bfly", "idx")
FULL_MASK = 0xFFFFFFFF

# CUDA C++ intrinsic -> PTX mode. The legacy non-sync forms have no member mask (full warp).
INTRINSIC_MODES = {
    "__shfl_sync": "idx", "__shfl_up_sync": "up", "__shfl_down_sync": "down", "__shfl_xor_sync": "bfly",
    "__shfl": "idx", "__shfl_up": "up", "__shfl_down": "down", "__shfl_xor": "bfly",
}
LEGACY_INTRINSICS = frozenset({"__shfl", "__shfl_up", "__shfl_down", "__shfl_xor"})


def shfl_source(mode: str | Any, lane: Any, b: Any, c: Any, o: Any = NUMPY) -> tuple[Any, Any]:
    """(source lane, pval) for `shfl.sync.mode` at `lane` with operands b and c.

    `mode` is a name from MODES, or (for symbolic use) an expression valued 0..3 in MODES order."""
    bval = b & 31
    cval = c & 31
    segmask = (c >> 8) & 31
    min_lane = lane & segmask
    max_lane = (lane & segmask) | (cval & ~segmask)
    cases = {
        "up": (lane - bval, None),
        "down": (lane + bval, None),
        "bfly": (lane ^ bval, None),
        "idx": (min_lane | (bval & ~segmask), None),
    }
    def in_range(m: str, j: Any) -> Any:
        return j >= max_lane if m == "up" else j <= max_lane

    if isinstance(mode, str):
        if mode not in cases:
            raise InputError(f"unknown shfl mode '{mode}'; known: {', '.join(MODES)}")
        j = cases[mode][0]
        pval = in_range(mode, j)
    else:  # symbolic mode code
        j = cases["idx"][0]
        pval = in_range("idx", j)
        for code in (2, 1, 0):
            m = MODES[code]
            jm = cases[m][0]
            j = o.where(mode == code, jm, j)
            pval = o.where(mode == code, in_range(m, jm), pval)
    return o.where(pval, j, lane), pval


def shfl_sync(mode: str, b: Any, c: Any) -> tuple[np.ndarray, np.ndarray]:
    """Source lanes and predicate of one warp's shfl.sync; b and c may be ints or per-lane arrays."""
    lane = lanes(CUDA_WARP)
    b = np.asarray(b, dtype=np.int64) if not isinstance(b, int) else b
    c = np.asarray(c, dtype=np.int64) if not isinstance(c, int) else c
    src, pval = shfl_source(mode, lane, b, c)
    return (np.broadcast_to(src, (CUDA_WARP,)).astype(np.int64),
            np.broadcast_to(pval, (CUDA_WARP,)).astype(bool))


def c_for_width(mode: str, width: int) -> int:
    """The c operand CUDA passes for `width`: ((32 - width) << 8) | clamp, clamp 0 for up, else 31."""
    clamp = 0 if mode == "up" else 0x1F
    return (((CUDA_WARP - width) << 8) | clamp) & 0xFFFFFFFF


def width_for_c(mode: str, c: int) -> int | None:
    """The CUDA width whose c_for_width is `c` (bits 12:8 and 4:0), or None when no CUDA call
    spells this c (a PTX-only shuffle)."""
    c &= 0x1F1F
    width = CUDA_WARP - (c >> 8)
    return width if width in (1, 2, 4, 8, 16, 32) and c == c_for_width(mode, width) & 0x1F1F else None


def cuda_call(mode: str, b: str, c: int, mask: int | None, legacy: bool = False) -> str | None:
    """The CUDA C++ call whose PTX operands these are, e.g. `__shfl_xor_sync(0xffffffff, v, 16, 32)`
    (`b` as it should print; legacy: the non-sync form without a mask), or None if none spells c."""
    width = width_for_c(mode, c)
    if width is None:
        return None
    name = next(n for n, m in INTRINSIC_MODES.items() if m == mode and (n in LEGACY_INTRINSICS) == legacy)
    return f"{name}(v, {b}, {width})" if legacy else f"{name}({mask & FULL_MASK:#x}, v, {b}, {width})"


@dataclass(frozen=True)
class ShflOperands:
    """The PTX-level operands of one shuffle: what every CUDA form reduces to."""

    mode: str
    b: int
    c: int
    member_mask: int = FULL_MASK

    def lane_map(self) -> LaneMap:
        """The 32-lane source map; lanes outside the member mask, or reading outside it, are
        don't-care (DESIGN decision 3)."""
        src, _ = shfl_sync(self.mode, self.b, self.c)
        members = ((self.member_mask >> np.arange(CUDA_WARP)) & 1).astype(bool)
        return LaneMap(src, members & members[src])

    def predicate(self) -> np.ndarray:
        return shfl_sync(self.mode, self.b, self.c)[1]


def intrinsic_operands(name: str, arg: int, width: int = CUDA_WARP,
                       member_mask: int = FULL_MASK) -> ShflOperands:
    """`__shfl_xor_sync(mask, v, arg, width)` and friends -> PTX operands (spec §1.2, §3.1, §6).

    `arg` is srcLane / delta / laneMask as the C++ passes it (any int; only b[4:0] is used)."""
    if name not in INTRINSIC_MODES:
        raise InputError(f"unknown shuffle intrinsic '{name}'; known: {', '.join(INTRINSIC_MODES)}")
    mode = INTRINSIC_MODES[name]
    mask = FULL_MASK if name in LEGACY_INTRINSICS else member_mask & FULL_MASK
    return ShflOperands(mode, arg & 0xFFFFFFFF, c_for_width(mode, width), mask)


def shuffle_values(values: np.ndarray, mode: str, b: Any, c: Any) -> np.ndarray:
    """What each lane receives when `values` (one per lane) is shuffled, for any CUDA type.

    32-bit types move as is; 64-bit types as two independent 32-bit shuffles (nvcc's mov.b64
    split); 16-bit types packed as {h, h} into 32 bits, the low half taken (spec §3.1)."""
    values = np.asarray(values)
    if values.shape != (CUDA_WARP,):
        raise ValueError("one value per lane of a 32-lane warp")
    src, _ = shfl_sync(mode, b, c)
    size = values.dtype.itemsize
    if size == 4:
        return values[src]
    if size == 8:
        words = values.view(np.uint32).reshape(CUDA_WARP, 2)
        lo, hi = words[:, 0][src], words[:, 1][src]
        return np.stack([lo, hi], axis=1).reshape(-1).view(values.dtype)
    if size == 2:
        h = values.view(np.uint16).astype(np.uint32)
        packed = (h << 16) | h
        return (packed[src] & 0xFFFF).astype(np.uint16).view(values.dtype)
    raise ValueError(f"no CUDA shuffle moves {size}-byte values")


@lru_cache(maxsize=1)
def uniform_table() -> dict[bytes, tuple[str, int, int]]:
    """Distinct 32-lane source map -> (mode, b, c), preferring CUDA's c = ((32-w)<<8)|clamp,
    then idx, then small operands (vectorized numpy)."""
    lanes = np.arange(32)
    cuda_c = np.array(sorted({((32 - w) << 8) | clamp for w in (1, 2, 4, 8, 16, 32) for clamp in (0, 31)}))
    b = np.repeat(np.arange(32), 1024)
    c = np.tile(np.arange(1024), 32)
    c = (c & 31) | ((c >> 5) << 8)
    maps, keys = [], []
    for m_code, mode in enumerate(MODES):
        src, _ = shfl_source(mode, lanes[None, :], b[:, None], c[:, None])
        maps.append(np.asarray(src, np.int8))
        pref = (~np.isin(c, cuda_c)).astype(np.int64) * 4 + (mode != "idx") * 2
        keys.append(np.stack([pref, np.full_like(b, m_code), b, c], axis=1))
    maps_all = np.concatenate(maps)
    keys_all = np.concatenate(keys)
    order = np.lexsort((keys_all[:, 3], keys_all[:, 2], keys_all[:, 1], keys_all[:, 0]))
    maps_all, keys_all = maps_all[order], keys_all[order]
    rows = np.ascontiguousarray(maps_all).view(np.dtype((np.void, 32))).ravel()
    _, first = np.unique(rows, return_index=True)
    return {maps_all[i].tobytes(): (MODES[int(keys_all[i, 1])], int(keys_all[i, 2]), int(keys_all[i, 3]))
            for i in first}
