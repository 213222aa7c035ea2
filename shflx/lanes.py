"""Lane maps: destination lane i reads source lane src[i], on a wave of 32 or 64 lanes.

The one data-movement vocabulary of shflx. A CUDA shuffle, an AMD instruction and a whole plan
all reduce to a LaneMap; a lowering is correct when the two maps agree on the care-set (the
destination lanes whose result matters). Sentinel sources say what a lane holds when it reads no
lane of the input: ZERO (an injected 0), UNDEF (garbage: an undefined `old`) and OPEN (a value
that depends on an open question of spec/amd_crosslane.md §17; never proven either way)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

ZERO = -1
UNDEF = -2
OPEN = -3
SENTINELS = {ZERO: "zero", UNDEF: "undef", OPEN: "open"}

CUDA_WARP = 32


def _as_src(src: object, wave: int | None = None) -> np.ndarray:
    arr = np.asarray(src, dtype=np.int16).copy()
    if arr.ndim != 1 or (wave is not None and arr.shape[0] != wave):
        raise ValueError(f"a lane map needs {wave or 'a 1-D'} entries, got shape {arr.shape}")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class LaneMap:
    """`src[i]`: the lane destination lane i reads; `care[i]`: whether lane i's result matters."""

    src: np.ndarray
    care: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        src = _as_src(self.src)
        if src.shape[0] not in (32, 64):
            raise ValueError(f"a wave has 32 or 64 lanes, not {src.shape[0]}")
        care = np.ones(src.shape[0], bool) if self.care is None else np.asarray(self.care, bool).copy()
        if care.shape != src.shape:
            raise ValueError("care-set and map differ in length")
        care.setflags(write=False)
        object.__setattr__(self, "src", src)
        object.__setattr__(self, "care", care)

    @property
    def wave(self) -> int:
        return int(self.src.shape[0])

    @classmethod
    def identity(cls, wave: int = CUDA_WARP) -> "LaneMap":
        return cls(np.arange(wave))

    @classmethod
    def from_care_mask(cls, src: object, care_mask: int) -> "LaneMap":
        s = _as_src(src)
        return cls(s, mask_to_lanes(care_mask, s.shape[0]))

    def key(self) -> bytes:
        """Content key (map and care-set), for tables and caches."""
        return self.src.tobytes() + np.packbits(self.care).tobytes()

    def then(self, second: "LaneMap") -> "LaneMap":
        """Apply self, then `second`: lane i reads self.src[second.src[i]]. Sentinels pass through."""
        if second.wave != self.wave:
            raise ValueError("composing maps of different wave sizes")
        s2 = second.src.astype(np.int64)
        real = s2 >= 0
        out = np.where(real, self.src[np.where(real, s2, 0)], s2)
        return LaneMap(out, second.care)

    def with_care(self, care: object) -> "LaneMap":
        return LaneMap(self.src, care)

    def first_difference(self, other: "LaneMap") -> int | None:
        """First lane in both care-sets where the sources differ (None: equal on the care-set).

        A sentinel is not an input lane and equals nothing, itself included: an injected 0, garbage
        or an open question is never a proof."""
        if other.wave != self.wave:
            raise ValueError("comparing maps of different wave sizes")
        care = self.care & other.care
        bad = (self.src != other.src) | (self.src < 0) | (other.src < 0)
        hits = np.flatnonzero(care & bad)
        return int(hits[0]) if hits.size else None

    def agrees(self, other: "LaneMap") -> bool:
        return self.first_difference(other) is None

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, LaneMap) and np.array_equal(self.src, other.src)
                and np.array_equal(self.care, other.care))

    def __hash__(self) -> int:
        return hash(self.key())

    def format(self) -> str:
        """Readable form: `0:1 1:0 ...`, with `*` for don't-care lanes and sentinel names."""
        cells = []
        for i, (s, c) in enumerate(zip(self.src.tolist(), self.care.tolist())):
            cells.append(f"{i}:{'*' if not c else SENTINELS.get(s, s)}")
        return " ".join(cells)

    def __repr__(self) -> str:
        return f"LaneMap(wave={self.wave}, {self.format()})"


def mask_to_lanes(mask: int, width: int) -> np.ndarray:
    """Bit i of `mask` -> lane i is set (bool vector of `width` lanes)."""
    mask = int(mask)
    return np.array([(mask >> i) & 1 for i in range(width)], dtype=bool)


def lanes_to_mask(lanes: np.ndarray) -> int:
    return sum(1 << int(i) for i in np.flatnonzero(lanes))


def lift_to_wave(warp: LaneMap, wave: int) -> LaneMap:
    """A 32-lane CUDA warp map on a wave: wave64 holds two CUDA warps, one per 32-lane half.

    DESIGN decision 2: each half runs the same shuffle on its own lanes; nothing crosses halves."""
    if warp.wave != CUDA_WARP:
        raise ValueError("only a 32-lane CUDA warp map can be lifted")
    if wave == CUDA_WARP:
        return warp
    if wave != 64:
        raise ValueError(f"a wave has 32 or 64 lanes, not {wave}")
    src = warp.src.astype(np.int64)
    halves = [np.where(src >= 0, src + base, src) for base in (0, 32)]
    return LaneMap(np.concatenate(halves), np.concatenate([warp.care, warp.care]))


def s32(v: int) -> int:
    """`v` as a signed 32-bit integer (how CUDA prints a shuffle's b operand)."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v
