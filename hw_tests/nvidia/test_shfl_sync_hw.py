"""Hardware check of shflx's `shfl.sync` model (shflx.cuda, spec/cuda_ptx_shfl.md §2.2) on an NVIDIA GPU.

Hand-written PTX is JIT-compiled by the driver (cuda-python's `cuda.bindings.driver`; no nvcc at
run time). Each warp runs one configuration: a mode picked by a runtime branch over the four
`shfl.sync` forms, b and c loaded into registers, full member mask. Every lane contributes
`a = 1000 * (warp + 1) + lane` and stores what it received (so the source lane decodes as
`d - 1000 * (warp + 1)`), the predicate, and the result of the same shuffle without the
predicate destination. Everything is compared with `shflx.cuda.shfl_source`, evaluated for all
configurations at once with numpy.

Sections:
  uniform   every mode x 41 b values (0..31 and wrap values) x every c in 0..8191 plus c values
            with bits above 12 set; b and c uniform in the warp, loaded per warp (`shfl_warp`);
  per_lane  b and c per lane (`shfl_lane`): b = lane + k, lane ^ k, random ..., c = lane & ~3,
            lane | 3, per-lane segment masks, random ...;
  imm       immediate b and c operands (`shfl_imm`), the rows of spec §4.1/§4.2;
  probes    the §4.1/§4.2 probe rows checked against the spec's recorded H100 table and against
            hand-written expectations, printed readably.

Runs under pytest (skips cleanly without cuda-python, a driver or a GPU) and as a script:

    PYTHONPATH=. python3 hw_tests/nvidia/test_shfl_sync_hw.py --json OUT.json [--quick]
    python3 hw_tests/nvidia/test_shfl_sync_hw.py --emulate     # no GPU: self-test of the harness

Only `shflx.cuda` (numpy + stdlib) is imported from the package."""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

_REPO = Path(__file__).resolve().parents[2]
if str(_REPO) not in sys.path:
    sys.path.insert(0, str(_REPO))

from shflx.cuda import MODES, shfl_source  # noqa: E402

WARP = 32
FULL = 0xFFFFFFFF
U32 = 1 << 32
LANE = np.arange(WARP, dtype=np.int64)

# b values: every b[4:0], plus values that only differ above bit 4 (they must wrap).
B_WRAP = [32, 33, 40, 63, 64, 0xFFFFFFFF, (-3) & FULL, 0x7FFFFFFF, 0x80000000]
B_VALUES = list(range(32)) + B_WRAP
# c values with bits above 12 set: their low 13 bits must be all that counts.
_C_HIGH_LOW = [0x0000, 0x001F, 0x0014, 0x0800, 0x1800, 0x181F, 0x1C1F, 0x1F1F, 0x1003, 0x00E0]
_C_HIGH_HI = [0x2000, 0xFFFFE000, 0x80000000, 0x7FFFE000, 0x12340000]
C_HIGH = [lo | hi for lo in _C_HIGH_LOW for hi in _C_HIGH_HI]

PTX_VERSION = "8.0"
PTX_TARGET = "sm_80"
BLOCK = 256  # threads per block (8 warps); the grid always covers whole warps

# Immediate-operand forms (mode, b, c): the rows of spec §4.1/§4.2 that use constants, plus a few
# more wraps. ptxas must accept each as an immediate (checked with ptxas 13.0 for sm_80/sm_90).
IMM_FORMS = [
    ("idx", 0xFFFFFFFF, 0x1F), ("idx", (-3) & FULL, 0x181F), ("idx", 5, 0x1F),
    ("up", 32, 0x0), ("up", 1, 0x1800), ("up", 40, 0x0), ("up", 1, 0x0),
    ("down", 1, 0x181F), ("down", 33, 0x1F), ("down", 9, 0x181F), ("down", 0xFFFFFFFF, 0x1F),
    ("down", 2, 20), ("down", 4, 0x1F),
    ("bfly", 3, 0x1F), ("bfly", 16, 0x181F), ("bfly", 12, 0x1F), ("bfly", 8, 0x181F),
    ("bfly", 1, 0x1F), ("bfly", 31, 0x0),
]


# --------------------------------------------------------------------------------------------
# PTX


