"""PTX special registers that hold memory the CUDA driver gives a kernel, read by NVIDIA's own
cooperative groups (cooperative_groups/details/driver_abi.h and memory.h), and what they are on AMD:
a global of the code object, made once per module.

- `%envreg1`, `%envreg2`: the high and low halves of the address of the grid workspace
  (`details::grid_workspace {wsSize, barrier}`), whose `barrier` word `grid_group::sync()` counts
  arrivals in (details/sync.h: each block adds 1, block 0 adds 0x80000000 - (blocks - 1), so bit
  31 flips once per barrier and the word needs no reset). PTX ISA 8.7, "Special Registers: %envreg<32>":
  driver-defined read-only registers. On AMD: one zero-initialized workspace per code object, so
  one cooperative grid of a code object at a time (as the layer's grid barrier was before).
- `%reserved_smem_offset_1`: the shared-memory offset of the block's reserved area (PTX ISA 8.7,
  "Special Registers: %reserved_smem_offset_<2>"; the CUDA C++ Programming Guide, "Shared Memory" for compute
  capability 8.x and later: 1 KB of shared memory per block is reserved for system use), where
  multi-warp `thread_block_tile`s keep their barriers and exchange words. On AMD: 1 KB of LDS in
  the kernels that reach such a tile (LLVM allocates a module LDS variable only in the kernels
  that use it)."""
from __future__ import annotations

from ..nvidia import ptxir, symbolic

WORKSPACE = "__shflx_cg_grid_workspace"
RESERVED = "__shflx_cg_reserved_smem"
RESERVED_BYTES = 1024
# register -> (the global, the shift that takes the register out of the global's 64-bit generic
# address; None: the 32-bit shared-window offset of an LDS global)
REGISTERS = {"%envreg1": (WORKSPACE, 32), "%envreg2": (WORKSPACE, 0), "%reserved_smem_offset_1": (RESERVED, None)}
DEFINITIONS = {
    # {wsSize, barrier}: wsSize is the workspace's size as the driver's ABI states it
    WORKSPACE: f"@{WORKSPACE} = linkonce_odr hidden addrspace(1) global {{ i32, i32 }} {{ i32 8, i32 0 }}, align 8",
    RESERVED: f"@{RESERVED} = internal addrspace(3) global [{RESERVED_BYTES} x i8] poison, align 16",
}


def reads(inst: ptxir.Instruction) -> list[str]:
    """The driver-memory registers `inst` reads."""
    return [reg for reg in REGISTERS if any(reg == tok.strip().lstrip("!") for tok in inst.operands)]


def leaf(reg: str) -> symbolic.Expr:
    """The register's value in the block: a leaf that `emit` defines."""
    return symbolic.sym(f"${reg[1:]}", 32)


def emit(em, reg: str) -> None:
    """The register's value as IR through ptxblock's emitter (`em.inputs` under the leaf's name),
    and its global's definition among the module's additions (`em.functions`, one per name)."""
    name, shift = REGISTERS[reg]
    em.functions[name] = DEFINITIONS[name]
    if shift is None:
        em.inputs[leaf(reg).args[0]] = em.emit(f"ptrtoint ptr addrspace(3) @{name} to i32")
        return
    address = em.emit(f"ptrtoint ptr addrspacecast (ptr addrspace(1) @{name} to ptr) to i64")
    if shift:
        address = em.emit(f"lshr i64 {address}, {shift}")
    em.inputs[leaf(reg).args[0]] = em.emit(f"trunc i64 {address} to i32")
