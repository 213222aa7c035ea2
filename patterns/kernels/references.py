"""What every lane of each example kernel must compute, in numpy (for hw_tests and the NVIDIA check).

Each entry: kernel name -> (family folder, input builder, reference). Inputs are flat arrays for
`blocks` blocks of 64 threads (two CUDA warps per block, one wave64 or two wave32). The shuffle
semantics come from shflx.cuda, which was checked exhaustively on an H100."""
from __future__ import annotations

from typing import Callable

import numpy as np

from shflx.cuda import shuffle_values, shfl_sync

BLOCK = 64


def _warps(x: np.ndarray) -> np.ndarray:
    return x.reshape(-1, 32, *x.shape[1:])


def _shfl(x: np.ndarray, kind: str, arg, width: int = 32) -> np.ndarray:
    """CUDA `__shfl*_sync(full mask, x, arg, width)` on every warp of a flat array."""
    from shflx.cuda import c_for_width
    mode = {"idx": "idx", "up": "up", "down": "down", "xor": "bfly"}[kind]
    c = c_for_width(mode, width)
    return np.concatenate([shuffle_values(w, mode, arg, c) for w in _warps(x)])


def _lane(n: int) -> np.ndarray:
    return np.arange(n) % 32


def butterfly_sum_f32(x):
    v = x.astype(np.float32)
    for o in (16, 8, 4, 2, 1):
        v = (v + _shfl(v, "xor", o)).astype(np.float32)
    return v


def butterfly_max_i32_w16(x):
    v = x.view(np.int32)
    for o in (8, 4, 2, 1):
        v = np.maximum(v, _shfl(v, "xor", o, 16))
    return v


def butterfly_or_u32_w8(x):
    v = x
    for o in (4, 2, 1):
        v = v | _shfl(v, "xor", o, 8)
    return v


def _half2_chain(x, kind, combine=np.add):
    """x: u32 words, each two float16 lanes; 16, 8, .. 1 steps, every result rounded to half
    precision, as __hadd2 / __hmax2 do."""
    v = x.view(np.float16).reshape(-1, 2)
    for o in (16, 8, 4, 2, 1):
        other = _shfl(v.reshape(-1).view(np.uint32), kind, o).view(np.float16).reshape(-1, 2)
        v = combine(v, other).astype(np.float16)
    return v.reshape(-1).view(np.uint32)


def butterfly_half2(x):
    return _half2_chain(x, "xor")


def butterfly_asc_f64(x):
    v = x
    for o in (1, 2, 4, 8, 16):
        v = v + _shfl(v, "xor", o)
    return v


def argmax_pair(x):
    v, idx = x.astype(np.float32), _lane(len(x)).astype(np.int32)
    for o in (16, 8, 4, 2, 1):
        ov, oi = _shfl(v, "xor", o), _shfl(idx, "xor", o)
        take = (ov > v) | ((ov == v) & (oi < idx))
        v, idx = np.where(take, ov, v), np.where(take, oi, idx)
    return idx


def strided_sum(x):
    v = x.view(np.int32)
    for o in (16, 8, 4):
        v = v + _shfl(v, "xor", o)
    return v


def downtree_sum_bcast(x):
    v = x.view(np.int32)
    for o in (16, 8, 4, 2, 1):
        v = v + _shfl(v, "down", o)
    return _shfl(v, "idx", 0)


def downtree_asc_raw(x):
    v = x.view(np.int32)
    for o in (1, 2, 4, 8, 16):
        v = v + _shfl(v, "down", o)
    return v


def scan_add_w32(x):
    v, lane = x.view(np.int32), _lane(len(x))
    for d in (1, 2, 4, 8, 16):
        v = np.where(lane >= d, v + _shfl(v, "up", d), v)
    return v


def scan_add_w8(x):
    v, lane = x.view(np.int32), _lane(len(x)) & 7
    for d in (1, 2, 4, 8):
        v = np.where(lane >= d, v + _shfl(v, "up", d, 8), v)
    return v


