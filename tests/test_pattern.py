"""Pattern text: round trips (hypothesis), the CUDA meaning of each form, and clear errors."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shflx.cuda import intrinsic_operands
from shflx.errors import InputError
from shflx.pattern import COLLECTIVE_OPS, Collective, Shuffle, format_pattern, parse_pattern

widths = st.sampled_from([1, 2, 4, 8, 16, 32])
masks = st.integers(1, 2**32 - 1)

shuffles = st.one_of(
    st.builds(lambda k, a, w: f"{k} {a}" + (f" width {w}" if w != 32 else ""),
              st.sampled_from(["idx", "up", "down", "xor"]), st.integers(0, 31), widths),
    st.builds(lambda m, b, c: f"shfl.{m} b={b:#x} c={c:#x}",
              st.sampled_from(["idx", "up", "down", "bfly"]), st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    st.builds(lambda s: "map " + ",".join(map(str, s)), st.lists(st.integers(0, 31), min_size=32, max_size=32)),
)
collectives = st.builds(
    lambda kind, op, w, ex, live: f"{kind} {op}" + (f" width {w}" if w != 32 else "")
    + (" exclusive" if ex and kind == "scan" else "") + (f" lanes {live:#x}" if live else ""),
    st.sampled_from(["reduce", "scan"]), st.sampled_from(COLLECTIVE_OPS), widths, st.booleans(),
    st.one_of(st.just(0), masks))


@given(st.one_of(shuffles, st.builds(lambda s, m: f"{s} mask {m:#x}", shuffles, masks),
                 st.builds(lambda s, m: f"{s} lanes {m:#x}", shuffles, masks), collectives))
def test_parse_format_round_trip(text):
    p = parse_pattern(text)
    assert parse_pattern(format_pattern(p)) == p


@given(st.sampled_from(["idx", "up", "down", "xor"]), st.integers(0, 31), widths)
def test_kind_forms_are_the_cuda_intrinsics(kind, arg, width):
    name = {"idx": "__shfl_sync", "up": "__shfl_up_sync", "down": "__shfl_down_sync", "xor": "__shfl_xor_sync"}[kind]
    p = parse_pattern(f"{kind} {arg} width {width}")
    assert p.warp_map() == intrinsic_operands(name, arg, width).lane_map()


@given(shuffles, masks, st.one_of(st.just(0xFFFFFFFF), masks))
def test_a_shuffles_lanes_narrow_its_care_set_only(text, live, members):
    """`lanes M` (the lanes whose result is used) keeps the map and drops the other lanes from the
    care set; the member mask still decides the rest (DESIGN decision 3)."""
    whole = parse_pattern(f"{text} mask {members:#x}").warp_map()
    used = parse_pattern(f"{text} mask {members:#x} lanes {live:#x}").warp_map()
    assert (used.src == whole.src).all()
    assert [bool(c) for c in used.care] == [bool(c) and bool(live >> i & 1) for i, c in enumerate(whole.care)]


def test_reduce_and_scan_multisets():
    r = parse_pattern("reduce add width 8").warp_multisets()
    assert r[9].tolist() == [0] * 8 + [1] * 8 + [0] * 16
    s = parse_pattern("scan add width 8").warp_multisets()
    assert s[10].tolist() == [0] * 8 + [1, 1, 1] + [0] * 21
    e = parse_pattern("scan add width 8 exclusive").warp_multisets()
    assert e[8].sum() == 0 and e[10].tolist() == [0] * 8 + [1, 1] + [0] * 22
    m, care = parse_pattern("reduce max lanes 0x1").multisets(64)
    assert care.sum() == 2 and care[0] and care[32] and m[40, 32:].all() and not m[40, :32].any()


@pytest.mark.parametrize("text, fragment", [
    ("", "empty pattern"),
    ("xor", "takes one integer argument"),
    ("xor 1 width 6", "power of two in 1..32"),
    ("xor 1 width 64", "power of two in 1..32"),
    ("xor 1 width 0", "power of two in 1..32"),
    ("reduce add width 0", "power of two in 1..32"),
    ("scan add width -8", "power of two in 1..32"),
    ("xor one", "must be an integer"),
    ("rotate 1", "unknown pattern kind 'rotate'; known: idx, up, down, xor"),
    ("shfl.rot b=1 c=0", "unknown shfl mode"),
    ("shfl.up b=1", "expected 'shfl.MODE b=B c=C'"),
    ("map 1,2,3", "needs 32 comma-separated"),
    ("map " + ",".join(["40"] * 32), "outside 0..31"),
    ("reduce nand", "needs one operator"),
    ("reduce add mask 0x1", "take 'lanes M'"),
    ("xor 1 bits 0x3", "a shuffle takes 'mask M' and 'lanes M'"),
    ("xor 1 mask 0", "nonzero 32-bit lane mask"),
    ("xor 1 width 4 width 8", "given twice"),
])
def test_errors_are_clear(text, fragment):
    with pytest.raises(InputError) as e:
        parse_pattern(text)
    assert fragment in str(e.value)


def test_types():
    assert isinstance(parse_pattern("xor 1"), Shuffle)
    assert isinstance(parse_pattern("scan fmax exclusive"), Collective)


@pytest.mark.parametrize("text,canonical", [("reduce add bits 0x1c", "reduce add bits 0x1c"),
                                            ("reduce max bits 28 lanes 0x1", "reduce max bits 0x1c lanes 0x1"),
                                            ("reduce add bits 7", "reduce add width 8"),
                                            ("reduce add bits 0x1f", "reduce add")])
def test_strided_reductions_parse_and_print_canonically(text, canonical):
    assert format_pattern(parse_pattern(text)) == canonical
    assert parse_pattern(canonical) == parse_pattern(text)


@pytest.mark.parametrize("text,what", [("scan add bits 0x1c", "strided reduce"),
                                       ("reduce add bits 0x1c width 8", "without 'width'"),
                                       ("reduce add bits 0", "bits must be"), ("reduce add bits 32", "bits must be"),
                                       ("xor 1 bits 2", "'bits' is for reduce/scan")])
def test_bad_strided_reductions_name_the_problem(text, what):
    with pytest.raises(InputError, match=what):
        parse_pattern(text)


@pytest.mark.parametrize("text,same", [("xor 99", "xor 3"), ("down 40", "down 8"), ("idx -1", "idx 31"),
                                       ("up 32", "up 0")])
def test_lane_arguments_outside_0_to_31_are_errors_that_name_the_cuda_equivalent(text, same):
    """The pattern language names lanes; the CUDA intrinsic would quietly use bits 4:0 (the
    message says which pattern that is, and the two agree on every lane)."""
    with pytest.raises(InputError, match=f"would do '{same}'"):
        parse_pattern(text)
    kind, arg = text.split()
    name = {"idx": "__shfl_sync", "up": "__shfl_up_sync", "down": "__shfl_down_sync", "xor": "__shfl_xor_sync"}[kind]
    assert parse_pattern(same).warp_map() == intrinsic_operands(name, int(arg)).lane_map()
