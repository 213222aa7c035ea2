"""`shflx launch` in a real build: tests/data/cmake_hip (four device files, a shared header, host
code with launches, CUDA runtime calls in a .cu) configured by CMake with CMAKE_HIP_COMPILER_LAUNCHER, built by Ninja.

Needs cmake, ninja and a clang with HIP headers and device libraries (Debian: `apt-get install
hipcc`, which .ci/run does); without them the build tests skip, and under CI=true they fail."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shflx.schemas import report_schema
from tests.reference.schema_check import errors
from hypothesis import given, settings
from hypothesis import strategies as st

from ci_policy import IN_CI
from shflx.codegen.bundle import hip_entry_id, read_bundle
from shflx.driver.launch import read_command
from shflx.driver.report import instruction_counts

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "data" / "cmake_hip"
TARGETS = ("gfx90a", "gfx1030")            # both have device libraries in Debian bookworm's ROCm 5.2
OBJECTS = ("reduce.hip", "scan.hip", "transpose.cu", "runtime.cu")


def _need(what: str) -> None:
    (pytest.fail if IN_CI else pytest.skip)(f"{what} (install with `apt-get install hipcc ninja-build cmake`)")


def hip_toolchain() -> dict[str, str]:
    """clang++, llvm-objdump, the HIP install (headers, device libraries, CMake packages)."""
    tools = {}
    for key, names in (("clang", ("clang++-15", "clang++-16", "clang++-17", "clang++-19", "clang++")),
                       ("objdump", ("llvm-objdump-15", "llvm-objdump-16", "llvm-objdump-19", "llvm-objdump")),
                       ("cmake", ("cmake",)), ("ninja", ("ninja",))):
        found = next((shutil.which(n) for n in names if shutil.which(n)), None)
        if not found:
            _need(f"no {key} on PATH")
        tools[key] = found
    for prefix, bitcode, cmake_dir in (("/opt/rocm", "/opt/rocm/amdgcn/bitcode", "/opt/rocm/lib/cmake"),
                                       ("/usr", "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                                        "/usr/lib/x86_64-linux-gnu/cmake")):
        if (Path(prefix) / "include/hip/hip_runtime.h").exists() and (Path(cmake_dir) / "hip-lang").is_dir():
            tools.update(prefix=prefix, bitcode=bitcode, cmake_dir=cmake_dir)
            return tools
    _need("no HIP installation (hip/hip_runtime.h and the hip-lang CMake package)")
    return tools


def rocm_root(tools: dict[str, str], where: Path) -> Path:
    """A ROCm root as CMake's HIP language expects it (ROOT/lib/cmake/hip-lang): /opt/rocm is one;
    Debian keeps the packages under lib/x86_64-linux-gnu/cmake, so link them into `where`."""
    if (Path(tools["prefix"]) / "lib/cmake/hip-lang").is_dir():
        return Path(tools["prefix"])
    (where / "lib" / "cmake").mkdir(parents=True)
    for pkg in ("hip-lang", "hip", "amd_comgr", "hsa-runtime64"):
        if (Path(tools["cmake_dir"]) / pkg).is_dir():
            (where / "lib" / "cmake" / pkg).symlink_to(Path(tools["cmake_dir"]) / pkg)
    return where


def configure_and_build(tools, src: Path, build: Path, root: Path, launcher: list[str], env) -> str:
    hip_flags = f"--rocm-path={tools['prefix']} --hip-device-lib-path={tools['bitcode']}"
    cfg = [tools["cmake"], "-S", str(src), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
           f"-DCMAKE_HIP_COMPILER={tools['clang']}", f"-DCMAKE_CXX_COMPILER={tools['clang']}",
           f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={root}", f"-DCMAKE_HIP_ARCHITECTURES={';'.join(TARGETS)}",
           f"-DCMAKE_HIP_FLAGS={hip_flags}", f"-DCMAKE_HIP_COMPILER_LAUNCHER={';'.join(launcher)}"]
    done = subprocess.run(cfg, capture_output=True, text=True, env={**env, "CMAKE_PREFIX_PATH": str(root)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    done = subprocess.run([tools["cmake"], "--build", str(build)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done.stdout


def code_objects(tools, obj: Path, tmp: Path) -> dict[str, bytes]:
    """The code objects of a host object's .hip_fatbin section, by bundle ID (read, never rewritten:
    llvm-objcopy --dump-section would rewrite the object and make Ninja rebuild it)."""
    from elftools.elf.elffile import ELFFile

    with obj.open("rb") as f:
        section = ELFFile(f).get_section_by_name(".hip_fatbin")
        assert section is not None, f"{obj} has no .hip_fatbin section"
        return read_bundle(section.data())


def counts(tools, code: bytes, target: str, tmp: Path) -> dict[str, int]:
    path = tmp / f"{target}.co"
    path.write_bytes(code)
    asm = subprocess.run([tools["objdump"], "-d", f"--mcpu={target}", str(path)], capture_output=True, text=True)
    assert asm.returncode == 0, asm.stderr
    return instruction_counts(asm.stdout)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """The project built through `shflx launch` and through `shflx launch --baseline` (every
    shuffle as HIP's ds_bpermute): (tools, source copy, shflx build, baseline build, build log)."""
    tools = hip_toolchain()
    tmp = tmp_path_factory.mktemp("cmake_hip")
    src = tmp / "src"
    shutil.copytree(PROJECT, src)
    root = rocm_root(tools, tmp / "rocm")
    env = {**os.environ, "SHFLX_CACHE_DIR": str(tmp / "cache"),
           "PYTHONPATH": os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p)}
    if os.environ.get("SHFLX_TEST_INSTALLED"):
        env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    launch = [sys.executable, "-m", "shflx", "launch"]
    log = configure_and_build(tools, src, tmp / "build", root, [*launch, f"--report-file={tmp / 'reports'}/", "--"],
                              env)
    configure_and_build(tools, src, tmp / "base", root, [*launch, "--baseline", "--"], env)
    return tools, src, tmp / "build", tmp / "base", log, env, tmp