def _ptx_config_kernel(name: str, per_lane: bool) -> str:
    """Kernel: warp w uses mode[w]; b and c from b[], c[] at index w (per warp) or tid (per lane)."""
    idx = "%gtid" if per_lane else "%warp"
    shfl = []
    for code, mode in enumerate(MODES):
        shfl.append(f"""
M{code}:
    shfl.sync.{mode}.b32 %d|%p, %a, %b, %c, 0xffffffff;
    shfl.sync.{mode}.b32 %d2, %a, %b, %c, 0xffffffff;
    bra.uni STORE;""")
    return f"""
.visible .entry {name}(
    .param .u64 p_mode, .param .u64 p_b, .param .u64 p_c,
    .param .u64 p_val, .param .u64 p_pred, .param .u64 p_val2,
    .param .u32 p_nwarps)
{{
    .reg .pred %p, %q;
    .reg .b32 %gtid, %warp, %lane, %nw, %mode, %b, %c, %a, %d, %d2, %pv, %t0, %t1, %t2;
    .reg .b64 %rm, %rb, %rc, %rv, %rp, %rv2, %off, %addr;

    mov.u32 %t0, %tid.x;
    mov.u32 %t1, %ctaid.x;
    mov.u32 %t2, %ntid.x;
    mad.lo.u32 %gtid, %t1, %t2, %t0;
    shr.u32 %warp, %gtid, 5;
    mov.u32 %lane, %laneid;
    ld.param.u32 %nw, [p_nwarps];
    setp.ge.u32 %q, %warp, %nw;
    @%q bra DONE;

    ld.param.u64 %rm, [p_mode];
    ld.param.u64 %rb, [p_b];
    ld.param.u64 %rc, [p_c];
    ld.param.u64 %rv, [p_val];
    ld.param.u64 %rp, [p_pred];
    ld.param.u64 %rv2, [p_val2];
    cvta.to.global.u64 %rm, %rm;
    cvta.to.global.u64 %rb, %rb;
    cvta.to.global.u64 %rc, %rc;
    cvta.to.global.u64 %rv, %rv;
    cvta.to.global.u64 %rp, %rp;
    cvta.to.global.u64 %rv2, %rv2;

    mul.wide.u32 %off, %warp, 4;
    add.s64 %addr, %rm, %off;
    ld.global.u32 %mode, [%addr];
    mul.wide.u32 %off, {idx}, 4;
    add.s64 %addr, %rb, %off;
    ld.global.u32 %b, [%addr];
    add.s64 %addr, %rc, %off;
    ld.global.u32 %c, [%addr];

    add.u32 %t0, %warp, 1;
    mad.lo.u32 %a, %t0, 1000, %lane;

    setp.eq.u32 %q, %mode, 0;
    @%q bra M0;
    setp.eq.u32 %q, %mode, 1;
    @%q bra M1;
    setp.eq.u32 %q, %mode, 2;
    @%q bra M2;
    bra M3;
{''.join(shfl)}

STORE:
    selp.u32 %pv, 1, 0, %p;
    mul.wide.u32 %off, %gtid, 4;
    add.s64 %addr, %rv, %off;
    st.global.u32 [%addr], %d;
    add.s64 %addr, %rp, %off;
    st.global.u32 [%addr], %pv;
    add.s64 %addr, %rv2, %off;
    st.global.u32 [%addr], %d2;
DONE:
    ret;
}}
"""


def _ptx_imm_kernel(forms: list[tuple[str, int, int]]) -> str:
    """Kernel: warp w runs immediate form w (b and c are PTX immediates)."""
    branches, bodies = [], []
    for k, (mode, b, c) in enumerate(forms):
        branches.append(f"    setp.eq.u32 %q, %warp, {k};\n    @%q bra F{k};")
        bodies.append(f"""
F{k}:
    shfl.sync.{mode}.b32 %d|%p, %a, 0x{b:08X}, 0x{c:08X}, 0xffffffff;
    bra.uni STORE;""")
    return f"""
.visible .entry shfl_imm(.param .u64 p_val, .param .u64 p_pred, .param .u32 p_nwarps)
{{
    .reg .pred %p, %q;
    .reg .b32 %gtid, %warp, %lane, %nw, %a, %d, %pv, %t0, %t1, %t2;
    .reg .b64 %rv, %rp, %off, %addr;

    mov.u32 %t0, %tid.x;
    mov.u32 %t1, %ctaid.x;
    mov.u32 %t2, %ntid.x;
    mad.lo.u32 %gtid, %t1, %t2, %t0;
    shr.u32 %warp, %gtid, 5;
    mov.u32 %lane, %laneid;
    ld.param.u32 %nw, [p_nwarps];
    setp.ge.u32 %q, %warp, %nw;
    @%q bra DONE;
    ld.param.u64 %rv, [p_val];
    ld.param.u64 %rp, [p_pred];
    cvta.to.global.u64 %rv, %rv;
    cvta.to.global.u64 %rp, %rp;
    add.u32 %t0, %warp, 1;
    mad.lo.u32 %a, %t0, 1000, %lane;
{chr(10).join(branches)}
    bra DONE;
{''.join(bodies)}

STORE:
    selp.u32 %pv, 1, 0, %p;
    mul.wide.u32 %off, %gtid, 4;
    add.s64 %addr, %rv, %off;
    st.global.u32 [%addr], %d;
    add.s64 %addr, %rp, %off;
    st.global.u32 [%addr], %pv;
DONE:
    ret;
}}
"""


