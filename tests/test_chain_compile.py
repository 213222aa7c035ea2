"""Chains in compiled CUDA (issue 5): recognized in the IR, re-synthesized where allowed, reported.

The recognized steps are checked against the kernel itself: evaluating them with the CUDA shuffle
model must give the numpy reference of patterns/kernels/references.py on every live lane, so a
recognizer that misreads a guard, an operator or a step order fails here even though the plan it
feeds is proven."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from patterns.kernels.references import KERNELS
from shflx.ir.chains import find_chains
from shflx.combine import FNS
from shflx.driver.amd import compile_file, device_ir
from shflx.driver.report import instruction_counts
from shflx.lanes import mask_to_lanes
from shflx.ir.sites import find_sites
from shflx.target import resolve_target

ROOT = Path(__file__).resolve().parents[1]
KDIR = ROOT / "patterns" / "kernels"


@lru_cache(maxsize=None)
def build(family: str, arch: str, **kw):
    return compile_file(KDIR / family / "kernel.cu", arch, emit="asm", **dict(kw))


@lru_cache(maxsize=None)
def _family_chains(family: str, arch: str) -> tuple:
    """The family's device IR compiled and its chains found once, for every kernel that reads them."""
    ir = device_ir(KDIR / family / "kernel.cu", resolve_target(arch, 64 if arch.startswith("gfx9") else 32))
    return tuple(find_chains(ir, find_sites(ir)))


def _chains(family: str, arch: str = "gfx942"):
    return {c.function: c for c in _family_chains(family, arch)}


def _run_steps(steps, x: np.ndarray) -> np.ndarray:
    """The recognized chain, evaluated with the CUDA model on u32 bit patterns, warp by warp."""
    out = []
    for w in x.reshape(-1, 32):
        v = w.copy()
        for st in steps:
            moved = v[st.operands.lane_map().src.astype(np.int64)]
            guard = mask_to_lanes(st.guard, 32)
            if st.fn is None:
                v = np.where(guard, moved, np.uint32(0))
            else:
                v = np.where(guard, FNS[st.fn].apply(v, moved), v)
        out.append(v)
    return np.concatenate(out)


@pytest.mark.parametrize("kernel", ["excl_scan_add", "lane0_max", "scan_umin_w16", "fmax_butterfly", "fsum_reassoc",
                                    "scan_add_w32", "scan_add_w8", "downtree_sum_bcast", "butterfly_max_i32_w16",
                                    "butterfly_or_u32_w8", "butterfly_sum_f32", "cub_reduce_full"])
