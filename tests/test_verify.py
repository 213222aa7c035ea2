"""The prover and `shflx verify`: correct plans prove, every kind of mutation is caught, bad
input gets a clear message and exit code (0 proved, 1 refuted, 2 invalid, 3 unknown)."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

import shflx
from shflx.errors import IllegalOp, InputError, UsageError
from shflx.verify.api import prove

ROOT = Path(__file__).resolve().parents[1]
PLANS = ROOT / "patterns" / "plans"


def dpp(i, src, ctrl, old="undef", rm=15, bm=15, bc=1, **kw):
    return {"id": i, "op": "update.dpp", "src": src, "old": old, "dpp_ctrl": ctrl, "row_mask": rm,
            "bank_mask": bm, "bound_ctrl": bc, **kw}


def plan(arch, wave, target, steps, result=None):
    return {"arch": arch, "wave": wave, "target": target, "steps": steps, "result": result or steps[-1]["id"]}


XOR5_GFX9 = plan("gfx90a", 64, "xor 5", [dpp("t", "x", 0x141), dpp("s", "t", 0x4E)])
DOWN1_GFX10 = plan("gfx1030", 32, "down 1 width 16", [dpp("s", "x", 0x101, old="x", bc=0)])
XOR16_W64 = plan("gfx1100", 64, "xor 16", [{"id": "s", "op": "permlanex16", "src": "x", "old": "x",
                                            "sel_lo": 0x76543210, "sel_hi": 0xFEDCBA98, "fi": 0, "bound_ctrl": 0}])


def test_correct_plans_prove():
    for p in (XOR5_GFX9, DOWN1_GFX10, XOR16_W64):
        assert prove(p).status == "proved"


@pytest.mark.parametrize("mutate, status", [
    (lambda p: p["steps"][1].update(dpp_ctrl=0xB1), "refuted"),           # wrong dpp_ctrl
    (lambda p: p["steps"][1].update(row_mask=0xE), "refuted"),            # row 0 not written -> undef
    (lambda p: p["steps"][1].update(bank_mask=0x7), "refuted"),
    (lambda p: p.update(result="t"), "refuted"),
    (lambda p: p.update(target="xor 6"), "refuted"),
])
def test_mutations_of_a_gfx9_plan_are_refuted(mutate, status):
    p = copy.deepcopy(XOR5_GFX9)
    mutate(p)
    assert prove(p).status == status


def test_flipping_bound_ctrl_breaks_exact_edge_semantics():
    p = copy.deepcopy(DOWN1_GFX10)
    p["steps"][0]["bound_ctrl"] = 1            # lane 15 of each row would get 0, not its own value
    proof = prove(p)
    assert proof.status == "refuted" and proof.lane == 15 and "receives 0" in proof.reason


def test_crossing_a_half_is_refuted_on_every_lane_of_the_second_warp():
    """wave64: a map that reads the other 32-lane half is wrong for both CUDA warps."""
    p = plan("gfx942", 64, "xor 1", [{"id": "s", "op": "ds.bpermute", "src": "x",
                                       "index": [(l ^ 1) ^ 32 for l in range(64)]}])
    proof = prove(p)
    assert proof.status == "refuted" and proof.lane == 0
    half = plan("gfx942", 64, "xor 1", [{"id": "s", "op": "ds.bpermute", "src": "x",
                                          "index": [(l ^ 1) if l < 32 else (l ^ 1) - 32 for l in range(64)]}])
    proof = prove(half)
    assert proof.status == "refuted" and proof.lane == 32 and "CUDA warp 1" in proof.reason


@pytest.mark.parametrize("p, fragment", [
    (plan("gfx942", 64, "xor 5", [dpp("s", "x", 0x165)]), "row_xmask) is not legal on gfx942"),
    (plan("gfx1100", 32, "xor 1", [dpp("s", "x", 0x142)]), "row_bcast15) is not legal"),
    (plan("gfx1030", 32, "xor 1", [dpp("s", "x", 0x130)]), "wave_shl) is not legal"),
    (plan("gfx900", 64, "xor 1", [dpp("s", "x", 0x151)]), "row_share) is not legal"),
    (plan("gfx942", 64, "xor 1", [dpp("s", "x", 0x100)]), "(reserved) is not legal"),
    (plan("gfx942", 64, "xor 1", [dpp("s", "x", 0xB1, fi=1)]), "FI bit exists only from GFX10"),
    (plan("gfx90a", 64, "xor 1", [{"id": "s", "op": "mov.dpp8", "src": "x", "sel": 0}]), "DPP8 does not exist"),
    (plan("gfx1030", 64, "xor 1", [{"id": "s", "op": "permlane64", "src": "x"}]), "v_permlane64_b32 does not exist"),
    (plan("gfx1100", 32, "xor 1", [{"id": "s", "op": "permlane64", "src": "x"}]), "no-op in wave32"),
    (plan("gfx803", 64, "xor 1", [{"id": "s", "op": "ds.swizzle", "src": "x", "offset": 0xE000}]), "FFT/rotate"),
    (plan("gfx942", 64, "xor 1", [dpp("s", "x", 0xB1, rm=16)]), "does not fit its 4-bit field"),
])
def test_illegal_steps_name_the_reason(p, fragment):
    with pytest.raises(IllegalOp) as e:
        prove(p)
    assert fragment in str(e.value)


@pytest.mark.parametrize("p, fragment", [
    ({"arch": "gfx942"}, "missing key 'wave'"),
    (plan("gfx942", 48, "xor 1", [dpp("s", "x", 0xB1)]), "'wave' must be 32 or 64"),
    (plan("gfx942", 32, "xor 1", [dpp("s", "x", 0xB1)]), "runs wave64, not wave32"),
    (plan("gfx942", 64, "xor 1", [{"id": "s", "op": "v_mov", "src": "x"}]), "unknown op 'v_mov'"),
    (plan("gfx942", 64, "xor 1", [{**dpp("s", "x", 0xB1), "dpp_crtl": 1}]), "unknown field(s) dpp_crtl"),
    (plan("gfx942", 64, "xor 1", [{k: v for k, v in dpp("s", "x", 0xB1).items() if k != "bound_ctrl"}]),
     "missing field 'bound_ctrl'"),
    (plan("gfx942", 64, "xor 1", [dpp("s", "y", 0xB1)]), "uses 'y' before it is defined"),
    (plan("gfx942", 64, "xor 1", [dpp("s", "x", 0xB1)], result="q"), "result 'q' is not a step id"),
    (plan("gfx942", 64, "xor 1", [{"id": "s", "op": "ds.bpermute", "src": "x", "index": [0] * 32}]),
     "'index' needs 64 entries"),
    (plan("gfx942", 64, "xor one", [dpp("s", "x", 0xB1)]), "must be an integer"),
    (plan("gfx942", 64, "", [dpp("s", "x", 0xB1)]), "names no target pattern"),
])
def test_invalid_plans_are_input_errors(p, fragment):
    with pytest.raises(InputError) as e:
        prove(p)
    assert fragment in str(e.value)


def test_unknown_arch_lists_the_known_ones():
    with pytest.raises(UsageError) as e:
        prove(plan("gfx999", 64, "xor 1", [dpp("s", "x", 0xB1)]))
    assert "unknown target 'gfx999'; known: gfx801, gfx802, gfx803" in str(e.value)


def test_member_mask_routes_only_through_members():
    """A two-step plan whose route passes a non-member lane is wrong when that lane is inactive."""
    rot_then_back = [dpp("t", "x", 0x121 + 1, old="x", bc=0),       # row_ror:2
                     dpp("s", "t", 0x12F, old="x", bc=0)]           # row_ror:15 -> net ror 1
    ok = plan("gfx1030", 32, "map " + ",".join(str((i & ~15) | ((i - 1) & 15)) for i in range(32)), rot_then_back)
    assert prove(ok).status == "proved"
    masked = dict(ok, target=ok["target"] + " mask 0xfffffffb")   # lane 2 not a member
    proof = prove(masked)
    assert proof.status in ("refuted", "unknown") and "member lanes active" in proof.reason


def test_reductions_prove_by_multiset_and_catch_a_missing_step():
    steps = [dpp("t1", "x", 0xB1), {"id": "r1", "op": "combine", "fn": "smax", "a": "x", "b": "t1"},
             dpp("t2", "r1", 0x4E), {"id": "r2", "op": "combine", "fn": "smax", "a": "r1", "b": "t2"}]
    assert prove(plan("gfx942", 64, "reduce max width 4", steps)).status == "proved"
    proof = prove(plan("gfx942", 64, "reduce max width 8", steps))
    assert proof.status == "refuted" and "the target needs {0,1,2,3,4,5,6,7}" in proof.reason
    wrong_op = prove(plan("gfx942", 64, "reduce add width 4", steps))
    assert wrong_op.status == "refuted" and "combines with 'smax'" in wrong_op.reason


def test_bc_zero_fill_is_only_neutral_for_identity_zero_ops():
    """row_shr with BC=1 injects 0: fine for add (identity 0), wrong for max (identity INT_MIN)."""
    def scan(fn, op):
        steps, prev = [], "x"
        for k, d in enumerate((1, 2, 4, 8)):                     # Kogge-Stone over a 16-lane row
            steps += [dpp(f"t{k}", prev, 0x110 + d, bc=1),
                      {"id": f"r{k}", "op": "combine", "fn": fn, "a": prev, "b": f"t{k}"}]
            prev = f"r{k}"
        return plan("gfx942", 64, f"scan {op} width 16", steps)
    assert prove(scan("add", "add")).status == "proved"
    proof = prove(scan("smax", "max"))
    assert proof.status == "refuted" and "not the identity of 'smax'" in proof.reason


def test_assert_proved_for_unit_tests():
    assert shflx.assert_proved(XOR5_GFX9).proved
    with pytest.raises(AssertionError, match="refuted: lane 0"):
        shflx.assert_proved(XOR5_GFX9, "xor 4")


# ----------------------------------------------------------------------------- CLI

def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "shflx", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_exit_codes_on_the_shipped_examples():
    r = run("verify", str(PLANS / "correct"))
    assert r.returncode == 0 and r.stdout.count("proved") >= 10, r.stdout + r.stderr
    assert r.stdout.count("proved") == len(list((PLANS / "correct").glob("*.json"))), r.stdout
    r = run("verify", str(PLANS / "wrong" / "gfx942_xor2_wrong_quad_perm.json"))
    assert r.returncode == 1 and "refuted (z3): lane 0 (CUDA warp 0, lane 0) receives x[1]; the target needs x[2]" in r.stdout
    r = run("verify", str(PLANS / "wrong" / "gfx942_row_xmask_illegal.json"))
    assert r.returncode == 2 and "gfx942_row_xmask_illegal.json:" in r.stderr and "not legal on gfx942" in r.stderr
    r = run("verify", str(PLANS / "wrong" / "gfx1100_up1_bound_ctrl_zero_fill.json"))   # BC=1 fills 0, not x[0]
    assert r.returncode == 1 and "refuted (z3): lane 0 receives 0; the target needs x[0]" in r.stdout, r.stdout + r.stderr
    r = run("verify", str(PLANS / "unknown"))
    assert r.returncode == 3 and "open question" in r.stdout
    r = run("verify", "--json", str(PLANS / "correct" / "gfx942_xor1.json"))
    assert json.loads(r.stdout)["status"] == "proved"


def test_cli_malformed_and_missing_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"arch": "gfx942",\n "wave": 64,\n "steps": [}\n')
    r = run("verify", str(bad))
    assert r.returncode == 2 and f"{bad}:3:" in r.stderr and "malformed JSON" in r.stderr
    assert "Traceback" not in r.stderr
    r = run("verify", str(tmp_path / "nope.json"))
    assert r.returncode == 2 and "cannot read plan" in r.stderr
    wrong_field = tmp_path / "field.json"
    wrong_field.write_text(json.dumps(plan("gfx942", 64, "xor 1", [{**dpp("s", "x", 0xB1), "bnk_mask": 3}]), indent=1))
    r = run("verify", str(wrong_field))
    assert r.returncode == 2 and f"{wrong_field}:" in r.stderr and "unknown field(s) bnk_mask" in r.stderr


def test_cli_unknown_target_and_usage():
    r = run("verify", str(PLANS / "correct" / "gfx942_xor1.json"), "--target", "xor 2")
    assert r.returncode == 1
    r = run("verify")
    assert r.returncode == 2 and ("usage" in r.stderr.lower() or "required" in r.stderr)
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("shflx ")
    r = run("targets")
    assert r.returncode == 0 and "gfx942" in r.stdout and "dpp_row_newbcast" in r.stdout
