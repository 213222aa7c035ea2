target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %p) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %ptr = getelementptr inbounds i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %ptr
  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %lane = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)
  %x = xor i32 %lane, 5
  %a = shl i32 %x, 2
  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %v)
  %w = and i32 %lane, 63
  %w1 = add i32 %w, 1
  %w2 = and i32 %w1, 63
  %a2 = shl i32 %w2, 2
  %r2 = call i32 @llvm.amdgcn.ds.bpermute(i32 %a2, i32 %r)
  store i32 %r2, ptr addrspace(1) %ptr
  ret void
}
