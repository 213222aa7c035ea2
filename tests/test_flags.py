"""`shflx compile`'s compiler-style flags (driver.flags): each documented flag lands where it
belongs, nothing is misread (-gencode is not -g, -isystem is not -i), unknown flags are named."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shflx.driver.flags import (debug_wanted, depfile_words, device_words, feature_words, parse_compile_args,
                                split_targets, target_features)
from shflx.errors import UsageError


def parse(*words):
    return parse_compile_args(list(words))


def test_each_documented_flag_lands_in_its_place(tmp_path):
    f = parse("a.cu", "-c", "-o", "a.o", "-std=c++20", "-x", "hip", "-isystem", "/sys", "-include", "pre.h",
              "-DX=1", "-UY", "-I", "inc", "-Wall", "-Wno-unused", "-w", "-Xclang", "-fno-rtti", "-Os", "-g0",
              "-MD", "-MF", "a.d", "-MT", "a.o", "--offload-arch=gfx942:xnack+,gfx1100", "-mcode-object-version=5",
              "-fPIC", "-ffast-math", "-Rpass=shflx", "--report-file", "r.json")
    assert f.sources == ["a.cu"] and f.action == "c" and f.output == "a.o" and f.language == "hip"
    assert f.preprocessor == ["-isystem", "/sys", "-include", "pre.h", "-D", "X=1", "-U", "Y", "-I", "inc"]
    assert f.device == ["-std=c++20", "-Wall", "-Wno-unused", "-w", "-fno-rtti", "-ffast-math"]
    assert f.host == ["-fPIC", "-ffast-math"]
    assert f.opt == "s" and f.opt_level == 2 and f.debug is False
    assert f.deps == ["-MD", "-MF", "a.d", "-MT", "a.o"]
    assert f.archs == ["gfx942:xnack+", "gfx1100"] and f.code_object_version == "5"
    assert f.remarks and f.report_file == "r.json"
    assert device_words(f)[-2:] == ("-Os", "-mcode-object-version=5")


def test_nvidia_flags_and_gencode_is_not_debug():
    f = parse("k.cu", "-gencode", "arch=compute_80,code=sm_80", "-gencode=arch=compute_90a,code=[sm_90a,compute_90a]",
              "-arch=sm_100", "-Xptxas", "-v,-O3", "-S")
    assert f.archs == ["sm_80", "sm_90a", "sm_100"] and f.debug is None and f.action == "S"
    assert f.xptxas == ["-v", "-O3"]


@pytest.mark.parametrize("words, fragment", [
    (["k.cu", "--offload-arch=gfx942", "-gencodex"], "unknown flag '-gencodex'"),
    (["k.cu", "--offload-arch=gfx942", "--bogus"], "unknown flag '--bogus'"),
    (["k.cu", "--offload-arch=gfx942", "-gfoo"], "unknown flag '-gfoo'"),
    (["k.cu", "--offload-arch=gfx942:xnack+:xnack-"], "names a feature twice"),
    (["k.cu", "--offload-arch=gfx942:foo+"], "is not a target ID"),
    (["k.cu", "--offload-arch=gfx1100:xnack+"], "gfx1100 has no 'xnack' target feature (it takes: none)"),
    (["k.cu", "--offload-arch=gfx900:sramecc-"], "gfx900 has no 'sramecc' target feature (it takes: xnack)"),
    (["k.cu", "--offload-arch=gfx942,"], "empty target"),
    (["k.cu", "-gencode", "arch=compute_80"], "-gencode: expected arch="),
    (["k.cu", "--offload-arch=gfx942", "-x", "c"], "invalid value 'c' for -x; valid values: cuda, hip"),
    (["k.cu", "--offload-arch=gfx942", "-mcode-object-version=3"], "invalid value '3' for -mcode-object-version; valid values: 4, 5, 6"),
    (["k.cu"], "no target"),
    (["--offload-arch=gfx942"], "no input files"),
    (["k.cu", "--offload-arch=gfx942", "-o"], "-o needs a value"),
    (["k.cu", "--offload-arch=gfx942", "--prefer", "fast"], "invalid value 'fast' for --prefer; valid values: cycles, lds-free"),
    # issue 27: every enumerated flag lists its choices; -foo is not read as a host -f flag
    (["k.cu", "--offload-arch=gfx942", "--emit", "bogus"],
     "invalid value 'bogus' for --emit; valid values: hsaco, obj, asm, llvm, cubin, ptx"),
    (["k.cu", "--offload-arch=gfx942", "--emit=cubin"], "valid values: hsaco, obj, asm, llvm"),
    (["k.cu", "--offload-arch=gfx942", "--report", "xml"], "invalid value 'xml' for --report; valid values: text, json"),
    (["k.cu", "--offload-arch=gfx942", "-foo"], "unknown flag '-foo'"),
    (["k.cu", "--offload-arch=gfx942", "-fno-such-thing"], "unknown flag '-fno-such-thing'"),
    (["k.cu", "--offload-arch=gfx942", "--version=2"], "unknown flag '--version=2'"),
])
def test_bad_flags_are_named(words, fragment):
    with pytest.raises(UsageError) as e:
        parse_compile_args(words)
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_response_files_expand_in_place_and_nest(tmp_path):
    inner = tmp_path / "inner.rsp"
    inner.write_text("-DINNER '-DSPACED=a b'\n")
    outer = tmp_path / "outer.rsp"
    outer.write_text(f"--offload-arch=gfx90a @{inner} -O1\n")
    f = parse("k.cu", f"@{outer}", "-O2")
    assert f.preprocessor == ["-D", "INNER", "-D", "SPACED=a b"] and f.opt == "2" and f.archs == ["gfx90a"]
    with pytest.raises(UsageError, match="cannot read the response file"):
        parse("k.cu", f"@{tmp_path / 'missing.rsp'}")


@pytest.mark.parametrize("word, level", [("-O0", "0"), ("-O1", "1"), ("-O2", "2"), ("-O3", "3"), ("-Os", "s"),
                                         ("-Oz", "z"), ("-Og", "g"), ("-O", "1"), ("-O4", "3"), ("-Ofast", "fast")])
def test_optimization_levels(word, level):
    assert parse("k.cu", "--offload-arch=gfx942", word).opt == level


def test_target_ids_become_llvm_features():
    assert target_features("gfx90a:sramecc+:xnack-") == ("+sramecc", "-xnack")
    assert feature_words("gfx942:xnack+") == ("-target-feature", "+xnack")
    assert feature_words("gfx1100") == () and split_targets("compute_90", "-arch") == ["sm_90"]


def test_depfile_words_follow_clang_defaults():
    f = parse("k.cu", "--offload-arch=gfx942", "-MMD")
    assert depfile_words(f, "out/k.hsaco") == ("-dependency-file", "out/k.d", "-MT", "out/k.hsaco")
    f = parse("k.cu", "--offload-arch=gfx942", "-MD", "-MF", "x.d", "-MT", "t1", "-MQ", "t2", "-MP")
    assert depfile_words(f, "k.o") == ("-dependency-file", "x.d", "-MT", "t1", "-MT", "t2", "-sys-header-deps", "-MP")
    assert depfile_words(parse("k.cu", "--offload-arch=gfx942"), "k.o") == ()


# --------------------------------------------------------------------------- property: nothing misread

_ID = st.one_of(st.sampled_from(["gfx1100", "gfx1201"]),           # no target ID features (GFX10.3+)
                st.builds(lambda g, fs: g + "".join(fs), st.sampled_from(["gfx90a", "gfx942"]),
                          st.lists(st.sampled_from([":xnack+", ":xnack-", ":sramecc+", ":sramecc-"]), max_size=2,
                                   unique_by=lambda s: s[:-1])))
_NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
_PATH = st.from_regex(r"[a-z][a-z0-9_/]{0,8}", fullmatch=True)
_FLAG = st.one_of(
    st.builds(lambda n: ("pp", ["-D", n], [f"-D{n}"]), _NAME),
    st.builds(lambda n: ("pp", ["-U", n], ["-U", n]), _NAME),
    st.builds(lambda p: ("pp", ["-I", p], [f"-I{p}"]), _PATH),
    st.builds(lambda p: ("pp", ["-isystem", p], ["-isystem", p]), _PATH),
    st.builds(lambda p: ("pp", ["-include", p], ["-include", p]), _PATH),
    st.builds(lambda t: ("arch", [t], [f"--offload-arch={t}"]), _ID),
    st.builds(lambda n: ("arch", [f"sm_{n}"], ["-gencode", f"arch=compute_{n},code=sm_{n}"]),
              st.sampled_from(["80", "90", "90a", "100"])),
    st.builds(lambda w: ("dev", [w], [w]), st.sampled_from(["-Wall", "-Wextra", "-w", "-std=c++17", "-Werror"])),
    st.builds(lambda x: ("dev", [x], ["-Xclang", x]), st.sampled_from(["-fno-rtti", "-ffast-math"])),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_FLAG, min_size=1, max_size=12), st.sampled_from(["", "-c", "-S", "-E"]))
def test_any_mix_of_flags_is_read_back_in_order(flags, action):
    """Random flag sequences in either spelling (joined or separate): the parsed groups are exactly
    the generated ones, in order, and no flag leaks into another group or into the sources."""
    words = ["k.cu"] + ([action] if action else [])
    want = {"pp": [], "arch": [], "dev": []}
    for kind, parsed, spelled in flags:
        words += spelled
        want[kind] += parsed
    if not want["arch"]:
        words.append("--offload-arch=gfx942")
        want["arch"].append("gfx942")
    f = parse_compile_args(words)
    assert f.sources == ["k.cu"]
    assert f.preprocessor == want["pp"]
    assert f.archs == list(dict.fromkeys(want["arch"]))
    assert f.device == want["dev"]
    assert f.action == {"": "device", "-c": "c", "-S": "S", "-E": "E"}[action]
    assert f.debug is None


@pytest.mark.parametrize("words, wanted", [([], None), (["-g"], True), (["-ggdb"], True), (["-g2"], True),
                                           (["-gdwarf-5"], True), (["-gline-tables-only"], True), (["-g0"], False),
                                           (["-g", "-g0"], False), (["-g0", "-g"], True), (["-gencode"], None),
                                           (["-gsplit-dwarf"], None), (["-O2", "-ggdb0"], False)])
def test_debug_flags_last_one_wins(words, wanted):
    assert debug_wanted(words) is wanted


@pytest.mark.parametrize("words,level", [([], 0), (["-O3"], 3), (["-O0", "-O2"], 2), (["-Os"], 2), (["-Og"], 1),
                                         (["-O"], 1), (["-Ofast"], 3), (["-O2", "-c", "-O0"], 0)])
def test_opt_wanted_reads_the_last_o_flag_as_compile_does(words, level):
    """The launcher's -O reading is compile's table (OPT_LEVELS), not a second one."""
    from shflx.driver.flags import opt_wanted
    assert opt_wanted(words) == level


def test_prefer_reaches_the_compile():
    assert parse("k.cu", "--offload-arch=gfx942").prefer == "cycles"
    assert parse("k.cu", "--offload-arch=gfx942", "--prefer=lds-free").prefer == "lds-free"


@pytest.mark.parametrize("word", ["--expt-relaxed-constexpr", "-expt-relaxed-constexpr", "--expt-extended-lambda",
                                  "--extended-lambda", "-lineinfo", "--generate-line-info"])
def test_nvcc_flags_for_what_clang_does_anyway_are_accepted(word):
    """TensorRT's plugins build with --expt-relaxed-constexpr: clang's CUDA mode makes constexpr
    functions host+device by default, so the flag asks for nothing more."""
    from shflx.driver.flags import parse_compile_args
    f = parse_compile_args(["k.cu", "--offload-arch", "gfx942", word])
    assert f.sources == ["k.cu"] and word not in f.device + f.host


@pytest.mark.parametrize("word,macro", [("--expt-extended-lambda", "__CUDACC_EXTENDED_LAMBDA__"),
                                        ("--extended-lambda", "__CUDACC_EXTENDED_LAMBDA__"),
                                        ("-expt-relaxed-constexpr", "__CUDACC_RELAXED_CONSTEXPR__"),
                                        ("-G", "__CUDACC_DEBUG__")])
def test_nvcc_flags_define_the_macros_nvcc_defines_for_them(word, macro):
    """cuCollections stops with `#error` unless __CUDACC_EXTENDED_LAMBDA__ is defined, as nvcc
    defines it for --expt-extended-lambda (nvcc manual, "Pre-defined Macros")."""
    assert parse("k.cu", "--offload-arch=gfx942", word).preprocessor == ["-D", macro]
    assert parse("k.cu", "--offload-arch=gfx942", "-lineinfo").preprocessor == []


@pytest.mark.parametrize("words,debug,host,xptxas", [
    (["-G"], True, [], []), (["--device-debug"], True, [], []),
    (["--machine", "64"], None, ["-m64"], []), (["--machine=64"], None, ["-m64"], []), (["-m", "64"], None, ["-m64"], []),
    (["--maxrregcount=64"], None, [], ["--maxrregcount", "64"]), (["-maxrregcount", "32"], None, [], ["--maxrregcount", "32"]),
])
def test_nvcc_build_flags_of_real_projects_are_read_as_nvcc_reads_them(words, debug, host, xptxas):
    """CUDA_Freshman builds with -G, Kaldi with --machine 64, ccminer with --maxrregcount=N: device
    debug info (-g's), 64-bit host code, and ptxas's register cap (sm_NN; AMD takes no -Xptxas)."""
    f = parse("k.cu", "--offload-arch=gfx942", *words)
    assert (f.debug, f.host, f.xptxas) == (debug, host, xptxas)


def test_nvcc_flags_of_bght_and_cudalbm_builds_are_read():
    """BGHT's CMake passes --forward-unknown-to-host-compiler/-linker (how nvcc treats flags it does
    not know: no device meaning); cudaLBM's common.mk passes --m64 and --Werror KIND,... (nvcc's own
    warnings of those kinds made errors; the kinds are checked)."""
    f = parse("k.cu", "--offload-arch=gfx942", "--forward-unknown-to-host-linker", "--forward-unknown-to-host-compiler",
              "-forward-unknown-to-host-compiler", "--m64", "--Werror",
              "cross-execution-space-call,reorder,default-stream-launch,missing-launch-bounds,ext-lambda-captures-this",
              "--Werror=all-warnings")
    assert (f.sources, f.host, f.device, f.preprocessor) == (["k.cu"], ["-m64"], [], [])
    with pytest.raises(UsageError, match="invalid value 'reordr' for --Werror; valid values: all-warnings, "):
        parse("k.cu", "--offload-arch=gfx942", "--Werror", "reorder,reordr")
    with pytest.raises(UsageError, match="--Werror needs a value"):
        parse("k.cu", "--offload-arch=gfx942", "--Werror")


def test_a_32_bit_machine_is_refused_with_its_choices():
    with pytest.raises(UsageError, match="invalid value '32' for --machine; valid values: 64"):
        parse("k.cu", "--offload-arch=gfx942", "--machine", "32")
    with pytest.raises(UsageError, match="--maxrregcount needs a value"):
        parse("k.cu", "--offload-arch=gfx942", "--maxrregcount")


def _cubin_registers(path) -> int:
    """The kernel's register count in a cubin: the EIATTR_REGCOUNT (0x2f) entry of .nv.info, whose
    payload is (symbol index, registers); entries are (format, attribute, size) then the payload for
    format 4 (EIFMT_SVAL), a 4-byte word otherwise."""
    import struct
    from elftools.elf.elffile import ELFFile
    with open(path, "rb") as fh:
        data = ELFFile(fh).get_section_by_name(".nv.info").data()
    k = 0
    while k + 4 <= len(data):
        fmt, attr, size = data[k], data[k + 1], struct.unpack_from("<H", data, k + 2)[0]
        if fmt == 4 and attr == 0x2F:
            return struct.unpack_from("<II", data, k + 4)[1]
        k += 4 + (size if fmt == 4 else 0)
    raise AssertionError("no register count in the cubin")


def test_maxrregcount_reaches_ptxas(tmp_path):
    """ptxas caps the registers of each kernel: a kernel that wants more uses fewer under a cap."""
    import subprocess
    import sys
    from shflx.driver.nvidia import cuda_headers
    from shflx.frontend.clang import FrontendOptions
    if cuda_headers(FrontendOptions()) is None:
        pytest.skip("NVIDIA's CUDA headers are not installed")
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float *p) { float a[24];\n#pragma unroll\n for (int i = 0; i < 24; i++) a[i] = p[i * 7];\n"
                   "#pragma unroll\n for (int i = 0; i < 24; i++) p[i] = a[23 - i] * a[i]; }\n")
    regs = {}
    for cap in ("16", "255"):
        out = tmp_path / f"k{cap}.cubin"
        run = subprocess.run([sys.executable, "-m", "shflx", "compile", str(src), "--offload-arch", "sm_90",
                              f"--maxrregcount={cap}", "-o", str(out)], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        regs[cap] = _cubin_registers(out)
    assert regs["16"] < regs["255"]


@pytest.mark.parametrize("word", ["--use_fast_math", "-use_fast_math"])
def test_nvcc_fast_math_is_accepted_and_changes_no_device_word(word):
    """ggml and bitsandbytes build with nvcc's --use_fast_math (nvcc's short name has one dash): a
    license for approximate math that the precise functions satisfy, so the device code is compiled
    as without it; a misspelling stays an unknown flag."""
    from shflx.driver.flags import parse_compile_args
    f = parse_compile_args(["k.cu", "--offload-arch", "gfx942", word])
    assert f.sources == ["k.cu"] and f.device == [] and f.host == []
    with pytest.raises(UsageError, match="unknown flag '--use-fast_math'"):
        parse_compile_args(["k.cu", "--offload-arch", "gfx942", "--use-fast_math"])


@pytest.mark.parametrize("word,mode", [("-ftz=true", "preserve-sign,preserve-sign"), ("--ftz=false", "ieee,ieee")])
def test_nvcc_ftz_sets_the_single_precision_denormal_mode(word, mode):
    """mini-nbody builds with nvcc's -ftz=true: clang's FP32 denormal mode, for both vendors."""
    from shflx.driver.flags import parse_compile_args
    assert parse_compile_args(["k.cu", "--offload-arch", "gfx942", word]).device == [f"-fdenormal-fp-math-f32={mode}"]
    with pytest.raises(UsageError, match="invalid value 'yes' for -ftz"):
        parse_compile_args(["k.cu", "--offload-arch", "gfx942", "-ftz=yes"])


def _asm_with_each(tmp_path, arch: str, flags: tuple[str, ...]) -> dict[str, str]:
    """The assembly of `a * b + c` compiled for `arch` with each of `flags`."""
    import subprocess
    import sys
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float *p) { p[0] = p[1] * p[2] + p[3]; }\n")
    if arch.startswith("sm_"):
        from shflx.driver.nvidia import cuda_headers
        from shflx.frontend.clang import FrontendOptions
        if cuda_headers(FrontendOptions()) is None:
            pytest.skip("NVIDIA's CUDA headers are not installed")
    asm = {}
    for flag in flags:
        run = subprocess.run([sys.executable, "-m", "shflx", "compile", str(src), "--offload-arch", arch, flag, "-S",
                              "-o", "-"], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        asm[flag] = run.stdout
    return asm


@pytest.mark.parametrize("arch,flushed,kept", [("gfx942", ".amdhsa_float_denorm_mode_32 0", ".amdhsa_float_denorm_mode_32 3"),
                                               ("sm_90", "fma.rn.ftz.f32", "fma.rn.f32")])
def test_ftz_true_reaches_the_code(tmp_path, arch, flushed, kept):
    """-ftz=true: AMD's kernel descriptor flushes FP32 denormals; NVIDIA's PTX uses the .ftz forms."""
    asm = _asm_with_each(tmp_path, arch, ("-ftz=true", "-ftz=false"))
    assert flushed in asm["-ftz=true"] and kept in asm["-ftz=false"]


def test_words_after_double_dash_are_inputs_not_nvcc_flags():
    assert parse("--offload-arch=gfx942", "--", "--compile").sources == ["--compile"]


@pytest.mark.parametrize("arch,fused,split", [("gfx942", "v_fma", "v_mul_f32"), ("sm_90", "fma.rn.f32", "mul.rn.f32")])
def test_fmad_false_reaches_the_code(tmp_path, arch, fused, split):
    """nvcc's -fmad=false: a * b + c stays a multiply and an add (no FMA), on both vendors."""
    asm = _asm_with_each(tmp_path, arch, ("-fmad=false", "-fmad=true"))
    assert fused not in asm["-fmad=false"] and split in asm["-fmad=false"] and fused in asm["-fmad=true"]


