"""What nvcc accepts and clang rejects, read as nvcc reads it (shflx/frontend/nvcc_syntax.py): asm
operands without the comma between them, and a dependent member template called without
`template`. Each fix is made only at the position clang names and only where the text has that
form; the compile then succeeds for AMD and NVIDIA targets and the report names the fix."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shflx.driver.nvidia import cuda_headers
from shflx.frontend.clang import FrontendOptions
from shflx.frontend.nvcc_syntax import fixes, overlay, preprocessed_lines, source_column

SOURCE = """template <int A> struct Sums {
  template <int N> static __device__ void add(float *s, float v) { s[N] += v * A; }
};
template <int A, int N> __global__ void k(float *s, unsigned char *flag, unsigned char v) {
  Sums<A>::add<N>(s, 1.0f);
  asm volatile("st.release.gpu.global.u8 [%1], %0;" ::"r"((unsigned)v) "l"(flag) : "memory");
}
template __global__ void k<2, 3>(float *, unsigned char *, unsigned char);
"""


def _diag(path, line, col, msg, sev="error"):
    return f"{path}:{line}:{col}: {sev}: {msg}"


def _apply(text: bytes, found) -> bytes:
    for f in sorted(found, key=lambda f: f.offset, reverse=True):
        text = text[:f.offset] + f.text + text[f.offset:]
    return text


def _col(text: str, line: int, needle: str) -> int:
    return text.splitlines()[line - 1].index(needle) + 1


def test_a_missing_comma_between_asm_operands_is_inserted():
    text = SOURCE.encode()
    diag = _diag("k.cu", 6, _col(SOURCE, 6, '"l"(flag)'), "expected ')'")
    found = fixes(diag, read=lambda p: text)
    assert [f.what for f in found] == ["a ',' between asm operands written without one"]
    assert b'::"r"((unsigned)v), "l"(flag) : "memory"' in _apply(text, found)


def test_the_template_keyword_is_inserted_before_the_noted_function():
    text = SOURCE.encode()
    diags = "\n".join([_diag("k.cu", 5, 3, "reference to overloaded function could not be resolved; did you mean to call it?"),
                       "    5 |   Sums<A>::add<N>(s, 1.0f);",
                       _diag("k.cu", 8, 20, "in instantiation of function template specialization 'k<2, 3>' requested here",
                             "note"),
                       _diag("k.cu", 2, 43, "possible target for call", "note")])
    found = fixes(diags, read=lambda p: text)
    assert b"  Sums<A>::template add<N>(s, 1.0f);" in _apply(text, found)
    clang22 = _diag("k.cu", 5, 3, "missing 'template' keyword prior to dependent template name 'add'")
    assert _apply(text, fixes(clang22, read=lambda p: text)) == _apply(text, found)


REBIND = """#include <memory>
template <class A> struct Table {
  using pairs = typename std::allocator_traits<A>::rebind_alloc<int>;
  bool less = A::size < 3;
};
"""


def test_the_template_keyword_is_inserted_before_a_dependent_type_template():
    """BGHT's `typename std::allocator_traits<Allocator>::rebind_alloc<T>`: GCC and EDG read the
    template, clang 22 stops ("use 'template' keyword"); read as `::template rebind_alloc<T>`."""
    text = REBIND.encode()
    diag = _diag("k.cu", 3, _col(REBIND, 3, "rebind_alloc"),
                 "use 'template' keyword to treat 'rebind_alloc' as a dependent template name")
    found = fixes(diag, read=lambda p: text)
    assert b"typename std::allocator_traits<A>::template rebind_alloc<int>;" in _apply(text, found)
    assert len(found) == 1 and "'rebind_alloc'" in found[0].what
    other = _diag("k.cu", 4, _col(REBIND, 4, "size"), "use 'template' keyword to treat 'other' as a dependent template name")
    assert fixes(other, read=lambda p: text) == []            # another name at the place: nothing


@pytest.mark.parametrize("arch", ["sm_90", "gfx942"])
def test_a_dependent_type_template_without_template_compiles(arch, tmp_path):
    (tmp_path / "k.cu").write_text(REBIND.replace("  bool less = A::size < 3;\n", "") +
                                   "Table<std::allocator<char>> t;\n__global__ void k(int *p) { p[0] = 1; }\n")
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", "k.cu", "--offload-arch", arch, "-o", "k.o"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("diags", [
    _diag("k.cu", 5, 9, "expected ')'"),                                     # not in an asm statement
    _diag("k.cu", 6, _col(SOURCE, 6, '"memory"'), "expected ')'"),          # the clobbers follow a ':'
    _diag("k.cu", 5, 3, "reference to overloaded function could not be resolved; did you mean to call it?"),  # no note
    _diag("k.cu", 5, 3, "missing 'template' keyword prior to dependent template name 'other'"),             # another name
    _diag("k.cu", 6, 3, "missing 'template' keyword prior to dependent template name 'add'"),               # no A::add<
])
def test_nothing_is_fixed_where_the_text_has_another_form(diags):
    assert fixes(diags, read=lambda p: SOURCE.encode()) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(['"r"(a)', '"l"((long)(p + 1))', '[n] "r"(f(a, b))', '"f"(x[i])']), min_size=2,
                max_size=5), st.booleans(), st.sampled_from([" ", "", "\n    "]), st.data())
def test_any_missing_comma_of_an_operand_list_is_restored(operands, outputs, space, data):
    """Drop one comma of a well-formed operand list: the fix at the operand after it (where clang
    stops) restores exactly the original text."""
    ops = ("," + space).join(operands)
    good = f'asm volatile("x" : {ops} : "r"(0));' if outputs else f'asm volatile("x" :: {ops});'
    k = data.draw(st.integers(1, len(operands) - 1))
    drop = good.index(ops) + len(("," + space).join(operands[:k]))
    bad = good[:drop] + good[drop + 1:]
    at = drop + len(space)                               # where the next operand starts
    found = fixes(_diag("a.cu", 1, at + 1, "expected ')'"), read=lambda p: bad.encode())
    assert _apply(bad.encode(), found).decode() == good


def test_the_overlay_maps_the_file_as_clang_opened_it(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(SOURCE)
    found = fixes(_diag(str(src), 6, _col(SOURCE, 6, '"l"(flag)'), "expected ')'"))
    spec = json.loads(overlay(found, tmp_path).read_text())
    [root] = spec["roots"]
    assert spec["use-external-names"] is False and root["name"] == str(src)
    assert b'(unsigned)v), "l"(flag)' in open(root["external-contents"], "rb").read()
    assert src.read_text() == SOURCE                     # the original is untouched


def _compile(tmp_path, arch: str):
    (tmp_path / "k.cu").write_text(SOURCE)
    emit = "ptx" if arch.startswith("sm_") else "llvm"
    return subprocess.run([sys.executable, "-m", "shflx", "compile", "k.cu", "--offload-arch", arch, "--emit", emit,
                           "-o", "k.out", "--report", "json"], capture_output=True, text=True, cwd=tmp_path)


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_nvcc_accepted_forms_compile_and_the_report_says_so(tmp_path, arch):
    if arch.startswith("sm_") and cuda_headers(FrontendOptions()) is None:
        pytest.skip("NVIDIA's CUDA headers are not installed (pip install 'shflx[cuda]')")
    r = _compile(tmp_path, arch)
    assert r.returncode == 0, r.stderr
    notes = json.loads(r.stdout)[0]["notes"]
    assert any(re.search(r"k\.cu:6:\d+: a ',' between asm operands", n) for n in notes), notes
    assert any("k.cu:5:3: 'template' before the dependent member template 'add'" in n for n in notes), notes
    out = (tmp_path / "k.out").read_text()
    if arch == "gfx942":      # %0 is the value, %1 the address: the byte v is stored through flag
        assert re.search(r'store atomic i8 %\S+, ptr addrspace\(1\) %\S+ syncscope\("agent"\) release', out)
    else:
        assert re.search(r"st\.release\.gpu\.global\.u8 \[%rd\d+\], %r\d+;", out)


SHARED = """struct Counter {
  int n;
  __device__ Counter() : n(7) {}
  __device__ void add(int v) { atomicAdd(&n, v); }
};
__global__ void k(int *out) {
  __shared__ Counter c;
  if (threadIdx.x == 0) c.n = 0;
  __syncthreads();
  c.add(1);
  __syncthreads();
  out[threadIdx.x] = c.n;
}
"""


def test_a_shared_object_with_a_constructor_is_left_uninitialized_as_nvcc_does():
    text = SHARED.encode()
    found = fixes(_diag("k.cu", 7, 22, "initialization is not supported for __shared__ variables"), read=lambda p: text)
    assert [f.what for f in found] == ["'__shared__ Counter c' left uninitialized, as nvcc leaves it (nvcc does not run "
                                       "its default constructor)"]
    assert _apply_replacing(text, found).decode().splitlines()[6] == (
        "  __shared__ union __shflx_uninitialized_c { Counter v; __device__ __shflx_uninitialized_c() {} "
        "__device__ ~__shflx_uninitialized_c() {} } __shflx_uninitialized_c_; Counter &c = __shflx_uninitialized_c_.v;")


@pytest.mark.parametrize("line", ["  __shared__ Counter c = Counter();", "  __shared__ Counter c[4];",
                                  "  Counter c;", "  extern __shared__ Counter c[];"])
def test_other_declarations_are_not_rewritten(line):
    text = SHARED.replace("  __shared__ Counter c;", line).encode()
    col = line.index(" c") + 2
    assert fixes(_diag("k.cu", 7, col, "initialization is not supported for __shared__ variables"),
                 read=lambda p: text) == []


# An "l" operand makes the AMD front end compile the file's preprocessed text (as it does every
# file that reads CCCL, frontend/ptx_operands.py), where `__shared__` is `__attribute__((shared))`
# and clang's columns count the expanded line.
SHARED_PREPROCESSED = SHARED.replace("  out[threadIdx.x] = c.n;\n",
                                     '  asm volatile("st.global.u32 [%0], %1;" :: "l"(out + 64), "r"(c.n));\n'
                                     "  out[threadIdx.x] = c.n;\n")


@pytest.mark.parametrize("arch,source", [("gfx942", SHARED), ("gfx942", SHARED_PREPROCESSED),
                                         ("gfx1100", SHARED_PREPROCESSED), ("sm_90", SHARED)])
def test_the_constructor_of_a_shared_object_does_not_run(tmp_path, arch, source):
    if arch.startswith("sm_") and cuda_headers(FrontendOptions()) is None:
        pytest.skip("NVIDIA's CUDA headers are not installed (pip install 'shflx[cuda]')")
    (tmp_path / "k.cu").write_text(source)
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", "k.cu", "--offload-arch", arch, "--emit", "llvm",
                        "-o", "k.ll", "--report", "json"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert any("k.cu:7:22: '__shared__ Counter c' left uninitialized" in n for n in json.loads(r.stdout)[0]["notes"])
    ir = (tmp_path / "k.ll").read_text()
    assert not re.search(r"store i32 7,", ir) and re.search(r"atomicrmw add ptr (addrspacecast \(ptr )?addrspace\(3\)", ir)


def _apply_replacing(text: bytes, found) -> bytes:
    for f in sorted(found, key=lambda f: f.offset, reverse=True):
        text = text[:f.offset] + f.text + text[f.offset + f.length:]
    return text


def test_a_column_of_the_expanded_line_is_taken_back_to_the_source_line():
    """simpleAWBarrier.cu:93 as clang reports it from preprocessed text: column 69 of the expanded
    line is the variable's name, column 56 of the line as written."""
    original = b"    __shared__ cuda::barrier<cuda::thread_scope_block> barrier;"
    compiled = b"    __attribute__((shared)) cuda::barrier<cuda::thread_scope_block> barrier;"
    assert source_column(original, compiled, 69) == original.rindex(b"barrier") + 1 == 56
    assert source_column(original, compiled, compiled.index(b"cuda") + 1) == original.index(b"cuda") + 1
    assert source_column(original, original, 13) == 13 and source_column(original, None, 13) == 13
    assert source_column(original, compiled, compiled.index(b"attribute") + 1) is None     # from the macro
    assert source_column(original, compiled, 1) is None                                     # not a token


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["x", "y", "M", "(", ")", ";", "N", "x_1"]), min_size=1, max_size=12),
       st.sampled_from([" ", "  "]), st.data())