def _header() -> str:
    return f".version {PTX_VERSION}\n.target {PTX_TARGET}\n.address_size 64\n"


def ptx_config_module() -> str:
    return _header() + _ptx_config_kernel("shfl_warp", False) + _ptx_config_kernel("shfl_lane", True)


def ptx_imm_module(forms: list[tuple[str, int, int]] = IMM_FORMS) -> str:
    return _header() + _ptx_imm_kernel(forms)


# --------------------------------------------------------------------------------------------
# Configurations


@dataclass
class Configs:
    """One row per warp: mode code, and b, c as (n, 1) (uniform) or (n, 32) (per lane) uint32."""

    label: str
    mode: np.ndarray            # (n,) uint32, index into MODES
    b: np.ndarray
    c: np.ndarray
    tags: list[str] = field(default_factory=list)  # optional per-row names (probes)

    @property
    def n(self) -> int:
        return int(self.mode.shape[0])

    @property
    def per_lane(self) -> bool:
        return self.b.shape[1] == WARP


def uniform_configs(quick: bool = False) -> Configs:
    """4 modes x B_VALUES x C values. Full: every c in 0..8191 plus C_HIGH; quick: the 1024
    combinations of c[4:0] and c[12:8] (bits 5-7 clear) plus C_HIGH and bits 5-7 samples."""
    if quick:
        base = [(seg << 8) | clamp for seg in range(32) for clamp in range(32)]
        cs = base + [0x20, 0xE0, 0xFF, 0x18FF, 0x1FFF] + C_HIGH
    else:
        cs = list(range(8192)) + C_HIGH
    m, b, c = np.meshgrid(np.arange(4, dtype=np.uint32), np.array(B_VALUES, dtype=np.uint32),
                          np.array(cs, dtype=np.uint32), indexing="ij")
    return Configs("uniform", m.ravel(), b.reshape(-1, 1).copy(), c.reshape(-1, 1).copy())


