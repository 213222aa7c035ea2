"""The synthesizer (issue 3): every plan is proven and independently correct on every lane of both
CUDA warps; the quality facts the issue asks for hold on every target; emitted code compiles."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shflx.isa import amd_target, known_amd_targets
from shflx.match import lower
from shflx.pattern import parse_pattern
from shflx.plan import plan_to_dict
from shflx.target import resolve_target
from tests.reference import amd_ref

ARCHS = [("gfx90a", 64), ("gfx942", 64), ("gfx950", 64), ("gfx1030", 32), ("gfx1100", 32),
         ("gfx1100", 64), ("gfx1200", 32)]
GFX10_PLUS = ("gfx1030", "gfx1100", "gfx1200")
GFX9_CLASS = ("gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx942", "gfx950")

patterns = st.one_of(
    st.builds(lambda k, a, w: f"{k} {a} width {w}", st.sampled_from(["idx", "up", "down", "xor"]),
              st.integers(0, 31), st.sampled_from([1, 2, 4, 8, 16, 32])),
    st.builds(lambda s: "map " + ",".join(map(str, s)), st.lists(st.integers(0, 31), min_size=32, max_size=32)),
    st.builds(lambda k, a, m: f"{k} {a} mask {m:#x}", st.sampled_from(["idx", "up", "down", "xor"]),
              st.integers(0, 31), st.integers(1, 2**32 - 1)),
    st.builds(lambda m, b, c: f"shfl.{m} b={b} c={c:#x}", st.sampled_from(["idx", "up", "down", "bfly"]),
              st.integers(0, 63), st.integers(0, 0x1FFF)),
)


def independent_replay_ok(plan) -> bool:
    """tests/reference replays the plan; every care lane of both warps must hold its CUDA source."""
    want = parse_pattern(plan.target).lane_map(plan.wave)
    if not plan.steps:                       # nothing to do: every care lane reads itself
        return plan.result == "x" and bool((want.src[want.care] == np.flatnonzero(want.care)).all())
    got = amd_ref.ref_replay(plan_to_dict(plan))
    return all(got[i] == ("x", int(want.src[i])) for i in np.flatnonzero(want.care))


@pytest.mark.parametrize("arch, wave", ARCHS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=patterns)
def test_every_lowering_is_proven_and_independently_correct(arch, wave, text):
    plan = lower(text, arch, wave)
    assert plan.proof["status"] == "proved"
    assert independent_replay_ok(plan), (text, arch, wave, [s.op for s in plan.steps])
    assert plan.cost <= dict(plan.extra)["baseline_cost"]


def one_dpp(plan) -> bool:
    """At most one DPP16/DPP8 move (zero when the map is the identity, e.g. width 1)."""
    return len(plan.steps) <= 1 and all(s.op in ("update.dpp", "mov.dpp8") for s in plan.steps)


@pytest.mark.parametrize("arch", GFX10_PLUS)
def test_gfx10_plus_xor_and_row_patterns_are_one_dpp_move(arch):
    for m in range(1, 16):
        assert one_dpp(lower(f"xor {m}", arch)), m
    row = lambda f: "map " + ",".join(str((i & ~15) | f(i & 15)) for i in range(32))  # noqa: E731
    for k in range(1, 16):
        assert one_dpp(lower(row(lambda o: (o + k) & 15), arch)), ("rotate", k)
        assert one_dpp(lower(f"idx {k} width 16", arch)), ("broadcast", k)
    assert one_dpp(lower(row(lambda o: 15 - o), arch))
    assert one_dpp(lower(row(lambda o: (o & 8) | (7 - (o & 7))), arch))


@pytest.mark.parametrize("arch", known_amd_targets())
def test_xor_16_never_uses_bpermute(arch):
    for wave in amd_target(arch).waves:
        plan = lower("xor 16", arch, wave)
        assert all(s.op != "ds.bpermute" for s in plan.steps), (arch, wave)


@pytest.mark.parametrize("arch", GFX9_CLASS)
def test_gfx9_class_xor_never_needs_bpermute(arch):
    for m in range(1, 32):
        plan = lower(f"xor {m}", arch)
        assert all(s.op != "ds.bpermute" for s in plan.steps), (arch, m)


def test_gfx9_xor_5_is_two_dpp_moves():
    plan = lower("xor 5", "gfx90a")
    assert [s.op for s in plan.steps] == ["update.dpp", "update.dpp"]


@pytest.mark.parametrize("arch", known_amd_targets())
def test_up_down_width_16_are_one_dpp_move_with_exact_edges(arch):
    for kind in ("up", "down"):
        for d in range(1, 16):
            plan = lower(f"{kind} {d} width 16", arch)
            assert len(plan.steps) == 1 and plan.steps[0].op == "update.dpp", (arch, kind, d)
            assert independent_replay_ok(plan)          # edge lanes keep their own value


@pytest.mark.parametrize("arch", GFX10_PLUS)
def test_width_8_and_below_is_one_dpp_move(arch):
    for w in (1, 2, 4, 8):
        for kind in ("idx", "up", "down"):
            for a in range(0, 10):
                assert one_dpp(lower(f"{kind} {a} width {w}", arch)), (kind, a, w)
        for m in range(w):
            assert one_dpp(lower(f"xor {m} width {w}", arch)), (m, w)


@pytest.mark.parametrize("width", [1, 2, 4, 8, 16, 32])
def test_every_width_is_handled(width):
    for arch in ("gfx942", "gfx1100"):
        for kind in ("idx", "up", "down", "xor"):
            assert lower(f"{kind} {width // 2} width {width}", arch).proof["status"] == "proved"


def test_optimality_and_fusion_are_reported():
    plan = lower("xor 5", "gfx1100")
    extra = dict(plan.extra)
    assert extra["fusable"] and extra["fused_cost"] < plan.cost
    assert extra["optimality"]["complete"] and extra["optimality"]["note"].startswith("optimal")
    t = amd_target("gfx1100")           # the fallback as emitted: ds_bpermute and its address table
    # (wave32: v_mbcnt_lo + v_lshlrev_b32, s_getpc_b64 + s_add_u32 + s_addc_u32; counted in the asm)
    assert extra["baseline_cost"] == t.cost("ds_bpermute") + 2 * t.cost("valu") + 3 * t.cost("exec_write")


# --------------------------------------------------------------------- emitted code compiles

@pytest.mark.parametrize("arch, wave, text, expect", [
    ("gfx1100", 32, "xor 5", "row_xmask:5"),
    ("gfx90a", 64, "xor 5", "row_half_mirror"),
    ("gfx1030", 32, "xor 16", "v_permlanex16_b32"),
    ("gfx950", 64, "xor 16", "v_permlane16_swap_b32"),
    ("gfx1200", 32, "idx 3 width 8", "dpp8:[3,3,3,3,3,3,3,3]"),
    ("gfx942", 64, "down 1 width 16", "row_shl:1"),
])
def test_emitted_llvm_compiles_to_the_planned_instructions(arch, wave, text, expect):
    from shflx.amd.llvm_ir import kernel_ir
    from shflx.codegen.llvm import compile_ir

    plan = lower(text, arch, wave)
    asm = compile_ir(kernel_ir(plan), amd_target(arch).llvm_cpu, wave=wave, emit="asm")
    assert expect in asm
    assert "ds_bpermute" not in asm


def test_dpp_move_folds_into_its_consumer():
    from shflx.amd.llvm_ir import kernel_ir
    from shflx.codegen.llvm import compile_ir

    plan = lower("xor 5", "gfx1100")
    asm = compile_ir(kernel_ir(plan, consume="add"), "gfx1100", wave=32, emit="asm")
    assert any("_dpp" in line and "add" in line and "row_xmask:5" in line for line in asm.splitlines()), asm


# ------------------------------------------------------------------------------ CLI and cache

def lower_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "shflx", "lower", *args], capture_output=True, text=True, env=env)


def test_cli_lower_formats():
    r = lower_cli("xor 1", "--arch", "gfx942", "--asm")
    assert r.returncode == 0 and "quad_perm:[1,0,3,2]" in r.stdout and "ds_bpermute" not in r.stdout
    r = lower_cli("xor 5", "--arch", "gfx1100", "--json")
    plan = json.loads(r.stdout)
    assert plan["proof"]["status"] == "proved" and plan["steps"][0]["dpp_ctrl"] == 0x165
    r = lower_cli("xor 5", "--arch", "gfx1100", "--hip")
    assert "__builtin_amdgcn_update_dpp(" in r.stdout and "0x165" in r.stdout
    r = lower_cli("xor 5", "--arch", "sm_90", "--ptx")
    assert "shfl.sync.bfly.b32 %r1, %r0, 5, 0x1f, 0xffffffff;" in r.stdout
    r = lower_cli("down 1 width 16", "--arch", "gfx1030")
    assert r.returncode == 0 and "proved" in r.stdout and "row_shl:1" in r.stdout
    r = lower_cli("xor 16", "--arch", "gfx942", "--asm", "--prefer", "lds-free")
    assert r.returncode == 0 and "ds_" not in r.stdout and r.stdout.count("wave_s") == 32, r.stdout


@pytest.mark.parametrize("args, code, fragment", [
    (("rotate 1", "--arch", "gfx942"), 2, "unknown pattern kind 'rotate'"),
    (("xor 1 width 6", "--arch", "gfx942"), 2, "power of two"),
    (("xor 1", "--arch", "gfx999"), 2, "unknown target 'gfx999'; known: gfx801"),
    (("xor 1", "--arch", "gfx942", "--ptx"), 2, "--ptx needs an NVIDIA target"),
    (("xor 1", "--arch", "sm_42", "--ptx"), 2, "unknown"),
    (("reduce add", "--arch", "gfx942"), 2, "reduction/scan"),
    (("xor 1", "--arch", "gfx942", "--prefer", "fast"), 2, "invalid choice: 'fast'"),
])
def test_cli_lower_errors(args, code, fragment):
    r = lower_cli(*args)
    assert r.returncode == code and fragment in r.stderr and "Traceback" not in r.stderr


def test_cache_hit_is_identical_and_survives_parallel_writers(tmp_path, monkeypatch):
    from shflx.driver import cache

    monkeypatch.setenv("SHFLX_CACHE_DIR", str(tmp_path))          # the children inherit it
    procs = [subprocess.Popen([sys.executable, "-m", "shflx", "lower", f"xor {k}", "--arch", "gfx90a", "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(1, 7)]
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    written = {k: json.loads(o[0]) for k, o in zip(range(1, 7), outs)}
    first = lower_cli("xor 3", "--arch", "gfx90a", "--json")
    again = lower_cli("xor 3", "--arch", "gfx90a", "--json")
    assert json.loads(first.stdout)["steps"] == json.loads(again.stdout)["steps"]
    assert (tmp_path / "plans.sqlite3").exists()
    # what the parallel writer of "xor 3" computed is what the later lookups get back
    assert json.loads(first.stdout)["steps"] == written[3]["steps"]
    assert json.loads(first.stdout) == written[3]                  # a hit: its search record too
    for k, plan in written.items():                                # every writer's entry landed, intact
        hit = cache.get(cache.key(f"xor {k}", resolve_target("gfx90a", 64)))
        assert hit is not None and plan_to_dict(hit)["steps"] == plan["steps"], k


def test_cache_keys_change_with_isa_data_and_model(monkeypatch):
    from shflx.driver import cache

    k1 = cache.key("xor 1", resolve_target("gfx942", 64))
    assert k1 == cache.key("xor 0x1", resolve_target("gfx942", 64))           # canonical pattern text
    monkeypatch.setattr(cache, "target_files_digest", lambda: "edited")
    assert cache.key("xor 1", resolve_target("gfx942", 64)) != k1
    monkeypatch.setattr(cache, "MODEL_VERSION", 999)
    assert cache.key("xor 1", resolve_target("gfx942", 64)) != k1


def test_creating_the_store_waits_out_another_process_lock():
    """Several compiles creating the store at once: SQLite may answer 'database is locked' to the
    WAL switch without its busy wait; the store must not be given up (its plans would be lost)."""
    import sqlite3

    from shflx.driver import cache

    class Contended:
        def __init__(self, refusals):
            self.refusals, self.ran = refusals, []

        def execute(self, sql):
            if self.refusals:
                self.refusals -= 1
                raise sqlite3.OperationalError("database is locked")
            self.ran.append(sql)

    conn = Contended(3)
    cache._while_busy(conn, "PRAGMA journal_mode=WAL")
    assert conn.ran == ["PRAGMA journal_mode=WAL"] and conn.refusals == 0

    class Broken(Contended):
        def execute(self, sql):
            raise sqlite3.OperationalError("no such table: plans")
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        cache._while_busy(Broken(0), "SELECT 1")


def test_a_damaged_cache_entry_is_a_miss(tmp_path, monkeypatch):
    from shflx.driver import cache
    from shflx.driver.cache import lower

    monkeypatch.setenv("SHFLX_CACHE_DIR", str(tmp_path))
    plan = lower("xor 2", "gfx942")
    k = cache.key("xor 2", resolve_target("gfx942", 64))
    cache._db().execute(f"UPDATE {cache.TABLE} SET plan = ? WHERE key = ?", ('{"arch": "gfx942"}', k))
    assert cache.get(k) is None
    assert lower("xor 2", "gfx942").steps == plan.steps


def test_both_halves_of_a_swap_come_from_one_instruction():
    from shflx.amd.hip import function_hip
    from shflx.amd.llvm_ir import kernel_ir
    from shflx.codegen.llvm import compile_ir

    plan = lower("xor 16", "gfx950", 64)
    asm = compile_ir(kernel_ir(plan), "gfx950", wave=64, emit="asm")
    assert asm.count("v_permlane16_swap") == 1 and "ds_" not in asm
    assert function_hip(plan).count("__builtin_amdgcn_permlane16_swap(") == 1


def test_runtime_member_mask_allows_single_steps_only():
    multi = lower("xor 5", "gfx90a")
    assert len(multi.steps) == 2
    single = lower("xor 5", "gfx90a", runtime_mask=True)
    assert len(single.steps) == 1 and single.proof["status"] == "proved"
    assert dict(single.extra)["optimality"]["optimal_within_steps"] == 1


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx950"])
def test_gfx9_width_32_shifts_and_segment_leaving_xors_need_no_bpermute(arch):
    """Issue 14 item 1: up/down d at width 32 (every down-tree and scan) and xor m >= w at width 2
    lower without ds_bpermute on wave64 GFX9-class targets; each plan proven and replayed."""
    texts = [f"{k} {d}" for k in ("up", "down") for d in range(1, 32)]
    texts += [f"xor {m} width 2" for m in range(16, 32)]
    for text in texts:
        plan = lower(text, arch)
        assert all(s.op != "ds.bpermute" for s in plan.steps), (arch, text)
        assert plan.proof["status"] == "proved" and independent_replay_ok(plan), (arch, text)
        assert plan.cost < dict(plan.extra)["baseline_cost"], (arch, text)


def test_gfx950_row_swap_compositions_are_lds_free():
    """Issue 14: on gfx950 a permlane16.swap (or the row swap it makes with a select), then the
    in-row rest: xor m >= 16 at width 2 and xor 16 + one DPP xor at width 32 need no LDS."""
    texts = [f"xor {m} width 2" for m in range(16, 32)] + [f"xor {m}" for m in (16, 17, 18, 19, 23, 24, 31)]
    for text in texts:
        plan = lower(text, "gfx950")
        assert not any(s.op.startswith("ds.") for s in plan.steps), (text, [s.op for s in plan.steps])
        assert plan.proof["status"] == "proved" and independent_replay_ok(plan), text
    assert [s.op for s in lower("xor 20 width 2", "gfx950").steps] == ["permlane16.swap", "update.dpp", "update.dpp"]


def test_gfx950_row_swap_select_folds_into_the_last_move():
    """Issue 14: xor 16 + an in-row xor of two DPP moves (xor 20-22 and 25-30 at width 32) on gfx950:
    the first move before the permlane16 swap, the last one applied to each swap half and merged by
    row_mask instead of a select (search.select_folded): cheaper than ds_swizzle, which the default
    chose before (swap + select + 2 DPP cost more); exact, proven, replayed, no ds_* in the asm."""
    from shflx.amd.llvm_ir import kernel_ir
    from shflx.codegen.llvm import compile_ir

    target = resolve_target("gfx950", 64)
    for m in (20, 21, 22, 25, 26, 27, 28, 29, 30):
        plan = lower(f"xor {m}", "gfx950")
        assert [s.op for s in plan.steps] == ["update.dpp", "permlane16.swap", "permlane16.swap",
                                              "update.dpp", "update.dpp"], m
        assert plan.cost < target.cost("ds_swizzle"), m
        assert plan.proof["status"] == "proved" and independent_replay_ok(plan), m
    asm = compile_ir(kernel_ir(lower("xor 20", "gfx950")), "gfx950", wave=64, emit="asm")
    assert asm.count("v_permlane16_swap") == 1 and "ds_" not in asm and "v_cndmask" not in asm


def test_composition_needs_a_cross_row_move():
    """GFX9 before gfx950 has no LDS-free cross-row move (DPP crosses a row one lane at a time):
    stage 4 has no base there; gfx950 has both swap halves and the row swap."""
    from shflx.match.search import cross_row_bases, residual

    assert cross_row_bases(resolve_target("gfx942", 64)) == ()
    bases = cross_row_bases(resolve_target("gfx950", 64))
    assert any((b.prov == (np.arange(64) ^ 16)).all() for b in bases)
    want = parse_pattern("xor 20").lane_map(64)
    swap = next(b for b in bases if (b.prov == (np.arange(64) ^ 16)).all())
    rest = residual(swap.prov, want)
    assert (swap.prov[rest.src] == want.src).all() and ((rest.src >> 4) == (np.arange(64) >> 4)).all()


@pytest.mark.parametrize("text", ["up 9", "up 15", "up 20", "down 12", "down 24"])
def test_a_rotate_fix_up_is_right_under_both_readings_of_the_wrap(text):
    """The rotate direction whose used lanes never carry out of bit 4 is chosen (AMD's literal
    pseudocode and the group-wrap reading agree there; spec §5.2): up d is rotate right by d,
    not left by 32 - d (which the amdemu literal reading showed wrong on every shifted lane)."""
    from shflx.match.solvers import rotate_carries

    plan = lower(text, "gfx942")
    swz = [s for s in plan.steps if s.op == "ds.swizzle"]
    sel = plan.step(plan.result)
    assert len(swz) == 1 and sel.op == "select" and sel.b == swz[0].id, plan.steps
    used = ~np.array([(sel.lanes >> i) & 1 for i in range(64)], bool) & parse_pattern(text).lane_map(64).care
    assert not rotate_carries(np.array([swz[0].offset]), 64)[0][used].any(), hex(swz[0].offset)