def test_any_token_not_from_a_macro_maps_to_its_own_occurrence(tokens, space, data):
    """Macros M and N expand to text that holds none of the other tokens; every other token at
    its k-th place in the expanded line is found at its k-th place in the original."""
    expand = {"M": "__attribute__[[m]]", "N": "{ 0u, z }"}
    original = space.join(tokens).encode()
    compiled = space.join(expand.get(t, t) for t in tokens).encode()
    k = data.draw(st.integers(0, len(tokens) - 1))
    if tokens[k] in expand:
        return
    col_in = lambda text, parts: len(space.join(parts[:k])) + (len(space) if k else 0) + 1      # noqa: E731
    want = col_in(original, tokens)
    got = source_column(original, compiled, col_in(compiled, [expand.get(t, t) for t in tokens]))
    assert got == want


def test_preprocessed_lines_follow_the_line_markers():
    text = (b'# 1 "k.cu"\nint a;\n# 1 "h.h" 1\nint h;\n\nint g;\n# 3 "k.cu" 2\n'
            b"  __attribute__((shared)) int s;\n")
    lines = preprocessed_lines(text)
    assert lines[("k.cu", 1)] == b"int a;" and lines[("h.h", 3)] == b"int g;"
    assert lines[("k.cu", 3)] == b"  __attribute__((shared)) int s;"


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_a_launch_with_spaces_inside_its_brackets_is_read_as_nvcc_reads_it(tmp_path, arch):
    """`k << <grid, block >> > (args)` (xmrig-cuda): nvcc's execution configuration, clang's
    "expected expression"; read as `k <<< grid, block >>> (args)`, the columns unchanged."""
    from conftest import compile_for
    src = tmp_path / "k.cu"
    src.write_text("template <int N> __global__ void k(int *p) { p[threadIdx.x] = N; }\n"
                   "#define CHECK(...) __VA_ARGS__\n"
                   "void run(int *p, int n) {\n  k<3> << <n / 32, 32 >> > (p);\n"
                   "  CHECK(k<4> << <dim3(n), dim3(32), 0 >> > (p));\n}\n")
    res = compile_for(src, arch)
    assert any("'<< <' ... '>> >'" in n for n in res.notes), res.notes


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_a_macro_for_a_pragma_used_alone_on_a_line_is_that_pragma(tmp_path, arch):
    """`#define UNROLL #pragma unroll 2` used alone on a line (moderngpu's PRAGMA_UNROLL): a pragma to
    nvcc, which compiles its preprocessed output; read as `_Pragma("unroll 2")`."""
    from conftest import compile_for
    src = tmp_path / "k.cu"
    src.write_text("#define UNROLL #pragma unroll 2\n"
                   "__global__ void k(int *p, int n) {\n  int s = 0;\n  UNROLL\n"
                   "  for (int i = 0; i < n; ++i) s += p[i];\n  p[0] = s;\n}\n")
    res = compile_for(src, arch)
    assert any("'UNROLL' (a macro for '#pragma unroll 2')" in n for n in res.notes), res.notes


