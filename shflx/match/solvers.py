"""Final-step solvers: one primitive, one step, any lane map it can realize.

Each solver gets the current value's provenance (one or many values at once) and the wanted map;
for primitives with an `old` operand, the lanes each candidate `old` already gets right. Closed
forms where structure beats tables (STYLE.md): DPP8 and permlane16/x16 pick one selector per
group position; DPP16 checks every legal control at once and solves row/bank masks cell by cell;
ds_swizzle is solved bit by bit (FFT/rotate from a small table)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import Any

import numpy as np

from ..amd.dpp import control_legal, dpp16_source
from ..amd.swizzle import swizzle_source
from ..target import Target


@dataclass(frozen=True)
class DppTable:
    ctrls: np.ndarray        # legal DPP_CTRL values, cheapest-first order
    src: np.ndarray          # (n, wave) source lane (clipped into range)
    valid: np.ndarray        # (n, wave) in range


@lru_cache(maxsize=64)
def dpp_table(target: Target) -> DppTable:
    """Every legal DPP16 control of the target, with its lane map (spec §3.2)."""
    wave = target.wave
    lanes = np.arange(wave)
    ctrls, srcs, valids = [], [], []
    for c in range(512):
        if not control_legal(c, target.isa, wave):
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


def dpp16_solutions(target: Target, provs: np.ndarray, want_src: np.ndarray, care: np.ndarray,
                    keeps: dict[str, np.ndarray], max_masked: int = 64) -> list[tuple[int, dict[str, Any]]]:
    """Every DPP16 step (ctrl, BC, `old`, row/bank masks) that turns current value n (provenance
    provs[n]) into `want` on the care lanes: [(n, step fields)], full masks first.

    Lanes are 64-bit masks: one pass over (value, control, lane), then integer ops. `keeps[old]`
    ((n, wave) or (wave,)) marks the lanes that keeping `old` gets right."""
    wave = target.wave
    t = dpp_table(target)
    hit = provs.astype(np.int8)[:, t.src] == want_src.astype(np.int8)[None, None, :]   # (n, c, wave)
    hit &= t.valid[None]
    read_bits = lane_bits(hit)                                        # (n, c)
    full = np.uint64((1 << wave) - 1)
    dont = lane_bits(~care)
    invalid = lane_bits(~t.valid)[None, :]                            # (1, c)
    out: list[tuple[int, dict[str, Any]]] = []
    masked_budget = max_masked
    for old, keep in keeps.items():
        keep = np.asarray(keep)
        bits = lane_bits(keep) if keep.ndim > 1 else np.full(provs.shape[0], lane_bits(keep[None])[0])
        keep_bits = np.broadcast_to(bits, (provs.shape[0],))[:, None]   # one lane condition: packed once
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


@lru_cache(maxsize=16)
def swizzle_table(target: Target) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, maps) of the FFT and rotate modes (GFX9+): the two without a closed-form solver."""
    wave = target.wave
    if not target.has("ds_swizzle_fft_rotate"):
        return np.zeros(0, np.int64), np.zeros((0, wave), np.int8)
    offsets = np.concatenate([0xE000 | np.arange(32), 0xC000 | np.arange(1 << 11)])   # ignored bits 0
    maps = swizzle_source(offsets[:, None], np.arange(wave)[None, :]).astype(np.int8)
    return offsets, maps


# bit function -> (and, or, xor) bits of a bitmask-mode offset: out bit = ((in & a) | o) ^ x
_BIT_FUNCTIONS = {"zero": (0, 0, 0), "one": (0, 1, 0), "copy": (1, 0, 0), "flip": (1, 0, 1)}


def solve_swizzle(target: Target, want: Any) -> dict[str, Any] | None:
    """A ds_swizzle offset for a lane map (stage 1: the current value is the input itself).

    Bitmask mode: bit k of the source lane is a function of bit k of the destination lane alone
    (0, 1, copy or flip), so it is solved bit by bit; quad mode is one selector per quad
    position; FFT and rotate come from a 2,080-entry table. Every mode keeps bit 5 (the half)."""
    care = np.flatnonzero(want.care)
    if not care.size:
        return dict(offset=0x8000 | 0xE4)
    dst, src = care, want.src[care].astype(np.int64)
    if ((dst & 32) != (src & 32)).any():
        return None
    and_m = or_m = xor_m = 0
    for k in range(5):
        d, s = (dst >> k) & 1, (src >> k) & 1
        for name, (a_, o_, x_) in _BIT_FUNCTIONS.items():
            if np.array_equal(((d & a_) | o_) ^ x_, s):
                and_m, or_m, xor_m = and_m | a_ << k, or_m | o_ << k, xor_m | x_ << k
                break
        else:
            break
    else:
        return dict(offset=and_m | or_m << 5 | xor_m << 10)
    if ((dst & ~3) == (src & ~3)).all():
        sel = [0, 1, 2, 3]
        for q in range(4):
            picks = set((src[(dst & 3) == q] & 3).tolist())
            if len(picks) > 1:
                break
            sel[q] = picks.pop() if picks else q
        else:
            return dict(offset=0x8000 | sel[0] | sel[1] << 2 | sel[2] << 4 | sel[3] << 6)
    offsets, maps = swizzle_table(target)
    ok = (maps[:, care] == src[None, :]).all(axis=1)
    hits = np.flatnonzero(ok)
    if not hits.size:
        return None
    # a rotate whose care lanes carry out of bit 4 is right only under the group-wrap reading (an
    # open question, spec §5.2): prefer the hit (the other direction) right under both readings
    sure = hits[~rotate_carries(offsets[hits], target.wave)[:, care].any(axis=1)]
    return dict(offset=int(offsets[(sure if sure.size else hits)[0]]))


