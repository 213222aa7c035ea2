"""llvmlite adapter: AMDGPU LLVM IR text -> object code or assembly (STYLE "one thin adapter per tool").

Some LLVM backend errors are fatal: an illegal dpp_ctrl for the cpu ("Invalid dpp_ctrl value")
ends the whole process. `compile_ir_isolated` runs the same compile in a child Python
(`python -m shflx.codegen.llvm`), so such an error becomes a ToolchainError with LLVM's message."""
from __future__ import annotations

import argparse
import functools
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..errors import InputError, Location, ShflxError, ToolchainError
from ..timing import stage

TRIPLE = "amdgcn-amd-amdhsa"
EMITS = ("obj", "asm")
WAVE_FEATURES = {32: "+wavefrontsize32", 64: "+wavefrontsize64"}
ISOLATED_TIMEOUT_S = 300
_PROBE_IR = f'target triple = "{TRIPLE}"\ndefine amdgpu_kernel void @shflx_probe() {{\n  ret void\n}}\n'


class IRError(InputError):
    """LLVM rejected the IR text itself (parse or verify): exit 1, like any bad input."""


def _binding() -> Any:
    """llvmlite.binding with the AMDGPU target registered (imported lazily: STYLE performance)."""
    return binding_for(TRIPLE, "AMDGPU")


@functools.cache
def binding_for(triple: str, target: str) -> Any:
    """llvmlite.binding with every target registered, checked to have `triple` (ToolchainError
    naming `target` and how to install otherwise); shared by the AMDGPU and NVPTX adapters."""
    try:
        import llvmlite.binding as llvm
    except ImportError:
        raise ToolchainError(f"llvmlite is not installed; {_install(target)}") from None
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    try:
        llvm.Target.from_triple(triple)
    except RuntimeError as e:
        raise ToolchainError(f"this llvmlite's LLVM {version(llvm)} has no {target} target ({e}); "
                             f"{_install(target)}") from None
    return llvm


def _install(target: str) -> str:
    return f"install llvmlite>=0.44 (pip install llvmlite; its wheels bundle LLVM with the {target} target)"


def version(llvm: Any) -> str:
    return ".".join(map(str, llvm.llvm_version_info))


@functools.lru_cache(maxsize=None)
def _target_machine(cpu: str, wave: int | None, opt: int, extra: tuple[str, ...] = ()) -> Any:
    """One target machine per (cpu, wave, opt, target-ID features such as +xnack); the cpu and wave
    are checked once on a probe kernel."""
    llvm = _binding()
    features = ",".join(([WAVE_FEATURES[wave]] if wave is not None else []) + list(extra))
    tm = llvm.Target.from_triple(TRIPLE).create_target_machine(
        cpu=cpu, features=features, opt=opt, reloc="pic", codemodel="default")
    probe = tm.emit_assembly(llvm.parse_assembly(_PROBE_IR))
    named = re.search(r'\.amdgcn_target\s+"amdgcn-amd-amdhsa--([\w-]+)', probe)
    if not named or named.group(1) != cpu:
        raise ToolchainError(f"LLVM {version(llvm)} (llvmlite) does not know the processor '{cpu}'")
    if wave is not None and not re.search(rf"\.wavefront_size:\s+{wave}\b", probe):
        raise ToolchainError(f"LLVM cannot compile wave{wave} code for {cpu}")
    return tm


def _ir_error(e: Exception, what: str, source: str) -> IRError:
    """LLVM's '<string>:LINE:COL: error: ...' as a located IRError."""
    text = str(e).strip()
    m = re.search(r"<string>:(\d+):(\d+):\s*error:\s*(.*)", text)
    if m:
        return IRError(f"LLVM {what}: {m.group(3).strip()}", Location(source, int(m.group(1)), int(m.group(2))))
    text = re.sub(r"^LLVM IR parsing error\s*", "", text).strip()
    return IRError(f"LLVM {what}: {' '.join(text.split())}", Location(source))


def compile_ir(ir_text: str, cpu: str, *, wave: int | None = None, emit: str = "obj", opt: int = 2,
               source: str = "<ir>", features: tuple[str, ...] = (), header_warnings: bool = False) -> bytes | str:
    """Compile a complete AMDGPU module: object bytes (emit="obj") or assembly text (emit="asm").

    The module is verified first; `opt` (0-3) sets both the IR pipeline and codegen level. A
    fatal LLVM backend error ends this process: use compile_ir_isolated for untrusted plans. LLVM's
    warnings located in CUDA/CCCL headers are dropped unless `header_warnings` (-Wshflx-headers)."""
    if emit not in EMITS:
        raise ValueError(f"emit must be one of {EMITS}, got {emit!r}")
    if not 0 <= opt <= 3:
        raise ValueError(f"opt must be 0..3, got {opt!r}")
    if wave not in (None, 32, 64):
        raise ValueError(f"wave must be 32 or 64, got {wave!r}")
    from .diagnostics import llvm_warnings

    llvm = _binding()
    tm = _target_machine(cpu, wave, opt, tuple(features))
    with llvm_warnings(header_warnings):
        with stage("LLVM optimization"):
            module = optimized_module(llvm, tm, ir_text, TRIPLE, opt, source)
        try:
            with stage("code generation"):
                return tm.emit_object(module) if emit == "obj" else tm.emit_assembly(module)
        except RuntimeError as e:
            raise ToolchainError(f"LLVM code generation for {cpu} failed: {' '.join(str(e).split())}") from None


