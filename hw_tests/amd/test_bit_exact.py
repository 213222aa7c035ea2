"""The comparison of hw_tests/amd: bitwise, so what a float tolerance lets through fails."""
from __future__ import annotations

import numpy as np
import pytest

from hw_devices import assert_bit_exact


def test_a_corrupted_low_word_of_an_f64_fails():
    want = np.random.default_rng(3).standard_normal(64) * 5
    got = (want.view(np.uint64) ^ np.uint64(1 << 20)).view(np.float64)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5)          # what the old tolerance accepted
    with pytest.raises(pytest.fail.Exception, match="64 of 64 elements differ"):
        assert_bit_exact(got, want, "f64")


@pytest.mark.parametrize("got,want", [(np.float32([-0.0]), np.float32([0.0])),
                                      (np.float32([np.nan]), np.float32([-np.nan])),
                                      (np.int32([1]), np.uint32([1])),
                                      (np.uint32([1, 2]), np.uint32([1]))])
def test_sign_nan_payload_dtype_and_shape_count(got, want):
    with pytest.raises((pytest.fail.Exception, AssertionError)):
        assert_bit_exact(got, want, "x")


def test_equal_bits_pass_nan_included():
    x = np.float32([1.5, np.nan, -0.0, np.inf])
    assert_bit_exact(x.copy(), x, "x")
