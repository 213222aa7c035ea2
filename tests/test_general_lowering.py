"""The exact general lowering (runtime b, c): its op list, evaluated lane by lane, equals the CUDA
model for every mode, every b that matters and every c that matters, on both halves of a wave64."""
from __future__ import annotations

import numpy as np
import pytest

from shflx.amd.general import evaluate, function_ir
from shflx.cuda import MODES, shfl_sync


@pytest.mark.parametrize("mode", MODES)
def test_general_lowering_matches_the_model(mode):
    hw = np.arange(64)
    for b in list(range(32)) + [33, -1, 0x7FFFFFFF]:
        for c in range(0x2000):
            if c & 0xE0:
                continue                      # bits 5-7 are ignored (checked by test_cuda)
            want, _ = shfl_sync(mode, b, c)
            got = evaluate(mode, hw, np.full(64, b), np.full(64, c))
            assert np.array_equal(got[:32], want) and np.array_equal(got[32:], want + 32), (b, hex(c))


def test_per_lane_operands():
    rng = np.random.default_rng(0)
    hw = np.arange(64)
    for mode in MODES:
        for _ in range(200):
            b = rng.integers(0, 2**32, 64)
            c = rng.integers(0, 2**32, 64)
            for half in (0, 32):
                want, _ = shfl_sync(mode, b[half:half + 32], c[half:half + 32])
                assert np.array_equal(evaluate(mode, hw, b, c)[half:half + 32], want + half)


def test_ir_text_uses_one_bpermute():
    text, needed = function_ir("idx", 64, "f")
    assert text.count("ds.bpermute") == 1 and "mbcnt.hi" in text and needed == {"mbcnt", "ds.bpermute"}
