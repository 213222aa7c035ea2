"""AMD primitive models: the Z3 form of each lane formula agrees with the numpy form (exhaustive
where the parameter space is small), and the Z3 value domain agrees with the numpy domain."""
from __future__ import annotations

import numpy as np
import pytest
import z3

from shflx.amd.dpp import DPP16_CONTROLS, control_kind, dpp8_source, dpp16_source
from shflx.amd.permlane import permlane16_select, permlane_source
from shflx.amd.swizzle import swizzle_source
from shflx.lanefn import z3ops
from shflx.emulate import Concrete, Trace, result
from shflx.errors import IllegalOp
from shflx.plan import load_plan
from shflx.verify.smt import Z3Values

o = z3ops()


def _lanewise_equal(term, lane_var, values, term2=None, values2=None):
    """unsat of 'some lane l has term(l) != values[l]' -> the forms agree on every lane."""
    s = z3.Solver()
    diffs = []
    for l, v in enumerate(values):
        d = term != int(v)
        if term2 is not None:
            d = z3.Or(d, term2 != int(values2[l]))
        diffs.append(z3.And(lane_var == l, d))
    s.add(z3.Or(*diffs))
    return s.check() == z3.unsat


@pytest.mark.parametrize("wave", [32, 64])
def test_dpp16_z3_form_matches_numpy_for_every_control(wave):
    ctrl, lane = o.var("ctrl"), o.var("lane")
    sym_src, sym_valid = dpp16_source(ctrl, lane, wave, o)
    lanes = np.arange(wave)
    for c in range(512):
        src, valid = dpp16_source(c, lanes, wave)
        src = np.broadcast_to(src, lanes.shape); valid = np.broadcast_to(valid, lanes.shape)
        t = z3.substitute(sym_src, (ctrl, o.const(c)))
        v = z3.If(z3.substitute(sym_valid, (ctrl, o.const(c))), o.const(1), o.const(0))
        if control_kind(c) is None:            # reserved: only "nothing is valid" is specified
            assert _lanewise_equal(v, lane, valid.astype(int)), hex(c)
        else:
            assert _lanewise_equal(t, lane, src, v, valid.astype(int)), hex(c)


def test_dpp16_table_facts_from_the_spec():
    """Spot facts of spec §3.2 (names, equivalences), independent of the formula's structure."""
    lanes = np.arange(64)
    def m(c, w=64):
        s, v = dpp16_source(c, lanes[:w], w)
        return np.broadcast_to(s, (w,)), np.broadcast_to(v, (w,))
    assert (m(0x128)[0] == m(0x168)[0]).all()        # row_ror:8 == row_xmask:8
    assert (m(0x140)[0] == m(0x16F)[0]).all()        # row_mirror == row_xmask:15
    assert (m(0x141)[0] == m(0x167)[0]).all()        # row_half_mirror == row_xmask:7
    assert (m(0xB1)[0] == lanes ^ 1).all() and (m(0x4E)[0] == lanes ^ 2).all() and (m(0x1B)[0] == lanes ^ 3).all()
    assert (m(0xE4)[0] == lanes).all()
    s, v = m(0x142)
    assert (v == (lanes >= 16)).all() and s[16] == 15 and s[47] == 31
    s, v = m(0x143)
    assert (v == (lanes >= 32)).all() and (s[32:] == 31).all()
    s, v = m(0x101)
    assert s[0] == 1 and not v[15] and v[14]
    assert [c for c in range(0x100, 0x200) if control_kind(c) is None][:4] == [0x100, 0x110, 0x120, 0x131]
    assert len(DPP16_CONTROLS) == 14


def test_swizzle_z3_form_matches_numpy():
    off, lane = o.var("off"), o.var("lane")
    sym = swizzle_source(off, lane, o)
    lanes = np.arange(64)
    rng = np.random.default_rng(0)
    offsets = set(rng.integers(0, 1 << 16, 600).tolist())
    offsets |= {0, 0x7FFF, 0x8000, 0xBFFF, 0xC000, 0xC020, 0xC420, 0xDFFF, 0xE000, 0xE01F, 0xFFFF, 0x401F, 0x0078}
    for off_v in sorted(offsets):
        t = z3.substitute(sym, (off, o.const(off_v)))
        assert _lanewise_equal(t, lane, np.broadcast_to(swizzle_source(off_v, lanes), (64,))), hex(off_v)


def test_swizzle_documented_examples():
    """[S21] examples and ACO's macro encodings (spec §5.2)."""
    lanes = np.arange(32)
    assert swizzle_source(0xE000, lanes)[1] == 16                      # FFT m=0: lane 1 reads 16
    assert (swizzle_source(0xE01F, lanes) == lanes).all()              # FFT m=0x1f: identity
    assert (swizzle_source(0x401F, lanes) == lanes ^ 16).all()         # SWAP,16
    assert (swizzle_source(0x7C1F, lanes) == 31 - lanes).all()         # REVERSE,32
    assert (swizzle_source(0x0078, lanes) == (lanes & ~7) | 3).all()   # BROADCAST,8,3
    assert (swizzle_source(0x80B1, lanes) == lanes ^ 1).all()          # QUAD_PERM 1,0,3,2
    assert (swizzle_source(0xC000 | 1 << 5, lanes) == (lanes + 1) % 32).all()             # rotate left 1
    assert (swizzle_source(0xC000 | 1 << 10 | 1 << 5, lanes) == (lanes - 1) % 32).all()   # rotate right 1
    assert (swizzle_source(0x401F, np.arange(32, 64)) == np.arange(32, 64) ^ 16).all()    # never crosses halves


