"""Lane-only operands in LLVM IR are evaluated exactly, and only what is provably lane-only or
warp-uniform is treated so (review findings: each case was a miscompile before).

- mbcnt counts the lane only under the full mask (`mbcnt.lo(-1, acc)`); over a ballot it is a
  popcount of the bits below the lane, not the lane id.
- casts keep their widths: `sext i1 true` is all ones, `trunc` to i1 drops the high bits.
- a guard of a chain step is a lane mask only when every warp of the block has the same one.
- only a kernel's parameters are warp-uniform; a device function may get per-lane arguments."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shflx.driver.chains import lower_chains
from shflx.ir.bpermute import find_bpermute_sites
from shflx.ir.sites import MARKER, find_sites
from shflx.target import resolve_target

HEAD = 'target triple = "amdgcn-amd-amdhsa"\n'
DECLS = ("declare i32 @__shflx_shfl_sync(i32, i32, i32, i32, i32)\n"
         "declare i32 @llvm.amdgcn.workitem.id.x()\n"
         "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)\n"
         "declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)\n")


def test_mbcnt_over_a_ballot_is_not_the_lane_id():
    """(wave32: there mbcnt.lo alone is the lane; in a wave64's upper half it counts 32 lanes)"""
    ir = HEAD + """define amdgpu_kernel void @k(i32 %ballot, i32 %v) #0 {
entry:
  %m = call i32 @llvm.amdgcn.mbcnt.lo(i32 %ballot, i32 0)
  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %m, i32 31)
  %a = shl i32 %m, 2
  %p = call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %v)
  %l = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 5)
  %s = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %l, i32 31)
  ret void
}
""" + DECLS
    m_site, l_site = find_sites(ir + 'attributes #0 = { "target-features"="+wavefrontsize32" }\n')
    assert m_site.b.kind == "dynamic"
    assert find_bpermute_sites(ir, 64)[0].lanes is None
    assert l_site.b.kind == "lane" and l_site.b.lanes == tuple(lane + 5 for lane in range(32))
    assert find_sites(ir)[1].b.kind == "dynamic"           # no features: read as wave64


def test_an_operand_with_a_range_attribute_is_still_a_site():
    """clang's IR may carry a value range on a call operand (`i32 noundef range(i32 -2, 3) %v`):
    the marker, ds_bpermute and NVVM shuffle calls are still read, with the operand after it."""
    ir = HEAD + """define amdgpu_kernel void @k(i32 %v, i32 %b) {
entry:
  %r = tail call noundef i32 @__shflx_shfl_sync(i32 noundef 3, i32 noundef -1, i32 noundef range(i32 -2, 3) %v, i32 noundef %b, i32 noundef 31) #0
  %p = call i32 @llvm.amdgcn.ds.bpermute(i32 range(i32 0, 256) %b, i32 noundef range(i32 -2, 3) %v)
  ret void
}
""" + DECLS
    (site,) = find_sites(ir)
    assert (site.mode.value, site.mask.value & 0xFFFFFFFF, site.value, site.c.value) == (3, 0xFFFFFFFF, "%v", 31)
    assert site.b.kind == "uniform"
    (bperm,) = find_bpermute_sites(ir, 64)
    assert bperm.lanes is None
    from shflx.ir.nvvm import as_markers
    nv = ('define ptx_kernel void @k(i32 %v, i32 %b) {\nentry:\n  %r = call i32 @llvm.nvvm.shfl.sync.idx.i32('
          'i32 -1, i32 range(i32 -2, 3) %v, i32 %b, i32 31)\n  ret void\n}\n')
    marked, count = as_markers(nv)
    assert count == 1 and f"call i32 @{MARKER}(i32 3, i32 -1, i32 %v, i32 %b, i32 31)" in marked


def test_casts_keep_their_widths():
    ir = HEAD + """define amdgpu_kernel void @k(i32 %v) #0 {
entry:
  %l = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %c = icmp ult i32 %l, 16
  %s = sext i1 %c to i32
  %x = and i32 %s, 64
  %p = call i32 @llvm.amdgcn.ds.bpermute(i32 %x, i32 %v)
  %h = trunc i32 %l to i1
  %y = select i1 %h, i32 4, i32 8
  %q = call i32 @llvm.amdgcn.ds.bpermute(i32 %y, i32 %v)
  %t = trunc i32 %l to i4
  %z = sext i4 %t to i32
  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %z, i32 31)
  ret void
}
attributes #0 = { "target-features"="+wavefrontsize32" }
""" + DECLS
    lanes = range(32)
    p, q = find_bpermute_sites(ir, 32)
    assert p.lanes == tuple(64 if lane < 16 else 0 for lane in lanes)
    assert q.lanes == tuple(4 if lane & 1 else 8 for lane in lanes)
    b = find_sites(ir)[0].b
    assert b.kind == "lane"
    assert [x & 31 for x in b.lanes] == [((lane & 15) - 16 * (lane >> 3 & 1)) & 31 for lane in lanes]


def test_a_guard_that_differs_between_warps_is_not_a_lane_mask():
    steps, prev = [], "%v0"
    for k, b in enumerate((16, 8, 4, 2, 1)):
        steps += [f"  %r{k} = call i32 @__shflx_shfl_sync(i32 2, i32 -1, i32 {prev}, i32 {b}, i32 31)",
                  f"  %a{k} = add i32 %r{k}, {prev}",
                  f"  %s{k} = select i1 %g, i32 %a{k}, i32 {prev}"]       # warp 0 reduces, the others keep v
        prev = f"%s{k}"
    ir = HEAD + ("define amdgpu_kernel void @k(i32 %v0, ptr %o) {\nentry:\n"
                 "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %g = icmp ult i32 %t, 32\n"
                 + "\n".join(steps) + f"\n  store i32 {prev}, ptr %o\n  ret void\n}}\n") + DECLS
    _, reports = lower_chains(ir, resolve_target("gfx942", 64))
    assert all(r.status != "re-synthesized" for r in reports), [(r.status, r.reason) for r in reports]


def test_a_lane_plus_a_kernel_argument_is_dynamic():
    """CUDA_Freshman's `__shfl(v, threadIdx.x + offset, 16)`: the lane depends on the lane and on
    a kernel argument, whose value is not known at compile time (this raised KeyError before)."""
    ir = HEAD + """define amdgpu_kernel void @k(ptr %o, i32 %v, i32 %offset) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %b = add i32 %t, %offset
  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %b, i32 4127)
  %b2 = add i32 %t, 3
  %r2 = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %b2, i32 31)
  store i32 %r, ptr %o
  ret void
}
""" + DECLS
    site, lane_site = find_sites(ir)
    assert site.b.kind == "dynamic"
    assert lane_site.b.kind == "lane" and lane_site.b.lanes[:3] == (3, 4, 5)


def test_device_function_parameters_are_not_uniform():
    ir = HEAD + """define internal i32 @helper(i32 %v, i32 %b) #0 {
entry:
  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %b, i32 31)
  ret i32 %r
}
define amdgpu_kernel void @k(ptr %o, i32 %n, i32 %w) {
entry:
  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %w, i32 %n, i32 31)
  store i32 %r, ptr %o
  ret void
}
attributes #0 = { noinline }
""" + DECLS
    helper, kernel = find_sites(ir)
    assert helper.b.kind == "dynamic"          # readlane would need a uniform lane: not here
    assert kernel.b.kind == "uniform"


def _lane_tables_ir(arch: str = "gfx942", wave: int = 64) -> str:
    from shflx.driver.amd import device_ir
    return device_ir(Path(__file__).resolve().parents[1] / "patterns" / "kernels" / "lane_tables" / "kernel.cu",
                     resolve_target(arch, wave))


def _lane_tables_sites():
    from shflx.ir.sites import find_sites
    return {s.function: s for s in find_sites(_lane_tables_ir())}


@pytest.mark.parametrize("arch,wave", [("gfx942", 64), ("gfx1100", 32)])
def test_tables_in_structs_2d_tables_switches_and_table_sums_are_lane_maps(arch, wave):
    """Issue 14: a local table the front end keeps as a struct or a 2-D array, a switch on lane
    bits (a phi of constants), a table entry plus lane bits, and F5's table[lane % 4] ^ 1."""
    from shflx.ir.sites import find_sites, site_map
    lane = np.arange(32)
    sites: dict[str, list] = {}
    for s in find_sites(_lane_tables_ir(arch, wave)):
        sites.setdefault(s.function, []).append(s)
    want = {"table_group_rotate": [np.array([16, 0, 24, 8])[(lane >> 3) & 3] + (lane & 7)],
            "table_xor_pair": [(lane & ~3) + np.array([0, 3, 1, 2])[lane & 3],
                               (lane & ~3) + (np.array([0, 3, 1, 2])[lane & 3] ^ 1)],
            "table_switch": [(lane & ~3) + np.array([2, 0, 3, 1])[lane & 3]],
            "table_struct_2d": [(lane & ~3) + np.array([1, 0, 3, 2])[lane & 3],
                                (lane & ~7) + np.array([[1, 0, 3, 2], [2, 3, 0, 1]])[(lane >> 2) & 1, lane & 3]]}
    for name, maps in want.items():
        got = sorted((tuple(site_map(s)[1]) for s in sites[name]), key=str)
        assert got == sorted((tuple(m) for m in maps), key=str), name
        assert all(s.b.kind == "lane" for s in sites[name]), name


@settings(deadline=None, max_examples=25)
@given(st.integers(1, 3), st.sampled_from([8, 16, 32, 64]), st.data())
def test_a_2d_table_read_through_a_gep_chain_is_evaluated_per_lane(log_cols, bits, data):
    """[R x [C x iK]] tables, indexed as t[(lane >> s) & (R-1)][lane & (C-1)] through two geps
    (how clang writes a 2-D local table): every lane reads the element numpy reads. (A row bit
    above the lane bits would be the warp id: no lane map, tested above.)"""
    from shflx.ir.evaluate import FunctionBody
    from shflx.ir.text import constant_tables
    shift = data.draw(st.integers(0, 4 - log_cols))
    cols, rows = 1 << log_cols, 2
    table = data.draw(st.lists(st.lists(st.integers(0, 31), min_size=cols, max_size=cols), min_size=rows, max_size=rows))
    ty = f"[{rows} x [{cols} x i{bits}]]"
    init = ", ".join(f"[{cols} x i{bits}] [" + ", ".join(f"i{bits} {v}" for v in row) + "]" for row in table)
    line = f"@tab = private unnamed_addr addrspace(4) constant {ty} [{init}], align 16"
    lines = ["  %t = tail call i32 @llvm.amdgcn.workitem.id.x()",
             f"  %r = lshr i32 %t, {log_cols + shift}", f"  %ri = and i32 %r, {rows - 1}",
             "  %r64 = zext i32 %ri to i64", f"  %c = and i32 %t, {cols - 1}", "  %c64 = zext i32 %c to i64",
             f"  %row = getelementptr inbounds nuw [{cols} x i{bits}], ptr addrspace(4) @tab, i64 %r64",
             f"  %p = getelementptr inbounds nuw i{bits}, ptr addrspace(4) %row, i64 %c64",
             f"  %e = load i{bits}, ptr addrspace(4) %p, align 1", f"  %v = {'trunc' if bits == 64 else 'zext'} "
             f"i{bits} %e to i32" if bits != 32 else "  %v = add i32 %e, 0"]
    body = FunctionBody("f", lines, [], constants=constant_tables([line]))
    op = body.classify("%v", low_bits=True)
    lane = np.arange(32)
    assert op.kind == "lane"
    assert list(op.lanes) == [table[(k >> (log_cols + shift)) & (rows - 1)][k & (cols - 1)] for k in lane]


def test_source_lanes_from_constant_tables_and_shifted_constants_are_lane_maps():
    """Issue 14: a private constant table indexed by lane bits, or a shifted constant, gives each
    lane a fixed source lane; a __constant__ table does not (the host may rewrite it)."""
    from shflx.ir.sites import site_map
    sites = _lane_tables_sites()
    lane = np.arange(32)
    want = {"table_quad": (lane & ~3) + np.array([2, 0, 3, 1])[lane & 3],
            "table_bitrev16": (lane & ~15) + np.array([int(f"{k:04b}"[::-1], 2) for k in range(16)])[lane & 15],
            "shifted_constant": (lane & ~3) + np.array([2, 3, 0, 1])[lane & 3]}
    for name, src in want.items():
        assert sites[name].b.kind == "lane", name
        assert np.array_equal(site_map(sites[name])[1], src), name
    assert sites["table_constant_memory"].b.kind == "dynamic"


def _body(table_line: str, index_inst: str, load: str = "load i32, ptr addrspace(4) %p, align 4"):
    from shflx.ir.evaluate import FunctionBody
    from shflx.ir.text import constant_tables
    lines = ["  %t = tail call i32 @llvm.amdgcn.workitem.id.x()", f"  %k = {index_inst}",
             "  %k64 = zext i32 %k to i64",
             "  %p = getelementptr inbounds nuw i32, ptr addrspace(4) @tab, i64 %k64", f"  %v = {load}"]
    return FunctionBody("f", lines, [], constants=constant_tables([table_line]))


@pytest.mark.parametrize("table,index,kind", [
    ("@tab = private unnamed_addr addrspace(4) constant [4 x i32] [i32 3, i32 2, i32 1, i32 0], align 4",
     "and i32 %t, 3", "lane"),
    ("@tab = addrspace(4) externally_initialized constant [4 x i32] [i32 3, i32 2, i32 1, i32 0], align 4",
     "and i32 %t, 3", "dynamic"),                                # host-writable: no table
    ("@tab = private unnamed_addr addrspace(4) global [4 x i32] [i32 3, i32 2, i32 1, i32 0], align 4",
     "and i32 %t, 3", "dynamic"),                                # mutable
    ("@tab = private unnamed_addr addrspace(4) constant [4 x i32] [i32 3, i32 2, i32 1, i32 0], align 4",
     "and i32 %t, 7", "dynamic"),                                # index past the end for lanes 4..7
    ("@tab = private unnamed_addr addrspace(4) constant [4 x i32] [i32 3, i32 2, i32 1, i32 0], align 4",
     "lshr i32 %t, 5", "dynamic"),                               # the warp id: differs between warps
])
def test_table_lookups_are_lane_maps_only_when_immutable_in_range_and_warp_invariant(table, index, kind):
    op = _body(table, index).classify("%v", low_bits=True)
    assert op.kind == kind
    if kind == "lane":
        assert op.lanes == tuple([3, 2, 1, 0] * 8)


def test_byte_string_tables_are_read_exactly():
    from shflx.ir.text import constant_tables
    line = r'@rev = internal unnamed_addr addrspace(4) constant [4 x i8] c"\00\08\04A", align 1'
    assert constant_tables([line]).images == {"rev": bytes([0, 8, 4, 65])}


def _wave_ir(body: str, wave: int) -> str:
    features = "+wavefrontsize32" if wave == 32 else "+wavefrontsize64"
    return (HEAD + "define amdgpu_kernel void @k(i32 %v, i32 %n, ptr %o) #0 {\nentry:\n" + body +
            "  ret void\n}\n" + f'attributes #0 = {{ "target-features"="{features}" }}\n' + DECLS +
            "declare i32 @llvm.amdgcn.ballot.i32(i1)\ndeclare i32 @llvm.cttz.i32(i32, i1)\n"
            "declare i32 @llvm.ctpop.i32(i32)\n")


LEADER = """  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %p = icmp ugt i32 %t, %n
{ballot}  %none = icmp eq i32 %bal, 0
  %tz = tail call range(i32 0, 33) i32 @llvm.cttz.i32(i32 %bal, i1 true)
  %leader = select i1 %none, i32 -1, i32 %tz
  %w = mul i32 %t, 3
  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %w, i32 %leader, i32 31)
  %r2 = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %w, i32 %r, i32 31)
"""
# the CUDA layer's __ballot_sync: the wave's mask on wave32; each warp's half of it on wave64
BALLOT = {32: "  %bal = call i32 @llvm.amdgcn.ballot.i32(i1 %p)\n",
          64: "  %b64 = call i64 @llvm.amdgcn.ballot.i64(i1 %p)\n"
              "  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)\n"
              "  %hi = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)\n"
              "  %half = and i32 %hi, 32\n  %sh = zext i32 %half to i64\n"
              "  %sel = lshr i64 %b64, %sh\n  %bal = trunc i64 %sel to i32\n"}


@pytest.mark.parametrize("wave", [32, 64])
def test_a_lane_from_a_ballot_or_a_broadcast_is_uniform_only_where_the_warp_is_the_wave(wave):
    """`__ffs(__ballot_sync(full, p)) - 1` and the result of a full-mask width-32 broadcast are the
    same in every lane of a wave32 (readlane serves); a wave64 holds two warps, which may differ."""
    ir = _wave_ir(LEADER.format(ballot=BALLOT[wave]), wave) + (
        "declare i64 @llvm.amdgcn.ballot.i64(i1)\ndeclare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)\n")
    leader, chained = find_sites(ir)
    want = "uniform" if wave == 32 else "dynamic"
    assert (leader.b.kind, chained.b.kind) == (want, want)


@pytest.mark.parametrize("body", [
    # a count of a lane-dependent value is per lane
    "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %c = call i32 @llvm.ctpop.i32(i32 %t)\n"
    "  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %c, i32 31)\n",
    # a broadcast under a partial mask, of width 16, or of a per-lane source lane
    "  %b = call i32 @__shflx_shfl_sync(i32 3, i32 65535, i32 %v, i32 %n, i32 31)\n"
    "  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %b, i32 31)\n",
    "  %b = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %n, i32 4127)\n"
    "  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %b, i32 31)\n",
    "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %b = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %t, i32 31)\n"
    "  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %b, i32 31)\n",
    # a shuffle that is not idx (xor 1 of the argument differs between lanes)
    "  %b = call i32 @__shflx_shfl_sync(i32 2, i32 -1, i32 %v, i32 1, i32 31)\n"
    "  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %b, i32 31)\n",
])
def test_a_lane_that_may_differ_between_lanes_is_never_uniform(body):
    assert find_sites(_wave_ir(body, 32))[-1].b.kind == "dynamic"


@pytest.mark.parametrize("wave", [32, 64])
def test_a_broadcast_at_a_uniform_lane_is_uniform_only_on_wave32(wave):
    body = ("  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
            "  %b = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %t, i32 %n, i32 31)\n"
            "  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %b, i32 31)\n")
    assert find_sites(_wave_ir(body, wave))[-1].b.kind == ("uniform" if wave == 32 else "dynamic")


LINEAR = """define amdgpu_kernel void @k(i32 %v) {
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %y = call i32 @llvm.amdgcn.workitem.id.y()
  %z = call i32 @llvm.amdgcn.workitem.id.z()
  %ia = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %px = getelementptr inbounds i8, ptr addrspace(4) %ia, i64 12
  %lx = load i16, ptr addrspace(4) %px, align 4
  %nx = zext i16 %lx to i32
  %py = getelementptr inbounds i8, ptr addrspace(4) %ia, i64 14
  %ly = load i16, ptr addrspace(4) %py, align 2
  %ny = zext i16 %ly to i32
  RANK
  %lane = and i32 %rank, 31
  %r = call i32 @__shflx_shfl_sync(i32 3, i32 -1, i32 %v, i32 %lane, i32 31)
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workitem.id.z()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
"""


@pytest.mark.parametrize("rank,is_lane", [
    ("%zy = mul i32 %z, %ny\n  %zyy = add i32 %zy, %y\n  %m = mul i32 %zyy, %nx\n  %rank = add i32 %m, %x", True),
    ("%nxy = mul i32 %nx, %ny\n  %a = mul i32 %z, %nxy\n  %b = mul i32 %y, %nx\n  %ab = add i32 %a, %b\n"
     "  %rank = add i32 %ab, %x", True),                                        # CUDA's own spelling
    ("%b = mul i32 %y, %nx\n  %rank = add i32 %b, %x", False),                   # 2-D only: not the lane in 3-D
    ("%zy = mul i32 %z, %ny\n  %zyy = add i32 %zy, %y\n  %m = mul i32 %zyy, %ny\n  %rank = add i32 %m, %x", False),
])
def test_the_linear_thread_ids_low_bits_are_the_lane_in_every_block_shape(rank, is_lane):
    """threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z) & 31 is the CUDA lane
    with no premise on the block (waves and warps are runs of linear ids); a rank that is not the
    linear id (no z term, the wrong size) is not a lane function."""
    (site,) = find_sites(HEAD + LINEAR.replace("RANK", rank) + DECLS)
    if is_lane:
        assert site.b.kind == "lane" and site.b.lanes == tuple(range(32)) and not site.b.from_tid
    else:
        assert site.b.kind == "dynamic"


@pytest.mark.parametrize("wave", [32, 64])
def test_a_bpermute_address_read_off_threadidx_x_is_not_a_lane_map(wave):
    """ds_bpermute reads the hardware lane its address names; threadIdx.x is that lane only in some
    block shapes (in a (16, 4) block hardware lane 16 has threadIdx.x 0: `(threadIdx.x ^ 1) << 2`
    reads lane 1 there, a DPP quad_perm lane 17), and no run-time check guards a bpermute, so such
    an address is no lane map and the call is kept. The linear thread id's low bits and mbcnt are
    the lane in every block shape and stay lane maps."""
    from shflx.driver.lowering import lower_bpermutes
    tid = "%t = call i32 @llvm.amdgcn.workitem.id.x()\n  %s = xor i32 %t, 1"
    linear = LINEAR.split("  RANK")[0].split("entry:\n")[1] + (
        "  %zy = mul i32 %z, %ny\n  %zyy = add i32 %zy, %y\n  %m = mul i32 %zyy, %nx\n  %rank = add i32 %m, %x\n"
        f"  %l = and i32 %rank, {wave - 1}\n  %s = xor i32 %l, 1")
    mbcnt = "%t = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)\n  %s = xor i32 %t, 1"
    for body, is_map in ((tid, False), (linear, True), (mbcnt, True)):
        ir = (HEAD + "define amdgpu_kernel void @k(i32 %v, ptr addrspace(1) %o) {\nentry:\n  " + body.strip()
              + "\n  %a = shl i32 %s, 2\n  %p = call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %v)\n"
              "  store i32 %p, ptr addrspace(1) %o\n  ret void\n}\n" + DECLS
              + LINEAR.split("}\n", 1)[1])
        (site,) = find_bpermute_sites(ir, wave)
        if not is_map:
            assert site.lanes is None
            (report,) = lower_bpermutes(ir, resolve_target("gfx942" if wave == 64 else "gfx1100", wave))[1]
            assert report.lowering == ["ds_bpermute_b32 (kept)"], report
        elif body is linear:
            assert site.lanes == tuple(((k & (wave - 1)) ^ 1) << 2 for k in range(wave))
        else:
            assert site.lanes is not None and site.lanes[:32] == tuple((k ^ 1) << 2 for k in range(32))


def test_the_linear_ids_bits_above_the_wave_are_no_hardware_lane_bits():
    """IR without target features (hand-written, other front ends) reads as wave64 (the larger), so
    `linear & 32` is taken as a lane function; on a wave32 target bit 5 of the linear id is the wave's
    parity, not a lane bit: a bpermute address that selects on it is no lane map there. Likewise a
    lane condition mixing mbcnt with that bit (mbcnt counts the target's lanes)."""
    rank = ("  %zy = mul i32 %z, %ny\n  %zyy = add i32 %zy, %y\n  %m = mul i32 %zyy, %nx\n  %rank = add i32 %m, %x\n"
            "  %w = and i32 %rank, 32\n  %odd = icmp ne i32 %w, 0\n  %a = select i1 %odd, i32 4, i32 8\n"
            "  %p = call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %v)\n")
    ir = HEAD + LINEAR.split("  RANK")[0] + rank + "  ret void\n}\n" + DECLS + LINEAR.split("}\n", 1)[1]
    (site,) = find_bpermute_sites(ir, 32)
    assert site.lanes is None
    (site,) = find_bpermute_sites(ir, 64)                      # on wave64 bit 5 is the lane's
    assert site.lanes == tuple(4 if k & 32 else 8 for k in range(64))
    from shflx.ir.body import FunctionIR
    body = (LINEAR.split("entry:\n")[1].split("  RANK")[0] + rank.split("  %a =")[0]
            + "  %l = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)\n  %lo = icmp ult i32 %l, 32\n"
              "  %both = and i1 %lo, %odd\n")
    fn = FunctionIR("k", ["entry:", *body.splitlines()], [], 0, wave=64)
    # real wave32 lanes have mbcnt.lo < 32 and either parity: the condition can hold on every lane
    assert fn.lane_condition("%both") in (None, 0xFFFFFFFF)