def exclusive_and_diff(x):
    v = x.view(np.int32)
    return _shfl(v, "up", 1) * 3 + _shfl(v, "down", 1)


def broadcast_lanes(x):
    return (_shfl(x, "idx", 0) + 3 * _shfl(x, "idx", 31) + 7 * _shfl(x, "idx", 3, 8)).astype(np.uint32)


def broadcast_u64(x):
    return _shfl(x, "idx", 5)


def rotate_f64(x):
    return np.concatenate([w[(np.arange(32) + 1) & 31] for w in _warps(x)])


def lane_arith(x):
    lane = np.arange(32)
    srcs = (lane ^ 1, (lane + 16) & 31, (lane & ~7) | 2, (lane & ~7) | ((lane + 4) & 7))
    return np.concatenate([sum(np.uint32(k) * w[s] for k, s in zip((1, 3, 5, 7), srcs)).astype(np.uint32)
                           for w in _warps(x)])


def affine_gather(x):
    src, _ = shfl_sync("idx", np.arange(32) * 5 + 3, 0x1F)
    return np.concatenate([w[src] for w in _warps(x)])


def quad_table(x):
    sel = np.array([3, 2, 1, 0])
    src, _ = shfl_sync("idx", sel[np.arange(32) & 3], (28 << 8) | 31)
    return np.concatenate([w[src] for w in _warps(x)])


def lut_gather(x, idx):
    return np.concatenate([w[i & 15] for w, i in zip(_warps(x), _warps(idx))])


def transpose4(x):
    a, b, c, d = (x.reshape(-1, 4)[:, k].view(np.int32) for k in range(4))
    lane = _lane(len(a)) & 3
    x1 = _shfl(np.where(lane & 1, a, b), "xor", 1)
    x2 = _shfl(np.where(lane & 2, a, c), "xor", 2)
    x3 = _shfl(np.where((lane == 0) | (lane == 3), d, a), "xor", 3)
    return x1 + 7 * x2 + 13 * x3