def optimize_in_place(module: Any, cpu: str, opt: int) -> None:
    """LLVM's optimization pipeline at `opt` run on the parsed AMDGPU `module` for `cpu`."""
    llvm = _binding()
    tm = _target_machine(cpu, None, opt)
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=opt))
    pb.getModulePassManager().run(module, pb)


def optimized_module(llvm: Any, tm: Any, ir_text: str, triple: str, opt: int, source: str) -> Any:
    """Parse and verify `ir_text` (located IRError on failure), check or set its triple, and run
    LLVM's optimization pipeline at `opt` for the target machine `tm`."""
    try:
        module = llvm.parse_assembly(ir_text)
    except RuntimeError as e:
        raise _ir_error(e, "could not parse the IR", source) from None
    try:
        module.verify()
    except RuntimeError as e:
        raise _ir_error(e, "rejected the IR", source) from None
    if not module.triple:
        module.triple = triple
    elif module.triple != triple:
        raise IRError(f"the IR targets '{module.triple}', not '{triple}'", Location(source))
    if opt > 0:
        pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=opt))
        pb.getModulePassManager().run(module, pb)
    return module


# --------------------------------------------------------------------------- the isolated child

_ERROR_TAG = "shflx-codegen-error:"
_EXIT_SHFLX_ERROR = 3


