"""Example: proving your own lane permutations in unit tests with shflx (the suite runs it: tests/test_api.py).

Run it yourself with `python -m pytest docs/examples/test_permutations.py`."""
import pytest
from hypothesis import given, settings

import shflx
from shflx.testing import lane_maps, shuffle_patterns


def rotate_within_rows(lane: int) -> int:
    """The permutation under test: each row of 16 lanes rotated by one (lane i reads i+1)."""
    return (lane & ~15) | ((lane + 1) & 15)


def test_my_map_is_the_cuda_shuffle_i_meant():
    # CUDA: __shfl_sync(mask, v, (lane + 1) % 16, 16) is "idx" with a per-lane b; as a map:
    cuda_map = [(c & ~15) | ((c + 1) & 15) for c in range(32)]
    shflx.assert_equivalent(rotate_within_rows, cuda_map)


def test_the_lowered_plan_is_proved_for_my_map_on_mi300():
    plan = shflx.lower("map " + ",".join(str(rotate_within_rows(c)) for c in range(32)), "gfx942")
    # gfx942 runs wave64: the 32-lane CUDA map holds in both halves; compare against a wave64 map
    shflx.assert_equivalent(plan, [rotate_within_rows(i) for i in range(64)], arch="gfx942")
    assert "ds_bpermute" not in plan.to_asm()          # a DPP row rotate, not the LDS crossbar


def test_a_wrong_permutation_names_every_bad_lane():
    result = shflx.equivalent(lambda i: i ^ 1, "xor 3")
    assert not result
    assert result.differing_lanes == tuple(range(32))
    with pytest.raises(AssertionError, match=r"lanes 0-7: +actual = \[101, 100, 103, 102"):
        shflx.assert_equivalent(lambda i: i ^ 1, "xor 3")


def test_wave64_hip_meaning_crosses_halves():
    # HIP's __shfl_xor(v, 32) on a wave64 GPU: lane i reads lane i ^ 32 (no CUDA warp can say this)
    plan = shflx.lower("xor 0", "gfx942")             # the identity, as a stand-in plan
    result = shflx.equivalent(plan, lambda i: i ^ 32, arch="gfx942")
    assert result.differing_lanes == tuple(range(64))


@settings(max_examples=25, deadline=None)
@given(lane_maps(wave=32, permutation=True))
def test_inverse_permutation_undoes_it(perm):
    inverse = [0] * 32
    for dst, src in enumerate(perm):
        inverse[src] = dst
    both = [perm[inverse[i]] for i in range(32)]      # apply inverse, then perm
    shflx.assert_equivalent(both, range(32))


@settings(max_examples=10, deadline=None)
@given(shuffle_patterns())
def test_every_plan_shflx_picks_is_what_cuda_says(pattern):
    shflx.assert_equivalent(shflx.lower(pattern, "gfx1100"), pattern)
