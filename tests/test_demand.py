"""ir.demand: the lanes a shuffle's result is used on, checked by meaning.

Random chains of shuffles, combines, lane-guarded selects, branches on lane conditions and data,
and final uses (a lane-conditioned store, a broadcast, a select) are written as LLVM IR and, in
numpy, run as CUDA runs them (one wave32 warp). Soundness: replacing every shuffle's result by
garbage on the lanes ir.demand leaves out never changes what is stored. Precision on the shapes
real code writes: a down-tree stored by lane 0 needs lanes 0-15, 0-7, ... 0; a butterfly read
by every lane needs them all; lanes read off threadIdx.x count only in `lanes_tid`."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from shflx.cuda import shfl_sync
from shflx.ir.demand import demanded_lanes
from shflx.ir.sites import find_sites

MODES = {"up": 0, "down": 1, "bfly": 2, "idx": 3}
HEAD = """target triple = "amdgcn-amd-amdhsa"
declare i32 @__shflx_shfl_sync(i32, i32, i32, i32, i32)
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %tl = and i32 %tid, 31
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %lane
  %v0 = load i32, ptr addrspace(1) %p
"""
TAIL = """}
attributes #0 = { "target-features"="+wavefrontsize32" }
"""

steps = st.lists(st.tuples(st.sampled_from(["up", "down", "bfly", "idx"]), st.integers(0, 31),
                           st.sampled_from([31, 0x1e1f, 0x181f, 0]),      # c: width 32, 2, 8, or up's 0
                           st.sampled_from(["add", "xor", "mul", "guard", "branch", "choose", "move"]),
                           st.integers(0, 31)), min_size=1, max_size=5)
uses = st.sampled_from(["store_if", "store_select", "broadcast", "store_all", "store_if_tid"])


def _block_before(chain, k):
    """The block the code of step k starts in: the join of the latest earlier branch step."""
    return next((f"j{j}" for j in reversed(range(k)) if chain[j][3] in ("branch", "choose")), "entry")


def _program(chain, use, lane_k):
    """(IR text, numpy runner(x, garbage) -> stored values): the same program twice."""
    ir = [HEAD]
    for k, (mode, b, c, comb, d) in enumerate(chain):
        c = 0 if mode == "up" and c == 31 else c
        ir.append(f"  %m{k} = call i32 @__shflx_shfl_sync(i32 {MODES[mode]}, i32 -1, i32 %v{k}, i32 {b}, i32 {c})")
        if comb in ("add", "xor", "mul"):
            ir.append(f"  %v{k + 1} = {comb} i32 %v{k}, %m{k}")
        elif comb == "guard":                  # if (lane >= d) v += moved
            ir += [f"  %g{k} = icmp uge i32 %lane, {d}", f"  %a{k} = add i32 %v{k}, %m{k}",
                   f"  %v{k + 1} = select i1 %g{k}, i32 %a{k}, i32 %v{k}"]
        elif comb in ("branch", "choose"):    # if (moved > v) v = moved ^ d (or v ^ d): a data branch
            arm = f"%m{k}" if comb == "branch" else f"%v{k}"
            ir += [f"  %g{k} = icmp sgt i32 %m{k}, %v{k}", f"  br i1 %g{k}, label %t{k}, label %j{k}",
                   f"t{k}:", f"  %s{k} = xor i32 {arm}, {d}", f"  br label %j{k}",
                   f"j{k}:", f"  %v{k + 1} = phi i32 [ %s{k}, %t{k} ], [ %v{k}, %{_block_before(chain, k)} ]"]
        else:
            ir.append(f"  %v{k + 1} = add i32 %m{k}, 0")
    n = len(chain)
    if use == "broadcast":
        ir += [f"  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v{n}, i32 {lane_k}, i32 31)",
               "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %lane", "  store i32 %r, ptr addrspace(1) %q",
               "  ret void"]
    elif use == "store_select":
        ir += [f"  %c = icmp eq i32 %lane, {lane_k}", f"  %r = select i1 %c, i32 %v{n}, i32 7",
               "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %lane", "  store i32 %r, ptr addrspace(1) %q",
               "  ret void"]
    elif use == "store_all":
        ir += ["  %q = getelementptr i32, ptr addrspace(1) %out, i32 %lane",
               f"  store i32 %v{n}, ptr addrspace(1) %q", "  ret void"]
    else:
        cond = "%lane" if use == "store_if" else "%tl"
        ir += [f"  %c = icmp ult i32 {cond}, {lane_k}", "  br i1 %c, label %st, label %end", "st:",
               "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %lane",
               f"  store i32 %v{n}, ptr addrspace(1) %q", "  br label %end", "end:", "  ret void"]

    def run(x, garbage, keep):
        """CUDA on one warp; a shuffle result is replaced by garbage outside its `keep` lanes."""
        lane = np.arange(32)
        v = x.astype(np.int64) & 0xFFFFFFFF
        for k, (mode, b, c, comb, d) in enumerate(chain):
            c = 0 if mode == "up" and c == 31 else c
            src, _ = shfl_sync(mode, b, c)
            m = np.where(keep[k], v[src], garbage[k])
            if comb == "add":
                v = (v + m) & 0xFFFFFFFF
            elif comb == "xor":
                v = v ^ m
            elif comb == "mul":
                v = (v * m) & 0xFFFFFFFF
            elif comb == "guard":
                v = np.where(lane >= d, (v + m) & 0xFFFFFFFF, v)
            elif comb in ("branch", "choose"):
                s = lambda a: a.astype(np.uint32).view(np.int32)  # noqa: E731
                v = np.where(s(m) > s(v), (m if comb == "branch" else v) ^ d, v)
            else:
                v = m
        if use == "broadcast":
            return np.repeat(v[lane_k], 32), np.ones(32, bool)
        if use == "store_select":
            return np.where(lane == lane_k, v, 7), np.ones(32, bool)
        if use == "store_all":
            return v, np.ones(32, bool)
        return v, lane < lane_k             # stored only there (lane is threadIdx.x here: 1-D)
    return "\n".join(ir) + "\n" + TAIL, run


@settings(max_examples=150, deadline=None)
@given(steps, uses, st.integers(0, 31), st.integers(0, 2**32 - 1))
def test_garbage_outside_the_demanded_lanes_changes_nothing_stored(chain, use, lane_k, seed):
    ir, run = _program(chain, use, lane_k)
    sites = [s for s in find_sites(ir) if s.line_index]
    demand = demanded_lanes(ir, sites)
    by_step = sorted(sites, key=lambda s: s.line_index)[:len(chain)]
    keep = [np.array([bool(demand[s.line_index].lanes_tid >> i & 1) for i in range(32)]) for s in by_step]
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2**32, 32, dtype=np.uint64)
    everything = [np.ones(32, bool)] * len(chain)
    for _ in range(3):
        garbage = rng.integers(0, 2**32, (len(chain), 32), dtype=np.uint64).astype(np.int64)
        want, stored = run(x, garbage, everything)
        got, _ = run(x, garbage, keep)
        assert np.array_equal(got[stored], want[stored]), (chain, use, lane_k, [hex(d.lanes_tid) for d in demand.values()])


def test_a_down_tree_stored_by_lane_0_needs_ever_fewer_lanes():
    chain = [("down", o, 31, "add", 0) for o in (16, 8, 4, 2, 1)]
    ir, _ = _program(chain, "store_if", 1)
    sites = sorted(find_sites(ir), key=lambda s: s.line_index)
    got = [demanded_lanes(ir, sites)[s.line_index] for s in sites]
    assert [d.lanes for d in got] == [0xFFFF, 0xFF, 0xF, 0x3, 0x1]
    assert [d.lanes_tid for d in got] == [0xFFFF, 0xFF, 0xF, 0x3, 0x1]


def test_lanes_read_off_threadIdx_x_count_only_with_the_premise():
    chain = [("down", o, 31, "add", 0) for o in (16, 8, 4, 2, 1)]
    ir, _ = _program(chain, "store_if_tid", 1)
    sites = sorted(find_sites(ir), key=lambda s: s.line_index)
    got = [demanded_lanes(ir, sites)[s.line_index] for s in sites]
    assert all(d.lanes == 0xFFFFFFFF for d in got)
    assert [d.lanes_tid for d in got] == [0xFFFF, 0xFF, 0xF, 0x3, 0x1]


def test_a_butterfly_read_by_every_lane_and_a_broadcast_of_lane_5():
    chain = [("bfly", o, 31, "add", 0) for o in (16, 8, 4, 2, 1)]
    ir, _ = _program(chain, "store_all", 0)
    sites = sorted(find_sites(ir), key=lambda s: s.line_index)
    assert all(d.lanes == 0xFFFFFFFF for d in demanded_lanes(ir, sites).values())
    ir, _ = _program(chain, "broadcast", 5)
    sites = sorted(find_sites(ir), key=lambda s: s.line_index)
    got = demanded_lanes(ir, sites)
    assert got[sites[-1].line_index].lanes == 0xFFFFFFFF          # the broadcast itself: every lane reads it
    assert got[sites[-2].line_index].lanes == 1 << 5               # xor 1 at lane 5 only
    assert got[sites[0].line_index].lanes == 0xFFFF                 # xor 16: lanes 0-15, lane 5's half


def test_a_branch_with_a_store_inside_demands_its_condition_everywhere():
    """`if (moved > v) out[lane] = 1;` is a side effect under a data branch: every lane's value
    decides it, so the shuffle is needed on every lane even though the result is never stored."""
    ir = HEAD + """  %m0 = call i32 @__shflx_shfl_sync(i32 1, i32 -1, i32 %v0, i32 1, i32 31)
  %g = icmp sgt i32 %m0, %v0
  br i1 %g, label %t, label %j
