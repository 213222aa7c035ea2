"""Reference for shflx.equivalent: brute force on concrete inputs, independent of shflx.

Each side becomes the u32 value of every lane on a random input (plans through amd_ref's replay,
pattern text through judge.Target, written from the spec; lists and callables read x directly),
with independent random garbage per side and trial. A lane differs when any trial shows two
values. Random 32-bit inputs make a missed difference a 2^-32 event per trial."""
from __future__ import annotations

import random

from .amd_ref import ref_replay_concrete
from .judge import Target

WARP = 32


def _values(side, wave: int, x: list[int], rng: random.Random):
    """(value per lane, care per lane) of one side on input x."""
    if isinstance(side, dict):
        vals = ref_replay_concrete(side, x, undef_fill=lambda sid, lane: rng.getrandbits(32),
                                   open_fill=lambda sid, lane: rng.getrandbits(32))
        return list(vals), [True] * wave
    if isinstance(side, str):
        t = Target(side)
        vals, care = [], []
        for lane in range(wave):
            base, c = lane - lane % WARP, lane % WARP
            vals.append(x[base + t.src[c]])
            care.append(t.is_care(c))
        return vals, care
    src = [side(i) for i in range(wave)] if callable(side) else list(side)
    return [None if s is None else x[s] for s in src], [s is not None for s in src]


def ref_differing_lanes(a, b, wave: int, lanes=None, trials: int = 4, seed: int = 0) -> tuple[set[int], set[int]]:
    """(lanes compared, lanes that differ) for sides a and b (plan dicts, pattern text, source
    lists with None for don't-care, callables) on a wave of `wave` lanes."""
    rng = random.Random(seed)
    if isinstance(lanes, int):                     # a bitmask of lanes
        lanes = {i for i in range(wave) if (lanes >> i) & 1}
    differ: set[int] = set()
    compared: set[int] | None = None
    for _ in range(trials):
        x = [rng.getrandbits(32) for _ in range(wave)]
        va, ca = _values(a, wave, x, rng)
        vb, cb = _values(b, wave, x, rng)
        care = {i for i in range(wave) if ca[i] and cb[i] and (lanes is None or i in lanes)}
        compared = care
        differ |= {i for i in care if va[i] != vb[i]}
    return compared or set(), differ