def test_every_object_embeds_lowered_code_for_each_target(builds):
    tools, _, build, base, log, _, tmp = builds
    assert "remark" not in log and "warning" not in log  # quiet on success (no -Rpass=shflx)
    total = {"ours": {}, "base": {}}
    for name in OBJECTS:
        for which, tree in (("ours", build), ("base", base)):
            objs = code_objects(tools, tree / "CMakeFiles" / "demo.dir" / f"{name}.o", tmp)
            assert set(objs) == {"host-x86_64-unknown-linux-gnu-", *(hip_entry_id(t) for t in TARGETS)}
            for t in TARGETS:
                c = counts(tools, objs[hip_entry_id(t)], t, tmp)
                total[which][(name, t)] = c
    for key, ours in total["ours"].items():
        base = total["base"][key]
        # reduce.hip's swap_halves (HIP __shfl_xor(v, 32)) reads across halves in wave64: gfx90a
        # keeps that one ds_bpermute (HIP's meaning, exact); every other shuffle is lowered
        kept = 1 if key == ("reduce.hip", "gfx90a") else 0
        assert ours["ds_bpermute"] == kept and base["ds_bpermute"] > kept, (key, ours, base)
        assert ours["dpp"] + ours["ds_swizzle"] + ours["permlane"] > 0, (key, ours)
    for name in OBJECTS:                                 # --report-file DIR/: one report per object
        report = json.loads((tmp / "reports" / f"{name}.o.shflx.json").read_text())
        assert [e["arch"] for e in report] == list(TARGETS)
        kept = [(e["arch"], s["notes"]) for e in report for s in e["sites"] if s["proof"] != "proved"]
        assert kept == ([("gfx90a", ["the map crosses 32-lane halves or differs between them"])]
                        if name == "reduce.hip" else []), kept
        assert report[0]["sites"] or report[0]["chains"]     # runtime.cu's warp sum: one chain
        assert {e["semantics"] for e in report} == {"cuda" if name.endswith(".cu") else "hip"}
        schema = report_schema()                         # the compile report's schema, shared
        assert errors(report, schema["$defs"]["compile_report"], schema) == []
    print("\ncode-object instruction counts (shflx vs --baseline):")
    for key in total["ours"]:
        print(f"  {key[0]:<13} {key[1]:<8} shflx {total['ours'][key]}  baseline {total['base'][key]}")


