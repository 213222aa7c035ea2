"""Final-step solvers: one primitive, one step, any lane map it can realize.

Each solver gets the acceptance matrix `acc[i, j]` ("destination lane i is right if it reads lane
j of the current value"; don't-care lanes accept everything) and, for primitives with an `old`
operand, the lanes each candidate `old` already gets right. It returns the step's parameters,
or None. Closed forms where structure beats tables (STYLE.md): DPP8 and permlane16/x16 pick one
selector per group position; DPP16 checks every legal control at once and solves row/bank masks
cell by cell; ds_swizzle looks the map up in a table of every offset."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import Any

import numpy as np

from ..amd.dpp import control_legal, dpp16_source
from ..amd.swizzle import swizzle_source
from ..isa import amd_target


@dataclass(frozen=True)
class DppTable:
    ctrls: np.ndarray        # legal DPP_CTRL values, cheapest-first order
    src: np.ndarray          # (n, wave) source lane (clipped into range)
    valid: np.ndarray        # (n, wave) in range


@lru_cache(maxsize=64)
def dpp_table(arch: str, wave: int) -> DppTable:
    """Every legal DPP16 control of the target, with its lane map (spec §3.2)."""
    target = amd_target(arch)
    lanes = np.arange(wave)
    ctrls, srcs, valids = [], [], []
    for c in range(512):
        if not control_legal(c, target, wave):
            continue
        s, v = dpp16_source(c, lanes, wave)
        ctrls.append(c)
        srcs.append(np.clip(np.broadcast_to(s, (wave,)), 0, wave - 1))
        valids.append(np.broadcast_to(v, (wave,)))
    return DppTable(np.array(ctrls), np.array(srcs), np.array(valids, bool))


@lru_cache(maxsize=64)
def mask_cells(wave: int) -> tuple[np.ndarray, np.ndarray]:
    """(combos, enabled): all 256 (row_mask, bank_mask) pairs, full masks first, and which lanes
    each enables (masks gate the write, never the fetch: spec §3.3)."""
    lanes = np.arange(wave)
    combos = [(15, 15)] + [(r, b) for r, b in product(range(16), range(16)) if (r, b) != (15, 15)]
    enabled = np.array([((r >> (lanes >> 4)) & 1 & (b >> ((lanes >> 2) & 3)) & 1).astype(bool)
                        for r, b in combos])
    return np.array(combos), enabled


def lane_bits(mask: np.ndarray) -> np.ndarray:
    """Bool lanes (last axis, 32 or 64) -> one uint64 per row, bit i = lane i."""
    packed = np.packbits(np.ascontiguousarray(mask), axis=-1, bitorder="little")
    if packed.shape[-1] == 8:
        return packed.view("<u8")[..., 0]
    if packed.shape[-1] < 8:
        packed = np.concatenate([packed, np.zeros(packed.shape[:-1] + (8 - packed.shape[-1],), np.uint8)], axis=-1)
    return np.ascontiguousarray(packed).view("<u8")[..., 0]


@lru_cache(maxsize=64)
def mask_combo_bits(wave: int) -> tuple[np.ndarray, np.ndarray]:
    combos, enabled = mask_cells(wave)
    return combos, lane_bits(enabled)


def dpp16_solutions(arch: str, wave: int, provs: np.ndarray, want_src: np.ndarray, care: np.ndarray,
                    keeps: dict[str, np.ndarray], max_masked: int = 64) -> list[tuple[int, dict[str, Any]]]:
    """Every DPP16 step (ctrl, BC, `old`, row/bank masks) that turns current value n (provenance
    provs[n]) into `want` on the care lanes: [(n, step fields)], full masks first.

    Lanes are 64-bit masks: one pass over (value, control, lane), then integer ops. `keeps[old]`
    ((n, wave) or (wave,)) marks the lanes that keeping `old` gets right."""
    t = dpp_table(arch, wave)
    small = provs.astype(np.int8)                                     # lanes and sentinels fit int8
    hit = small[:, t.src] == want_src.astype(np.int8)[None, None, :]  # (n, c, wave)
    hit &= t.valid[None]
    read_bits = lane_bits(hit)                                        # (n, c)
    full = np.uint64((1 << wave) - 1)
    dont = lane_bits(~care)
    invalid = lane_bits(~t.valid)[None, :]                            # (1, c)
    out: list[tuple[int, dict[str, Any]]] = []
    masked_budget = max_masked
    for old, keep in keeps.items():
        keep_bits = np.broadcast_to(lane_bits(np.broadcast_to(keep, provs.shape)), (provs.shape[0],))[:, None]
        for bc in (1, 0):
            oor = dont if bc else keep_bits                           # what an invalid lane gets right
            written = read_bits | dont | (invalid & oor)              # lanes right if written
            ok_full = written == full
            for n, k in zip(*np.nonzero(ok_full)):
                out.append((int(n), dict(dpp_ctrl=int(t.ctrls[k]), row_mask=15, bank_mask=15,
                                         bound_ctrl=bc, old=old)))
            maybe = np.nonzero(~ok_full & ((written | keep_bits) == full))
            if masked_budget <= 0 or not maybe[0].size:
                continue
            combos, enabled = mask_combo_bits(wave)
            for n, k in list(zip(*maybe))[:masked_budget]:
                w = written[n, k]
                kb = keep_bits[n, 0] | dont
                ok = ((enabled & ~w) & full) == 0
                ok &= ((~enabled & ~kb) & full) == 0
                hits = np.flatnonzero(ok)
                if hits.size:
                    rm, bm = combos[hits[0]]
                    out.append((int(n), dict(dpp_ctrl=int(t.ctrls[k]), row_mask=int(rm), bank_mask=int(bm),
                                             bound_ctrl=bc, old=old)))
            masked_budget -= len(maybe[0])
    return out


def _group_selectors(acc: np.ndarray, group: int, cross: bool = False) -> list[int] | None:
    """One selector per position k of every `group`-lane group, shared by all groups (DPP8,
    permlane16); with `cross`, lanes read the paired 16-lane row (permlanex16)."""
    wave = acc.shape[0]
    sels = []
    for k in range(group):
        ok = np.ones(group, bool)
        for g in range(wave // group):
            base = ((g ^ 1) if cross else g) * group
            ok &= acc[g * group + k, base:base + group]
        hits = np.flatnonzero(ok)
        if not hits.size:
            return None
        sels.append(int(k if ok[k] and not cross else hits[0]))
    return sels


def solve_dpp8(acc: np.ndarray) -> dict[str, Any] | None:
    sels = _group_selectors(acc, 8)
    if sels is None:
        return None
    return dict(sel=sum(s << (3 * k) for k, s in enumerate(sels)))


def solve_permlane16(acc: np.ndarray, cross: bool) -> dict[str, Any] | None:
    sels = _group_selectors(acc, 16, cross)
    if sels is None:
        return None
    lo = sum(s << (4 * k) for k, s in enumerate(sels[:8]))
    hi = sum(s << (4 * k) for k, s in enumerate(sels[8:]))
    return dict(sel_lo=lo, sel_hi=hi)


@lru_cache(maxsize=16)
def swizzle_table(arch: str, wave: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, maps): one offset per distinct lane map among all legal 16-bit offsets."""
    target = amd_target(arch)
    offsets = np.arange(1 << 16)
    if not target.has("ds_swizzle_fft_rotate"):
        offsets = offsets[offsets < 0xC000]
    lanes = np.arange(wave)
    maps = swizzle_source(offsets[:, None], lanes[None, :]).astype(np.int16)
    _, first = np.unique(maps, axis=0, return_index=True)
    first.sort()
    return offsets[first], maps[first]