def compile_ir_isolated(ir_text: str, cpu: str, *, wave: int | None = None, emit: str = "obj",
                        opt: int = 2, source: str = "<ir>",
                        timeout_s: float = ISOLATED_TIMEOUT_S) -> bytes | str:
    """compile_ir in a child process: a fatal LLVM error becomes a ToolchainError, not an exit."""
    if emit not in EMITS:
        raise ValueError(f"emit must be one of {EMITS}, got {emit!r}")
    cmd, env = _child_command(cpu, wave, emit, opt, source, ())
    try:
        done = subprocess.run(cmd, input=ir_text.encode(), capture_output=True, env=env, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise ToolchainError(f"LLVM did not finish compiling for {cpu} within {timeout_s:g} s") from None
    except OSError as e:
        raise ToolchainError(f"cannot start {sys.executable}: {e.strerror}") from None
    return _child_output(cpu, emit, done.returncode, done.stdout, done.stderr)


def compile_parts_in_parallel(texts: list[str], cpu: str, *, wave: int | None = None, opt: int = 2,
                              source: str = "<ir>", features: tuple[str, ...] = (),
                              header_warnings: bool = False) -> list[bytes]:
    """The object of each module text (codegen.partition's parts), each optimized and compiled
    by compile_ir in a child process of its own, all at once; LLVM's warnings (compile_ir's) are
    written to stderr after them."""
    import tempfile

    cmd, env = _child_command(cpu, wave, "obj", opt, source, features)
    cmd += ["--header-warnings"] if header_warnings else []
    with tempfile.TemporaryDirectory(prefix="shflx-parts-") as tmp:
        running = []
        try:
            for n, text in enumerate(texts):
                paths = [Path(tmp) / f"{n}.{kind}" for kind in ("ll", "o", "err")]
                try:
                    paths[0].write_text(text)
                except OSError as e:
                    raise ToolchainError(f"cannot write a part of the module in {tmp}: {e.strerror}") from None
                with open(paths[0], "rb") as i, open(paths[1], "wb") as o, open(paths[2], "wb") as e:
                    running.append((subprocess.Popen(cmd, stdin=i, stdout=o, stderr=e, env=env), paths))
        except OSError as e:
            raise ToolchainError(f"cannot start {sys.executable}: {e.strerror}") from None
        finally:
            codes = [proc.wait() for proc, _ in running]
        objects = [_child_output(cpu, "obj", code, paths[1].read_bytes(), paths[2].read_bytes())
                   for code, (_, paths) in zip(codes, running)]
        for _, paths in running:
            sys.stderr.write(paths[2].read_text(errors="replace"))
        return objects


def _child_command(cpu: str, wave: int | None, emit: str, opt: int, source: str,
                   features: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    """`python -m shflx.codegen.llvm` for one compile, and its environment (this shflx first)."""
    cmd = [sys.executable, "-m", "shflx.codegen.llvm", "--cpu", cpu, "--emit", emit, "--opt", str(opt),
           "--source", source] + [f"--feature={f}" for f in features]
    if wave is not None:
        cmd += ["--wave", str(wave)]
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])    # the directory holding the shflx package
    env["PYTHONPATH"] = os.pathsep.join([root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return cmd, env


def _child_output(cpu: str, emit: str, returncode: int, stdout: bytes, stderr: bytes) -> bytes | str:
    """A child's object or assembly, or its error raised here as the error it was there."""
    err = stderr.decode(errors="replace")
    if returncode == 0:
        return stdout if emit == "obj" else stdout.decode()
    if returncode == _EXIT_SHFLX_ERROR and _ERROR_TAG in err:
        kind, _, rest = err.split(_ERROR_TAG, 1)[1].partition(":")
        reason, _, where = rest.strip().partition("\n@")
        loc = _parse_location(where.strip()) if where else None
        cls = {"IRError": IRError, "InputError": InputError}.get(kind, ToolchainError)
        raise cls(reason.strip(), loc)
    raise ToolchainError(f"LLVM failed compiling for {cpu}: {_llvm_message(err, returncode)}")


def _parse_location(text: str) -> Location | None:
    m = re.fullmatch(r"(.*?)(?::(\d+))?(?::(\d+))?", text)
    if not m or not m.group(1):
        return None
    return Location(m.group(1), int(m.group(2)) if m.group(2) else None,
                    int(m.group(3)) if m.group(3) else None)


def _llvm_message(stderr: str, returncode: int) -> str:
    """LLVM's own words from a dead child: its 'error:' / 'LLVM ERROR:' lines, else the tail."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    picked = [re.sub(r"^(LLVM ERROR|error):\s*", "", ln) for ln in lines
              if re.match(r"(LLVM ERROR|error):", ln)]
    text = "; ".join(picked or lines[-3:]) or "no message"
    if returncode < 0:
        try:
            import signal
            text += f" (killed by {signal.Signals(-returncode).name})"
        except ValueError:
            text += f" (killed by signal {-returncode})"
    return text


def _child(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m shflx.codegen.llvm",
                                description="Compile AMDGPU LLVM IR from stdin to stdout (object or asm).")
    p.add_argument("--cpu", required=True)
    p.add_argument("--emit", choices=EMITS, default="obj")
    p.add_argument("--opt", type=int, choices=range(4), default=2)
    p.add_argument("--wave", type=int, choices=(32, 64))
    p.add_argument("--source", default="<ir>")
    p.add_argument("--feature", action="append", default=[], help="a target-ID feature (+xnack, -sramecc)")
    p.add_argument("--header-warnings", action="store_true", help="LLVM's warnings located in headers too")
    args = p.parse_args(argv)
    ir_text = sys.stdin.buffer.read().decode()
    try:
        out = compile_ir(ir_text, args.cpu, wave=args.wave, emit=args.emit, opt=args.opt, source=args.source,
                         features=tuple(args.feature), header_warnings=args.header_warnings)
    except ShflxError as e:
        where = f"\n@{e.where}" if e.where else ""
        sys.stderr.write(f"{_ERROR_TAG}{type(e).__name__}:{e.reason}{where}\n")
        return _EXIT_SHFLX_ERROR
    sys.stdout.buffer.write(out if isinstance(out, bytes) else out.encode())
    sys.stdout.buffer.flush()
    return 0


# ------------------------------------------------------------------------------- asm reading

_DIRECTIVE = re.compile(r"^\s*\.")
_LABEL = re.compile(r"^\s*[\w.$]+:\s*$")


def asm_instructions(asm_text: str) -> list[str]:
    """The instruction lines of LLVM assembly: comments, labels, directives and the
    `.amdgpu_metadata` YAML block dropped; whitespace collapsed."""
    out: list[str] = []
    in_block = False
    for raw in asm_text.splitlines():
        line = raw.split(";", 1)[0].split("//", 1)[0].rstrip()
        stripped = line.strip()
        if in_block:
            in_block = not stripped.startswith((".end_amdgpu_metadata", ".end_amdhsa_kernel"))
            continue
        if stripped.startswith((".amdgpu_metadata", ".amdhsa_kernel")):
            in_block = True
            continue
        if not stripped or stripped.startswith("#") or _DIRECTIVE.match(line) or _LABEL.match(line):
            continue
        out.append(" ".join(stripped.split()))
    return out


if __name__ == "__main__":
    sys.exit(_child())