def test_a_build_through_the_compile_server_embeds_the_same_code_objects(builds):
    """The same CMake build with SHFLX_SERVER=on (Ninja's parallel jobs as clients of one server):
    every object embeds the code objects the build without the server embedded, byte for byte."""
    import tempfile
    tools, src, build, _, _, env, tmp = builds
    server_dir = Path(tempfile.mkdtemp(prefix="sx", dir="/tmp"))          # a short socket path
    served = {**env, "SHFLX_SERVER": "on", "SHFLX_SERVER_DIR": str(server_dir)}
    try:
        log = configure_and_build(tools, src, tmp / "served", rocm_root(tools, tmp / "rocm-served"),
                                  [sys.executable, "-m", "shflx", "launch", f"--report-file={tmp / 'served-reports'}/",
                                   "--"], served)
        assert "warning" not in log and list(server_dir.glob("*.sock")), log
    finally:
        subprocess.run([sys.executable, "-m", "shflx", "server", "stop", "--all"], env=served, capture_output=True)
        shutil.rmtree(server_dir, ignore_errors=True)
    for name in OBJECTS:
        ours = code_objects(tools, build / "CMakeFiles" / "demo.dir" / f"{name}.o", tmp)
        theirs = code_objects(tools, tmp / "served" / "CMakeFiles" / "demo.dir" / f"{name}.o", tmp)
        for t in TARGETS:
            assert theirs[hip_entry_id(t)] == ours[hip_entry_id(t)], (name, t)


def test_the_cuda_file_keeps_32_lane_semantics_and_hip_files_wave_wide(builds):
    """transpose.cu's xor 16 is a 32-lane swap: on gfx1030 (wave32) v_permlanex16; reduce.hip's
    HIP __shfl_xor(v, 1) is lane ^ 1 in the whole wave: a quad_perm DPP. The shuffles of a .cu
    never reach across 32-lane halves on gfx90a's wave64 (no permlane there, DPP row ops only)."""
    tools, _, build, _, _, _, tmp = builds
    cu = code_objects(tools, build / "CMakeFiles" / "demo.dir" / "transpose.cu.o", tmp)
    assert counts(tools, cu[hip_entry_id("gfx1030")], "gfx1030", tmp)["permlane"] >= 1
    hip = code_objects(tools, build / "CMakeFiles" / "demo.dir" / "reduce.hip.o", tmp)
    path = tmp / "reduce90a.co"
    path.write_bytes(hip[hip_entry_id("gfx90a")])
    asm = subprocess.run([tools["objdump"], "-d", "--mcpu=gfx90a", str(path)], capture_output=True, text=True).stdout
    assert re.search(r"v_\w+_dpp .*quad_perm:\[1,0,3,2\]", asm)


def test_cuda_runtime_calls_of_a_cu_file_link_against_the_hip_runtime(builds):
    """runtime.cu's host code (cudaMalloc, cudaMemcpyAsync, events, streams, <<<>>>, cudaGetLastError,
    cudaFuncGetAttributes, occupancy) compiles against HIP: its object calls HIP's runtime and no
    CUDA name is left; it registers its kernel with the name shflx's code objects define; the
    program links libamdhip64."""
    from elftools.elf.elffile import ELFFile

    tools, _, build, _, _, _, tmp = builds
    obj = build / "CMakeFiles" / "demo.dir" / "runtime.cu.o"
    with obj.open("rb") as f:
        elf = ELFFile(f)
        undefined = {s.name for s in elf.get_section_by_name(".symtab").iter_symbols()
                     if s["st_shndx"] == "SHN_UNDEF" and s.name}
        strings = b"".join(sec.data() for sec in elf.iter_sections() if sec.name.startswith(".rodata"))
    wanted = {"hipMalloc", "hipMemcpyAsync", "hipMemsetAsync", "hipEventCreate", "hipEventRecord",
              "hipEventSynchronize", "hipEventElapsedTime", "hipStreamCreateWithFlags", "hipGetLastError",
              "hipGetDeviceProperties", "hipFuncGetAttributes", "hipOccupancyMaxActiveBlocksPerMultiprocessor",
              "__hipPushCallConfiguration", "__hipRegisterFunction"}
    assert wanted <= undefined, wanted - undefined
    assert not [n for n in undefined if n.lower().startswith("cuda")], undefined
    kernel = b"_Z9warp_sumsPKiPii"
    assert kernel in strings                             # the name the host registers ...
    for t in TARGETS:                                    # ... is a kernel of every code object
        path = tmp / f"runtime-{t}.co"
        path.write_bytes(code_objects(tools, obj, tmp)[hip_entry_id(t)])
        with path.open("rb") as f:
            symbols = {s.name for s in ELFFile(f).get_section_by_name(".symtab").iter_symbols()}
        assert kernel.decode() in symbols and kernel.decode() + ".kd" in symbols, (t, sorted(symbols)[:20])
    with (build / "demo").open("rb") as f:
        needed = [t.needed for t in ELFFile(f).get_section_by_name(".dynamic").iter_tags() if t.entry.d_tag == "DT_NEEDED"]
    assert any(n.startswith("libamdhip64.so") for n in needed), needed