def test_a_pragma_macro_with_more_on_its_line_is_not_rewritten():
    """nvcc's pragma line would swallow what follows the macro: no reading is guessed."""
    text = b"#define UNROLL #pragma unroll\nvoid f() {\n  UNROLL for (;;) {}\n}\n"
    diags = "\n".join([_diag("k.cu", 3, 3, "expected expression"), "    3 |   UNROLL for (;;) {}",
                       _diag("k.cu", 1, 16, "expanded from macro 'UNROLL'", "note")])
    assert fixes(diags, read=lambda p: text) == []
    alone = text.replace(b"UNROLL for", b"UNROLL\n  for")
    found = fixes(diags, read=lambda p: alone)
    assert [f.text for f in found] == [b'_Pragma("unroll")']


PERCENT = ('__device__ unsigned lt() { unsigned r; asm("mov.u32 %0, %lanemask_lt;" : "=r"(r)); return r; }\n'
           '__device__ unsigned f(unsigned a) { unsigned r; asm volatile("{ .reg .u32 t; mov.u32 t, %laneid;"\n'
           '  " add.u32 %0, %[a], t; mov.u32 %0, %%clock; add.u32 %0, %0, %c1; }" : "=r"(r) : "r"(a), [a] "r"(a), "n"(4)); return r; }\n')


