"""A module in parts for parallel code generation (codegen.partition) and the code object linked from
them (codegen.notes): each kernel in one part, each writable or host-visible global defined in one,
every part valid IR; the linked code object describes every kernel in one metadata note; modules
a part could change the meaning of stay whole."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shflx.codegen.partition import kernel_names, split
from shflx.errors import ToolchainError

HEAD = 'target triple = "amdgcn-amd-amdhsa"\n$kb = comdat any\n$lds = comdat any\n$helper = comdat any\n'
GLOBALS = """@g = protected addrspace(1) externally_initialized global [4 x i32] [i32 5, i32 6, i32 7, i32 8], align 16
@s = internal unnamed_addr addrspace(1) global i32 42, align 4
@c = private unnamed_addr addrspace(4) constant [2 x i32] [i32 1, i32 2], align 4
@lds = linkonce_odr hidden addrspace(3) global [4 x i32] undef, comdat, align 4
@ext = external addrspace(1) global i32, align 4
@pd = external addrspace(1) global ptr addrspace(1), align 8
"""
HELPER = """declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
define linkonce_odr hidden i32 @helper(i32 %x) comdat {
  %y = mul i32 %x, 3
  ret i32 %y
}
"""


def kernel(name: str, k: int, comdat: bool = False) -> str:
    """A kernel that reads every global and calls the helper."""
    head = "weak_odr protected" if comdat else "protected"
    return f"""define {head} amdgpu_kernel void @{name}(ptr addrspace(1) %o){" comdat" if comdat else ""} {{
  %a = load i32, ptr addrspace(1) @g, align 4
  %b = load i32, ptr addrspace(1) @s, align 4
  %c = load i32, ptr addrspace(4) @c, align 4
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %l = and i32 %t, 3
  %mine = getelementptr i32, ptr addrspace(3) @lds, i32 %l
  store i32 %a, ptr addrspace(3) %mine, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %n = xor i32 %l, {k % 4}
  %theirs = getelementptr i32, ptr addrspace(3) @lds, i32 %n
  %d = load i32, ptr addrspace(3) %theirs, align 4
  %e = load i32, ptr addrspace(1) @ext, align 4
  %f = add i32 %a, %b
  %h = add i32 %c, %d
  %i = add i32 %f, %h
  %j = add i32 %i, %e
  %r = call i32 @helper(i32 %j)
  store i32 %r, ptr addrspace(1) %o, align 4
  store i32 {k}, ptr addrspace(1) @s, align 4
  ret void
}}
"""


MODULE = HEAD + GLOBALS + HELPER + kernel("ka", 1) + kernel("kb", 2, comdat=True) + kernel("kc", 3)


def _parses(text: str) -> None:
    import llvmlite.binding as llvm
    llvm.parse_assembly(text).verify()


def _line(text: str, name: str) -> str:
    return next(line for line in text.split("\n") if line.startswith(f"@{name} ="))


def test_each_kernel_in_one_part_and_each_writable_global_defined_once():
    texts, why = split(MODULE, 2)
    assert texts is not None and len(texts) == 2, why
    for t in texts:
        _parses(t)
    owners = [kernel_names(t) for t in texts]
    assert set().union(*owners) == {"ka", "kb", "kc"} and sum(map(len, owners)) == 3
    for name in ("g", "s"):                          # written or host-visible: one definition
        defined = [t for t in texts if "available_externally" not in _line(t, name)]
        assert len(defined) == 1 and defined[0] is texts[0], name
    assert "hidden" in _line(texts[0], "s") and "internal" not in _line(texts[0], "s")   # named once for the link
    assert _line(texts[1], "s").startswith("@s = available_externally hidden")
    assert _line(texts[0], "c") == _line(texts[1], "c") == _line(MODULE, "c")           # read-only: copied
    for name in ("ext", "pd"):                           # declarations
        assert _line(texts[0], name) == _line(texts[1], name) == _line(MODULE, name)
    assert _line(texts[0], "lds") == _line(MODULE, "lds")
    assert _line(texts[1], "lds").startswith("@lds = internal") and "comdat" not in _line(texts[1], "lds")
    for t in texts:                                  # every callee an internal copy, out of its comdat
        define = next(line for line in t.split("\n") if "@helper(" in line and line.startswith("define"))
        assert define.startswith("define internal i32 @helper(") and "comdat" not in define


@pytest.mark.parametrize("change, why", [
    (lambda m: m + "@table = addrspace(1) global ptr @helper, align 8\n", "address of @helper"),
    (lambda m: m.replace("store i32 %r, ptr addrspace(1) %o", "store ptr @kb, ptr addrspace(1) %o"), "address of @kb"),
    (lambda m: m.replace("%r = call i32 @helper(i32 %j)", "%p = call ptr @__printf_alloc(i32 4)\n  %r = add i32 %j, 1")
     + "declare ptr @__printf_alloc(i32)\n", "device printf"),
    (lambda m: m + "@llvm.global_ctors = appending addrspace(1) global [0 x { i32, ptr, ptr }] zeroinitializer\n",
     "global constructors"),
    (lambda m: m + "@alias = alias i32, ptr addrspace(1) @g\n", "alias"),
    (lambda m: m.replace("@s = internal unnamed_addr addrspace(1) global i32 42, align 4",
                         "$s = comdat any\n@s = linkonce_odr addrspace(1) global i32 42, comdat, align 4"), "comdat data @s"),
    (lambda m: m.replace(kernel("kb", 2, comdat=True), "").replace(kernel("kc", 3), ""), "one kernel"),
    (lambda m: m.replace("%r = call i32 @helper(i32 %j)", '%r = call i32 asm "v_mov_b32 $0, $1", "=v,v"(i32 %j)'),
     "inline assembly"),
])
def test_a_module_a_part_could_change_stays_whole(change, why):
    texts, reason = split(change(MODULE), 2)
    assert texts is None and why in reason


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=2, max_size=7), st.integers(2, 4))
def test_parts_cover_the_kernels_once_and_parse(sizes, parts):
    """Kernels of random sizes (extra instructions) into parts: every kernel in exactly one part,
    min(parts, kernels) parts, the sizes balanced within the largest kernel, each part valid IR."""
    bodies = []
    for n, size in enumerate(sizes):
        extra = "".join(f"  %x{k} = add i32 %a, {k}\n" for k in range(size))
        bodies.append(kernel(f"k{n}", n).replace("  %b = load", extra + "  %b = load"))
    module = HEAD + GLOBALS + HELPER + "".join(bodies)
    texts, why = split(module, parts)
    assert texts is not None and len(texts) == min(parts, len(sizes)), why
    owners = [kernel_names(t) for t in texts]
    assert sorted(n for o in owners for n in o) == sorted(f"k{n}" for n in range(len(sizes)))
    weights = [sum(sizes[int(k[1:])] + 16 for k in o) for o in owners]
    assert max(weights) - min(weights) <= max(sizes) + 16
    for t in texts:
        _parses(t)


def test_the_code_object_linked_from_parts_describes_every_kernel_in_one_note():
    from shflx.codegen.inspect import inspect_code_object
    from shflx.codegen.link import link_hsaco
    from shflx.codegen.llvm import compile_ir

    texts, _ = split(MODULE, 3)
    objects = [compile_ir(t, "gfx942") for t in texts]
    whole = inspect_code_object(link_hsaco(compile_ir(MODULE, "gfx942")))
    data = link_hsaco(objects)
    joined = inspect_code_object(data)
    assert sorted(k[".name"] for k in joined.metadata["amdhsa.kernels"]) == ["ka", "kb", "kc"] == list(joined.kernels)
    assert {k[".name"]: k for k in joined.metadata["amdhsa.kernels"]} == \
        {k[".name"]: k for k in whole.metadata["amdhsa.kernels"]}
    assert joined.metadata["amdhsa.target"] == whole.metadata["amdhsa.target"]
    assert data.count(b"AMDGPU\0\0") == 1            # one metadata note's name
    assert _defined(data, "s") == _defined(data, "g") == 1


def _defined(code_object: bytes, name: str) -> int:
    """How many symbols named `name` the code object defines."""
    import io

    from elftools.elf.elffile import ELFFile
    table = ELFFile(io.BytesIO(code_object)).get_section_by_name(".symtab")
    return sum(1 for s in table.iter_symbols() if s.name == name and s["st_shndx"] != "SHN_UNDEF")


def test_notes_that_differ_in_more_than_kernels_are_not_joined(tmp_path):
    """Two objects' notes name one target; a note edited to name another is refused, not merged."""
    import subprocess

    from shflx.codegen.link import find_lld, link_hsaco
    from shflx.codegen.llvm import compile_ir
    from shflx.codegen.notes import join_metadata_notes

    texts, _ = split(MODULE, 2)
    for n, t in enumerate(texts):
        (tmp_path / f"{n}.o").write_bytes(compile_ir(t, "gfx942"))
    subprocess.run(find_lld() + ["-shared", "-o", str(tmp_path / "a.hsaco"), str(tmp_path / "0.o"),
                                 str(tmp_path / "1.o")], check=True)
    linked = (tmp_path / "a.hsaco").read_bytes()
    target = b"amdgcn-amd-amdhsa--gfx942"
    assert linked.count(target) == 2                     # one per object's note
    second = linked.rindex(target)
    edited = linked[:second] + b"amdgcn-amd-amdhsa--gfx941" + linked[second + len(target):]
    with pytest.raises(ToolchainError, match="differ in 'amdhsa.target'"):
        join_metadata_notes(edited)
    joined = join_metadata_notes(linked)
    assert joined.count(target) == 1 and len(joined) == len(linked)
    assert join_metadata_notes(joined) == joined            # one note: nothing to join
    one = link_hsaco(compile_ir(MODULE, "gfx942"))
    assert join_metadata_notes(one) == one