def bitonic32(x):
    k, lane = x.view(np.int32), _lane(len(x))
    size = 2
    while size <= 32:
        o = _shfl(k, "xor", size - 1)
        k = np.where(lane & (size // 2), np.maximum(k, o), np.minimum(k, o))
        s = size // 4
        while s > 0:
            p = _shfl(k, "xor", s)
            k = np.where(lane & s, np.maximum(k, p), np.minimum(k, p))
            s //= 2
        size *= 2
    return k


def reduce_sync_ops(x):
    w = _warps(x)
    add = w.sum(axis=1, dtype=np.uint64).astype(np.uint32)
    mx = w.max(axis=1)
    a = np.bitwise_and.reduce(w | np.uint32(0x80000000), axis=1)
    xr = np.bitwise_xor.reduce(w, axis=1)
    return np.repeat(add ^ mx ^ a ^ xr, 32)


def half_warp_sum(x):
    v, lane = x.view(np.int32), _lane(len(x))
    s = v.copy()
    for o in (8, 4, 2, 1):
        s = s + _shfl(s, "xor", o, 16)
    return np.where(lane < 16, s, v)


def runtime_broadcast(x, src=7):
    return _shfl(x, "idx", src)


def leader_broadcast(x, threshold=900):
    """Each warp's first lane with v > threshold (lane 31 where none: __ffs(0) - 1 = -1, and a
    shuffle reads lane b & 31) broadcasts 3v; that value, a warp-uniform lane, picks a second."""
    v = x.view(np.int32).astype(np.int64).reshape(-1, 32)
    out = np.empty_like(v)
    for w, row in enumerate(v):
        hits = np.flatnonzero(row > threshold)
        base = (row[hits[0] if hits.size else 31] * 3 + 2**31) % 2**32 - 2**31
        out[w] = row[base & 31] + base
    return ((out.reshape(-1) + 2**31) % 2**32 - 2**31).astype(np.int32).view(x.dtype)


def _leader_inputs(rng, n):
    """_small, with one warp in four below every threshold the kernel is run with (no leader)."""
    v = _small(rng, n).view(np.int32).reshape(-1, 32)
    v[::4] = -np.abs(v[::4])
    return v.reshape(-1).view(np.uint32)


def runtime_width_sum(x, width=8):
    v = x.view(np.int32)
    o = width // 2
    while o > 0:
        v = v + _shfl(v, "xor", o, width)
        o //= 2
    return v


def corner_cases(x):
    v = x.view(np.int32)
    return _shfl(v, "xor", 16, 8) + 3 * _shfl(v, "idx", -1) + 5 * _shfl(v, "down", 9, 8) + 7 * _shfl(v, "down", 33)


def _reduce_step_ptx(v, last_lane):
    """CUB ReduceStep: shfl.sync.down with c = last_lane, add only where the predicate holds."""
    out = v.copy()
    for s in range(5):
        d = 1 << s
        res = []
        for w in _warps(out):
            src, p = shfl_sync("down", d, last_lane)
            res.append(np.where(p, w[src] + w, w[src]).astype(np.uint32))
        out = np.concatenate(res)
    return out


def cub_reduce_full(x):
    return _reduce_step_ptx(x, 31)


def cub_reduce_partial(x):
    return _reduce_step_ptx(x, 20)


def segmented_scan4(x):
    v = x.view(np.int32)
    lanes = np.arange(32)
    for d in (1, 2):
        res = []
        for w in _warps(v):
            src, p = shfl_sync("up", d, lanes & 28)
            res.append(np.where(p, w[src] + w, w[src]))
        v = np.concatenate(res)
    return v


def tile_reduce8(x):
    v = x.view(np.int32)
    return np.repeat(v.reshape(-1, 8).sum(axis=1, dtype=np.int64).astype(np.int32), 8)


def tile_scan16(x):
    v = x.view(np.int32).reshape(-1, 16)
    scan = np.cumsum(v, axis=1, dtype=np.int64).astype(np.int32)
    return (scan + v[:, 3:4]).reshape(-1)


def transpose_reduce2(x):
    ab = x.reshape(-1, 2).astype(np.float32)
    a, b = ab[:, 0], ab[:, 1]
    lane = _lane(len(a))
    odd = (lane & 1).astype(bool)
    send, keep = np.where(odd, a, b), np.where(odd, b, a)
    keep = (keep + _shfl(send, "xor", 1)).astype(np.float32)
    for o in (2, 4, 8, 16):
        keep = (keep + _shfl(keep, "xor", o)).astype(np.float32)
    return keep


def excl_scan_add(x):
    v = scan_add_w32(x)
    return np.where(_lane(len(x)) == 0, 0, _shfl(v, "up", 1)).astype(np.int32)


def lane0_max(x):
    v = x.view(np.int32)
    for o in (16, 8, 4, 2, 1):
        v = np.maximum(v, _shfl(v, "down", o))
    return np.where(_lane(len(x)) == 0, v, 0).astype(np.int32)


def scan_umin_w16(x):
    v, lane = x.view(np.uint32), _lane(len(x)) & 15
    for d in (1, 2, 4, 8):
        v = np.where(lane >= d, np.minimum(v, _shfl(v, "up", d, 16)), v)
    return v


def fmax_butterfly(x):
    v = x.view(np.float32)
    for o in (1, 2, 4, 8, 16):
        v = np.fmax(v, _shfl(v, "xor", o))
    return v


def fsum_reassoc(x):
    """Exact: the inputs are small integers, so every order of the additions gives the same sum."""
    v = x.view(np.float32)
    for o in (16, 8, 4, 2, 1):
        v = v + _shfl(v, "xor", o)
    return v


def _block_lane0(x, per_block):
    """Thread 0 of each block gets per_block(its 64 inputs), every other thread its input."""
    v = x.view(np.int32)
    out = v.copy()
    for b in range(len(v) // BLOCK):
        out[b * BLOCK] = per_block(v[b * BLOCK:(b + 1) * BLOCK])
    return out


def _downtree_sum(v):
    for o in (16, 8, 4, 2, 1):
        v = (v + _shfl(v, "down", o)).astype(np.int32)
    return v


def phi_lane0_sum(x):
    return _block_lane0(x, lambda b: b[:32].sum(dtype=np.int32))


def loop_acc_lane0(x, rounds=3):
    """Lane 0: the sum over rounds r of the warp sum of in * (r + 1); other lanes 0."""
    v = x.view(np.int32)
    acc = sum(_downtree_sum((v * (r + 1)).astype(np.int32)) for r in range(rounds)).astype(np.int32)
    return np.where(_lane(len(v)) == 0, acc, 0).astype(np.int32)


def block_reduce_two_level(x):
    return _block_lane0(x, lambda b: b.sum(dtype=np.int32))


def phi_every_lane(x):
    """Warp 0 of each block holds its down-tree partial sums (lane j: lanes j..31 as the tree
    adds them, with CUDA's out-of-range lanes keeping their own value); warp 1 its input."""
    v = x.view(np.int32)
    tree = _downtree_sum(v)
    warp0 = (np.arange(len(v)) % BLOCK) < 32
    return np.where(warp0, tree, v).astype(np.int32)


def _gather_in_warps(x, src):
    """Every warp: lane i takes lane src[i] (a 32-lane source map inside each warp)."""
    return _warps(x)[:, np.asarray(src)].reshape(-1)


def _segmented(width, table):
    lane = np.arange(32)
    return (lane & ~(width - 1)) + np.asarray(table)[lane % width]


def table_quad(x):
    return _gather_in_warps(x, _segmented(4, [2, 0, 3, 1]))


def table_bitrev16(x):
    return _gather_in_warps(x, _segmented(16, [int(f"{k:04b}"[::-1], 2) for k in range(16)]))


def shifted_constant(x):
    return _gather_in_warps(x, _segmented(4, [2, 3, 0, 1]))


# ---- pair_chains and wide_chains: several values per step, 64-bit and half2 values (issue 14) ----

def _lane0_by_tid(n: int, block_x: int) -> np.ndarray:
    """Threads where `threadIdx.x % 32 == 0`, in blocks of BLOCK threads with blockDim.x = block_x
    (linear thread ids: in a 2-D block lane 16 can have threadIdx.x == 0 too)."""
    return (np.arange(n) % BLOCK % block_x) % 32 == 0


def _bcast0(v):
    """Every lane: lane 0 of its warp (`__shfl_sync(full, v, 0)`)."""
    return np.repeat(_warps(v)[:, 0], 32)


def argmax_down_pair(x, block_x=BLOCK):
    v, idx = x.astype(np.float32), np.arange(len(x), dtype=np.int32)
    for o in (16, 8, 4, 2, 1):
        ov, oi = _shfl(v, "down", o), _shfl(idx, "down", o)
        take = (ov > v) | ((ov == v) & (oi < idx))
        v, idx = np.where(take, ov, v), np.where(take, oi, idx)
    return np.where(_lane0_by_tid(len(x), block_x), idx, -1).astype(np.int32)


def argmax_xor_bcast(x, block_x=BLOCK):
    v, idx = x.astype(np.float32), np.arange(len(x), dtype=np.int32)
    for o in (16, 8, 4, 2, 1):
        ov, oi = _shfl(v, "xor", o), _shfl(idx, "xor", o)
        take = ov > v
        v, idx = np.where(take, ov, v), np.where(take, oi, idx)
    return (_bcast0(idx) * 16 + _bcast0(v).astype(np.int32)).astype(np.int32)


def welford_down(x, block_x=BLOCK):
    """apex's merge in float32, each operation rounded in the kernel's order (no contraction)."""
    f32 = np.float32
    mean, m2n, num = x.astype(f32), np.zeros(len(x), f32), np.ones(len(x), np.int32)
    for o in (16, 8, 4, 2, 1):
        num_new, mean_new, m2n_new = _shfl(num, "down", o), _shfl(mean, "down", o), _shfl(m2n, "down", o)
        factor = f32(1.0) / np.maximum(1, num + num_new).astype(f32)
        delta0 = mean - mean_new
        mean = (mean_new * num_new.astype(f32) + mean * num.astype(f32)) * factor
        m2n = m2n + (m2n_new + delta0 * delta0 * num_new.astype(f32) * num.astype(f32) * factor)
        num = num + num_new
    out = np.zeros(len(x), f32)
    lane0 = np.flatnonzero(_lane0_by_tid(len(x), block_x))
    out[lane0], out[lane0 + 1] = mean[lane0], m2n[lane0]
    return out


def softmax_online_bcast(x, block_x=BLOCK):
    f32 = np.float32
    maxval, sumval = x.astype(f32), np.ones(len(x), f32)
    for o in (16, 8, 4, 2, 1):
        om, osum = _shfl(maxval, "down", o), _shfl(sumval, "down", o)
        bigger = om > maxval
        sumval = np.where(bigger, sumval * np.exp2(maxval - om), sumval).astype(f32)
        osum = np.where(bigger, osum, osum * np.exp2(om - maxval)).astype(f32)
        maxval = np.where(bigger, om, maxval)
        sumval = (sumval + osum).astype(f32)
    return np.where(np.arange(len(x)) & 1, _bcast0(maxval), _bcast0(sumval)).astype(f32)


def argmin_u64_xor(x, block_x=BLOCK):
    cost, bucket = x.astype(np.float32), np.arange(len(x), dtype=np.int32)
    for o in (16, 8, 4, 2, 1):
        oc, ob = _shfl(cost, "xor", o), _shfl(bucket, "xor", o)
        take = (oc < cost) | ((oc == cost) & (ob < bucket))
        cost, bucket = np.where(take, oc, cost), np.where(take, ob, bucket)
    return bucket.astype(np.int32)


def dsum_down_lane0(x, block_x=BLOCK):
    v = x.astype(np.float64)
    for o in (16, 8, 4, 2, 1):
        v = v + _shfl(v, "down", o)
    return np.where(_lane0_by_tid(len(x), block_x), v, 0.0)


def i64_max_xor(x, block_x=BLOCK):
    v = x.astype(np.int64)
    for o in (1, 2, 4, 8, 16):
        v = np.maximum(v, _shfl(v, "xor", o))
    return v


def u64_sum_down_bcast(x, block_x=BLOCK):
    v = x.astype(np.uint64)
    for o in (16, 8, 4, 2, 1):
        v = v + _shfl(v, "down", o)
    return _bcast0(v)


def dmax_xor_w16(x, block_x=BLOCK):
    v = x.astype(np.float64)
    for o in (8, 4, 2, 1):
        v = np.fmax(v, _shfl(v, "xor", o, 16))
    return v


def half2_sum_down_lane0(x, block_x=BLOCK):
    return np.where(_lane0_by_tid(len(x), block_x), _half2_chain(x, "down"), np.uint32(0))


def half2_max_xor(x, block_x=BLOCK):
    return _half2_chain(x, "xor", np.maximum)


def table_group_rotate(x):
    lane = np.arange(32)
    return _gather_in_warps(x, np.array([16, 0, 24, 8])[(lane >> 3) & 3] + (lane & 7))


def table_xor_pair(x):
    perm = np.array([0, 3, 1, 2])
    a = _gather_in_warps(x, _segmented(4, perm))
    b = _gather_in_warps(x, _segmented(4, perm ^ 1))
    return (a.view(np.int32) - b.view(np.int32)).astype(np.int32).view(np.uint32)


def table_switch(x):
    return _gather_in_warps(x, _segmented(4, [2, 0, 3, 1]))


def table_struct_2d(x):
    lane = np.arange(32)
    a = _gather_in_warps(x, _segmented(4, [1, 0, 3, 2]))
    b = _gather_in_warps(x, (lane & ~7) + np.array([[1, 0, 3, 2], [2, 3, 0, 1]])[(lane >> 2) & 1, lane & 3])
    return a ^ (b << np.uint32(1))

def _u32(rng, n):
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)


def _small(rng, n):
    return rng.integers(-1000, 1000, n).astype(np.int32).view(np.uint32)


# kernel -> (family, dtype of inputs, extra inputs/args, reference)
KERNELS: dict[str, tuple[str, Callable, Callable]] = {
    "butterfly_sum_f32": ("butterfly", lambda r, n: [r.standard_normal(n).astype(np.float32)], butterfly_sum_f32),
    "butterfly_max_i32_w16": ("butterfly", lambda r, n: [_u32(r, n)], butterfly_max_i32_w16),
    "butterfly_or_u32_w8": ("butterfly", lambda r, n: [_u32(r, n)], butterfly_or_u32_w8),
    "butterfly_half2": ("butterfly", lambda r, n: [r.standard_normal(2 * n).astype(np.float16).view(np.uint32)],
                        butterfly_half2),
    "butterfly_asc_f64": ("butterfly_asc", lambda r, n: [r.standard_normal(n)], butterfly_asc_f64),
    "argmax_pair": ("pair_argmax", lambda r, n: [r.integers(0, 8, n).astype(np.float32)], argmax_pair),
    "strided_sum": ("strided", lambda r, n: [_small(r, n)], strided_sum),
    "downtree_sum_bcast": ("downtree", lambda r, n: [_small(r, n)], downtree_sum_bcast),
    "downtree_asc_raw": ("downtree", lambda r, n: [_small(r, n)], downtree_asc_raw),
    "scan_add_w32": ("scan", lambda r, n: [_small(r, n)], scan_add_w32),
    "scan_add_w8": ("scan", lambda r, n: [_small(r, n)], scan_add_w8),
    "exclusive_and_diff": ("shift", lambda r, n: [_small(r, n)], exclusive_and_diff),
    "broadcast_lanes": ("broadcast", lambda r, n: [_u32(r, n)], broadcast_lanes),
    "broadcast_u64": ("broadcast", lambda r, n: [r.integers(0, 2**63, n, dtype=np.uint64)], broadcast_u64),
    "rotate_f64": ("rotate", lambda r, n: [r.standard_normal(n)], rotate_f64),
    "affine_gather": ("rotate", lambda r, n: [_u32(r, n)], affine_gather),
    "lane_arith": ("lane_arith", lambda r, n: [_u32(r, n)], lane_arith),
    "quad_table": ("quad_table", lambda r, n: [_u32(r, n)], quad_table),
    "lut_gather": ("gather", lambda r, n: [_u32(r, n), r.integers(0, 64, n).astype(np.int32)], lut_gather),
    "transpose4": ("transpose", lambda r, n: [_small(r, 4 * n)], transpose4),
    "bitonic32": ("bitonic", lambda r, n: [_small(r, n)], bitonic32),
    "reduce_sync_ops": ("hw_reduce", lambda r, n: [_u32(r, n)], reduce_sync_ops),
    "half_warp_sum": ("partial_mask", lambda r, n: [_small(r, n)], half_warp_sum),
    "runtime_broadcast": ("runtime_broadcast", lambda r, n: [_u32(r, n)], runtime_broadcast),
    "leader_broadcast": ("runtime_broadcast", lambda r, n: [_leader_inputs(r, n)], leader_broadcast),
    "runtime_width_sum": ("runtime_width", lambda r, n: [_small(r, n)], runtime_width_sum),
    "corner_cases": ("corner_cases", lambda r, n: [_small(r, n)], corner_cases),
    "cub_reduce_full": ("ptx_predicated", lambda r, n: [_u32(r, n)], cub_reduce_full),
    "cub_reduce_partial": ("ptx_predicated", lambda r, n: [_u32(r, n)], cub_reduce_partial),
    "segmented_scan4": ("ptx_segmented", lambda r, n: [_small(r, n)], segmented_scan4),
    "transpose_reduce2": ("transpose_reduce", lambda r, n: [r.standard_normal(2 * n).astype(np.float32)],
                          transpose_reduce2),
    "tile_reduce8": ("coop_groups", lambda r, n: [_small(r, n)], tile_reduce8),
    "tile_scan16": ("coop_groups", lambda r, n: [_small(r, n)], tile_scan16),
    "excl_scan_add": ("chains", lambda r, n: [_small(r, n)], excl_scan_add),
    "lane0_max": ("chains", lambda r, n: [_small(r, n)], lane0_max),
    "scan_umin_w16": ("chains", lambda r, n: [_u32(r, n)], scan_umin_w16),
    "fmax_butterfly": ("chains", lambda r, n: [r.standard_normal(n).astype(np.float32)], fmax_butterfly),
    "fsum_reassoc": ("chains", lambda r, n: [r.integers(-64, 64, n).astype(np.float32)], fsum_reassoc),
    "phi_lane0_sum": ("chain_flow", lambda r, n: [_small(r, n)], phi_lane0_sum),
    "loop_acc_lane0": ("chain_flow", lambda r, n: [_small(r, n)], loop_acc_lane0),
    "block_reduce_two_level": ("chain_flow", lambda r, n: [_small(r, n)], block_reduce_two_level),
    "phi_every_lane": ("chain_flow", lambda r, n: [_small(r, n)], phi_every_lane),
    "table_quad": ("lane_tables", lambda r, n: [_u32(r, n)], table_quad),
    "table_bitrev16": ("lane_tables", lambda r, n: [_u32(r, n)], table_bitrev16),
    "shifted_constant": ("lane_tables", lambda r, n: [_u32(r, n)], shifted_constant),
    "table_group_rotate": ("lane_tables", lambda r, n: [_u32(r, n)], table_group_rotate),
    "table_xor_pair": ("lane_tables", lambda r, n: [_u32(r, n)], table_xor_pair),
    "table_switch": ("lane_tables", lambda r, n: [_u32(r, n)], table_switch),
    "table_struct_2d": ("lane_tables", lambda r, n: [_u32(r, n)], table_struct_2d),
    "argmax_down_pair": ("pair_chains", lambda r, n: [r.integers(0, 8, n).astype(np.float32)], argmax_down_pair),
    "argmax_xor_bcast": ("pair_chains", lambda r, n: [r.integers(0, 8, n).astype(np.float32)], argmax_xor_bcast),
    "welford_down": ("pair_chains", lambda r, n: [r.standard_normal(n).astype(np.float32)], welford_down),
    "softmax_online_bcast": ("pair_chains", lambda r, n: [r.integers(-6, 7, n).astype(np.float32)],
                             softmax_online_bcast),
    "argmin_u64_xor": ("pair_chains", lambda r, n: [r.integers(0, 8, n).astype(np.float32)], argmin_u64_xor),
    "dsum_down_lane0": ("wide_chains", lambda r, n: [r.standard_normal(n)], dsum_down_lane0),
    "i64_max_xor": ("wide_chains", lambda r, n: [r.integers(-2**62, 2**62, n, dtype=np.int64)], i64_max_xor),
    "u64_sum_down_bcast": ("wide_chains", lambda r, n: [r.integers(0, 2**63, n, dtype=np.uint64)],
                           u64_sum_down_bcast),
    "dmax_xor_w16": ("wide_chains", lambda r, n: [r.standard_normal(n)], dmax_xor_w16),
    "half2_sum_down_lane0": ("wide_chains", lambda r, n: [r.standard_normal(2 * n).astype(np.float16).view(np.uint32)],
                             half2_sum_down_lane0),
    "half2_max_xor": ("wide_chains", lambda r, n: [r.standard_normal(2 * n).astype(np.float16).view(np.uint32)],
                      half2_max_xor),
}
EXTRA_ARGS = {"runtime_broadcast": [7], "leader_broadcast": [900], "runtime_width_sum": [8], "loop_acc_lane0": [3]}