def test_a_percent_before_a_ptx_name_in_an_asm_template_is_doubled():
    """`asm("mov.u32 %0, %lanemask_lt;")` (nvdiffrast's Util.inl): nvcc leaves the `%` of a PTX
    name as it is, clang rejects it; read as `%%lanemask_lt`. %0, %[a], %%clock and %c1 keep
    their meaning, and an error column clang gives anywhere on the line finds the template."""
    text = PERCENT.encode()
    for row, col in ((1, 1), (1, _col(PERCENT, 1, "lanemask_lt")), (2, _col(PERCENT, 2, "laneid"))):
        found = fixes(_diag("k.cu", row, col, "invalid % escape in inline assembly string"), read=lambda p: text)
        assert len(found) == 1 and "'%%'" in found[0].what
        f = found[0]
        fixed = text[:f.offset] + f.text + text[f.offset + f.length:]
        assert fixed.count(b"%%") == 2 and fixed.replace(b"%%lanemask_lt", b"%lanemask_lt").replace(
            b"%%laneid", b"%laneid") == text
    multi = b'unsigned h() { unsigned r;\n  asm volatile(\n    "mov.u32 %0, "\n    "%clock;" : "=r"(r));\n  return r; }\n'
    (f,) = fixes(_diag("k.cu", 4, 6, "invalid % escape in inline assembly string"), read=lambda p: multi)
    assert (multi[:f.offset] + f.text + multi[f.offset + f.length:]).count(b"%%clock;") == 1
    other = b'void g() { printf("%lanemask"); }\n'
    assert fixes(_diag("k.cu", 1, 20, "invalid % escape in inline assembly string"), read=lambda p: other) == []


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_ptx_names_written_with_one_percent_compile_and_the_report_says_so(tmp_path, arch):
    from conftest import compile_for
    src = tmp_path / "k.cu"
    src.write_text("#define DEV __device__ __inline__\n"
                   'DEV unsigned lt() { unsigned r; asm("mov.u32 %0, %lanemask_lt;" : "=r"(r)); return r; }\n'
                   'DEV unsigned ge() { unsigned r; asm("mov.u32 %0, %lanemask_ge;" : "=r"(r)); return r; }\n'
                   "__global__ void k(unsigned *p) { p[threadIdx.x] = lt() ^ (ge() << 1); }\n")
    res = compile_for(src, arch)
    assert sum("'%%'" in n for n in res.notes) == 2, res.notes


