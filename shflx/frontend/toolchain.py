"""Finding clang (HIP device front end) and ld.lld: an explicit override, ROCm, PATH, the ziglang wheel.

`find_clang()` returns the command prefix or raises ToolchainError naming everything it tried and
what to install. One adapter, no semantics (STYLE.md)."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence, TypeVar

from ..errors import ToolchainError
from ..files import caching_enabled, trusted_cache_dir, write_atomically

T = TypeVar("T")

MIN_CLANG = 17     # AMDGPU HIP device compiles of gfx950/gfx12 need a recent clang


@dataclass(frozen=True)
class Tool:
    command: tuple[str, ...]
    version: str
    origin: str            # "override", "rocm", "path", "ziglang"


def ziglang_command(tool: str) -> list[str] | None:
    """The ziglang wheel's `zig TOOL` (clang, c++, ld.lld), or None without the wheel: its zig binary
    run directly, as `python -m ziglang` execs it (ziglang/__main__.py), without starting a second
    Python for every tool run; through Python where the binary is not beside the module."""
    spec = importlib.util.find_spec("ziglang")
    if spec is None:
        return None
    zig = Path(spec.origin or "").parent / "zig"
    return [str(zig), tool] if zig.is_file() and os.access(zig, os.X_OK) else [sys.executable, "-m", "ziglang", tool]


def remembered(question: str, cmd: Sequence[str], ask: Callable[[], T], *, valid: Callable[[object], bool]) -> T:
    """`ask()`, the answer of the tool `cmd` to `question`, remembered on disk (cache_dir()/
    toolchain.json) under the tool's command and its executable's size and modification time: a
    compile does not start clang again to learn what an earlier one learned (its version, its
    headers). None is never remembered; a tool run through Python is always asked (its executable
    is the interpreter, not the tool). The file is untrusted input: it is read only from the user's
    own cache directory (files.trusted_cache_dir), and an answer is used only if it has a shape shflx
    writes for that question (`valid`); any other is asked again and replaced."""
    try:
        exe = Path(cmd[0]).resolve()
        st = exe.stat()
    except (OSError, IndexError):
        return ask()
    if not caching_enabled() or str(exe) == str(Path(sys.executable).resolve()):
        return ask()
    key = json.dumps([question, list(cmd), str(exe), st.st_size, st.st_mtime_ns])
    folder = trusted_cache_dir()
    if folder is None:
        return ask()
    store = folder / "toolchain.json"
    try:
        known = json.loads(store.read_text())
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    if key in known and valid(known[key]):
        return known[key]
    answer = ask()
    if answer is not None:
        known[key] = answer
        try:
            write_atomically(store, json.dumps(known, indent=0))
        except OSError:                  # a cache that cannot be written only costs speed
            pass
    return answer


def _version(cmd: list[str]) -> str | None:
    return remembered("version", cmd, lambda: _ask_version(cmd),
                      valid=lambda v: isinstance(v, str) and re.fullmatch(r"\d{1,4}(\.\d{1,6}){0,3}", v) is not None)


def _ask_version(cmd: list[str]) -> str | None:
    try:
        out = subprocess.run([*cmd, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"clang version (\d+)[\d.]*", out.stdout + out.stderr)
    return m.group(0).split()[-1] if m else None


def _missing_builtin_headers(cmd: list[str]) -> str:
    """Why `cmd` cannot compile a file that includes a C header ("" when it can): its resource
    directory must hold clang's own headers (stddef.h, ...). A copy or wrapper of a clang binary
    outside its installation (such as the AMD emulator's `clang` script around the ziglang wheel's,
    which it puts first on PATH) looks for them beside itself and finds none. The ziglang wheel is
    asked for its headers separately (host_cxx_args)."""
    return remembered("builtin headers", cmd, lambda: _ask_builtin_headers(cmd),
                      valid=lambda v: isinstance(v, str) and len(v) < 4096)


def _ask_builtin_headers(cmd: list[str]) -> str:
    try:
        out = subprocess.run([*cmd, "-print-resource-dir"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"-print-resource-dir failed ({e})"
    where = Path(out.stdout.strip())
    return "" if (where / "include" / "stddef.h").is_file() else \
        f"its resource directory {where} has no builtin headers (include/stddef.h)"


def _candidates() -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for env in ("SHFLX_LLVM_BIN",):
        if os.environ.get(env):
            out.append(("override", [str(Path(os.environ[env]) / "clang")]))
    rocm = os.environ.get("ROCM_PATH") or "/opt/rocm"
    out.append(("rocm", [str(Path(rocm) / "llvm" / "bin" / "clang")]))
    which = shutil.which("clang")
    if which:
        out.append(("path", [which]))
    zig = ziglang_command("clang")
    if zig is not None:
        out.append(("ziglang", zig))
    return out


def find_clang(llvm_bin: str | None = None) -> Tool:
    """The clang a process uses, found once: `find_clang()` and `find_clang(None)` share the
    answer (a later change to PATH, such as amdemu's clang wrapper, cannot split them)."""
    return _find_clang(llvm_bin)


@lru_cache(maxsize=4)
def _find_clang(llvm_bin: str | None) -> Tool:
    tried = []
    cands = [("override", [str(Path(llvm_bin) / "clang")])] if llvm_bin else _candidates()
    for origin, cmd in cands:
        if origin != "ziglang" and not Path(cmd[0]).exists():
            tried.append(f"{cmd[0]} ({origin}): not found")
        elif (version := _version(cmd)) is None:
            tried.append(f"{' '.join(cmd)} ({origin}): does not run")
        elif int(version.split(".")[0]) < MIN_CLANG:
            tried.append(f"{' '.join(cmd)} ({origin}): clang {version} is older than {MIN_CLANG}")
        elif origin != "ziglang" and (missing := _missing_builtin_headers(cmd)):
            tried.append(f"{' '.join(cmd)} ({origin}): {missing}")
        else:
            return Tool(tuple(cmd), version, origin)
        if origin == "override":           # an explicit choice is never silently replaced
            setting = "--llvm-bin" if llvm_bin else "SHFLX_LLVM_BIN"
            raise ToolchainError(f"{setting}={Path(cmd[0]).parent}: {tried[-1]}; point it at an LLVM or "
                                 "ROCm bin directory with clang (>= {MIN_CLANG}), or unset it".replace(
                                     "{MIN_CLANG}", str(MIN_CLANG)))
    raise ToolchainError("no usable clang for the AMDGPU HIP device front end; tried: " + "; ".join(tried) +
                         ". Install one with `pip install ziglang` (it ships clang), or point --llvm-bin / "
                         "SHFLX_LLVM_BIN at a ROCm or LLVM bin directory")


HOST_TRIPLE = "x86_64-unknown-linux-gnu"     # the host side every CUDA file is parsed against


@lru_cache(maxsize=4)
def host_cxx_args(tool: Tool) -> tuple[str, ...]:
    """The C/C++ standard library of the host for a device compile (`-internal-isystem` dirs and
    configuration defines), read off the toolchain's own driver for the x86_64 Linux host: the
    system's GCC toolchain (libstdc++ and glibc) as clang's driver finds it, which is what nvcc's
    host compiler and the sm_NN path read; only where the system has no libstdc++, the ziglang
    wheel's libc++ and glibc headers (`zig c++ -target x86_64-linux-gnu -###`), with the names
    libstdc++ keeps in C++17 (LIBSTDCXX_CXX17_KEPT). Real headers, so `<cstdlib>`, `<algorithm>`,
    `<bits/stdc++.h>`, ... in CUDA files mean what they mean to nvcc's host compiler. Remembered
    per tool (`remembered`)."""
    words = tuple(remembered("host c++ headers", tool.command, lambda: list(_ask_host_cxx_args(tool)),
                             valid=lambda words: host_cxx_args_shape(words) and _dirs_exist(words)))
    libcxx = any(w.endswith("libcxx/include") or "/c++/v1" in w for w in words)
    return words + (LIBSTDCXX_CXX17_KEPT if libcxx else ())


def _dirs_exist(words: list[str]) -> bool:
    """Whether the remembered include directories are still there (a GCC removed or upgraded since
    is asked again)."""
    return all(os.path.isdir(v) for w, v in zip(words[::2], words[1::2]) if w in HOST_INCLUDE_FLAGS)


# What libstdc++, the standard library of nvcc's host compiler on Linux, keeps in C++17 (deprecated,
# not removed: its _GLIBCXX_USE_DEPRECATED is 1) and libc++ removes unless asked: std::binary_function
# and unary_function (old moderngpu's and Thrust-era functors derive from them), auto_ptr, bind1st/
# ptr_fun/mem_fun, random_shuffle, set_unexpected. libc++'s own opt-in macros (its __config docs).
LIBSTDCXX_CXX17_KEPT = tuple(w for name in ("UNARY_BINARY_FUNCTION", "AUTO_PTR", "BINDERS", "RANDOM_SHUFFLE",
                                            "UNEXPECTED_FUNCTIONS")
                             for w in ("-D", f"_LIBCPP_ENABLE_CXX17_REMOVED_{name}"))


HOST_INCLUDE_FLAGS = ("-internal-isystem", "-internal-externc-isystem")
HOST_DEFINE = re.compile(r"(?:_LIBCPP|_LIBCXXABI|__GLIBC)\w*(?:=[\w.]*)?")


def host_cxx_args_shape(words: object) -> bool:
    """Whether remembered host C++ words are what _ask_host_cxx_args writes: pairs of an
    -internal-(externc-)isystem flag and an absolute directory, or -D and a libc++/glibc
    configuration macro; nothing else (no -include, no other -D, no flag in a value's place)."""
    if not isinstance(words, list) or len(words) % 2 or not all(isinstance(w, str) for w in words):
        return False
    for flag, value in zip(words[::2], words[1::2]):
        if flag in HOST_INCLUDE_FLAGS:
            if not os.path.isabs(value) or "\n" in value or "\0" in value:
                return False
        elif flag != "-D" or not HOST_DEFINE.fullmatch(value):
            return False
    return True


def _ask_host_cxx_args(tool: Tool) -> tuple[str, ...]:
    import tempfile
    with tempfile.TemporaryDirectory(prefix="shflx-") as tmp:
        probe = Path(tmp) / "probe.cpp"
        probe.write_text("")
        system = _ask_driver(tool, [*tool.command, f"--target={HOST_TRIPLE}", "-x", "c++", "-###", "-c", str(probe)], tmp)
        if tool.origin != "ziglang":
            return _host_args(system)
        wheel = _ask_driver(tool, [*(ziglang_command("c++") or ()), "-target", "x86_64-linux-gnu", "-###", "-c",
                                   str(probe)], tmp)
    builtin = next((v for v in wheel.words if v.endswith(os.path.join("ziglang", "lib", "include"))), None)
    if _has_libstdcxx(system.words) and builtin is not None:
        # the system's GCC toolchain, with the wheel's own clang headers (stddef.h, ...) in the place
        # of the resource directory the driver names, which the wheel does not have
        words = [os.path.abspath(builtin) if _is_resource_include(w) else w for w in system.words]
        return _host_args(DriverAnswer(system.cmd, words, system.stderr))
    return _host_args(wheel)


@dataclass(frozen=True)
class DriverAnswer:
    """What a clang driver printed for `-###`: its command, the words of its -cc1 line, stderr."""
    cmd: list[str]
    words: list[str]
    stderr: str


def _ask_driver(tool: Tool, cmd: list[str], tmp: str) -> DriverAnswer:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if tool.origin == "ziglang" and "global cache directory" in out.stderr and \
                "ZIG_GLOBAL_CACHE_DIR" not in os.environ:
            # zig's driver needs a cache directory (under HOME) even to print its command; a
            # service account's HOME may be unwritable: a temporary one serves this question
            env = {**os.environ, "ZIG_GLOBAL_CACHE_DIR": str(Path(tmp) / "zig-cache")}
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ToolchainError(f"cannot ask {' '.join(cmd[:4])} for its C++ headers: {e}") from None
    return DriverAnswer(cmd, _cc1_words(out.stderr), out.stderr)


def _is_resource_include(path: str) -> bool:
    """clang's own header directory (<resource-dir>/include: `.../lib/clang/22/include`)."""
    parts = Path(path).parts
    return len(parts) >= 4 and parts[-1] == "include" and parts[-3] == "clang" and parts[-4] == "lib"


def _has_libstdcxx(words: list[str]) -> bool:
    """Whether a driver's include directories hold GCC's libstdc++ (<cstdlib>, <bits/c++config.h>)."""
    dirs = [v for w, v in zip(words, words[1:]) if w in HOST_INCLUDE_FLAGS]
    return any((Path(d) / "cstdlib").is_file() for d in dirs) and \
        any((Path(d) / "bits" / "c++config.h").is_file() for d in dirs)


def _host_args(answer: DriverAnswer) -> tuple[str, ...]:
    """The include directories and library configuration macros of a driver's -cc1 line."""
    words = answer.words
    args: list[str] = []
    for k, w in enumerate(words[:-1]):
        v = words[k + 1]
        if w in HOST_INCLUDE_FLAGS + ("-isystem",) and not os.path.isdir(os.path.abspath(v)):
            continue                                    # a default the driver names that is not there (/include)
        if w in ("-isystem", "-internal-isystem"):     # zig prints them relative to the working directory
            args += ["-internal-externc-isystem" if "/libc/include/" in v else "-internal-isystem", os.path.abspath(v)]
        elif w == "-internal-externc-isystem":
            args += [w, os.path.abspath(v)]
        elif w == "-D" and HOST_DEFINE.fullmatch(v):    # the shape host_cxx_args_shape accepts back
            args += [w, v]
    if not any(a.endswith("libcxx/include") or "/c++/" in a for a in args):
        said = next((ln.strip() for ln in answer.stderr.splitlines() if "error" in ln.lower()), "")
        raise ToolchainError(f"{' '.join(answer.cmd[:4])} reports no C++ standard library headers for {HOST_TRIPLE}"
                             + (f" ({said})" if said else ""))
    return tuple(args)


def _cc1_words(driver_output: str) -> list[str]:
    """The words of the -cc1 line a `clang -###` run prints (quoted, one per argument)."""
    line = next((ln for ln in driver_output.splitlines() if '"-cc1"' in ln), "")
    return [w.encode().decode("unicode_escape") for w in re.findall(r'"((?:[^"\\]|\\.)*)"', line)]


@lru_cache(maxsize=1)
def gcc_include_dir() -> str | None:
    """GCC's own include directory (`gcc -print-file-name=include`: omp.h, openacc.h, ...), which
    nvcc's host compiler searches and clang does not; the newest GCC of the host triple's, or None."""
    found = sorted(Path("/usr/lib/gcc/x86_64-linux-gnu").glob("*/include/omp.h"),
                   key=lambda p: [int(x) if x.isdigit() else 0 for x in p.parent.parent.name.split(".")])
    return str(found[-1].parent) if found else None