def per_lane_configs(seed: int = 20261117) -> Configs:
    """b and c per lane: structured patterns crossed, plus fully random lanes."""
    rng = np.random.default_rng(seed)
    lane = np.arange(WARP, dtype=np.int64)
    bpat = [(lane + k) & FULL for k in range(-40, 72)]
    bpat += [lane ^ k for k in range(32)]
    bpat += [31 - lane, (lane * 3) & 31, lane >> 1, (lane * 7 + 5) & FULL, lane << 5, lane | 0xFFFFFFE0]
    bpat += [rng.integers(0, 64, WARP) for _ in range(12)]
    bpat += [rng.integers(0, U32, WARP) for _ in range(12)]
    cpat = [lane & ~3, lane & ~7, lane & ~15, lane | 3, lane | 7, lane, 31 - lane,
            np.full(WARP, 20), np.full(WARP, 0x1F), np.zeros(WARP, np.int64),
            ((lane & 3) << 11) | 0x1F,                 # per-lane segment mask
            ((lane & 0x18) << 8) | (lane & 7),          # segment mask and clamp from the lane
            (lane << 8) | (31 - lane),
            (0x1800 | (lane & ~3)), (0x1C00 | (lane & 3)),
            (lane & ~3) | 0xFFFFE000,                   # high bits set per lane
            ((lane & ~3) | ((lane & 7) << 5))]           # bits 5-7 vary per lane
    cpat += [rng.integers(0, 8192, WARP) for _ in range(12)]
    cpat += [rng.integers(0, U32, WARP) for _ in range(6)]
    rows_m, rows_b, rows_c = [], [], []
    for code in range(4):
        for bp in bpat:
            for cp in cpat:
                rows_m.append(code)
                rows_b.append(bp)
                rows_c.append(cp)
    nrand = 2048
    for code in range(4):
        rb = rng.integers(0, U32, (nrand, WARP))
        rb[: nrand // 2] &= 63
        rc = rng.integers(0, U32, (nrand, WARP))
        rc[: nrand // 2] &= 0x1FFF
        rows_m += [code] * nrand
        rows_b += list(rb)
        rows_c += list(rc)
    return Configs("per_lane", np.array(rows_m, np.uint32),
                   (np.array(rows_b, np.int64) & FULL).astype(np.uint32),
                   (np.array(rows_c, np.int64) & FULL).astype(np.uint32))


# Spec §4.2 raw results (source lanes; predicate rows) as recorded on an H100, and §4.1 facts.
def _rng(a: int, b: int) -> list[int]:
    return list(range(a, b))


SPEC_PROBES: list[tuple[str, str, Any, Any, list[int], list[int] | None]] = [
    # (name, mode, b, c, expected source lanes, expected predicate or None)
    ("#0 idx lane+1 w32", "idx", LANE + 1, 0x1F, _rng(1, 32) + [0], None),
    ("#1 idx lane+1 w8", "idx", LANE + 1, 0x181F,
     [x for s in range(0, 32, 8) for x in _rng(s + 1, s + 8) + [s]], None),
    ("#2 idx -1 w32", "idx", 0xFFFFFFFF, 0x1F, [31] * 32, None),
    ("#3 up 32 w32 (bval 0: own value, p = 1)", "up", 32, 0x0, _rng(0, 32), [1] * 32),
    ("#4 up 1 w8", "up", 1, 0x1800, [x for s in range(0, 32, 8) for x in [s] + _rng(s, s + 7)],
     [0, 1, 1, 1, 1, 1, 1, 1] * 4),
    ("#5 down 1 w8", "down", 1, 0x181F, [x for s in range(0, 32, 8) for x in _rng(s + 1, s + 8) + [s + 7]],
     [1, 1, 1, 1, 1, 1, 1, 0] * 4),
    ("#6 xor 3 w32", "bfly", 3, 0x1F, [i ^ 3 for i in range(32)], [1] * 32),
    ("#7 xor 16 w8 (lanes 16-31 read lane-16)", "bfly", 16, 0x181F, _rng(0, 16) + _rng(0, 16),
     [0] * 16 + [1] * 16),
    ("#8 xor 12 w32", "bfly", 12, 0x1F, [i ^ 12 for i in range(32)], [1] * 32),
    ("#9/#10 up 1 c=lane&~3", "up", 1, LANE & ~3,
     [x for s in range(0, 32, 4) for x in [s, s, s + 1, s + 2]], [0, 1, 1, 1] * 8),
    ("#11/#12 down 2 c=20", "down", 2, 20, _rng(2, 21) + _rng(19, 32), [1] * 19 + [0] * 13),
    ("#13 idx lane+33 c=31", "idx", LANE + 33, 0x1F, _rng(1, 32) + [0], [1] * 32),
    # §4.1
    ("4.1 idx -3 w8 -> lane 5 of each segment", "idx", (-3) & FULL, 0x181F,
     [s + 5 for s in range(0, 32, 8) for _ in range(8)], [1] * 32),
    ("4.1 up 40 -> up 8", "up", 40, 0x0, _rng(0, 8) + _rng(0, 24), [0] * 8 + [1] * 24),
    ("4.1 down 33 -> lane+1", "down", 33, 0x1F, _rng(1, 32) + [31], [1] * 31 + [0]),
    ("4.1 down 9 w8 -> own value", "down", 9, 0x181F, _rng(0, 32), [0] * 32),
    ("4.1 down -1 -> only lane 0 (from 31)", "down", 0xFFFFFFFF, 0x1F, [31] + _rng(1, 32),
     [1] + [0] * 31),
    ("4.1 xor 8 w8 -> lanes 8-15 get 0-7", "bfly", 8, 0x181F,
     _rng(0, 8) + _rng(0, 8) + _rng(16, 24) + _rng(16, 24), ([0] * 8 + [1] * 8) * 2),
]


def probe_configs() -> Configs:
    rows_m, rows_b, rows_c, tags = [], [], [], []
    for name, mode, b, c, _, _ in SPEC_PROBES:
        rows_m.append(MODES.index(mode))
        rows_b.append(np.broadcast_to(np.asarray(b, np.int64), (WARP,)) & FULL)
        rows_c.append(np.broadcast_to(np.asarray(c, np.int64), (WARP,)) & FULL)
        tags.append(name)
    return Configs("probes", np.array(rows_m, np.uint32), np.array(rows_b).astype(np.uint32),
                   np.array(rows_c).astype(np.uint32), tags)


def imm_configs(forms: list[tuple[str, int, int]] = IMM_FORMS) -> Configs:
    return Configs("imm", np.array([MODES.index(m) for m, _, _ in forms], np.uint32),
                   np.array([[b] for _, b, _ in forms], np.uint32),
                   np.array([[c] for _, _, c in forms], np.uint32),
                   [f"{m} b=0x{b:X} c=0x{c:X}" for m, b, c in forms])


# --------------------------------------------------------------------------------------------
# Model and comparison


def model(cfg: Configs) -> tuple[np.ndarray, np.ndarray]:
    """shflx.cuda.shfl_source for every (warp, lane): source lanes (n, 32) and predicates."""
    src = np.empty((cfg.n, WARP), np.int64)
    pred = np.empty((cfg.n, WARP), bool)
    for code, mode in enumerate(MODES):
        sel = np.nonzero(cfg.mode == code)[0]
        for lo in range(0, sel.size, 1 << 16):
            rows = sel[lo:lo + (1 << 16)]
            s, p = shfl_source(mode, LANE, cfg.b[rows].astype(np.int64), cfg.c[rows].astype(np.int64))
            src[rows] = np.broadcast_to(s, (rows.size, WARP))
            pred[rows] = np.broadcast_to(p, (rows.size, WARP))
    return src, pred


def decode(val: np.ndarray) -> np.ndarray:
    """Received value -> source lane (-1 where it is not a value of this warp)."""
    n = val.shape[0]
    base = 1000 * (np.arange(n, dtype=np.int64) + 1)[:, None]
    src = val.astype(np.int64) - base
    return np.where((src >= 0) & (src < WARP), src, -1)


@dataclass
class Result:
    label: str
    configs: int
    lanes: int
    mismatches: int = 0            # lanes where source or predicate differ from the model
    src_mismatches: int = 0
    pred_mismatches: int = 0
    nopred_mismatches: int = 0     # lanes where the form without |p disagrees with the |p form
    undecodable: int = 0           # received values that are no lane of this warp
    first: list[dict] = field(default_factory=list)
    seconds: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.mismatches == 0 and self.nopred_mismatches == 0 and self.undecodable == 0

    def as_json(self) -> dict:
        d = dict(self.__dict__)
        d["ok"] = self.ok
        return d


def compare(cfg: Configs, val: np.ndarray, pred: np.ndarray, val2: np.ndarray | None,
            seconds: dict | None = None, max_detail: int = 8) -> Result:
    t0 = time.perf_counter()
    msrc, mpred = model(cfg)
    t1 = time.perf_counter()
    hsrc = decode(val)
    hpred = pred.astype(bool)
    bad_src = hsrc != msrc
    bad_pred = hpred != mpred
    bad = bad_src | bad_pred
    res = Result(cfg.label, cfg.n, cfg.n * WARP, int(bad.sum()), int(bad_src.sum()),
                 int(bad_pred.sum()), 0, int((hsrc < 0).sum()))
    if val2 is not None:
        res.nopred_mismatches = int((val2 != val).sum())
    rows = np.nonzero(bad.any(axis=1))[0][:max_detail]
    for r in rows:
        lanes = np.nonzero(bad[r])[0]
        res.first.append({
            "row": int(r), "tag": cfg.tags[r] if cfg.tags else None,
            "mode": MODES[int(cfg.mode[r])],
            "b": [int(x) for x in np.broadcast_to(cfg.b[r], (WARP,))] if cfg.per_lane else int(cfg.b[r, 0]),
            "c": [int(x) for x in np.broadcast_to(cfg.c[r], (WARP,))] if cfg.per_lane else int(cfg.c[r, 0]),
            "lanes": [int(x) for x in lanes],
            "hw_src": [int(x) for x in hsrc[r]], "model_src": [int(x) for x in msrc[r]],
            "hw_pred": [int(x) for x in hpred[r]], "model_pred": [int(x) for x in mpred[r]],
        })
    res.seconds = dict(seconds or {})
    res.seconds["model"] = round(t1 - t0, 3)
    res.seconds["compare"] = round(time.perf_counter() - t1, 3)
    return res


# --------------------------------------------------------------------------------------------
# Device access (cuda.bindings.driver)


class NoGPU(Exception):
    """No usable NVIDIA GPU here: cuda-python missing, no driver, or no device."""


class Device:
    """Primary context on device 0; loads PTX and launches the kernels above."""

    def __init__(self) -> None:
        try:
            from cuda.bindings import driver as cu  # type: ignore
        except Exception as e:  # ImportError, or a broken install
            raise NoGPU(f"cuda.bindings.driver not importable ({type(e).__name__}: {e})") from e
        self.cu = cu
        try:
            res = cu.cuInit(0)
        except Exception as e:  # e.g. cuda.pathfinder DynamicLibNotFoundError: no driver library
            raise NoGPU(f"cuInit raised {type(e).__name__}: {e}") from e
        if res[0] != cu.CUresult.CUDA_SUCCESS:
            raise NoGPU(f"cuInit returned {self._name(res[0])}")
        err, count = cu.cuDeviceGetCount()
        if err != cu.CUresult.CUDA_SUCCESS or count < 1:
            raise NoGPU(f"no CUDA device (cuDeviceGetCount: {self._name(err)}, {count})")
        self.dev = self.check(cu.cuDeviceGet(0))
        self.ctx = self.check(cu.cuDevicePrimaryCtxRetain(self.dev))
        self.check(cu.cuCtxSetCurrent(self.ctx))
        A = cu.CUdevice_attribute
        name = self.check(cu.cuDeviceGetName(256, self.dev))
        self.name = bytes(name).split(b"\0", 1)[0].decode(errors="replace")
        self.cc = (self.check(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.dev)),
                   self.check(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.dev)))
        self.sms = self.check(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, self.dev))
        self.driver_version = self.check(cu.cuDriverGetVersion())
        self.modules: list[Any] = []

    def _name(self, err: Any) -> str:
        try:
            e2, s = self.cu.cuGetErrorName(err)
            return s.decode() if isinstance(s, bytes) else str(s)
        except Exception:
            return str(err)

    def check(self, res: Any) -> Any:
        if not isinstance(res, tuple):
            res = (res,)
        err = res[0]
        if err != self.cu.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"CUDA driver call failed: {self._name(err)} ({int(err)})")
        rest = res[1:]
        return None if not rest else rest[0] if len(rest) == 1 else rest

    def info(self) -> dict:
        try:
            from importlib.metadata import version
            bindings = version("cuda-bindings")
        except Exception:
            bindings = None
        return {"name": self.name, "compute_capability": f"{self.cc[0]}.{self.cc[1]}",
                "multiprocessors": self.sms, "driver_cuda_version": self.driver_version,
                "cuda_bindings": bindings}

    def load(self, ptx: str) -> Any:
        mod = self.check(self.cu.cuModuleLoadData(ptx.encode() + b"\0"))  # NUL-terminated (§8.1)
        self.modules.append(mod)
        return mod

    def function(self, mod: Any, name: str) -> Any:
        return self.check(self.cu.cuModuleGetFunction(mod, name.encode()))

    def launch(self, fn: Any, nwarps: int, inputs: list[np.ndarray], nout: int) -> list[np.ndarray]:
        """Copy inputs (uint32 arrays) in, launch over nwarps warps, return nout (nwarps*32,) outputs."""
        cu = self.cu
        nthreads = nwarps * WARP
        ptrs, keep = [], []
        try:
            for arr in inputs:
                arr = np.ascontiguousarray(arr, dtype=np.uint32)
                d = self.check(cu.cuMemAlloc(max(arr.nbytes, 4)))
                ptrs.append(d)
                self.check(cu.cuMemcpyHtoD(d, arr, arr.nbytes))
            outs = []
            for _ in range(nout):
                d = self.check(cu.cuMemAlloc(nthreads * 4))
                ptrs.append(d)
                self.check(cu.cuMemsetD32(d, 0xDEADBEEF, nthreads))
                outs.append(d)
            argvals = [np.array([int(d)], dtype=np.uint64) for d in ptrs]
            argvals.append(np.array([nwarps], dtype=np.uint32))
            keep.extend(argvals)
            params = np.array([a.ctypes.data for a in argvals], dtype=np.uint64)
            grid = (nthreads + BLOCK - 1) // BLOCK
            self.check(cu.cuLaunchKernel(fn, grid, 1, 1, BLOCK, 1, 1, 0, 0, params.ctypes.data, 0))
            self.check(cu.cuCtxSynchronize())
            results = []
            for d in outs:
                host = np.empty(nthreads, dtype=np.uint32)
                self.check(cu.cuMemcpyDtoH(host, d, host.nbytes))
                results.append(host)
            return results
        finally:
            for d in ptrs:
                cu.cuMemFree(d)

    def close(self) -> None:
        for mod in self.modules:
            self.cu.cuModuleUnload(mod)
        self.modules = []
        self.cu.cuDevicePrimaryCtxRelease(self.dev)