SPECIALIZED = """#define BOTH __host__ __device__
template <typename T> inline BOTH float as_float(T t);
template <> inline BOTH float as_float(float f) { return f; }
#ifdef __CUDA_ARCH__
template <> inline __device__ float as_float(int i) { return __int2float_rz(i) * 2.0f; }
#endif
__global__ void k(const int *a, float *out) { out[threadIdx.x] = as_float(a[threadIdx.x]) + as_float(1.5f); }
"""


def _specialization_diags(row: int, col: int) -> str:
    return "\n".join([_diag("k.cu", row, col, "no function template matches function template specialization 'as_float'"),
                      _diag("k.cu", 2, 35, "candidate template ignored: target attributes do not match", "note")])


def test_a_device_specialization_of_a_host_device_template_is_read_as_its_templates():
    """cudaKDTree's `template<> __device__ float as_float_rz(int)` of a `__host__ __device__`
    template: EDG matches it by signature; read as `__host__ __device__`, whatever the column (on
    preprocessed input it counts the expanded line)."""
    text = SPECIALIZED.encode()
    for col in (37, 51, 1):
        (f,) = fixes(_specialization_diags(5, col), read=lambda p: text)
        assert _apply(text, [f]).splitlines()[4].startswith(b"template <> __attribute__((host)) inline __device__ float")
        assert "specialization of 'as_float' as __host__ __device__" in f.what
    host = text.replace(b"inline __device__ float as_float(int", b"inline __host__ float as_float(int")
    assert fixes(_specialization_diags(5, 37), read=lambda p: host) == []
    other_note = _diag("k.cu", 5, 37, "no function template matches function template specialization 'as_float'")
    assert fixes(other_note, read=lambda p: text) == []