@pytest.mark.parametrize("words,libraries", [
    (["-ldl"], ["-ldl"]), (["-l", "m"], ["-lm"]), (["--library=pthread"], ["-lpthread"]), (["--library", "rt"], ["-lrt"]),
    (["-L/opt/lib", "-lz"], ["-L/opt/lib", "-lz"]), (["--library-path", "/x", "-L", "/y"], ["-L/x", "-L/y"]),
    (["--library-path=/x"], ["-L/x"]),
])
def test_nvcc_library_flags_are_for_the_link_and_change_no_compile(words, libraries):
    """CMake's CMAKE_CUDA_FLAGS reach every compile (FasterTransformer's `-Xcompiler -Wall -ldl`):
    nvcc ignores -l/-L (--library, --library-path) when it does not link; shflx keeps them, in order,
    for --link's link and gives the device compile and the host compile of -c nothing new."""
    base = parse("k.cu", "--offload-arch=gfx942", "-lineinfo")
    f = parse("k.cu", "--offload-arch=gfx942", "-lineinfo", *words)
    assert f.libraries == libraries and base.libraries == []
    assert (f.sources, f.device, f.host, f.preprocessor, device_words(f)) == \
        (base.sources, base.device, base.host, base.preprocessor, device_words(base))


def test_a_library_flag_needs_its_name():
    with pytest.raises(UsageError, match="-l needs a value"):
        parse("k.cu", "--offload-arch=gfx942", "-l")
