"""Small IR edits of the compile conventions: the code object version flag (ir.moduleflags) and
-g0 (ir.debuginfo), each checked by LLVM itself (llvmlite parses and verifies the result)."""
from __future__ import annotations

import llvmlite.binding as llvm
import pytest

from shflx.ir.debuginfo import strip_debug_info
from shflx.ir.moduleflags import code_object_version, with_code_object_version
from shflx.ir.text import inline_chains

MODULE = """target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(ptr addrspace(1) %p) !dbg !5 {
  %v = load i32, ptr addrspace(1) %p, align 4, !dbg !8
  store i32 %v, ptr addrspace(1) %p, align 4, !dbg !9
  ret void, !dbg !9
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "x", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "k.cu", directory: "/src")
!2 = !DIFile(filename: "helper.h", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 3, type: !6, scopeLine: 3, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!8 = !DILocation(line: 7, column: 5, scope: !10, inlinedAt: !9)
!9 = !DILocation(line: 4, column: 3, scope: !5)
!10 = distinct !DISubprogram(name: "h", scope: !2, file: !2, line: 6, type: !6, scopeLine: 6, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
"""


def verified(ir: str):
    module = llvm.parse_assembly(ir)
    module.verify()
    return module


@pytest.mark.parametrize("version", [4, 5, 6])
def test_code_object_version_is_added_then_replaced(version):
    assert code_object_version(MODULE) is None
    added = with_code_object_version(MODULE, version)
    assert code_object_version(added) == version
    verified(added)
    other = 4 if version != 4 else 5
    again = with_code_object_version(added, other)
    assert code_object_version(again) == other and again.count("amdhsa_code_object_version") == 1
    bare = with_code_object_version("target triple = \"amdgcn-amd-amdhsa\"\n", version)
    assert code_object_version(verified(bare) and bare) == version


LOOP = MODULE.replace("""  ret void, !dbg !9
}""", """  br label %loop, !dbg !9

loop:
  %i = phi i32 [ 0, %0 ], [ %j, %loop ]
  %j = add i32 %i, 1, !dbg !9
  %c = icmp ult i32 %j, %v
  br i1 %c, label %loop, label %done, !dbg !9, !llvm.loop !11

done:
  ret void, !dbg !9
}""") + """!11 = distinct !{!11, !9, !8, !12}
!12 = !{!"llvm.loop.mustprogress"}
"""


@pytest.mark.parametrize("module", [MODULE, LOOP], ids=["straight", "loop"])
def test_strip_debug_info_leaves_a_valid_module_without_line_tables(module, capfd):
    """Valid for LLVM, not only verified: a loop's start/end locations reach the compile unit, and
    LLVM, finding a unit not in llvm.dbg.cu, prints a warning and drops the debug info itself."""
    capfd.readouterr()
    verified(module)
    assert capfd.readouterr().err == ""                     # the test's module is valid as written
    stripped = strip_debug_info(module)
    assert "!dbg" not in stripped and "llvm.dbg.cu" not in stripped
    verified(stripped)
    assert capfd.readouterr().err == ""
    assert "!dbg" in module                                   # the input is not touched
    if module is LOOP:
        assert "!11 = distinct !{!11, !12}" in stripped and "llvm.loop !11" in stripped


def test_inline_chains_go_innermost_first():
    lines = MODULE.splitlines()
    load = next(k for k, ln in enumerate(lines) if "load i32" in ln)
    store = next(k for k, ln in enumerate(lines) if "store i32" in ln)
    assert inline_chains(lines, [load, store, 0]) == [["helper.h:7:5", "k.cu:4:3"], ["k.cu:4:3"], []]
