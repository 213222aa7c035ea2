"""shflx.cuda against an independent table-driven transcription of the PTX pseudocode
(tests/reference/cuda_ref.py) and the H100-measured corner cases of spec/cuda_ptx_shfl.md §4."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shflx import cuda
from shflx.cuda import MODES, ShflOperands, c_for_width, intrinsic_operands, shfl_sync, shuffle_values
from tests.reference.cuda_ref import ref_intrinsic, ref_shfl

B_VALUES = list(range(64)) + [-1, -3, -32, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 1 << 31 | 5]
C_VALUES = sorted({(clamp | seg << 8) for clamp in range(32) for seg in range(32)}
                  | {0x20, 0xE0, 0xE01F, 0xFFFFE000, 0xFFFFFFFF, 0x2000, 0x181F | 0xE0})


@pytest.mark.parametrize("mode", MODES)
def test_uniform_operands_match_reference(mode):
    """All b in 0..63 (+ wrap values) x every c that matters (+ ignored high bits), 4 modes."""
    for b in B_VALUES:
        for c in C_VALUES:
            src, pred = shfl_sync(mode, b, c)
            rsrc, rpred = ref_shfl(mode, b, c)
            assert src.tolist() == rsrc and pred.tolist() == rpred, (mode, b, hex(c))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(MODES), st.lists(st.integers(0, 2**32 - 1), min_size=32, max_size=32),
       st.lists(st.integers(0, 2**32 - 1), min_size=32, max_size=32))
def test_per_lane_operands_match_reference(mode, b, c):
    src, pred = shfl_sync(mode, np.array(b), np.array(c))
    rsrc, rpred = ref_shfl(mode, b, c)
    assert src.tolist() == rsrc and pred.tolist() == rpred


def test_per_lane_clamp_scan_restarts_every_4_lanes():
    """Probe #9/#10 of §4.2: shfl.sync.up b=1 with c = lane & ~3."""
    lanes = np.arange(32)
    src, pred = shfl_sync("up", 1, lanes & ~3)
    assert src.tolist() == [l if l % 4 == 0 else l - 1 for l in range(32)]
    assert pred.tolist() == [l % 4 != 0 for l in range(32)]


@pytest.mark.parametrize("name", ["__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"])
@pytest.mark.parametrize("width", [1, 2, 4, 8, 16, 32, 6, 3])
def test_intrinsic_mapping_matches_reference(name, width):
    for arg in list(range(-40, 70)) + [0x7FFFFFFF, -(2**31)]:
        ops = intrinsic_operands(name, arg, width)
        mode, b, c = ref_intrinsic(name, arg, width)
        assert (ops.mode, ops.b & 31, ops.c & 0x1F1F) == (mode, b & 31, c & 0x1F1F)
        assert ops.lane_map().src.tolist() == ref_shfl(mode, b, c)[0]


def test_c_constants_are_what_nvcc_emits():
    """Table of spec §1.2 (nvcc 13 and clang agree)."""
    assert c_for_width("idx", 8) == 0x181F
    assert c_for_width("up", 8) == 0x1800
    assert c_for_width("down", 16) == 0x101F
    assert c_for_width("bfly", 4) == 0x1C1F
    assert c_for_width("idx", 32) == 0x1F and c_for_width("up", 32) == 0


def _src(name, arg, width=32):
    return intrinsic_operands(name, arg, width).lane_map().src.tolist()


def test_measured_corner_cases():
    """spec §4.1, measured on an H100."""
    assert _src("__shfl_sync", -1) == [31] * 32
    assert _src("__shfl_sync", -3, 8) == [(l & ~7) | 5 for l in range(32)]
    assert _src("__shfl_up_sync", 40) == [l - 8 if l >= 8 else l for l in range(32)]
    assert _src("__shfl_down_sync", 33) == [l + 1 if l < 31 else l for l in range(32)]
    assert _src("__shfl_down_sync", 9, 8) == list(range(32))
    assert _src("__shfl_down_sync", -1) == [31] + list(range(1, 32))
    assert _src("__shfl_xor_sync", 8, 8) == list(range(8)) + list(range(8)) + list(range(16, 24)) + list(range(16, 24))
    assert _src("__shfl_xor_sync", 16, 8) == list(range(16)) + list(range(16))


def test_width_6_is_the_noncontiguous_segment_mask():
    ops = intrinsic_operands("__shfl_sync", 0, 6)
    assert (ops.c >> 8) & 31 == 0b11010


def test_legacy_forms_ignore_the_member_mask():
    assert intrinsic_operands("__shfl_xor", 1, 32, member_mask=0xF).member_mask == cuda.FULL_MASK
    assert intrinsic_operands("__shfl_xor_sync", 1, 32, member_mask=0xF).member_mask == 0xF


def test_member_mask_care_set():
    """Lanes outside the mask, and lanes reading a non-member, are don't-care (DESIGN decision 3)."""
    m = ShflOperands("bfly", 1, 0x1F, member_mask=0x0000FFFF | 1 << 17).lane_map()
    assert m.care[:16].all() and not m.care[16] and not m.care[17] and not m.care[18:].any()


def test_64_bit_values_move_as_two_halves():
    rng = np.random.default_rng(0)
    v = rng.integers(0, 2**63, 32, dtype=np.uint64)
    for mode, b, c in [("down", 4, 0x1F), ("bfly", 5, 0x1F), ("up", 3, 0x1800)]:
        src, _ = shfl_sync(mode, b, c)
        assert np.array_equal(shuffle_values(v, mode, b, c), v[src])
        d = v.view(np.float64)
        assert np.array_equal(shuffle_values(d, mode, b, c).view(np.uint64), v[src])


def test_half_values_move_packed():
    h = (np.arange(32, dtype=np.uint16) * 257).view(np.float16)
    out = shuffle_values(h, "bfly", 1, 0x1F)
    assert np.array_equal(out.view(np.uint16), h.view(np.uint16)[np.arange(32) ^ 1])


def test_symbolic_mode_encoding_agrees_with_named_modes():
    """The Z3 form of the pseudocode (symbolic mode, b, c) equals the numpy form on every lane."""
    import z3
    from shflx.lanefn import z3ops

    o = z3ops()
    mode, b, c, lane = o.var("mode"), o.var("b"), o.var("c"), o.var("lane")
    sym_src, sym_p = cuda.shfl_source(mode, lane, b, c, o)
    rng = np.random.default_rng(1)
    for _ in range(200):
        m = int(rng.integers(0, 4)); bv = int(rng.integers(0, 64)); cv = int(rng.integers(0, 8192))
        want, wantp = shfl_sync(MODES[m], bv, cv)
        for l in (0, 7, 16, 31, int(rng.integers(0, 32))):
            sub = [(mode, o.const(m)), (b, o.const(bv)), (c, o.const(cv)),
                   (lane, o.const(l))]
            assert z3.simplify(z3.substitute(sym_src, *sub)).as_long() == want[l]
            assert z3.is_true(z3.simplify(z3.substitute(sym_p, *sub))) == bool(wantp[l])
