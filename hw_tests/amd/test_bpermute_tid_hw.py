"""ds_bpermute calls whose address is read off threadIdx.x (HIP's `__shfl(v, threadIdx.x ^ 1)` as
hipcc writes it: the address is the source lane << 2, no mbcnt), run in 1-D and 2-D blocks. The
hardware reads the lane the address names: in a (16, 4) block hardware lane 16 has threadIdx.x 0 and
reads lane 1, not lane 17. shflx may replace such a call only by something that reads the same lane
in every block shape, so each result is compared with a numpy model of ds_bpermute itself."""
from __future__ import annotations

import tempfile

import numpy as np
import pytest

from hw_devices import assert_bit_exact, code_object, device_params, require

BLOCKS = ((64, 1, 1), (16, 4, 1), (32, 2, 1), (8, 8, 1))
GRID = 4
N = GRID * 64

# out[i] = ds_bpermute((threadIdx.x OP K) << 2, in[i]), i = blockIdx.x * 64 + threadIdx.y * bx +
# threadIdx.x (the block's linear thread id, so each block covers 64 consecutive elements)
KERNEL = """
define amdgpu_kernel void @bperm_tid_{name}(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %bx) {{
entry:
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %g = call i32 @llvm.amdgcn.workgroup.id.x()
  %row = mul i32 %ty, %bx
  %lin = add i32 %row, %tx
  %base = shl i32 %g, 6
  %i = add i32 %base, %lin
  %i64 = zext i32 %i to i64
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %i64
  %v = load i32, ptr addrspace(1) %pin
  %src = {op} i32 %tx, {k}
  %a = shl i32 %src, 2
  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %v)
  %pout = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i64
  store i32 %r, ptr addrspace(1) %pout
  ret void
}}
"""
# out[i] = ds_bpermute(((linear id & 32) ? 4 : 8), in[i]): bit 5 of the linear id is a lane bit on
# wave64 only (on wave32 it is the wave's parity); the module has no target features, so its
# functions read as wave64
PARITY = """
define amdgpu_kernel void @bperm_parity(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %bx) {
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %y = call i32 @llvm.amdgcn.workitem.id.y()
  %z = call i32 @llvm.amdgcn.workitem.id.z()
  %g = call i32 @llvm.amdgcn.workgroup.id.x()
  %ia = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %px = getelementptr inbounds i8, ptr addrspace(4) %ia, i64 12
  %lx = load i16, ptr addrspace(4) %px, align 4
  %nx = zext i16 %lx to i32
  %py = getelementptr inbounds i8, ptr addrspace(4) %ia, i64 14
  %ly = load i16, ptr addrspace(4) %py, align 2
  %ny = zext i16 %ly to i32
  %zy = mul i32 %z, %ny
  %zyy = add i32 %zy, %y
  %m = mul i32 %zyy, %nx
  %rank = add i32 %m, %x
  %base = shl i32 %g, 6
  %i = add i32 %base, %rank
  %i64 = zext i32 %i to i64
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %i64
  %v = load i32, ptr addrspace(1) %pin
  %w = and i32 %rank, 32
  %odd = icmp ne i32 %w, 0
  %a = select i1 %odd, i32 4, i32 8
  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %v)
  %pout = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i64
  store i32 %r, ptr addrspace(1) %pout
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.z()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
"""
FORMS = {"xor1": ("xor", 1, lambda t: t ^ 1), "add1": ("add", 1, lambda t: t + 1),
         "xor16": ("xor", 16, lambda t: t ^ 16)}
SOURCE = ('target triple = "amdgcn-amd-amdhsa"\n'
          + "".join(KERNEL.format(name=n, op=op, k=k) for n, (op, k, _) in FORMS.items())
          + "declare i32 @llvm.amdgcn.workitem.id.x()\ndeclare i32 @llvm.amdgcn.workitem.id.y()\n"
            "declare i32 @llvm.amdgcn.workgroup.id.x()\ndeclare i32 @llvm.amdgcn.ds.bpermute(i32, i32)\n" + PARITY)


def reference(x: np.ndarray, form: str, block_x: int, wave: int) -> np.ndarray:
    """ds_bpermute's result: each lane reads lane (address >> 2) mod the wave size of its own wave."""
    i = np.arange(N)
    if form == "parity":
        return x[i - i % wave + np.where(i % 64 & 32, 1, 2)]
    tid_x = i % 64 % block_x
    src = FORMS[form][2](tid_x) & (wave - 1)
    return x[i - i % wave + src]


def _cases(device):
    for form in [*FORMS, "parity"]:
        for block in BLOCKS:
            for baseline in (False, True):
                yield f"{form}-{block[0]}x{block[1]}-{'baseline' if baseline else 'shflx'}", (form, block, baseline), ()


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_a_bpermute_read_off_threadidx_x_reads_the_lane_it_names(device, case):
    require(device)
    from shflx.target import resolve_target
    form, block, baseline = case
    hsaco = code_object(SOURCE, "bperm_tid.ll", device.arch, tempfile.mkdtemp(prefix="shflx-bperm-"), baseline)
    x = np.random.default_rng(5).integers(0, 2**31, N, dtype=np.int64).astype(np.int32)
    want = reference(x, form, block[0], resolve_target(device.arch).wave)
    got = device.run_kernel(hsaco, "bperm_parity" if form == "parity" else f"bperm_tid_{form}", [x], N, np.int32, block=block, grid=(GRID, 1, 1),
                            scalars=[block[0]])
    assert_bit_exact(got, want, f"bperm_tid_{form} in a {block} block ({'baseline' if baseline else 'shflx'}) "
                                f"on {device.arch}")