def test_recognized_steps_compute_what_the_kernel_computes(kernel):
    family, make, ref = KERNELS[kernel]
    chain = _chains(family)[kernel]
    rng = np.random.default_rng(5)
    x = np.asarray(make(rng, 128)[0])
    got = _run_steps(chain.steps, x.view(np.uint32))
    want = np.asarray(ref(x)).view(np.uint32)
    live = np.tile(mask_to_lanes(chain.live, 32), len(x) // 32)
    if kernel == "downtree_sum_bcast":        # the result is broadcast from lane 0 afterwards
        want = np.repeat(got.reshape(-1, 32)[:, 0], 32)
        assert np.array_equal(want, np.asarray(ref(x)).view(np.uint32))
    # excl_scan_add needs nothing here: its final select (lane 0 -> 0) is part of the chain
    if FNS[chain.fn].is_float and not FNS[chain.fn].idempotent:
        assert np.allclose(got[live].view(np.float32), want[live].view(np.float32), rtol=1e-5)
    else:
        assert np.array_equal(got[live], want[live]), kernel


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_chain_family_is_resynthesized_and_cheaper(arch):
    res = build("chains", arch)
    assert {c.function for c in res.chains} == {"excl_scan_add", "lane0_max", "scan_umin_w16",
                                                 "fmax_butterfly", "fsum_reassoc"}
    for c in res.chains:
        if c.status == "step by step":       # gfx10+ butterflies: every step is already one DPP op
            assert arch != "gfx942" and "butterfly" in c.shape and "no re-synthesized plan is cheaper" in c.reason
            continue
        assert c.status == "re-synthesized" and c.proof == "proved", (c.function, c.reason)
        assert c.cost < c.step_by_step_cost < c.baseline_cost
    assert sum(c.status == "re-synthesized" for c in res.chains) >= 3
    lane0 = next(c for c in res.chains if c.function == "lane0_max")
    assert lane0.live.startswith("lanes 0x1 ")


def test_float_add_keeps_its_order_unless_allowed():
    plain = next(c for c in build("butterfly", "gfx942").chains if c.function == "butterfly_sum_f32")
    assert plain.status == "step by step" and "reassoc" in plain.reason
    allowed = next(c for c in build("butterfly", "gfx942", fp_reassoc=True).chains
                   if c.function == "butterfly_sum_f32")
    assert allowed.status == "re-synthesized"


@pytest.mark.parametrize("family,function,why", [
    ("downtree", "downtree_asc_raw", "live lanes"),
    ("partial_mask", "half_warp_sum", "partial member mask"),
    ("coop_groups", "tile_reduce8", "runtime member mask"),
])
def test_what_is_not_resynthesized_says_why(family, function, why):
    c = next(c for c in build(family, "gfx942").chains if c.function == function)
    assert c.status == "step by step" and why in c.reason
    assert c.cost is None            # its shuffles are lowered and reported as sites


def test_a_value_used_between_steps_blocks_resynthesis(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("""
extern "C" __global__ void k(const int *in, int *out, int *mid) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  v += __shfl_xor_sync(0xffffffff, v, 16);
  mid[i] = v;                                   // the partial sum escapes
  v += __shfl_xor_sync(0xffffffff, v, 8);
  v += __shfl_xor_sync(0xffffffff, v, 4);
  out[i] = v;
}
""")
    res = compile_file(src, "gfx942", emit="asm")
    (c,) = res.chains
    assert c.status == "step by step" and "used between the steps" in c.reason


def test_the_last_combine_used_before_its_guard_blocks_resynthesis(tmp_path):
    """CUB's BlockScanWarpScans: lane 31 stores the last step's combine, taken before the guard
    select that makes the chain's result. A re-synthesized chain leaves that combine behind as a
    dead copy of its own input, so the store would read the wrong value (a miscompile caught on
    the emulator in cub::BlockScan max): the chain is kept as written."""
    src = tmp_path / "k.cu"
    src.write_text("""
extern "C" __global__ void k(const int *in, int *out, int *agg) {
  int lane = threadIdx.x & 31, v = in[threadIdx.x], m = v;
  for (int o = 1; o < 32; o <<= 1) {
    int n = __shfl_up_sync(0xffffffff, v, o);
    m = max(n, v);
    v = lane >= o ? m : v;
  }
  if (lane == 31) agg[threadIdx.x >> 5] = m;    // the last combine, not the selected result
  out[threadIdx.x] = v;
}
""")
    res = compile_file(src, "gfx942", emit="asm")
    (c,) = res.chains
    assert c.status == "step by step" and "is used between the steps or after the chain" in c.reason, c.reason


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_chains_cut_cross_lane_instructions(arch):
    """The measured claim in the final asm: on gfx9 fewer LDS round trips (xor 16 / up 16 need the
    LDS crossbar there, chains use row_bcast and readlane), even with the chains as written kept
    for the waves whose lanes are not threadIdx.x % 32; on gfx10+, already LDS-free, a lower
    estimated cost of the code that runs (the static count includes those fallbacks)."""
    families = ("chains", "scan", "hw_reduce", "downtree")
    def counts(**kw):  # noqa: E306
        total = {"lds": 0, "all": 0, "cost": 0.0}
        for f in families:
            res = build(f, arch, **kw)
            n = instruction_counts(res.output)
            total["lds"] += n["ds_bpermute"] + n["ds_swizzle"]
            total["all"] += sum(n.values())
            total["cost"] += sum(s.cost for s in res.sites) + sum(c.cost for c in res.chains if c.cost is not None)
        return total
    with_chains, without = counts(), counts(chains=False)
    if arch == "gfx942":      # LDS round trips (~50 cycles) give way to DPP, row_bcast and readlane
        assert with_chains["lds"] < without["lds"]
    else:                     # the scans lose their selects and extra moves
        assert with_chains["lds"] == without["lds"] == 0
    assert with_chains["cost"] < without["cost"]


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
@pytest.mark.parametrize("function,chains", [("phi_lane0_sum", 1), ("loop_acc_lane0", 1),
                                             ("block_reduce_two_level", 2)])
def test_a_result_reaching_lane_0_through_phis_is_a_lane0_reduction(arch, function, chains):
    """Issue 14: the result merged by a phi, accumulated in a loop or reduced again reaches only
    thread 0's store, so each chain is a reduction to lane 0 (re-synthesized, cheaper)."""
    found = [c for c in build("chain_flow", arch).chains if c.function == function]
    assert len(found) == chains
    for c in found:
        assert c.status == "re-synthesized", c.reason
        assert c.live.startswith("lanes 0x1 (the result is used only under conditions on the lane"), c.live
        assert "%" not in c.live                                  # no IR value names reach the user
        assert c.cost < c.step_by_step_cost


def test_a_phi_used_by_every_lane_keeps_the_chain_as_written():
    (c,) = [c for c in build("chain_flow", "gfx942").chains if c.function == "phi_every_lane"]
    assert c.status == "step by step" and "live lanes" in c.reason
    assert c.live.startswith("every lane (through a phi)")


def test_lane_conditions_read_through_phis_only_when_every_edge_agrees():
    """A phi of threadIdx.x on both edges is threadIdx.x (clang's PRE makes these); a phi of two
    different lane functions is no lane function at all."""
    from shflx.ir.chains import _Body

    def body(second: str) -> _Body:
        lines = ["a:", "  %t0 = tail call i32 @llvm.amdgcn.workitem.id.x()", "  br label %c",
                 "b:", "  %t1 = tail call i32 @llvm.amdgcn.workitem.id.x()", f"  %t2 = {second}", "  br label %c",
                 "c:", "  %p = phi i32 [ %t0, %a ], [ %t2, %b ]", "  %cmp = icmp eq i32 %p, 0"]
        return _Body("k", lines, [], 0)

    assert body("add i32 %t1, 0").lane_condition("%cmp") == 1
    assert body("add i32 %t1, 1").lane_condition("%cmp") is None


def test_a_strided_butterfly_is_resynthesized_on_amd_and_kept_on_nvidia():
    """xor 16, 8, 4 sums over lane bits 0x1c: a strided reduction, re-synthesized for AMD; no
    redux.sync on NVIDIA (it reduces whole warps only)."""
    (c,) = [c for c in build("strided", "gfx942").chains if c.function == "strided_sum"]
    assert c.status == "re-synthesized" and c.width is None
    from shflx.driver.nvidia import compile_cuda
    res = compile_cuda(KDIR / "strided" / "kernel.cu", "sm_90", emit="ptx")
    assert "redux.sync" not in res.output
    (n,) = res.chains
    assert "strided reduction over lane bits 0x1c" in n.reason


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_multi_value_chains_are_reported_with_the_lanes_each_step_is_lowered_for(arch):
    """Issue 14: pairs (argmax, Welford, online softmax, argmin on a 64-bit word), 64-bit and half2
    chains are recognized as chains of several values per step, combined as written."""
    res = build("pair_chains", arch)
    got = {c.function: c for c in res.chains}
    assert set(got) == {"argmax_down_pair", "argmax_xor_bcast", "welford_down", "softmax_online_bcast",
                        "argmin_u64_xor"}
    values = {f: int(c.reason.split(" value")[0]) for f, c in got.items()}
    assert values == {"argmax_down_pair": 2, "argmax_xor_bcast": 2, "welford_down": 3,
                      "softmax_online_bcast": 2, "argmin_u64_xor": 2}
    assert got["argmax_down_pair"].shape == "down-tree" and got["argmin_u64_xor"].shape == "butterfly"
    assert got["argmax_down_pair"].live.startswith("lanes 0x1 where the CUDA lane is threadIdx.x % 32")
    assert got["softmax_online_bcast"].live.startswith("lanes 0x1 (the lanes that use the result)")      # a broadcast: exact
    assert got["argmin_u64_xor"].live.startswith("every lane")
    assert "(0xffff, 0xff, 0xf, 0x3, 0x1)" in got["welford_down"].reason
    assert all(c.status == "step by step" and c.op == "as written" for c in got.values())
    wide = {c.function: c for c in build("wide_chains", arch).chains}
    assert wide["dsum_down_lane0"].type == wide["i64_max_xor"].type == "64-bit (two 32-bit halves)"
    # NVIDIA's __hadd2 is PTX add.f16x2, one fadd on the pair: a chain of __half2 values, kept as written
    half2 = wide["half2_sum_down_lane0"]
    assert half2.type == "__half2" and half2.status == "step by step", (half2.type, half2.reason)
    assert half2.reason.startswith("__half2 values (only i32 and float chains are re-synthesized)")


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_a_lane_0_pair_chain_lowers_each_shuffle_for_the_lanes_used(arch):
    """The last step of a lane-0 argmax moves one lane: one DPP row shift on every target, where
    `down 1` for all lanes needs a select and a row-crossing fix-up; proven for those lanes."""
    from shflx.match import lower
    sites = [r for r in build("pair_chains", arch).sites if r.function == "argmax_down_pair"]
    down1 = [r for r in sites if r.cuda.endswith("v, 1, 32)")]
    assert len(down1) == 2
    full = lower("down 1", arch).cost
    for r in down1:
        assert r.proof == "proved" and r.cost < full
        assert any("used on lanes 0x1" in n for n in r.notes)
        assert any("run-time check" in n for n in r.notes)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_chains_recognized_through_threadIdx_x_run_behind_the_check(arch):
    """A scan guarded by `lane >= d` with lane = threadIdx.x & 31 is re-synthesized behind amd.guard's
    check; the chain as written runs where it fails (hw_tests/amd/test_lane_premise_hw.py runs both)."""
    c = next(c for c in build("scan", arch).chains if c.function == "scan_add_w32")
    assert c.status == "re-synthesized" and "run-time check" in c.reason
    res = compile_file(KDIR / "scan" / "kernel.cu", arch, emit="llvm")
    assert "@shflx.chain.0.guard(" in res.output and "@shflx.chain.0.all(" in res.output
    assert "llvm.amdgcn.ballot" in res.output


def test_a_tile_rank_0_use_is_a_lane_condition(tmp_path):
    """CUDA samples' jacobi reduction: a double down-tree over a thread_block_tile<32>, stored where
    tile32.thread_rank() == 0. The tile rank is the lane mod 32 (no threadIdx.x premise), so the
    steps are lowered for lanes 0-15, 0-7, .. 0 with no run-time check."""
    src = tmp_path / "k.cu"
    src.write_text("""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void tile_down(const double *in, double *out) {
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double sum = in[i];
  for (int offset = tile32.size() / 2; offset > 0; offset /= 2) sum += tile32.shfl_down(sum, offset);
  if (tile32.thread_rank() == 0) out[i / 32] = sum;
}
""")
    res = compile_file(src, "gfx942", emit="asm")
    (c,) = res.chains
    assert c.type == "64-bit (two 32-bit halves)" and c.live.startswith("lanes 0x1 (the lanes that use the result)")
    assert "(0xffff, 0xff, 0xf, 0x3, 0x1)" in c.reason
    assert not any("run-time check" in n for s in res.sites for n in s.notes)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_two_guarded_chains_after_one_guard_line_are_both_placed(tmp_path, arch):
    """Two scans in one loop share the `lane >= d` guard (a BlockScan of a pair: stdgpu's
    unordered_map through CUB): both calls go after the guard's line, and neither may be dropped
    (the first was, leaving its result undefined: 'use of undefined value %shflx.chain.0.v').
    hw_tests/amd/test_lane_premise_hw.py runs the kernel (pair_scan_tid_guard)."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *a, int *b) {\n  int lane = threadIdx.x & 31;\n"
                   "  int x = a[threadIdx.x], y = b[threadIdx.x];\n#pragma unroll\n"
                   "  for (int o = 1; o < 32; o <<= 1) {\n    int tx = __shfl_up_sync(0xffffffff, x, o);\n"
                   "    int ty = __shfl_up_sync(0xffffffff, y, o);\n    if (lane >= o) { x += tx; y += ty; }\n  }\n"
                   "  a[threadIdx.x] = x; b[threadIdx.x] = y;\n}\n")
    res = compile_file(src, arch, emit="llvm")
    assert [c.status for c in res.chains] == ["re-synthesized", "re-synthesized"]
    for k in (0, 1):
        assert f"%shflx.chain.{k}.v = call i32 @shflx.chain.{k}.guard(" in res.output
