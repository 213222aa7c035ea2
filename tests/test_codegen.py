"""shflx.codegen and shflx.runtime without a GPU: every primitive of six targets is proven legal,
compiled by llvmlite and found in the assembly with LLVM's own modifier spelling; one kernel per
target is linked by ld.lld (ziglang) and inspected; the toolchain error paths are typed errors.
The HIP launcher runs against a fake hip module (the real one: hw_tests/amd)."""
from __future__ import annotations

import enum
import os
import re
import stat
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from amd_samples import KNOWN_BUGS, TARGETS, all_cases, samples  # noqa: E402
from shflx.amd.llvm_ir import kernel_ir  # noqa: E402
from shflx.codegen import link  # noqa: E402
from shflx.codegen.inspect import EM_AMDGPU, inspect_code_object  # noqa: E402
from shflx.codegen.link import find_lld, link_hsaco  # noqa: E402
from shflx.codegen.llvm import IRError, asm_instructions, compile_ir, compile_ir_isolated  # noqa: E402
from shflx.errors import InputError, ToolchainError  # noqa: E402
from shflx.isa import amd_target  # noqa: E402
from shflx.plan import load_plan  # noqa: E402
from shflx.runtime.hip import HipDevice, HipError, by_value, probe_hip  # noqa: E402
from shflx.verify.api import prove  # noqa: E402


def _params() -> list:
    return [pytest.param(arch, wave, s, id=f"{arch}-w{wave}-{s.name}",
                         marks=[pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[s.name])] if s.name in KNOWN_BUGS else [])
            for arch, wave, s in all_cases()]


@pytest.mark.parametrize("arch,wave,sample", _params())
def test_sample_is_legal_and_compiles_to_its_instruction(arch, wave, sample):
    plan = sample.load()
    proof = prove(plan)                                  # raises IllegalOp if not legal on arch
    assert proof.status == sample.status, proof.reason
    asm = compile_ir(kernel_ir(plan), amd_target(arch).llvm_cpu, wave=wave, emit="asm")
    lines = asm_instructions(asm)
    for rx in sample.expect:
        assert any(re.search(rx, ln) for ln in lines), f"no line matches {rx!r} in:\n" + "\n".join(lines)


def test_every_target_has_the_expected_primitives():
    names = {(arch, wave): {s.name for s in samples(arch, wave)} for arch, wave, _ in all_cases()}
    assert "dpp_row_newbcast3" in names["gfx90a", 64] and "dpp_row_bcast15" in names["gfx942", 64]
    assert {"permlane16_swap_take0", "permlane32_swap_take1"} <= names["gfx950", 64]
    assert {"dpp_row_xmask5", "dpp8_reverse", "permlanex16_same"} <= names["gfx1030", 32]
    assert "permlane64" in names["gfx1100", 64] and "permlane64" not in names["gfx1100", 32]
    assert {"permlane16_var_reverse", "bpermute_fi_xor3"} <= names["gfx1200", 32]
    group = {"permlane_bcast5_width8", "permlane_up3_width16", "permlane_down1_width4", "permlane_xor9_width16"}
    assert group <= names["gfx1250", 32] and not group & names["gfx1200", 32]
    assert ("gfx1250", 64) not in names                 # gfx1250 runs wave32 only


# ------------------------------------------------------------------------------ link + inspect

@pytest.mark.parametrize("arch", TARGETS)
def test_linked_code_object_names_target_kernel_and_metadata(arch, tmp_path):
    t = amd_target(arch)
    wave = t.default_wave
    plan = next(s for s in samples(arch, wave) if s.name == "dpp_quad_perm_xor1").load()
    obj = compile_ir(kernel_ir(plan, "shflx_k"), t.llvm_cpu, wave=wave, emit="obj")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    data = link_hsaco(obj, out_dir / "k.hsaco")
    assert (out_dir / "k.hsaco").read_bytes() == data and os.listdir(out_dir) == ["k.hsaco"]
    for blob in (obj, data):
        co = inspect_code_object(blob)
        assert co.machine == t.llvm_cpu and co.target_id.startswith(t.llvm_cpu)
        assert co.kernels == ("shflx_k",)
        assert co.has_metadata_note and co.metadata_size > 0
        assert co.code_object_version in (4, 5, 6)
        kernel = co.metadata["amdhsa.kernels"][0]
        assert kernel[".name"] == "shflx_k" and kernel[".wavefront_size"] == wave
        assert [a[".name"] for a in kernel[".args"] if ".name" in a] == ["in", "out"]


