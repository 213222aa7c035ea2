"""Where a guarded chain's call goes (driver.chains.call_position): after its last shuffle, later in
that block where a guard condition is defined there, or with a condition clang sank into a later
block computed again right after the last shuffle. The copy must be the same value as the
original: one pure instruction whose operands dominate the call (SSA: a value never changes, so a
load's result or a phi above the call is the same value in both places); anything else is None."""
from __future__ import annotations

import re

import pytest

from shflx.driver.chains import _pure_copy, call_position, defined_above

# line 0 define, 1 entry:, 2.. entry; "loop:" the shuffles' block; "tail:" a later block
FN = """define amdgpu_kernel void @k(i32 %n, ptr %p) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %lane = and i32 %t, 31
  br label %body
body:
  %ph = phi i32 [ 0, %entry ]
  %ld = load i32, ptr %p
  %s0 = call i32 @__shflx_shfl_sync(i32 1, i32 -1, i32 %ld, i32 1, i32 0)
  %same = icmp ugt i32 %lane, 0
  %s1 = call i32 @__shflx_shfl_sync(i32 1, i32 -1, i32 %s0, i32 2, i32 0)
  %late.in.block = icmp ugt i32 %lane, 1
  br i1 %x, label %tail, label %out
tail:
  %sunk = icmp ugt i32 %lane, 15
  %sunk.ld = icmp ult i32 %ld, %lane
  %sunk.ph = icmp ult i32 %ph, %lane
  %sunk.param = icmp ult i32 %n, %lane
  %here = add i32 %lane, 1
  %sunk.here = icmp ult i32 %here, 3
  %sunk.call = call i1 @f(i32 %lane)
  %sunk.2 = icmp ugt i32 %lane, 15, !dbg !7
  %res = add i32 %s1, 1
  ret void
out:
  ret void
}"""
LINES = FN.splitlines()
LAST = next(k for k, line in enumerate(LINES) if line.startswith("  %s1 ="))
RESULT = next(k for k, line in enumerate(LINES) if line.startswith("  %res ="))


def _line(name: str) -> int:
    return next(k for k, line in enumerate(LINES) if re.match(rf"^\s*{re.escape(name)} = ", line))


def test_a_condition_in_the_shuffles_block_moves_the_call_down_to_it():
    assert call_position(LINES, ["%same"], LAST, RESULT) == (LAST, {})          # defined above: stays
    assert call_position(LINES, ["%late.in.block"], LAST, RESULT) == (_line("%late.in.block"), {})
    assert call_position(LINES, ["%lane"], LAST, RESULT) == (LAST, {})          # the entry block


@pytest.mark.parametrize("cond,rhs", [
    ("%sunk", "icmp ugt i32 %lane, 15"),
    ("%sunk.2", "icmp ugt i32 %lane, 15"),
    ("%sunk.ld", "icmp ult i32 %ld, %lane"),          # the load's value, not a second load
    ("%sunk.ph", "icmp ult i32 %ph, %lane"),          # a phi of the shuffles' block, above them
])
def test_a_sunk_pure_condition_on_dominating_values_is_computed_again(cond, rhs):
    assert call_position(LINES, [cond], LAST, RESULT) == (LAST, {cond: rhs})


@pytest.mark.parametrize("cond", ["%sunk.param", "%sunk.here", "%sunk.call", "%nowhere"])
def test_anything_else_sunk_has_no_position(cond):
    """A parameter operand (not found as a definition: refused, conservatively), an operand defined
    in the later block itself, a call (not pure), an undefined name."""
    assert call_position(LINES, [cond], LAST, RESULT) is None


def test_operands_must_dominate_the_call():
    assert defined_above(LINES, "%ld", LAST + 1) and defined_above(LINES, "%lane", LAST + 1)
    assert not defined_above(LINES, "%here", LAST + 1) and not defined_above(LINES, "%res", LAST + 1)
    assert _pure_copy(LINES, LINES[_line("%sunk.here")], LAST) is None


TWO_SCANS = r"""
extern "C" __global__ void two_scans(const int *in, const int *in2, int *out, int *out2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = i < n ? in[i] : 0;
  int w = i < n ? in2[i] : 0;
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += t;
  }
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(0xffffffffu, w, d);
    if (lane >= d) w ^= t;
  }
  if (i < n) { out[i] = v; out2[i] = w; }
}
"""


def test_two_chains_that_compute_one_sunk_guard_again_compile(tmp_path):
    """Two bounded scans share the last step's guard, which clang sinks into the `i < n` branch:
    each chain's copy of it has its own name (one name for both was a redefinition LLVM refused)."""
    from shflx.driver.amd import compile_file
    src = tmp_path / "two.cu"
    src.write_text(TWO_SCANS)
    res = compile_file(src, "gfx942")
    assert [c.status for c in res.chains] == ["re-synthesized", "re-synthesized"], \
        [(c.status, c.reason) for c in res.chains]