def solve_swizzle(arch: str, wave: int, acc: np.ndarray) -> dict[str, Any] | None:
    offsets, maps = swizzle_table(arch, wave)
    ok = acc[np.arange(wave)[None, :], maps].all(axis=1)
    hits = np.flatnonzero(ok)
    return dict(offset=int(offsets[hits[0]])) if hits.size else None


def solve_readlane(acc: np.ndarray, care: np.ndarray) -> list[int] | None:
    """One lane per 32-lane half whose value every care lane of that half accepts."""
    wave = acc.shape[0]
    picks = []
    for h in range(0, wave, 32):
        rows = care[h:h + 32]
        if not rows.any():
            picks.append(h)
            continue
        ok = acc[h:h + 32][rows].all(axis=0)
        hits = np.flatnonzero(ok)
        if not hits.size:
            return None
        inside = hits[(hits >= h) & (hits < h + 32)]
        picks.append(int(inside[0] if inside.size else hits[0]))
    return picks


def solve_any(acc: np.ndarray, half_wave: bool) -> list[int] | None:
    """A per-lane source for ds_bpermute: the lane's own half first (required on GFX10/11 wave64)."""
    wave = acc.shape[0]
    index = []
    for i in range(wave):
        ok = np.flatnonzero(acc[i])
        same = ok[(ok >> 5) == (i >> 5)]
        if i in ok:
            index.append(i)
        elif same.size:
            index.append(int(same[0]))
        elif ok.size and not half_wave:
            index.append(int(ok[0]))
        else:
            return None
    return index


# ------------------------------------------------ the same solvers, over many current values

def batch_group_selectors(provs: np.ndarray, want_src: np.ndarray, care: np.ndarray, group: int,
                          cross: bool = False) -> list[tuple[int, list[int]]]:
    """DPP8 / permlane16(x16) selectors for many current values at once."""
    n, wave = provs.shape
    groups = wave // group
    k = np.arange(group)
    dest = (np.arange(groups)[:, None] * group + k[None, :])                # (groups, group)
    base = ((np.arange(groups) ^ 1) if cross else np.arange(groups)) * group
    srcs = base[:, None, None] + k[None, None, :]                            # (groups, 1, group): v
    # ok[n, g, k, v] = lane g*group+k accepts lane base_g + v
    vals = provs[:, srcs[:, 0, :]]                                           # (n, groups, group_v)
    want = want_src[dest]                                                    # (groups, group_k)
    c = care[dest]
    ok = (vals[:, :, None, :] == want[None, :, :, None]) | ~c[None, :, :, None]
    ok = ok.all(axis=1)                                                      # (n, group_k, group_v)
    feasible = ok.any(axis=2).all(axis=1)
    out = []
    for i in np.flatnonzero(feasible):
        out.append((int(i), [int(np.argmax(ok[i, kk])) for kk in range(group)]))
    return out