t:
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %lane
  store i32 1, ptr addrspace(1) %q
  br label %j
j:
  ret void
""" + TAIL
    (site,) = find_sites(ir)
    assert demanded_lanes(ir, [site])[site.line_index].lanes == 0xFFFFFFFF


def test_one_body_per_function_for_the_site_and_demand_passes(monkeypatch):
    """find_sites and the demand pass read a function through one shared body (ir.body), built
    once per module text: the largest modules' functions are not parsed again per pass."""
    from shflx.ir import evaluate

    built: list[str] = []
    init = evaluate.FunctionBody.__init__

    def counted(self, name, *args, **kwargs):
        built.append(name)
        init(self, name, *args, **kwargs)
    monkeypatch.setattr(evaluate.FunctionBody, "__init__", counted)
    ir = (HEAD.replace("@k(", "@k_one_body(") +
          "  %r = call i32 @__shflx_shfl_sync(i32 1, i32 -1, i32 %v0, i32 1, i32 31)\n"
          "  %s = add i32 %r, %v0\n  store i32 %s, ptr addrspace(1) %out\n  ret void\n" + TAIL)
    sites = find_sites(ir)
    assert [s.function for s in sites] == ["k_one_body"]
    assert demanded_lanes(ir, sites)[sites[0].line_index].lanes == 0xFFFFFFFF
    assert built == ["k_one_body"]


def test_operands_of_vector_instructions_are_whole_constants():
    """A vector select (inline PTX on 16-bit pairs gives `select <2 x i1> %c, <2 x i64> <i64 1, i64 1>,
    ...`) has three operands: the demand pass unpacked five ('too many values to unpack', bitsandbytes'
    gemm_4bit_simt.cu on gfx1100)."""
    from shflx.ir.evaluate import instruction_operands
    assert instruction_operands("select <2 x i1> %c, <2 x i64> <i64 1, i64 1>, <2 x i64> <i64 -1, i64 -1>, !dbg !7") == \
        ("%c", "<i64 1, i64 1>", "<i64 -1, i64 -1>")
    assert instruction_operands("add <2 x i32> %a, <i32 1, i32 2>") == ("%a", "<i32 1, i32 2>")
    assert instruction_operands("select i1 %c, i32 %a, i32 7") == ("%c", "%a", "7")
    assert instruction_operands("icmp eq <2 x i64> %x, zeroinitializer") == ("%x", "zeroinitializer")