def rotate_carries(offsets: np.ndarray, wave: int) -> np.ndarray:
    """(offsets, wave): lanes whose ds_swizzle rotate source carries out of bit 4, where AMD's
    literal pseudocode and the group-wrap reading differ (amd.swizzle.rotate_wrap_relied_on)."""
    i = np.arange(wave)[None, :] & 31
    o = offsets.astype(np.int64)[:, None]
    m, r = o & 31, (o >> 5) & 31
    r = np.where((o >> 10) & 1, -r, r)
    return ((o >= 0xC000) & (o < 0xE000)) & ((((i + r) & ~m) & ~31) != 0)


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
    for i in np.flatnonzero(feasible):        # the identity selector where allowed (canonical output)
        out.append((int(i), [kk if ok[i, kk, kk] and not cross else int(np.argmax(ok[i, kk]))
                             for kk in range(group)]))
    return out


def dpp16_after_many(target: Target, provs: np.ndarray, want_src: np.ndarray, care: np.ndarray,
                     keep_x: np.ndarray, limit: int = 4) -> list[tuple[int, dict[str, Any]]]:
    """DPP16 finals after each of many first moves (stage 2 of the search), cheapest moves first.

    Bitsets over the values: E[j, i] = {n : value n holds at lane j what lane i wants}. A control
    reading src[c, i] works for the values in AND_i E[src[c, i], i] (invalid lanes: what BC or
    `old` leaves there). `provs` is sorted by cost, so only the first working values matter:
    at most `limit` (value, control) pairs are returned, and masked writes (whole rows or banks
    kept, cell by cell) are tried only when no full-mask final works. Bitsets are the last axis."""
    wave = target.wave
    t = dpp_table(target)
    n = provs.shape[0]
    by_lane = np.ascontiguousarray(provs.T, dtype=np.int8)            # (j, n), C order for packbits
    eq = by_lane[:, None, :] == want_src.astype(np.int8)[None, :, None]   # (j, i, n)
    E = np.packbits(eq, axis=-1, bitorder="little")                   # (j, i, bytes)
    E[:, ~care, :] = 0xFF                                             # don't-care lanes accept anything
    nbytes = E.shape[-1]
    lanes = np.arange(wave)
    read = E[t.src, lanes[None, :]]                                   # (c, i, bytes)
    self_keep = E[lanes, lanes]                                       # (i, bytes): old = the value itself

    def const(lanes_ok: np.ndarray) -> np.ndarray:          # a lane condition true for every value
        return np.repeat(np.where(lanes_ok, np.uint8(0xFF), np.uint8(0))[:, None], nbytes, axis=1)

    oor_options = {("undef", 1): const(~care), ("x", 0): const(keep_x | ~care), ("self", 0): self_keep}
    keep_options = {"x": const(keep_x | ~care), "self": self_keep}
    invalid = ~t.valid[:, :, None]                                    # (c, i, 1)

    def first_hits(ok: np.ndarray, fields: dict[str, Any], out: list) -> None:
        hits = np.unpackbits(ok, axis=-1, bitorder="little")[:, :n]  # (c, n)
        rows = np.flatnonzero(hits.any(axis=0))[:limit]
        for v in rows:
            k = int(np.flatnonzero(hits[:, v])[0])
            out.append((int(v), dict(dpp_ctrl=int(t.ctrls[k]), **fields)))

    out: list[tuple[int, dict[str, Any]]] = []
    lane_oks = {}
    for (old, bc), oor in oor_options.items():
        lane_ok = np.where(invalid, oor[None], read)                  # (c, i, bytes)
        lane_oks[(old, bc)] = lane_ok
        first_hits(np.bitwise_and.reduce(lane_ok, axis=1), dict(row_mask=15, bank_mask=15, bound_ctrl=bc, old=old), out)
    if out:
        return out
    ncell = wave // 4
    combos = _row_or_bank_masks(wave)
    on = np.array([[((rm >> (cl // 4)) & 1) and ((bm >> (cl % 4)) & 1) for cl in range(ncell)]
                   for rm, bm in combos], bool)                       # (M, cell)
    for (old, bc), lane_ok in lane_oks.items():
        if old not in keep_options:
            continue
        keep = keep_options[old]
        # a masked write needs every lane right either written or kept (cheap necessary test)
        maybe = np.flatnonzero(np.bitwise_and.reduce(lane_ok | keep[None], axis=1).any(axis=1))
        if not maybe.size:
            continue
        w_cell = np.bitwise_and.reduce(lane_ok[maybe].reshape(-1, ncell, 4, nbytes), axis=2)  # (c', cell, bytes)
        k_cell = np.bitwise_and.reduce(keep.reshape(ncell, 4, nbytes), axis=1)               # (cell, bytes)
        ok_m = np.bitwise_and.reduce(np.where(on[:, None, :, None], w_cell[None], k_cell[None, None]), axis=2)
        for m in np.flatnonzero(ok_m.any(axis=(1, 2))):
            rm, bm = combos[m]
            ok = np.zeros((len(t.ctrls), nbytes), np.uint8)
            ok[maybe] = ok_m[m]
            first_hits(ok, dict(row_mask=rm, bank_mask=bm, bound_ctrl=bc, old=old), out)
            if len(out) >= limit:
                return out
    return out


@lru_cache(maxsize=4)
def _row_or_bank_masks(wave: int) -> tuple[tuple[int, int], ...]:
    """Masks that disable whole rows or whole banks (what production sequences use, §3.2 notes)."""
    rows = 4 if wave == 64 else 2
    return tuple([(r, 15) for r in range(1, 15) if r < (1 << rows) and r != (1 << rows) - 1] +
                 [(15, b) for b in range(1, 15)])
