"""Every vector of spec/golden_sequences.yaml replayed through shflx's own models.

For each listed (target, wave) that shflx knows and each operator (`op: any` -> add, xor, smax,
umin), the steps are evaluated in the multiset domain (exact for every input) and the concrete
domain (random u32 inputs); every claim of the vector (its `computes` and each `checks` entry)
must hold on its `valid_if` lanes, and the negative vectors must show their mismatch. Vectors
expressible as a pattern are also run through `prove`."""
from __future__ import annotations

import numpy as np
import pytest

from shflx.combine import FNS
from shflx.emulate import Concrete, Multiset, Trace, walk
from shflx.isa import known_amd_targets
from shflx.plan import load_plan
from shflx.verify.api import prove
from tests.reference.golden import (GOLDEN, GOLDEN_CASES, _eval, golden_specs, golden_target_text,
                                    golden_to_plan, needs_golden, required_sources)

KNOWN = set(known_amd_targets())
CASES = [(vid, arch, w) for vid, arch, w in GOLDEN_CASES if arch in KNOWN]
BY_VECTOR: dict[str, list[tuple[str, int]]] = {}
for _vid, _arch, _w in CASES:
    BY_VECTOR.setdefault(_vid, []).append((_arch, _w))
OPS_FOR_ANY = ("add", "xor", "smax", "umin")


def _ops(vec):
    if vec["op"] == "any":
        return OPS_FOR_ANY
    return ("add",) if vec["op"] == "none" else (vec["op"],)


def _lane_ok(ms_row, req, fn, wave):
    counts, zero, undef, opened = ms_row[:wave], ms_row[wave], ms_row[wave + 1], ms_row[wave + 2]
    if undef or opened or (zero and not FNS[fn].identity_is_zero):
        return False
    kind, want = req
    if kind == "atom":
        return counts[want] == 1 and counts.sum() == 1
    need = np.zeros(wave, np.int64)
    need[want] = 1
    if FNS[fn].idempotent:
        return np.array_equal(counts > 0, need > 0)
    if FNS[fn].self_inverse:
        return np.array_equal(counts % 2, need)
    return np.array_equal(counts, need)


@needs_golden
def test_every_vector_is_covered():
    assert len(BY_VECTOR) >= 195, sorted(set(GOLDEN) - set(BY_VECTOR))
    kinds = {s["kind"] for vid in BY_VECTOR for s in GOLDEN[vid]["steps"]}
    assert kinds >= {"dpp", "dpp8", "swizzle", "permlane16", "permlanex16", "permlane64", "readlane",
                     "writelane", "bpermute", "select", "combine"}


@needs_golden
@pytest.mark.parametrize("vid", sorted(BY_VECTOR))
def test_golden_vector_replays_as_stated(vid):
    vec = GOLDEN[vid]
    for arch, wave in BY_VECTOR[vid]:
        for op in _ops(vec):
            plan = load_plan(golden_to_plan(vec, arch, wave, op))
            trace = Trace()
            env = walk(plan, Multiset(wave), trace)
            conc_dom = Concrete(wave, op if vec["op"] != "none" else None, trials=3, seed=11)
            conc = walk(plan, conc_dom)
            for label, sid, spec, expect in golden_specs(vec):
                bad = []
                for lane in range(wave):
                    if not _eval(spec["valid_if"], lane, wave):
                        continue
                    req = required_sources(spec, wave, lane)
                    ok = _lane_ok(env[sid][lane], req, op, wave)
                    # the concrete replay must agree with the multiset verdict
                    kind, want = req
                    acc = conc_dom.x[want] if kind == "atom" else _fold(op, conc_dom.x[want])
                    if ok:
                        assert np.array_equal(conc[sid][lane], acc) or FNS[op].is_float, (vid, arch, wave, op, lane)
                    if not ok:
                        bad.append(lane)
                where = f"{vid} {arch} wave{wave} op={op} {label}"
                if expect == "mismatch":
                    assert bad, f"{where}: a negative vector must not hold"
                else:
                    assert not bad, f"{where}: wrong on lanes {bad[:8]}"
            assert not trace.questions, f"{vid}: the golden sequences avoid open questions"


def _fold(op, rows):
    acc = np.full(rows.shape[1:], FNS[op].identity, np.uint32)
    for r in rows:
        acc = FNS[op].apply(acc, r)
    return acc


@needs_golden
def test_golden_vectors_through_the_prover():
    proved = refuted = 0
    for vid, arch, wave in CASES:
        vec = GOLDEN[vid]
        text = golden_target_text(vec, wave)
        if text is None:
            continue
        plan = golden_to_plan(vec, arch, wave, "add")
        plan["target"] = text
        status = prove(plan).status
        want = "refuted" if vec.get("expect") == "mismatch" else "proved"
        assert status == want, (vid, arch, wave, text, status)
        proved += status == "proved"
        refuted += status == "refuted"
    assert proved > 300 and refuted >= 2