def test_inspect_rejects_a_truncated_code_object():
    obj = compile_ir(kernel_ir(samples("gfx942", 64)[0].load()), "gfx942", wave=64, emit="obj")
    for cut in (20, 64, len(obj) // 2, len(obj) - 8):
        with pytest.raises(InputError, match="malformed ELF"):
            inspect_code_object(obj[:cut])


def test_inspect_rejects_what_is_not_an_amdgpu_code_object():
    obj = compile_ir(kernel_ir(samples("gfx942", 64)[0].load()), "gfx942", wave=64, emit="obj")
    with pytest.raises(InputError, match="not an ELF"):
        inspect_code_object(b"hello, world")
    x86 = bytearray(obj)
    x86[18:20] = (62).to_bytes(2, "little")             # EM_X86_64
    with pytest.raises(InputError, match=f"EM_AMDGPU = {EM_AMDGPU}"):
        inspect_code_object(bytes(x86))
    elf32 = bytearray(obj)
    elf32[4] = 1                                         # ELFCLASS32
    with pytest.raises(InputError):
        inspect_code_object(bytes(elf32))


def _no_lld_anywhere(monkeypatch, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("SHFLX_LLVM_BIN", str(empty))
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "rocm"))
    monkeypatch.delenv("ROCM_HOME", raising=False)
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(link, "ROCM_DEFAULT", tmp_path / "opt-rocm")
    monkeypatch.setattr(link, "_ziglang_available", lambda: False)
    return empty


def test_missing_lld_says_what_was_tried_and_what_to_install(monkeypatch, tmp_path):
    empty = _no_lld_anywhere(monkeypatch, tmp_path)
    with pytest.raises(ToolchainError) as e:
        find_lld()
    text = str(e.value)
    assert e.value.exit_code == 2
    assert str(empty / "ld.lld") in text and str(tmp_path / "rocm" / "llvm" / "bin" / "ld.lld") in text
    assert "ld.lld on PATH" in text and "ziglang" in text and "pip install ziglang" in text
    with pytest.raises(ToolchainError):
        link_hsaco(b"\x7fELF", tmp_path / "never.hsaco")
    assert not (tmp_path / "never.hsaco").exists()


def test_override_directory_comes_first(monkeypatch, tmp_path):
    _no_lld_anywhere(monkeypatch, tmp_path)
    bindir = tmp_path / "llvm-bin"
    bindir.mkdir()
    fake = bindir / "ld.lld"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("SHFLX_LLVM_BIN", str(bindir))
    assert find_lld() == [str(fake)]