def test_dpp8_and_permlane_z3_forms_match_numpy():
    sel, lane, lo, hi = o.var("sel"), o.var("lane"), z3.BitVec("lo", 64), z3.BitVec("hi", 64)
    sel24 = z3.BitVec("sel24", 32)
    lanes = np.arange(64)
    rng = np.random.default_rng(1)
    lane32 = z3.BitVec("lane32", 32)
    sym8 = dpp8_source(sel24, lane32)
    for s in rng.integers(0, 1 << 24, 200).tolist() + [0xFAC688, 0]:
        t = z3.simplify(z3.substitute(sym8, (sel24, z3.BitVecVal(s, 32))))
        assert _lanewise_equal(t, lane32, dpp8_source(s, lanes))
    lo32, hi32 = z3.BitVec("lo32", 64), z3.BitVec("hi32", 64)
    lane64 = z3.BitVec("lane64", 64)
    sym16 = permlane16_select(lo32, hi32, lane64, o)
    for a, b in rng.integers(0, 1 << 32, (100, 2)).tolist():
        t = z3.simplify(z3.substitute(sym16, (lo32, z3.BitVecVal(a, 64)), (hi32, z3.BitVecVal(b, 64))))
        assert _lanewise_equal(t, lane64, permlane16_select(a, b, lanes))
    assert (permlane_source(True, lanes & 15, lanes) == lanes ^ 16).all()
    assert (permlane_source(False, 15 - (lanes & 15), lanes) == (lanes & ~15) | (15 - (lanes & 15))).all()


# -------------------------------------------- Z3 value domain == numpy value domain, per step

def _single(arch, wave, step):
    return load_plan({"arch": arch, "wave": wave, "target": "", "steps": [step], "result": step["id"]})


def _steps(arch, wave, rng):
    W = wave
    yield {"id": "s", "op": "update.dpp", "src": "x", "old": "undef", "dpp_ctrl": 0, "row_mask": 15,
           "bank_mask": 15, "bound_ctrl": 0}
    for _ in range(40):
        yield {"id": "s", "op": "update.dpp", "src": "x", "old": "x", "dpp_ctrl": int(rng.integers(0, 512)),
               "row_mask": int(rng.integers(0, 16)), "bank_mask": int(rng.integers(0, 16)),
               "bound_ctrl": int(rng.integers(0, 2)), "exec": int(rng.integers(0, 2**W, dtype=np.uint64))}
        yield {"id": "s", "op": "mov.dpp8", "src": "x", "sel": int(rng.integers(0, 1 << 24)),
               "exec": int(rng.integers(0, 2**W, dtype=np.uint64))}
        yield {"id": "s", "op": "ds.swizzle", "src": "x", "offset": int(rng.integers(0, 1 << 16))}
        yield {"id": "s", "op": "ds.bpermute", "src": "x", "index": rng.integers(0, 140, W).tolist(),
               "exec": int(rng.integers(0, 2**W, dtype=np.uint64))}
        yield {"id": "s", "op": "ds.permute", "src": "x", "index": rng.integers(0, W, W).tolist()}
        yield {"id": "s", "op": "permlanex16", "src": "x", "old": "x", "sel_lo": int(rng.integers(0, 2**32)),
               "sel_hi": int(rng.integers(0, 2**32)), "fi": int(rng.integers(0, 2)), "bound_ctrl": int(rng.integers(0, 2)),
               "exec": int(rng.integers(0, 2**W, dtype=np.uint64))}
        yield {"id": "s", "op": "select", "a": "x", "b": "undef", "lanes": int(rng.integers(0, 2**W, dtype=np.uint64))}
        yield {"id": "s", "op": "readlane", "src": "x", "lane": int(rng.integers(0, 64))}


@pytest.mark.parametrize("arch, wave", [("gfx942", 64), ("gfx1030", 32), ("gfx1100", 64), ("gfx1200", 32)])
def test_z3_domain_agrees_with_numpy_domain(arch, wave):
    rng = np.random.default_rng(7)
    checked = 0
    for step in _steps(arch, wave, rng):
        try:
            plan = _single(arch, wave, step)
            z = Z3Values(wave)
            terms = result(plan, z, Trace())
        except IllegalOp:
            continue
        conc = Concrete(wave, None, trials=3, seed=3)
        vals = result(plan, conc, Trace())
        xs = {str(v): k for k, v in enumerate(z.xs)}
        for lane, t in enumerate(terms):
            if z3.is_bv_value(t):
                assert (vals[lane] == t.as_long()).all()
            elif str(t) in xs:
                assert (vals[lane] == conc.x[xs[str(t)]]).all()
            else:                               # garbage: a fresh undef/open symbol
                assert str(t).startswith(("undef_", "open_"))
        checked += 1
    assert checked > 100