def test_touching_the_shared_header_rebuilds_only_its_users(builds):
    tools, src, build, _, _, env, _ = builds
    up_to_date = subprocess.run([tools["ninja"], "-C", str(build), "-n"], capture_output=True, text=True, env=env)
    assert "no work to do" in up_to_date.stdout, up_to_date.stdout
    (src / "common.h").touch()
    os.utime(src / "common.h", None)
    dry = subprocess.run([tools["ninja"], "-C", str(build), "-n"], capture_output=True, text=True, env=env)
    rebuilt = sorted(re.findall(r"Building \w+ object CMakeFiles/demo\.dir/(\S+)\.o", dry.stdout))
    assert rebuilt == ["reduce.hip", "scan.hip"], dry.stdout
    (src / "api.h").touch()
    dry = subprocess.run([tools["ninja"], "-C", str(build), "-n"], capture_output=True, text=True, env=env)
    rebuilt = sorted(re.findall(r"Building \w+ object CMakeFiles/demo\.dir/(\S+)\.o", dry.stdout))
    assert rebuilt == ["main.cpp", "reduce.hip", "runtime.cu", "scan.hip", "transpose.cu"], dry.stdout


def test_ccache_caches_a_launched_compile(builds, tmp_path):
    tools, src, _, _, _, env, _ = builds
    ccache = shutil.which("ccache")
    if ccache is None:
        _need("no ccache on PATH")
    wrapper = tmp_path / "shflx-hipcc"                    # what a user puts in front of their clang
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m shflx launch -- "{tools["clang"]}" "$@"\n')
    wrapper.chmod(0o755)
    env = {**env, "CCACHE_DIR": str(tmp_path / "ccache"), "CCACHE_NOHASHDIR": "1"}
    args = ["-x", "hip", f"--rocm-path={tools['prefix']}", f"--hip-device-lib-path={tools['bitcode']}",
            "--offload-arch=gfx90a", "-O3", "-c", str(src / "reduce.hip")]
    for out in ("first.o", "second.o"):
        done = subprocess.run([ccache, str(wrapper), *args, "-o", str(tmp_path / out)], capture_output=True,
                              text=True, env=env)
        assert done.returncode == 0, done.stderr
    stats = subprocess.run([ccache, "--print-stats"], capture_output=True, text=True, env=env).stdout
    hits = dict(line.split("\t") for line in stats.splitlines() if "\t" in line)
    assert int(hits["direct_cache_hit"]) + int(hits["preprocessed_cache_hit"]) == 1, stats
    assert (tmp_path / "first.o").read_bytes() == (tmp_path / "second.o").read_bytes()


# ------------------------------------------------------------------------- the command, as read