@pytest.mark.parametrize("workers, compiles, asked, load, want", [
    (8, 1, True, 7.5, 8),       # -j 8 asked: all of it, whatever the load
    (8, 2, True, 0.0, 4),       # two compiles at once share the workers
    (8, 1, False, 0.2, 7),      # no -j: the idle cores
    (8, 1, False, 9.0, 1),      # a busy machine (a build running compiles): no parts
    (8, 16, False, 0.0, 1),
])
def test_the_parts_of_one_compile_are_the_cores_left(monkeypatch, workers, compiles, asked, load, want):
    import os

    from shflx import cli
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert cli._codegen_jobs(workers, compiles, asked) == want


def test_compile_generates_a_large_module_in_parts(tmp_path, monkeypatch, capsys):
    """`shflx compile -j 2` of a module over the size (lowered here): the time report names the
    parts, and the code object holds and describes every kernel."""
    from shflx import cli
    from shflx.codegen.inspect import inspect_code_object
    from shflx.driver import amd

    src = tmp_path / "k.cu"
    src.write_text("".join(f'extern "C" __global__ void k{n}(int *o) {{ o[threadIdx.x] = '
                           f"__shfl_xor_sync(~0u, o[threadIdx.x], {n + 1}); }}\n" for n in range(3)))
    monkeypatch.setattr(amd, "PARALLEL_MIN_IR", 0)
    assert cli.main(["compile", str(src), "--offload-arch", "gfx942", "-j", "2", "--time-report",
                     "-o", str(tmp_path / "k.hsaco")]) == 0
    assert "(2 parts at once)" in capsys.readouterr().err
    co = inspect_code_object((tmp_path / "k.hsaco").read_bytes())
    assert sorted(k[".name"] for k in co.metadata["amdhsa.kernels"]) == ["k0", "k1", "k2"] == list(co.kernels)


