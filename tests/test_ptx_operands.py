"""frontend.ptx_operands: inline PTX operand constraints AMDGPU's clang rejects ("=f", "l", "d",
"h") are written as "r" in the preprocessed text, and nothing else changes; a file that needs it
compiles for AMD (its values are checked on the emulator in hw_tests/amd/test_inline_ptx_hw.py)."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from shflx.driver.amd import compile_file
from shflx.errors import InputError
from shflx.frontend.ptx_operands import rewrite_constraints

CUB_STEP = ('asm volatile("{ .reg .f32 r0; .reg .pred p; shfl.sync.down.b32 r0|p, %1, %2, %3, %5; '
            '@p add.f32 r0, r0, %4; mov.f32 %0, r0; }" : "=f"(out) : "f"(in), "r"(off), "r"(c), "f"(in), "r"(mask));')


def test_cub_float_step_constraints_become_r_and_the_template_stays():
    got = rewrite_constraints(CUB_STEP)
    assert got == CUB_STEP.replace('"=f"(', '"=r"(').replace('"f"(', '"r"(')


@pytest.mark.parametrize("src,want", [
    ('__asm__ __volatile__("mov.b64 %0, %1;" : "=l"(x) : "l"((const int2 *)p));',
     '__asm__ __volatile__("mov.b64 %0, %1;" : "=r"(x) : "r"((const int2 *)p));'),
    ('asm("cvt.rn.f64.f32 %0, %1;\\n" : "=d"(r) : "f"(v));', 'asm("cvt.rn.f64.f32 %0, %1;\\n" : "=r"(r) : "r"(v));'),
    ('asm volatile("cvt.rn.f16.f32 %0, %1;" : "=h"(lo) : "f"(a[2 * i + 0]));',
     'asm volatile("cvt.rn.f16.f32 %0, %1;" : "=r"(lo) : "r"(a[2 * i + 0]));'),
    ('asm volatile("red.add.s32 [%0], 1;" :: "l"(b) : "memory");', 'asm volatile("red.add.s32 [%0], 1;" :: "r"(b) : "memory");'),
    ('asm volatile("add.s32 %0, %1, %2;" : "+r"(x) : "n"(4), "r"(y));', None),        # nothing to change
    ('const char *s = "f"; f("l"(x));', None),                                          # not in an asm
    ('asm("// \\"=f\\"(x) : \\"f\\"" : "=&l"(x) : "0"(y), "h"(z));',
     'asm("// \\"=f\\"(x) : \\"f\\"" : "=&r"(x) : "0"(y), "r"(z));'),                   # template untouched
    # libcu++'s atomics write templates as raw strings, with parentheses, quotes and colons inside
    ('asm volatile(R"YYY(\n  .reg .b128 _d; // ( " :\n  ld.acquire.gpu.b128 [%2],_d;\n)YYY" : "=l"(d.x), "=l"(d.y) '
     ': "l"(p) : "memory");',
     'asm volatile(R"YYY(\n  .reg .b128 _d; // ( " :\n  ld.acquire.gpu.b128 [%2],_d;\n)YYY" : "=r"(d.x), "=r"(d.y) '
     ': "r"(p) : "memory");'),
    ('asm(u8R"(mov.b64 %0, %1;)" : "=l"(x) : "l"(y)); int R = 1; f(R"(x)");',
     'asm(u8R"(mov.b64 %0, %1;)" : "=r"(x) : "r"(y)); int R = 1; f(R"(x)");'),
])
def test_rewrite_examples(src, want):
    assert rewrite_constraints(src) == (src if want is None else want)


CONSTRAINT = st.sampled_from(['"r"', '"=r"', '"f"', '"=f"', '"l"', '"=l"', '"+l"', '"d"', '"=d"', '"h"', '"=h"',
                              '"n"', '"0"', '"=&f"'])
EXPR = st.sampled_from(["x", "a[i]", "(int)v", "f(g(1), 2)", "p->q", "cub::x"])


@settings(max_examples=200, deadline=None)
@given(outs=st.lists(st.tuples(CONSTRAINT, EXPR), max_size=3), ins=st.lists(st.tuples(CONSTRAINT, EXPR), max_size=4),
       clobber=st.booleans(), before=st.sampled_from(["", "int y = 1; ", 'const char *s = "=f"; ']))
def test_only_ptx_register_constraints_change(outs, ins, clobber, before):
    ops = lambda xs: ", ".join(f"{c}({e})" for c, e in xs)  # noqa: E731
    src = (f'{before}asm volatile("mov.b32 %0, %1; // : \\"f\\"(x)" : {ops(outs)} : {ops(ins)}'
           f'{" : " + chr(34) + "memory" + chr(34) if clobber else ""});')
    got = rewrite_constraints(src)
    want_cons = [re.sub(r"^(\"[=+&]*)[fldh]\"$", r'\1r"', c) for c, _ in outs + ins]
    assert got == src.split("asm volatile")[0] + "asm volatile" + \
        f'("mov.b32 %0, %1; // : \\"f\\"(x)" : {ops(list(zip(want_cons[:len(outs)], [e for _, e in outs])))} : ' \
        f'{ops(list(zip(want_cons[len(outs):], [e for _, e in ins])))}' \
        f'{" : " + chr(34) + "memory" + chr(34) if clobber else ""});'
    assert rewrite_constraints(got) == got                          # idempotent


KERNEL = r'''
__device__ float step(float in, int off) { float out;
  asm volatile("{ .reg .f32 r0; .reg .pred p; shfl.sync.down.b32 r0|p, %1, %2, %3, %5; @p add.f32 r0, r0, %4; "
               "mov.f32 %0, r0; }" : "=f"(out) : "f"(in), "r"(off), "r"(31), "f"(in), "r"(0xffffffff)); return out; }
__device__ double down(double in) { double out;
  asm volatile("{ .reg .u32 lo, hi; mov.b64 {lo, hi}, %1; shfl.sync.down.b32 lo, lo, 2, 31, -1; "
               "shfl.sync.down.b32 hi, hi, 2, 31, -1; mov.b64 %0, {lo, hi}; }" : "=d"(out) : "d"(in)); return out; }
__global__ void k(float *a, double *d) { int t = threadIdx.x; a[t] = step(a[t], 1); d[t] = down(d[t]); }
'''


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_a_kernel_with_typed_ptx_operands_compiles_and_its_shuffles_are_lowered(tmp_path, arch):
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    res = compile_file(src, arch, emit="asm")
    # every shuffle is found (the three asm shfl, in the device functions and where they are inlined)
    # and reported in the original file at the asm statements (3, 6), the user's innermost line; the
    # inlined copies name the call (8) as the frame they were inlined into
    assert {s.location.rsplit(":", 2)[0] for s in res.sites} == {str(src)}
    assert {int(s.location.rsplit(":", 2)[1]) for s in res.sites} == {3, 6}
    assert {int(f.rsplit(":", 2)[1]) for s in res.sites for f in s.inlined[1:]} == {8}
    assert all(s.proof in ("proved", "exact by construction") for s in res.sites)


def test_an_error_after_the_rewrite_names_the_original_file_and_line(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(KERNEL + "__global__ void bad(float *a) { float o;\n"
                   '  asm volatile("mov.f32 %0, %1;" : "=f"(o) : "f"(a[0]));\n  a[1] = undefined_name; }\n')
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    line = src.read_text().splitlines().index("  a[1] = undefined_name; }") + 1
    assert f"{src}:{line}:" in str(e.value) and "undefined_name" in str(e.value)
