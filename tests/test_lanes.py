"""LaneMap: composition, comparison on care-sets, sentinels, the wave64 two-warp layout."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from shflx.lanes import OPEN, UNDEF, ZERO, LaneMap, lanes_to_mask, lift_to_wave, mask_to_lanes

perm32 = st.permutations(list(range(32))).map(LaneMap)


@given(perm32, perm32, perm32)
def test_composition_is_associative(a, b, c):
    assert a.then(b).then(c) == a.then(b.then(c))


@given(perm32)
def test_identity_is_neutral(a):
    ident = LaneMap.identity(32)
    assert ident.then(a) == a and a.then(ident) == a


def test_then_reads_through_the_first_map():
    rot = LaneMap([(i + 1) % 32 for i in range(32)])
    assert rot.then(rot).src.tolist() == [(i + 2) % 32 for i in range(32)]


def test_sentinels_pass_through_and_never_compare_equal():
    m = LaneMap([ZERO] + list(range(1, 32)))
    assert m.then(LaneMap.identity()).src[0] == ZERO
    assert m.first_difference(m) == 0                       # 0 is never "the same input lane"
    assert m.with_care([False] + [True] * 31).first_difference(m) is None
    for s in (UNDEF, OPEN):
        g = LaneMap([s] + list(range(1, 32)))
        assert g.first_difference(g) == 0


def test_first_difference_respects_care():
    a = LaneMap(np.arange(32))
    b = LaneMap(np.r_[np.arange(31), 0])
    assert a.first_difference(b) == 31
    assert a.with_care(np.arange(32) < 31).agrees(b)


def test_lift_to_wave64_keeps_each_warp_in_its_half():
    m = LaneMap([31 - i for i in range(32)], mask_to_lanes(0x0000FFFF, 32))
    w = lift_to_wave(m, 64)
    assert w.src[:32].tolist() == m.src.tolist()
    assert w.src[32:].tolist() == [63 - i for i in range(32)]
    assert w.care.tolist() == m.care.tolist() * 2
    assert lift_to_wave(m, 32) is m
    with pytest.raises(ValueError):
        lift_to_wave(w, 64)


@given(st.integers(0, 2**64 - 1))
def test_mask_round_trip(mask):
    assert lanes_to_mask(mask_to_lanes(mask, 64)) == mask


def test_format_is_readable():
    m = LaneMap([ZERO, UNDEF] + list(range(2, 32)), [True, True, False] + [True] * 29)
    assert m.format().startswith("0:zero 1:undef 2:* 3:3")
