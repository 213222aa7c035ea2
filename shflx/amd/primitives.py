"""One row per AMD cross-lane primitive (in the spirit of Mesa ACO's aco_opcodes.py and LLVM's
TableGen): the Plan step it is, its lane model, the LLVM intrinsic and HIP builtin it is emitted
as with their operands in order, its assembler mnemonic and its cost kind. The emitters
(`llvm_ir`, `hip`), the read-back check (`verify.readback`), the cost model (`match.cost`) and the
emulator read this table; adding a primitive is its isa/ row, its model function, a row here and
its tests (docs/architecture.md).

Operand orders are LLVM's (llvm/include/llvm/IR/IntrinsicsAMDGPU.td) and clang's builtins
(clang/include/clang/Basic/BuiltinsAMDGPU.def). Operand kinds:
  value   an i32 value (a plan ref)             sgpr  a runtime i32 the hardware reads from an SGPR
  imm     an `i32 immarg` immediate             flag  an `i1 immarg` bit
  lanes   a per-lane i32 read from a constant table by lane id
  addr    a per-lane lane index, emitted as the byte address index << 2 from a table"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..steps import (DsBpermute, DsBpermuteFi, DsPermute, DsSwizzle, MovDpp8, Permlane16, Permlane16Swap,
                    Permlane16Var, Permlane32Swap, Permlane64, PermlaneBcast, PermlaneDown, Permlanex16,
                    Permlanex16Var, PermlaneUp, PermlaneXor, Readfirstlane, Readlane, Select, Step, UpdateDpp,
                    Writelane)
from . import dpp, permlane, permlane_group, permute, scalar, swizzle
from .gather import Gather

IR_TYPE = {"value": "i32", "sgpr": "i32", "imm": "i32 immarg", "flag": "i1 immarg", "lanes": "i32", "addr": "i32"}


@dataclass(frozen=True)
class Primitive:
    step: type[Step]
    semantics: Callable[..., Gather]
    intrinsic: str | None                 # llvm.amdgcn.<intrinsic>; None: emitted as plain IR (select)
    builtin: str | None                   # __builtin_amdgcn_<builtin>; None: HIP declares the intrinsic
    operands: tuple[tuple[str, str], ...]  # (step field, kind) in the intrinsic's order
    mnemonic: str
    cost_kind: str                        # a key of the isa/ cost tables
    result: str = "i32"                   # "pair": one instruction, two results ({ i32, i32 })
    lds: bool = False                     # goes through the LDS crossbar (ds_*)
    valu: bool = True                     # its result is written by the VALU (the DPP read-after-write hazard)
    fuses: bool = False                   # a DPP move LLVM can fold into its consumer (match.cost rules)
    no_operand: tuple[str, ...] = ()      # step fields the intrinsic cannot express (must be 0 / absent)

    @property
    def op(self) -> str:
        return self.step.op

    def declaration(self) -> str:
        ret = "{ i32, i32 }" if self.result == "pair" else "i32"
        return f"declare {ret} @llvm.amdgcn.{self.intrinsic}({', '.join(IR_TYPE[k] for _, k in self.operands)})"


_DPP16 = (("old", "value"), ("src", "value"), ("dpp_ctrl", "imm"), ("row_mask", "imm"), ("bank_mask", "imm"),
          ("bound_ctrl", "flag"))
_PERMLANE16 = (("old", "value"), ("src", "value"), ("sel_lo", "sgpr"), ("sel_hi", "sgpr"), ("fi", "flag"),
               ("bound_ctrl", "flag"))
_PERMLANE_VAR = (("old", "value"), ("src", "value"), ("sel", "lanes"), ("fi", "flag"), ("bound_ctrl", "flag"))
_SWAP = (("vdst_old", "value"), ("src0_old", "value"), ("fi", "flag"), ("bound_ctrl", "flag"))
_DS = (("index", "addr"), ("src", "value"))
_GROUP = (("src", "value"), ("sel", "sgpr"), ("width", "sgpr"))

PRIMITIVES: dict[str, Primitive] = {p.op: p for p in (
    Primitive(UpdateDpp, dpp.update_dpp, "update.dpp.i32", "update_dpp", _DPP16, "v_mov_b32_dpp", "dpp_mov",
              fuses=True, no_operand=("fi",)),
    Primitive(MovDpp8, dpp.mov_dpp8, "mov.dpp8.i32", "mov_dpp8", (("src", "value"), ("sel", "imm")),
              "v_mov_b32_dpp", "dpp8_mov", fuses=True, no_operand=("fi",)),
    Primitive(DsSwizzle, swizzle.ds_swizzle, "ds.swizzle", "ds_swizzle", (("src", "value"), ("offset", "imm")),
              "ds_swizzle_b32", "ds_swizzle", lds=True, valu=False),
    Primitive(Permlane16, permlane.permlane16, "permlane16.i32", "permlane16", _PERMLANE16,
              "v_permlane16_b32", "permlane16"),
    Primitive(Permlanex16, permlane.permlane16, "permlanex16.i32", "permlanex16", _PERMLANE16,
              "v_permlanex16_b32", "permlane16"),
    Primitive(Permlane16Var, permlane.permlane_var, "permlane16.var", "permlane16_var", _PERMLANE_VAR,
              "v_permlane16_var_b32", "permlane_var"),
    Primitive(Permlanex16Var, permlane.permlane_var, "permlanex16.var", "permlanex16_var", _PERMLANE_VAR,
              "v_permlanex16_var_b32", "permlane_var"),
    Primitive(Permlane64, permlane.permlane64, "permlane64.i32", "permlane64", (("src", "value"),),
              "v_permlane64_b32", "permlane64"),
    Primitive(Permlane16Swap, permlane.permlane_swap, "permlane16.swap", "permlane16_swap", _SWAP,
              "v_permlane16_swap_b32", "permlane_swap", result="pair"),
    Primitive(Permlane32Swap, permlane.permlane_swap, "permlane32.swap", "permlane32_swap", _SWAP,
              "v_permlane32_swap_b32", "permlane_swap", result="pair"),
    # gfx1250: llvm.amdgcn.permlane.<kind>(i32 src, i32 src1, i32 src2), not overloaded in LLVM 22.1
    *(Primitive(cls, permlane_group.permlane_group, cls.op, cls.op.replace(".", "_"), _GROUP,
                f"v_{cls.op.replace('.', '_')}_b32", "permlane_group")
      for cls in (PermlaneBcast, PermlaneUp, PermlaneDown, PermlaneXor)),
    Primitive(Readlane, scalar.readlane, "readlane.i32", "readlane", (("src", "value"), ("lane", "sgpr")),
              "v_readlane_b32", "readlane", valu=False),
    Primitive(Readfirstlane, scalar.readfirstlane, "readfirstlane.i32", "readfirstlane", (("src", "value"),),
              "v_readfirstlane_b32", "readfirstlane", valu=False),
    # clang has no writelane builtin (BuiltinsAMDGPU.def, clang 22.1): HIP calls the intrinsic
    Primitive(Writelane, scalar.writelane, "writelane.i32", None,
              (("value", "value"), ("lane", "sgpr"), ("old", "value")), "v_writelane_b32", "writelane"),
    Primitive(DsBpermute, permute.ds_bpermute, "ds.bpermute", "ds_bpermute", _DS, "ds_bpermute_b32",
              "ds_bpermute", lds=True, valu=False, no_operand=("old",)),
    Primitive(DsBpermuteFi, permute.ds_bpermute_fi, "ds.bpermute.fi.b32", "ds_bpermute_fi_b32", _DS,
              "ds_bpermute_fi_b32", "ds_bpermute_fi", lds=True, valu=False, no_operand=("old",)),
    Primitive(DsPermute, permute.ds_permute, "ds.permute", "ds_permute", _DS, "ds_permute_b32", "ds_permute",
              lds=True, valu=False, no_operand=("old",)),
    # a constant-mask select: llvm.amdgcn.inverse.ballot + select (llvm_ir.select_ir), v_cndmask_b32
    Primitive(Select, scalar.select, None, None, (), "v_cndmask_b32", "select", no_operand=("old",)),
)}

LDS_OPS = frozenset(op for op, p in PRIMITIVES.items() if p.lds)
VALU_PRODUCERS = frozenset(op for op, p in PRIMITIVES.items() if p.valu) | {"combine"}
# per-lane operand tables: the lane id is needed to read them
LANE_TABLE_OPS = frozenset(op for op, p in PRIMITIVES.items() if any(k in ("lanes", "addr") for _, k in p.operands))