@pytest.mark.parametrize("argv, passthrough", [
    (["clang++", "-x", "hip", "--offload-arch=gfx90a,gfx942:xnack+", "-c", "a.hip", "-o", "a.o"], None),
    (["clang++", "a.o", "b.o", "-o", "demo"], "not a -c compile"),
    (["clang++", "-x", "hip", "--offload-arch=gfx90a", "-E", "a.hip"], "-E in the command"),
    (["clang++", "-x", "hip", "-c", "a.hip", "-o", "a.o"], "no --offload-arch"),
    (["clang++", "-x", "c++", "--offload-arch=gfx90a", "-c", "a.cpp"], "-x c++"),
    (["clang++", "-x", "hip", "--offload-arch=gfx90a", "-c", "a.hip", "b.hip"], "2 source files"),
])
def test_which_commands_the_launcher_takes(argv, passthrough):
    cmd = read_command(argv)
    assert cmd.passthrough == passthrough
    if passthrough is None:
        assert cmd.source == "a.hip" and cmd.targets == ["gfx90a", "gfx942:xnack+"] and cmd.output == "a.o"
        assert not cmd.cuda and read_command(["clang++", "--offload-arch=gfx90a", "-c", "k.cu"]).cuda


def test_a_failing_device_compile_leaves_no_object(tmp_path):
    """shflx's CUDA front end rejects the file: no host compile runs, nothing is written."""
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k(int *p) { p[0] = undefined_name; }\n")
    out = tmp_path / "bad.o"
    r = subprocess.run([sys.executable, "-m", "shflx", "launch", "--", "clang++", "-x", "hip",
                        "--offload-arch=gfx90a", "-c", str(bad), "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 2 and "undefined_name" in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


@pytest.mark.parametrize("name, header", [("reduce.hip", "common.h"), ("transpose.cu", "api.h")])
def test_compile_c_writes_an_object_with_lowered_device_code_and_a_depfile(builds, tmp_path, name, header):
    """`shflx compile -c` is the launcher around --host-cxx: .hip keeps HIP's semantics through the
    HIP compiler, .cu gets shflx's CUDA front end; the host compile writes the depfile."""
    tools, src, _, _, _, env, _ = builds
    cxx = f"{tools['clang']} --rocm-path={tools['prefix']} --hip-device-lib-path={tools['bitcode']}"
    out, dep = tmp_path / f"{name}.o", tmp_path / f"{name}.d"
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", "-c", str(src / name), "-o", str(out), "-O3",
                        "--offload-arch=gfx90a,gfx1030", "-MD", "-MF", str(dep), "--host-cxx", cxx, "-I", str(src)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout == "", r.stderr
    objs = code_objects(tools, out, tmp_path)
    assert set(objs) == {"host-x86_64-unknown-linux-gnu-", hip_entry_id("gfx90a"), hip_entry_id("gfx1030")}
    for t in ("gfx90a", "gfx1030"):                     # swap_halves: HIP's cross-half read, kept exact
        kept = 1 if (name, t) == ("reduce.hip", "gfx90a") else 0
        assert counts(tools, objs[hip_entry_id(t)], t, tmp_path)["ds_bpermute"] == kept
    assert header in dep.read_text() and name in dep.read_text()


@settings(max_examples=200, deadline=None)
@given(st.permutations(["-O3", "-DX=1", "-I", "inc", "-MD", "-MF", "a.d", "-isystem", "/sys", "-std=c++17",
                        "--offload-arch=gfx90a,gfx942:xnack+", "-c", "-o", "out/a.o", "-x", "hip", "src/a.hip"]),
       st.sampled_from(["clang++", "hipcc", "/opt/rocm/llvm/bin/clang++"]))
def test_read_command_in_any_order(words, compiler):
    """Flags and their values in any order (a value stays behind its flag): the same reading."""
    pairs = {"-I": "inc", "-MF": "a.d", "-isystem": "/sys", "-o": "out/a.o", "-x": "hip"}
    argv = [compiler]
    for w in words:
        if w in pairs.values():
            continue
        argv += [w, pairs[w]] if w in pairs else [w]
    cmd = read_command(argv)
    assert cmd.passthrough is None and cmd.source == "src/a.hip" and cmd.output == "out/a.o"
    assert cmd.targets == ["gfx90a", "gfx942:xnack+"] and cmd.language == "hip" and not cmd.cuda


def test_a_makefile_build_through_the_launcher(builds, tmp_path):
    """tests/data/cmake_hip/Makefile with LAUNCH="shflx launch --": lowered objects, the compiler's
    depfiles (-MMD) drive make: up to date after the build, the header's users only after a touch."""
    tools, src, _, _, _, env, _ = builds
    make = shutil.which("make")
    if make is None:
        _need("no make on PATH")
    out = tmp_path / "out"
    out.mkdir()
    args = [make, "-C", str(src), f"OUT={out}", f"HIPCXX={tools['clang']}",
            f"HIPFLAGS=--rocm-path={tools['prefix']} --hip-device-lib-path={tools['bitcode']} --offload-arch=gfx1030",
            f"LAUNCH={sys.executable} -m shflx launch --"]
    done = subprocess.run(args, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for name in ("reduce", "scan", "transpose", "runtime"):
        code = code_objects(tools, out / f"{name}.o", tmp_path)[hip_entry_id("gfx1030")]
        assert counts(tools, code, "gfx1030", tmp_path)["ds_bpermute"] == 0
    assert subprocess.run([*args, "-q"], env=env).returncode == 0          # up to date
    os.utime(src / "common.h", None)
    assert subprocess.run([*args, "-q"], env=env).returncode == 1
    dry = subprocess.run([*args, "-n"], capture_output=True, text=True, env=env).stdout
    assert sorted(re.findall(r"-c (\w+\.\w+)", dry)) == ["reduce.hip", "scan.hip"], dry


# amdemu puts its clang wrapper first on PATH when imported: it runs in a child process, so this
# pytest process (and the shflx commands it starts) keep finding shflx's own clang
_EMULATE = """
import json, sys
import numpy as np
from shflx.runtime.emulator import probe_emulator
device, why = probe_emulator("gfx90a", [sys.argv[1]])
if device is None:
    print(json.dumps({"why": why}))
    sys.exit(0)
import amdemu
data = np.array(json.loads(sys.argv[2]), dtype=np.int32)
out = {}
for path, kernel in zip(sys.argv[3::2], sys.argv[4::2]):
    code = open(path, "rb").read()
    run = amdemu.run_kernel(code, kernel, [data.copy()], (1, 1, 1), (64, 1, 1), target="gfx90a")
    out[kernel] = run.read(0).tolist()
print(json.dumps(out))
"""


def test_launched_code_objects_compute_hip_and_cuda_semantics_on_the_emulator(builds, tmp_path):
    """The gfx90a (wave64) code objects of the CMake build, run on the AMD emulator: HIP kernels
    as HIP defines them (wave-wide: swap_halves reads lane ^ 32), the CUDA kernel as CUDA does
    (each 32-lane half is a warp), against numpy references written from the two languages' docs."""
    import numpy as np
    from conftest import shared_path

    tools, _, build, _, _, env, _ = builds
    data = (np.arange(64, dtype=np.int32) * 7 + 3) ^ 0x55
    lane = np.arange(64)
    args = []
    for obj, kernel in (("reduce.hip.o", "_Z11swap_halvesPi"), ("reduce.hip.o", "_Z12reduce_quadsPi"),
                        ("transpose.cu.o", "_Z15transpose_pairsPi")):
        path = tmp_path / f"{obj}.gfx90a.co"
        path.write_bytes(code_objects(tools, build / "CMakeFiles" / "demo.dir" / obj, tmp_path)[hip_entry_id("gfx90a")])
        args += [str(path), kernel]
    done = subprocess.run([sys.executable, "-c", _EMULATE, str(shared_path("amdemu").parent),
                           json.dumps(data.tolist()), *args], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    got = {k: np.array(v) for k, v in json.loads(done.stdout.splitlines()[-1]).items()} \
        if '"why"' not in done.stdout else None
    if got is None:
        (pytest.fail if IN_CI else pytest.skip)(f"no AMD emulator: {done.stdout.strip()}")
    assert (got["_Z11swap_halvesPi"] == data[lane ^ 32]).all()
    quad = data + data[lane ^ 1]
    quad = quad + quad[lane ^ 2]
    down = data[np.where(lane % 8 + 4 < 8, lane + 4, lane)]           # __shfl_down(v, 4, 8): width 8
    assert (got["_Z12reduce_quadsPi"] == quad + down).all()
    warp = lane & 32                                                      # CUDA: two warps per wave64
    swapped = data[warp | ((lane & 31) ^ 16)]
    rotated = data[warp | ((lane + 1) & 31)]
    assert (got["_Z15transpose_pairsPi"] == swapped + rotated).all()