def open_device() -> Device:
    return Device()


# --------------------------------------------------------------------------------------------
# Runners: hardware, or an independent emulator (self-test of the harness without a GPU)


def _emulate_src_pred(mode: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ZLUDA-style re-statement of the PTX pseudocode, written apart from shflx.cuda."""
    lane = LANE[None, :]
    b = b.astype(np.int64) & 31
    c = c.astype(np.int64)
    section = (c >> 8) & 0x1F
    sub = section & lane
    end = sub | (~section & (c & 0x1F))
    up, down, bfly = lane - b, lane + b, lane ^ b
    idx = sub | (b & ~section)
    m = mode.astype(np.int64)[:, None]
    j = np.select([m == 0, m == 1, m == 2], [up, down, bfly], idx)
    oob = np.where(m == 0, j < end, j > end)
    return np.where(oob, lane, j), ~oob


class Runner:
    def __init__(self, dev: Device | None, fault: bool = False) -> None:
        self.dev = dev
        self.fault = fault
        self.fn: dict[str, Any] = {}
        self.imm_error: str | None = None
        if dev is not None:
            mod = dev.load(ptx_config_module())
            self.fn["shfl_warp"] = dev.function(mod, "shfl_warp")
            self.fn["shfl_lane"] = dev.function(mod, "shfl_lane")
            try:  # immediates in their own module: a JIT refusal must not stop the rest
                self.fn["shfl_imm"] = dev.function(dev.load(ptx_imm_module()), "shfl_imm")
            except RuntimeError as e:
                self.imm_error = str(e)

    def run(self, cfg: Configs, kernel: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
        """Returns val, pred (n, 32) and the no-predicate result (or None for shfl_imm)."""
        t0 = time.perf_counter()
        if self.dev is None:
            src, p = _emulate_src_pred(cfg.mode, np.broadcast_to(cfg.b, (cfg.n, WARP)),
                                       np.broadcast_to(cfg.c, (cfg.n, WARP)))
            if self.fault and cfg.n > 7:  # plant a wrong lane to prove mismatches are caught
                src = src.copy()
                src[7, 3] ^= 1
            val = (src + 1000 * (np.arange(cfg.n)[:, None] + 1)).astype(np.uint32)
            pred = p.astype(np.uint32)
            outs = [val, pred, val.copy()]
        else:
            if kernel == "shfl_imm":
                outs = self.dev.launch(self.fn[kernel], cfg.n, [], 2) + [None]
            else:
                idx_b = cfg.b if kernel == "shfl_lane" else cfg.b[:, 0]
                idx_c = cfg.c if kernel == "shfl_lane" else cfg.c[:, 0]
                if kernel == "shfl_lane":
                    idx_b = np.broadcast_to(idx_b, (cfg.n, WARP))
                    idx_c = np.broadcast_to(idx_c, (cfg.n, WARP))
                outs = self.dev.launch(self.fn[kernel], cfg.n, [cfg.mode, idx_b.ravel(), idx_c.ravel()], 3)
        t1 = time.perf_counter()
        shaped = [None if o is None else np.asarray(o).reshape(cfg.n, WARP) for o in outs]
        return shaped[0], shaped[1], shaped[2], {"gpu_and_copies": round(t1 - t0, 3)}


def _fmt_row(xs: Any) -> str:
    return " ".join(f"{int(x):2d}" for x in xs)


def check_probes(runner: Runner, log: Callable[[str], None]) -> tuple[Result, list[str]]:
    """Spec §4.1/§4.2 rows on hardware (register operands), against the spec table and the model."""
    cfg = probe_configs()
    val, pred, val2, secs = runner.run(cfg, "shfl_lane")
    res = compare(cfg, val, pred, val2, secs)
    hsrc = decode(val)
    failures = []
    log("spec §4.1/§4.2 probe rows on hardware (source lane for lanes 0..31 / predicate):")
    for r, (name, _, _, _, exp_src, exp_pred) in enumerate(SPEC_PROBES):
        ok_src = list(hsrc[r]) == exp_src
        ok_pred = exp_pred is None or list(pred[r].astype(int)) == exp_pred
        mark = "ok " if ok_src and ok_pred else "BAD"
        log(f"  {mark} {name}")
        log(f"      src  {_fmt_row(hsrc[r])}")
        log(f"      pred {_fmt_row(pred[r])}")
        if not (ok_src and ok_pred):
            failures.append(name)
            log(f"      expected src  {_fmt_row(exp_src)}")
            if exp_pred is not None:
                log(f"      expected pred {_fmt_row(exp_pred)}")
    return res, failures


def run_all(runner: Runner, quick: bool, log: Callable[[str], None] = print) -> dict:
    out: dict[str, Any] = {}
    sections: list[Result] = []

    cfg = uniform_configs(quick)
    log(f"uniform: {cfg.n} warp configurations ({len(B_VALUES)} b x {cfg.n // 4 // len(B_VALUES)} c x 4 modes)")
    val, pred, val2, secs = runner.run(cfg, "shfl_warp")
    sections.append(compare(cfg, val, pred, val2, secs))
    del val, pred, val2

    cfg = per_lane_configs()
    log(f"per_lane: {cfg.n} warp configurations (per-lane b and c)")
    val, pred, val2, secs = runner.run(cfg, "shfl_lane")
    sections.append(compare(cfg, val, pred, val2, secs))

    if runner.dev is not None and "shfl_imm" not in runner.fn:
        log(f"imm: the immediate-operand module did not load: {runner.imm_error}")
        out["imm_error"] = runner.imm_error
    else:
        cfg = imm_configs()
        val, pred, _, secs = runner.run(cfg, "shfl_imm")
        r = compare(cfg, val, pred, None, secs)
        sections.append(r)

    pres, failures = check_probes(runner, log)
    sections.append(pres)
    out["probe_failures"] = failures

    out["sections"] = {s.label: s.as_json() for s in sections}
    out["total_configs"] = sum(s.configs for s in sections)
    out["total_lanes"] = sum(s.lanes for s in sections)
    out["total_mismatches"] = sum(s.mismatches + s.nopred_mismatches + s.undecodable for s in sections)
    out["ok"] = out["total_mismatches"] == 0 and not failures and "imm_error" not in out
    for s in sections:
        log(f"{s.label:9s} configs {s.configs:9d} lanes {s.lanes:10d} mismatches {s.mismatches} "
            f"(src {s.src_mismatches}, pred {s.pred_mismatches}) no-pred-form {s.nopred_mismatches} "
            f"undecodable {s.undecodable}  {s.seconds}")
        for m in s.first[:3]:
            log(f"    first mismatch: {json.dumps(m)}")
    log(f"TOTAL configs {out['total_configs']} lanes {out['total_lanes']} "
        f"mismatches {out['total_mismatches']} probe failures {len(failures)} -> "
        f"{'OK' if out['ok'] else 'FAIL'}")
    return out


# --------------------------------------------------------------------------------------------
# pytest


def _pytest_device() -> Device:
    import pytest
    try:
        return open_device()
    except NoGPU as e:
        pytest.skip(f"no NVIDIA GPU for the shfl.sync hardware check: {e}")


@contextmanager
def gpu_device() -> Iterator[Device]:
    """For pytest tests: `with gpu_device() as dev:` skips without a GPU (_pytest_device), and
    closes the device however the body ends."""
    dev = _pytest_device()
    try:
        yield dev
    finally:
        dev.close()


try:
    import pytest

    @pytest.fixture(scope="module")
    def hw_results() -> Any:
        with gpu_device() as dev:
            runner = Runner(dev)
            quick = os.environ.get("SHFLX_HW_QUICK", "") not in ("", "0")
            yield run_all(runner, quick, log=lambda s: None)

    def test_uniform_operands_match_model(hw_results: dict) -> None:
        s = hw_results["sections"]["uniform"]
        assert s["ok"], s["first"]

    def test_per_lane_operands_match_model(hw_results: dict) -> None:
        s = hw_results["sections"]["per_lane"]
        assert s["ok"], s["first"]

    def test_immediate_operands_match_model(hw_results: dict) -> None:
        assert "imm_error" not in hw_results, hw_results.get("imm_error")
        s = hw_results["sections"]["imm"]
        assert s["ok"], s["first"]

    def test_spec_probe_rows(hw_results: dict) -> None:
        assert hw_results["probe_failures"] == []
        assert hw_results["sections"]["probes"]["ok"], hw_results["sections"]["probes"]["first"]

except ImportError:  # running as a script without pytest
    pass


# --------------------------------------------------------------------------------------------
# script


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write the counts and device description here")
    ap.add_argument("--quick", action="store_true",
                    help="c[4:0] x c[12:8] (1024) plus samples instead of every c in 0..8191")
    ap.add_argument("--emulate", action="store_true",
                    help="no GPU: feed the harness from an independent emulator (self-test)")
    ap.add_argument("--emulate-fault", action="store_true", help="with --emulate, plant one wrong lane")
    ap.add_argument("--dump-ptx", help="write the PTX modules to this folder and exit")
    args = ap.parse_args(argv)

    if args.dump_ptx:
        d = Path(args.dump_ptx)
        d.mkdir(parents=True, exist_ok=True)
        (d / "shfl_config.ptx").write_text(ptx_config_module())
        (d / "shfl_imm.ptx").write_text(ptx_imm_module())
        print(f"wrote {d}/shfl_config.ptx and {d}/shfl_imm.ptx")
        return 0

    t0 = time.perf_counter()
    dev = None
    if not args.emulate:
        try:
            dev = open_device()
        except NoGPU as e:
            print(f"SKIP: {e}")
            return 0
    info = dev.info() if dev else {"name": "emulator (no GPU)"}
    print(f"device: {json.dumps(info)}")
    try:
        out = run_all(Runner(dev, fault=args.emulate_fault), args.quick)
    except Exception as e:  # keep what is known (device, error) where the JSON was asked for
        if args.json:
            import traceback
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps({"device": info, "ok": False, "error": repr(e),
                                                   "traceback": traceback.format_exc()}, indent=1))
        raise
    finally:
        if dev is not None:
            dev.close()
    out = {
        "check": "shflx.cuda shfl_source vs shfl.sync on hardware (hw_tests/nvidia/test_shfl_sync_hw.py)",
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device": info,
        "host": {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine()},
        "ptx": {"version": PTX_VERSION, "target": PTX_TARGET, "jit": "cuModuleLoadData"},
        "coverage": {"modes": list(MODES), "b_values": B_VALUES,
                     "c_values": "0x0000..0x1FFF (bits 5-7 and 13+ ignored)" if not args.quick else
                     "c[4:0] x c[12:8] (1024) + bits 5-7 samples",
                     "c_high_bits": C_HIGH, "quick": args.quick,
                     "value_encoding": "a = 1000 * (warp + 1) + lane"},
        "emulated": bool(args.emulate),
        **out,
        "seconds_total": round(time.perf_counter() - t0, 2),
    }
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
        print(f"wrote {args.json}")
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
