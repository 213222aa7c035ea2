"""A CUDA project written for nvcc (tests/data/cuda_project: CMake with LANGUAGES CUDA, sm numbers
and a C++ standard; a Makefile with $(NVCC)) built for AMD: CMake through shflx's toolchain file
(`shflx launch --cmake-toolchain`, shflx/cmake/shflx-cuda.cmake) with Ninja and with Make, the
Makefile with NVCC="shflx compile". The executables get the checks of tests/test_cuda_on_hip.py
(HIP runtime, registered kernels = code objects, no-device error, the kernel on the emulator with
the host's inputs).

Needs cmake, ninja, make and a clang with HIP headers (Debian: `apt-get install hipcc cmake
ninja-build make`, which .ci/run does); without them it skips, and under CI=true it fails."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_cuda_on_hip import KERNELS, check_executable, check_on_the_emulator
from test_launcher import _need, hip_toolchain

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "data" / "cuda_project"
TARGETS = ("gfx90a", "gfx1030")


def toolchain_file(env) -> Path:
    done = subprocess.run([sys.executable, "-m", "shflx", "launch", "--cmake-toolchain"], capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    path = Path(done.stdout.strip())
    assert path.is_file() and path.name == "shflx-cuda.cmake", path
    return path


def project_copy(tmp: Path) -> tuple[Path, dict]:
    """The project and the programs it names (../cuda_programs) under `tmp`; the environment."""
    shutil.copytree(PROJECT, tmp / "src" / "cuda_project")
    shutil.copytree(ROOT / "tests" / "data" / "cuda_programs", tmp / "src" / "cuda_programs")
    env = {**os.environ, "SHFLX_CACHE_DIR": str(tmp / "cache"),
           "PYTHONPATH": os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p)}
    if os.environ.get("SHFLX_TEST_INSTALLED"):
        env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    return tmp / "src" / "cuda_project", env


@pytest.fixture(scope="module", params=["Ninja", "Unix Makefiles"])
def build(request, tmp_path_factory):
    """The project configured and built with the toolchain file: (build directory, build log)."""
    tools = hip_toolchain()
    generator = request.param
    if shutil.which("make" if generator == "Unix Makefiles" else "ninja") is None:
        _need(f"no {generator} build tool on PATH")
    tmp = tmp_path_factory.mktemp("cmake_cuda")
    src, env = project_copy(tmp)
    out = tmp / "build"
    cfg = [tools["cmake"], "-S", str(src), "-B", str(out), "-G", generator,
           "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_TOOLCHAIN_FILE={toolchain_file(env)}",
           f"-DCMAKE_CUDA_COMPILER={tools['clang']}", f"-DCMAKE_CXX_COMPILER={tools['clang']}",
           f"-DSHFLX={sys.executable};-m;shflx", f"-DSHFLX_CUDA_ARCHITECTURES={';'.join(TARGETS)}",
           f"-DCMAKE_CUDA_FLAGS=--rocm-path={tools['prefix']} --hip-device-lib-path={tools['bitcode']}"]
    done = subprocess.run(cfg, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    done = subprocess.run([tools["cmake"], "--build", str(out), "--verbose"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return out, done.stdout


def test_cmake_takes_shflx_as_its_cuda_compiler(build):
    """Each .cu compiled by `shflx launch` for the AMD targets (the project's sm numbers ignored),
    with the project's C++ standard; the executables linked by the HIP compiler against the HIP
    runtime; the compiler check (CMakeCUDACompilerABI.cu) passed through the same rules."""
    out, log = build
    compiles = [line for line in log.splitlines() if " launch -- " in line and " -c " in line]
    assert len(compiles) == 2, log[-3000:]
    for line in compiles:
        assert f"--offload-arch={','.join(TARGETS)}" in line and "-std=gnu++17" in line, line
        assert "sm_" not in line and "--cuda-gpu-arch" not in line, line
    assert len(re.findall(r"--hip-link", log)) == 2, log[-3000:]
    compiler = next((out / "CMakeFiles").glob("3.*/CMakeCUDACompiler.cmake")).read_text()
    assert 'set(CMAKE_CUDA_COMPILER_ID "ShflxHIP")' in compiler
    assert 'set(CMAKE_CUDA_SIZEOF_DATA_PTR "8")' in compiler  # read from CMakeCUDACompilerABI.cu, built by the rules


@pytest.mark.parametrize("name", ["reduce", "scan"])
def test_its_executables_are_cuda_programs_on_the_hip_runtime(build, tmp_path, name):
    check_executable(build[0] / name, KERNELS[name], TARGETS, tmp_path)


def test_its_kernel_runs_on_the_emulator_with_the_hosts_inputs(build, tmp_path):
    check_on_the_emulator(build[0] / "scan", "scan", tmp_path)


def test_its_makefile_builds_with_nvcc_set_to_shflx(tmp_path):
    """`make NVCC="shflx compile" NVCCFLAGS="--link --offload-arch=..."`: the Makefile's nvcc rules
    as written (-c per .cu, then a link of the object); the programs are CUDA programs on HIP."""
    tools = hip_toolchain()
    make = shutil.which("make")
    if make is None:
        _need("no make on PATH")
    src, env = project_copy(tmp_path)
    env["SHFLX_HOST_CXX"] = f"{tools['clang']} --rocm-path={tools['prefix']} --hip-device-lib-path={tools['bitcode']}"
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run([make, "-C", str(src), f"OUT={out}", f"NVCC={sys.executable} -m shflx compile",
                           f"NVCCFLAGS=--link --offload-arch={','.join(TARGETS)} -O2"],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert len(re.findall(r" -c \S+\.cu -o ", done.stdout)) == 2, done.stdout
    for name in ("reduce", "scan"):
        check_executable(out / name, KERNELS[name], TARGETS, tmp_path)


def test_the_porting_guides_cmake_and_make_commands_run_as_written(tmp_path):
    """docs/porting.md step 5: its `LANGUAGES CUDA` and Makefile blocks, as written, from a directory
    holding the checkout's tests/ (shflx, clang++-15 and hipcc from PATH); each block's last line
    runs a program, which ends as step 6 says (no GPU: the HIP runtime's no-device error)."""
    hip_toolchain()
    for tool in ("clang++-15", "hipcc"):
        if shutil.which(tool) is None:
            _need(f"no {tool} on PATH (the guide's commands name it)")
    text = (ROOT / "docs" / "porting.md").read_text()
    section = text[text.index("### CMake projects with `LANGUAGES CUDA`"):text.index("### CMake projects with the HIP")]
    blocks = [b.replace("\\\n", " ").strip().splitlines() for b in re.findall(r"```sh\n(.*?)```", section, re.S)]
    assert len(blocks) == 2 and all(b[-1].startswith("./") for b in blocks), blocks
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
           "SHFLX_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    if os.environ.get("SHFLX_TEST_INSTALLED"):
        env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    for lines in blocks:
        for line in lines[:-1]:
            done = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True)
            assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-3000:])
        run = subprocess.run(lines[-1], shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        if Path("/dev/kfd").exists():
            assert run.returncode == 0, run.stdout + run.stderr
        else:
            assert run.returncode == 1 and "failed: hipErrorNoDevice" in run.stderr, (lines[-1], run.stderr)
