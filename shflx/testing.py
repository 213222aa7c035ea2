"""Hypothesis strategies for unit tests of lane permutations: lane maps, shuffle patterns, plans.

  from shflx.testing import lane_maps, plans
  @given(lane_maps(wave=64))
  def test_my_permutation(src): shflx.assert_equivalent(my_plan_for(src), src, arch="gfx942")

hypothesis is an optional dependency (the `test` extra): importing this module without it raises
an ImportError that says so."""
from __future__ import annotations

from typing import Any

try:
    from hypothesis import strategies as st
except ImportError as e:            # pragma: no cover - exercised by a subprocess test
    raise ImportError("shflx.testing needs hypothesis: pip install hypothesis, or install shflx "
                      "with its test extra (pip install '.[test]' in the shflx checkout)") from e

from .target import resolve_target
from .pattern import KINDS

WIDTHS = (1, 2, 4, 8, 16, 32)
# one target per family the search treats differently (DPP rows, row_newbcast, permlane, var)
DEFAULT_ARCHS = ("gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1200")


def lane_maps(wave: int = 32, *, permutation: bool = False, dont_care: bool = False) -> Any:
    """Lists of `wave` source lanes (0..wave-1); permutations only with `permutation`; with
    `dont_care` some entries are None (a lane whose value does not matter)."""
    if wave not in (32, 64):
        raise ValueError(f"a wave has 32 or 64 lanes, not {wave}")
    maps = (st.permutations(list(range(wave))) if permutation
            else st.lists(st.integers(0, wave - 1), min_size=wave, max_size=wave))
    if not dont_care:
        return maps
    holes = st.lists(st.booleans(), min_size=wave, max_size=wave)
    return st.tuples(maps, holes).map(lambda mh: [None if h else s for s, h in zip(*mh)])


def shuffle_patterns(kinds: tuple[str, ...] = tuple(KINDS), widths: tuple[int, ...] = WIDTHS) -> Any:
    """Pattern text of CUDA shuffles: 'KIND ARG [width W]' with KIND in idx, up, down, xor."""
    def text(kind: str, arg: int, width: int) -> str:
        return f"{kind} {arg}" + (f" width {width}" if width != 32 else "")
    return st.builds(text, st.sampled_from(kinds), st.integers(0, 31), st.sampled_from(widths))


def plans(arch: str | None = None, wave: int | None = None, patterns: Any = None) -> Any:
    """Proven plans from `shflx.lower` of `patterns` (default: shuffle_patterns()) on `arch`
    (default: one of DEFAULT_ARCHS) and `wave` (default: the arch's)."""
    from .match import lower

    archs = st.just(arch) if arch is not None else st.sampled_from(DEFAULT_ARCHS)
    for a in ([arch] if arch is not None else DEFAULT_ARCHS):
        if wave is not None:
            resolve_target(a, wave)            # an impossible wave fails here, not in a test
    pats = patterns if patterns is not None else shuffle_patterns()
    return st.builds(lambda p, a: lower(p, a, wave), pats, archs)


__all__ = ["lane_maps", "shuffle_patterns", "plans", "DEFAULT_ARCHS", "WIDTHS"]