def test_a_failure_in_parts_compiles_the_module_whole_and_says_so(tmp_path, monkeypatch, capsys):
    """Should the parts' code generation fail (a bug of ours), the module is compiled whole (the
    same kernels) and the CLI prints one warning asking for a report."""
    from shflx import cli
    from shflx.codegen import llvm
    from shflx.codegen.inspect import inspect_code_object
    from shflx.driver import amd

    def broken(*args, **kwargs):
        raise ToolchainError("a part went wrong")
    src = tmp_path / "k.cu"
    src.write_text("".join(f'extern "C" __global__ void k{n}(int *o) {{ o[threadIdx.x] = {n}; }}\n' for n in range(3)))
    monkeypatch.setattr(amd, "PARALLEL_MIN_IR", 0)
    monkeypatch.setattr(llvm, "compile_parts_in_parallel", broken)
    assert cli.main(["compile", str(src), "--offload-arch", "gfx942", "-j", "2", "-o", str(tmp_path / "k.hsaco")]) == 0
    err = capsys.readouterr().err
    assert "warning: code generation in parallel parts failed (a part went wrong), so the module was compiled whole" \
        in err and err.count("warning") == 1, err
    co = inspect_code_object((tmp_path / "k.hsaco").read_bytes())
    assert sorted(k[".name"] for k in co.metadata["amdhsa.kernels"]) == ["k0", "k1", "k2"] == list(co.kernels)