@pytest.mark.parametrize("arch,first", [("gfx942", ""), ("sm_90", ""), ("gfx942", "#include <cuda/std/cstdint>\n")])
def test_a_device_specialization_compiles_and_the_report_says_so(tmp_path, arch, first):
    from conftest import compile_for
    src = tmp_path / "k.cu"
    src.write_text(first + SPECIALIZED)
    res = compile_for(src, arch)
    assert any("the __device__ specialization of 'as_float' as __host__ __device__" in n for n in res.notes), res.notes


DEPENDENT = """struct Base { int v[4]; __host__ __device__ int twice(int i) const { return 2 * v[i]; } };
template <int k> struct Mid : public Base { using Base::twice; };
template <int k> struct Top : public Mid<k> {
  using Mid<k>::v;
  __device__ int get() const;
};
template <int k> __device__ int Top<k>::get() const { return twice(v[0] & 3) + k; }
__global__ void kern(int *out) { Top<5> t; for (int i = 0; i < 4; ++i) t.v[i] = out[i]; out[threadIdx.x] = t.get(); }
"""


def test_a_member_of_a_dependent_base_named_alone_is_read_as_this_member():
    """cudaKDTree's `decode_dist2(entry[0])` in HeapCandidateList<k> (CUB's ProcessFloatMinusZero,
    NVIDIA/cub#334): EDG finds the dependent base's member at instantiation; read as `this->`."""
    text = DEPENDENT.encode()
    msg = "explicit qualification required to use member 'twice' from dependent base class"
    (f,) = fixes(_diag("k.cu", 7, _col(DEPENDENT, 7, "twice"), msg), read=lambda p: text)
    assert b"{ return this->twice(v[0] & 3) + k; }" in _apply(text, [f])
    assert "'this->twice'" in f.what
    for other in (b"t.twice(", b"Base::twice(", b"p->twice(", b"retwice("):
        moved = text.replace(b"return twice(", b"return " + other)
        col = moved.splitlines()[6].index(b"twice(") + 1
        assert fixes(_diag("k.cu", 7, col, msg), read=lambda p: moved) == []


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_a_member_of_a_dependent_base_compiles_and_the_report_says_so(tmp_path, arch):
    from conftest import compile_for
    src = tmp_path / "k.cu"
    src.write_text(DEPENDENT)
    res = compile_for(src, arch)
    assert any("k.cu:7:" in n and "'this->twice'" in n for n in res.notes), res.notes