def test_failed_link_is_a_toolchain_error_and_writes_nothing(tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    with pytest.raises(ToolchainError, match="ld.lld failed"):
        link_hsaco(b"this is not an object file", out_dir / "bad.hsaco")
    assert os.listdir(out_dir) == []


# ------------------------------------------------------------------------------- llvm errors

def _plan(arch, wave, step):
    return load_plan({"arch": arch, "wave": wave, "target": "xor 1", "steps": [step], "result": step["id"]})


def test_illegal_dpp_ctrl_is_a_toolchain_error_not_a_crash():
    # row_xmask (0x160-0x16F) is GFX10+; LLVM's backend dies on it for gfx942 ("Invalid dpp_ctrl
    # value"), so only the isolated compile may see it. The plan is never proven (prove refuses it).
    plan = _plan("gfx942", 64, {"id": "d", "op": "update.dpp", "src": "x", "old": "x", "dpp_ctrl": 0x165,
                                "row_mask": 15, "bank_mask": 15, "bound_ctrl": 0})
    with pytest.raises(ToolchainError, match="Invalid dpp_ctrl value") as e:
        compile_ir_isolated(kernel_ir(plan), "gfx942", wave=64, emit="obj")
    assert e.value.exit_code == 2 and "gfx942" in str(e.value)


def test_isolated_compile_gives_what_the_in_process_one_gives():
    ir = kernel_ir(samples("gfx1100", 32)[0].load())
    assert compile_ir_isolated(ir, "gfx1100", wave=32, emit="asm") == compile_ir(ir, "gfx1100", wave=32, emit="asm")
    obj = compile_ir_isolated(ir, "gfx1100", wave=32, emit="obj")
    assert inspect_code_object(obj).kernels == ("shflx_test",)


def test_ir_that_does_not_parse_is_a_located_input_error():
    bad = 'target triple = "amdgcn-amd-amdhsa"\ndefine void @f() {\n  ret i32 oops\n}\n'
    for compile_fn in (compile_ir, compile_ir_isolated):
        with pytest.raises(IRError, match="could not parse") as e:
            compile_fn(bad, "gfx942", source="bad.ll")
        assert e.value.where.file == "bad.ll" and e.value.where.line == 3 and e.value.exit_code == 2


def test_ir_that_does_not_verify_is_an_input_error():
    bad = ('target triple = "amdgcn-amd-amdhsa"\ndefine i32 @f() {\nentry:\n  %a = add i32 %b, 1\n'
           '  %b = add i32 1, 1\n  ret i32 %a\n}\n')
    with pytest.raises(IRError, match="dominate"):
        compile_ir(bad, "gfx942")


def test_ir_for_another_target_is_refused():
    with pytest.raises(IRError, match="targets 'x86_64-unknown-linux-gnu'"):
        compile_ir('target triple = "x86_64-unknown-linux-gnu"\ndefine void @f() {\n  ret void\n}\n', "gfx942")


def test_unknown_processor_and_impossible_wave_are_refused():
    ir = kernel_ir(samples("gfx942", 64)[0].load())
    with pytest.raises(ToolchainError, match="does not know the processor 'gfx999'"):
        compile_ir(ir, "gfx999")
    with pytest.raises(ToolchainError, match="wave32"):
        compile_ir(ir, "gfx942", wave=32)


def test_asm_instructions_keeps_only_instructions():
    asm = compile_ir(kernel_ir(samples("gfx942", 64)[0].load()), "gfx942", wave=64, emit="asm")
    lines = asm_instructions(asm)
    assert lines[-1] == "s_endpgm"
    assert not any(ln.startswith((".", ";")) or ln.endswith(":") or "amdhsa" in ln for ln in lines)
    assert any(ln.startswith("v_mov_b32_dpp v") and "quad_perm:[1,0,3,2]" in ln for ln in lines)


# ------------------------------------------------------------------------- runtime (fake HIP)

class FakeHip:
    """Enough of hip-python's `hip` module for HipDevice: "kernels" swap neighbouring lanes."""

    class hipError_t(enum.IntEnum):
        hipSuccess = 0
        hipErrorInvalidDevice = 101
        hipErrorNoDevice = 100
        hipErrorLaunchFailure = 719

    class hipMemcpyKind(enum.IntEnum):
        hipMemcpyHostToDevice = 1
        hipMemcpyDeviceToHost = 2

    def __init__(self, count=1, fail=None, arch="gfx942:sramecc+:xnack-"):
        self.count, self.fail, self.arch = count, fail, arch
        self.live: dict[int, bytearray] = {}
        self.modules = 0
        self.calls: list[str] = []

    def _ret(self, name, *values):
        self.calls.append(name)
        err = self.hipError_t.hipErrorLaunchFailure if name == self.fail else self.hipError_t.hipSuccess
        return (err, *values)

    def hipGetDeviceCount(self):
        if self.count is None:
            raise RuntimeError("failed to dlopen 'libamdhip64.so'")
        if self.count == 0:
            return (self.hipError_t.hipErrorNoDevice, 0)
        return self._ret("hipGetDeviceCount", self.count)

    def hipGetDeviceProperties(self, index):
        return self._ret("hipGetDeviceProperties", SimpleNamespace(gcnArchName=self.arch.encode(), name=b"MI300X"))

    def hipGetErrorString(self, err):
        return (self.hipError_t.hipSuccess, b"unspecified launch failure")

    def hipSetDevice(self, index):
        return self._ret("hipSetDevice")

    def hipModuleLoadData(self, image):
        assert bytes(image[:4]) == b"\x7fELF"
        self.modules += 1
        return self._ret("hipModuleLoadData", "module")

    def hipModuleGetFunction(self, module, name):
        return self._ret("hipModuleGetFunction", ("function", name))

    def hipMalloc(self, n):
        buf = bytearray(n)
        self.live[id(buf)] = buf
        return self._ret("hipMalloc", buf)

    def hipMemcpy(self, dst, src, n, kind):
        if kind == self.hipMemcpyKind.hipMemcpyHostToDevice:
            dst[:n] = memoryview(src).cast("B")[:n]
        else:
            memoryview(dst).cast("B")[:n] = src[:n]
        return self._ret(f"hipMemcpy{int(kind)}")

    def hipModuleLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        assert params is None and len(extra) == 2 and (gx, bx) == (1, 64)
        x = np.frombuffer(extra[0], np.uint32)
        extra[1][:] = x[np.arange(x.size) ^ 1].tobytes()
        return self._ret("hipModuleLaunchKernel")

    def hipDeviceSynchronize(self):
        return self._ret("hipDeviceSynchronize")

    def hipFree(self, buf):
        del self.live[id(buf)]
        return self._ret("hipFree")

    def hipModuleUnload(self, module):
        self.modules -= 1
        return self._ret("hipModuleUnload")


def test_probe_reports_why_there_is_no_device():
    assert "cannot be loaded" in probe_hip(hip_module=FakeHip(count=None))[1]
    assert "hipErrorNoDevice" in probe_hip(hip_module=FakeHip(count=0))[1]
    assert "no HIP device 1" in probe_hip(1, hip_module=FakeHip(count=1))[1]
    dev, why = probe_hip(hip_module=FakeHip())
    assert why == "" and dev.arch == "gfx942" and dev.arch_full == "gfx942:sramecc+:xnack-"
    device, reason = probe_hip()                     # this machine: a device, or a reason why not
    assert (device is None) == bool(reason)


def test_run_kernel_moves_buffers_and_releases_everything():
    fake = FakeHip()
    dev = HipDevice(0, "gfx942", "gfx942", "fake", fake)
    x = np.arange(64, dtype=np.uint32) * 3
    out = dev.run_kernel(b"\x7fELF...", "k", [x], 64, np.uint32, block=(64, 1, 1))
    assert np.array_equal(out, x[np.arange(64) ^ 1])
    assert fake.live == {} and fake.modules == 0


class RecordingHip(FakeHip):
    """A "kernel" that records its launch and adds 1 to every byte of every buffer."""

    def hipModuleLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        self.launched = ((gx, gy, gz), (bx, by, bz), shared, extra)
        for p in extra:
            if isinstance(p, bytearray):
                p[:] = bytes((v + 1) & 0xFF for v in p)
        return self._ret("hipModuleLaunchKernel")


def test_launch_passes_scalars_by_type_and_returns_every_buffer():
    fake = RecordingHip()
    dev = HipDevice(0, "gfx942", "gfx942", "fake", fake)
    x, y = np.arange(8, dtype=np.uint8), np.full(3, 7, np.int64)
    got = dev.launch(b"\x7fELF", "k", [x, np.float32(1.5), y, np.uint64(1 << 40), np.float16(-2.0), np.uint8(1)],
                     grid=(2, 3, 1), block=(32, 2, 1), dynamic_lds=4096)
    grid, block, shared, extra = fake.launched
    assert (grid, block, shared) == ((2, 3, 1), (32, 2, 1), 4096)
    assert [type(p).__name__ for p in extra] == ["bytearray", "c_float", "bytearray", "c_ulong", "c_ushort", "c_ubyte"]
    assert extra[1].value == 1.5 and extra[3].value == 1 << 40 and extra[4].value == 0xC000
    assert np.array_equal(got[0], x + 1) and np.array_equal(got[2], y + 0x0101010101010101)
    assert got[1] is None and got[3] is None and np.array_equal(x, np.arange(8))   # inputs untouched
    assert fake.live == {} and fake.modules == 0


def test_by_value_refuses_what_has_no_kernel_argument_type():
    assert by_value(np.bool_(True)).value == 1
    with pytest.raises(TypeError, match="complex64"):
        by_value(np.complex64(1))


@pytest.mark.parametrize("failing", ["hipModuleGetFunction", "hipModuleLaunchKernel", "hipDeviceSynchronize"])
def test_a_failed_hip_call_is_named_and_nothing_leaks(failing):
    fake = FakeHip(fail=failing)
    dev = HipDevice(0, "gfx942", "gfx942", "fake", fake)
    with pytest.raises(HipError, match=f"{failing}.*hipErrorLaunchFailure: unspecified launch failure") as e:
        dev.run_kernel(b"\x7fELF", "k", [np.zeros(64, np.uint32)], 64, block=(64, 1, 1))
    assert e.value.exit_code == 2 and fake.live == {} and fake.modules == 0


def test_a_fatal_llvm_error_still_reaches_stderr_through_the_warning_filter():
    """LLVM prints its last words to fd 2 and aborts the process inside the filter's block; a header
    warning written before them is dropped, the user's warning and the error are not."""
    import subprocess
    import sys
    code = ("import os\nfrom shflx.codegen.diagnostics import llvm_warnings\n"
            "with llvm_warnings():\n"
            "    os.write(2, b'warning: /x/site-packages/nvidia/cu13/include/cccl/cub/a.cuh:1:2: loop not unrolled\\n')\n"
            "    os.write(2, b'warning: mine.cu:3:4: loop not unrolled\\n')\n"
            "    os.write(2, b'LLVM ERROR: Invalid dpp_ctrl value')\n"
            "    os.abort()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert r.stderr.splitlines() == ["warning: mine.cu:3:4: loop not unrolled", "LLVM ERROR: Invalid dpp_ctrl value"], r.stderr
