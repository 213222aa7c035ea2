"""A run-time check for lanes read off threadIdx.x, and the helper that picks a plan by it.

Lane conditions written with threadIdx.x (`if (threadIdx.x % 32 == 0)`) name CUDA lanes only
where the CUDA lane is threadIdx.x % 32: in 1-D blocks or when blockDim.x is a multiple of 32, but
not in a (16, 2) block, whose lane 16 has threadIdx.x == 0 (CUDA Programming Guide, "Thread
Hierarchy": lanes number the linear thread id). A plan proven only for the lanes such a condition
selects is therefore used behind a wave-uniform check that this premise holds for every lane of
the wave, with the plan for all lanes otherwise (NVIDIA's redux.sync does the same per block).
The check reads nothing but the thread's own ids (workitem.id.x, mbcnt), so it needs no kernel
argument: `ballot((threadIdx.x ^ lane) & 31 != 0) == 0`, about six instructions per function."""
from __future__ import annotations

# IntrinsicsAMDGPU.td: int_amdgcn_workitem_id_x, int_amdgcn_mbcnt_lo/hi, int_amdgcn_ballot (llvm_anyint_ty)
DECLS = {
    "workitem.id.x": "declare i32 @llvm.amdgcn.workitem.id.x()",
    "ballot.i32": "declare i32 @llvm.amdgcn.ballot.i32(i1)",
    "ballot.i64": "declare i64 @llvm.amdgcn.ballot.i64(i1)",
}
PREMISE = "shflx.tid_is_lane"     # the i1 the check defines at a function's entry (premise_ir)
GUARD_COST = 2        # the uniform branch to the chosen plan (s_cbranch + s_branch), per use
PREMISE_NOTE = ("this plan runs where every lane of the wave has CUDA lane threadIdx.x % 32 (a run-time "
                "check); other waves run the plan for all lanes")


def premise_ir(name: str, wave: int) -> tuple[list[str], set[str]]:
    """Lines for a function's entry block defining `%{name}` (i1, wave-uniform): true when
    threadIdx.x % 32 is the CUDA lane on every active lane; and the declaration keys they need."""
    width = 64 if wave == 64 else 32
    lines = [f"  %{name}.tid = call i32 @llvm.amdgcn.workitem.id.x()",
             f"  %{name}.lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)"]
    lane = f"%{name}.lo"
    if wave == 64:
        lines.append(f"  %{name}.lane = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %{name}.lo)")
        lane = f"%{name}.lane"
    lines += [f"  %{name}.diff = xor i32 %{name}.tid, {lane}",
              f"  %{name}.low = and i32 %{name}.diff, 31",
              f"  %{name}.bad = icmp ne i32 %{name}.low, 0",
              f"  %{name}.ballot = call i{width} @llvm.amdgcn.ballot.i{width}(i1 %{name}.bad)",
              f"  %{name} = icmp eq i{width} %{name}.ballot, 0"]
    return lines, {"workitem.id.x", "mbcnt", f"ballot.i{width}"}


def dispatcher_ir(name: str, when: str, otherwise: str, attrs: str, extra: int = 0) -> str:
    """`i32 @name(i32 %x, i1 %premise, i1 %a0, ...)`: `@when(%x)` where the premise holds, else
    `@otherwise(%x, %a0, ...)` (`extra` i1 arguments: a chain's guard conditions)."""
    args = [f"i1 %a{k}" for k in range(extra)]
    params = ", ".join(["i32 %x", "i1 %premise", *args])
    return (f"define internal i32 @{name}({params}) {attrs} {{\n"
            "entry:\n  br i1 %premise, label %lanes, label %all\n"
            f"lanes:\n  %a = call i32 @{when}(i32 %x)\n  br label %done\n"
            f"all:\n  %b = call i32 @{otherwise}({', '.join(['i32 %x', *args])})\n  br label %done\n"
            "done:\n  %r = phi i32 [ %a, %lanes ], [ %b, %all ]\n  ret i32 %r\n}\n")
