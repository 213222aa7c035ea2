"""Readings of AMD's documents that are not settled stay assumptions (issue 13, item 4): a proof
that relies on one lists it, and the synthesizer prefers an equally cheap plan that relies on none."""
from __future__ import annotations

from shflx.amd.swizzle import ROTATE_WRAP_ASSUMPTION, rotate_wrap_relied_on, swizzle_source
from shflx.match.search import Candidate, open_readings, sort_guesses
from shflx.plan import DsSwizzle, Plan, UpdateDpp
from shflx.verify.api import prove

ROTATE_RIGHT_1 = 0xC000 | (1 << 5)          # rotate mode, by 1, mask 0: lane i reads i + 1 (spec §5.2)


def test_the_rotate_reading_is_relied_on_exactly_where_a_carry_leaves_the_group():
    assert rotate_wrap_relied_on(ROTATE_RIGHT_1)
    assert not rotate_wrap_relied_on(0xC000)                       # rotate by 0
    assert rotate_wrap_relied_on(0xC000 | (1 << 5) | 0x1F)         # the mask keeps bits, the carry still leaves
    assert not rotate_wrap_relied_on(0x801B)                       # quad mode
    # lane i reads lane i + 1: at lane 31 the literal pseudocode carries into bit 5 (lane 32), the
    # wrap reading that shflx models gives lane 0
    assert [int(swizzle_source(ROTATE_RIGHT_1, i)) for i in range(32)] == [(i + 1) % 32 for i in range(32)]


def test_a_proof_through_a_rotate_lists_the_assumption():
    plan = Plan("gfx942", 64, "map " + ",".join(str((i + 1) % 32) for i in range(32)),
                (DsSwizzle("r", "x", ROTATE_RIGHT_1),), "r", 50.0)
    proof = prove(plan)
    assert proof.status == "proved", proof.reason
    assert ROTATE_WRAP_ASSUMPTION in proof.assumptions


def test_equally_cheap_plans_without_the_reading_come_first():
    rotate = Candidate((DsSwizzle("r", "x", ROTATE_RIGHT_1),), "r", 50.0, "one")
    other = Candidate((UpdateDpp("d", "x", "undef", 0x13C, 15, 15, 1),), "d", 50.0, "one")
    ordered = sort_guesses([rotate, other])             # the order the synthesizer proves them in
    assert ordered[0] is other and open_readings(rotate) == 1
