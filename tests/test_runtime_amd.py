"""Which AMD device hardware tests run on (shflx.runtime.amd) and the emulator adapter
(shflx.runtime.emulator): the choice variable, the fallback order, and the reasons given."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import shflx.runtime.amd as amd
import shflx.runtime.emulator as emulator
from shflx.errors import UsageError

SHARED_AMDEMU = amd.Path(__file__).resolve().parents[1].parent / "shared" / "amdemu"


class FakeGpu:
    arch = arch_full = "gfx942"
    name = "fake"


def _no_gpu(index=0, hip_module=None):
    return None, "hipGetDeviceCount: no device"


def _emulator_for(arch, search=()):
    return emulator.EmulatedDevice(arch, f"fake emulator for {arch}"), ""


def _no_emulator(arch, search=()):
    return None, "amdemu is not importable"


@pytest.fixture
def env(monkeypatch):
    for name in (amd.CHOICE_VARIABLE, amd.TARGETS_VARIABLE):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_auto_prefers_the_gpu(env):
    env.setattr(amd, "probe_hip", lambda index=0, hip_module=None: (FakeGpu(), ""))
    env.setattr(amd, "probe_emulator", _emulator_for)
    sel = amd.amd_devices()
    assert sel.kind == "hip" and [d.arch for d in sel.devices] == ["gfx942"]


def test_auto_falls_back_to_the_emulated_targets(env):
    env.setattr(amd, "probe_hip", _no_gpu)
    env.setattr(amd, "probe_emulator", _emulator_for)
    assert [d.arch for d in amd.amd_devices().devices] == list(amd.DEFAULT_EMULATED)
    env.setenv(amd.TARGETS_VARIABLE, " gfx90a, gfx1100 ,")
    sel = amd.amd_devices()
    assert sel.kind == "emulator" and [d.arch for d in sel.devices] == ["gfx90a", "gfx1100"]


def test_forced_emulator_ignores_the_gpu(env):
    env.setattr(amd, "probe_hip", lambda index=0, hip_module=None: (FakeGpu(), ""))
    env.setattr(amd, "probe_emulator", _emulator_for)
    env.setenv(amd.CHOICE_VARIABLE, "Emulator")
    assert amd.amd_devices(targets=["gfx1100"]).kind == "emulator"


def test_forced_hip_never_emulates(env):
    env.setattr(amd, "probe_hip", _no_gpu)
    env.setattr(amd, "probe_emulator", _emulator_for)
    env.setenv(amd.CHOICE_VARIABLE, "hip")
    sel = amd.amd_devices()
    assert sel.devices == () and "SHFLX_AMD_DEVICE=hip" in sel.why and "no device" in sel.why


def test_nothing_says_why_for_both(env):
    env.setattr(amd, "probe_hip", _no_gpu)
    env.setattr(amd, "probe_emulator", _no_emulator)
    sel = amd.amd_devices()
    assert sel.devices == () and "hipGetDeviceCount" in sel.why and "amdemu is not importable" in sel.why


def test_a_bad_choice_is_a_usage_error(env):
    env.setenv(amd.CHOICE_VARIABLE, "cuda")
    with pytest.raises(UsageError, match="SHFLX_AMD_DEVICE='cuda'.*auto, hip, emulator"):
        amd.amd_devices()


def test_emulator_not_found_names_where_it_looked(monkeypatch, tmp_path):
    monkeypatch.setattr(emulator.importlib.util, "find_spec", lambda name: None)
    monkeypatch.delenv(emulator.PATH_VARIABLE, raising=False)
    dev, why = emulator.probe_emulator("gfx942", [tmp_path])
    assert dev is None and str(tmp_path) in why and "SHFLX_AMDEMU" in why


@pytest.fixture(scope="module")
def emulated_gfx942():
    """The real emulator (shared/amdemu; CI installs its requirements): skips without it, and
    fails under CI=true (tests/ci_policy.py)."""
    dev, why = emulator.probe_emulator("gfx942", [SHARED_AMDEMU])
    if dev is None:
        pytest.skip(f"no AMD emulator: {why}")
    return dev


def test_emulator_reports_targets_it_has_no_model_for(emulated_gfx942):
    dev, why = emulator.probe_emulator("gfx1030", [SHARED_AMDEMU])
    assert dev is None and "gfx1030" in why


def test_emulator_runs_under_shflx_assumed_readings(emulated_gfx942):
    assert emulated_gfx942.readings.keys() == emulator.ASSUMED_READINGS.keys()
    assert "amdemu" in sys.modules


def test_emulated_kernel_runs_and_rejects_another_target(emulated_gfx942):
    """A hand-written kernel through the whole path: llvmlite codegen, link, emulator launch."""
    from shflx.codegen.link import link_hsaco
    from shflx.codegen.llvm import compile_ir
    ir = """target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %s) {
  %i = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %i
  %v = load i32, ptr addrspace(1) %p
  %r = add i32 %v, %s
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %i
  store i32 %r, ptr addrspace(1) %q
  ret void
}
"""
    hsaco = link_hsaco(compile_ir(ir, "gfx942", wave=64, emit="obj"))
    x = np.arange(64, dtype=np.uint32) * 977
    got = emulated_gfx942.run_kernel(hsaco, "k", [x], 64, np.uint32, block=(64, 1, 1), scalars=[5])
    assert np.array_equal(got, x + 5)
    other = emulator.EmulatedDevice("gfx90a", "x")
    with pytest.raises(ValueError, match="gfx942"):
        other.run_kernel(hsaco, "k", [x], 64, np.uint32, block=(64, 1, 1), scalars=[5])


BARRIER_KERNELS = r"""
__global__ void reverse(float *out) {            // __syncthreads(): on gfx11 an s_barrier, buffer_gl0_inv
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[63 - threadIdx.x];
}
__global__ void reverse_generic(float *out) {    // volatile through a generic pointer: FLAT into the LDS aperture
  __shared__ float s[64];
  volatile float *p = s;
  p[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = p[63 - threadIdx.x];
}
"""


def _barrier_code(tmp_path, arch):
    from shflx.driver.amd import compile_file
    src = tmp_path / "barrier.cu"
    src.write_text(BARRIER_KERNELS)
    return compile_file(src, arch).output


def _barrier_word_count(hsaco: bytes, word: int) -> int:
    return int((np.frombuffer(hsaco[:len(hsaco) // 4 * 4], dtype="<u4") == word).sum())


def test_the_barrier_kernels_run_as_built_on_gfx11_and_gfx9(emulated_gfx942, tmp_path):
    """__syncthreads() on gfx11 is s_barrier then buffer_gl0_inv (MUBUF opcode 43: 0xE0AC0000,
    "RDNA3" ISA guide §16.12), which amdemu now decodes: the code object runs as built (no
    instruction replaced), and a generic pointer into __shared__ (FLAT through the LDS aperture)
    reads and writes the LDS, on both targets."""
    dev, why = emulator.probe_emulator("gfx1100", [SHARED_AMDEMU])
    assert dev is not None, why
    want = np.arange(63, -1, -1, dtype=np.float32)
    for device, arch in ((dev, "gfx1100"), (emulated_gfx942, "gfx942")):
        hsaco = _barrier_code(tmp_path, arch)
        if arch == "gfx1100":
            assert _barrier_word_count(hsaco, 0xE0AC0000) >= 1        # the cache invalidate is there
        for kernel in ("_Z7reversePf", "_Z15reverse_genericPf"):
            out = device.launch(hsaco, kernel, [np.zeros(64, np.float32)], block=(64, 1, 1))[0]
            assert np.array_equal(out, want), (arch, kernel)


def test_only_an_instruction_the_emulator_does_not_decode_is_a_gap():
    """amdemu's decoder error for gfx90a's v_mad_f32 (VOP3A opcode 0x1c1) is the named gap; the
    same word on gfx942, another word, or another error stays the failure it is."""
    from shflx.runtime.emulator_gaps import undecoded
    mad = ValueError("unknown cdna format word=0xd1c10005")
    assert undecoded("gfx90a", mad) == "v_mad_f32"
    assert undecoded("gfx942", mad) == ""
    assert undecoded("gfx90a", ValueError("unknown cdna format word=0xd1c20005")) == ""     # v_mad_i32_i24
    assert undecoded("gfx90a", ValueError("kernel targets gfx942")) == ""


SDWA_KERNEL = r"""
#include <cuda_fp16.h>
// DeepSpeed's absmax of 8 halves a thread, as a compare and select of |x| per half (how the layer's own
// __hmax was written; NVIDIA's __hmax2 is max.f16x2, which LLVM selects otherwise)
__global__ void absmax(const uint4 *v, __half2 *out) {
  uint4 raw = v[threadIdx.x];
  const __half2 *h = reinterpret_cast<const __half2 *>(&raw);
  _Float16 lo = -__builtin_inff16(), hi = -__builtin_inff16();
  for (int i = 0; i < 4; i++) {
    _Float16 a = __builtin_fabsf16(__builtin_bit_cast(_Float16, __half_as_ushort(__low2half(h[i]))));
    _Float16 b = __builtin_fabsf16(__builtin_bit_cast(_Float16, __half_as_ushort(__high2half(h[i]))));
    lo = a > lo ? a : lo;
    hi = b > hi ? b : hi;
  }
  out[threadIdx.x] = __halves2half2(__ushort_as_half(__builtin_bit_cast(unsigned short, lo)),
                                    __ushort_as_half(__builtin_bit_cast(unsigned short, hi)));
}
"""


def test_sdwa_operand_modifiers_run_on_gfx9_and_where_there_is_no_sdwa(emulated_gfx942, tmp_path):
    """On gfx942 LLVM selects an SDWA compare with |v| operands for a high half (SRC0 field 0xF9 and
    an abs bit, bits 21/29 of the second word: "AMD Instinct MI300" ISA guide §13.3 "VOP_SDWA");
    amdemu applies the modifiers now, so the kernel gives numpy's answer there, as on gfx1100 (no
    SDWA)."""
    from shflx.driver.amd import compile_file
    src = tmp_path / "absmax.cu"
    src.write_text(SDWA_KERNEL)
    x = np.random.default_rng(5).uniform(-2, 2, 64 * 8).astype(np.float16)
    want = np.abs(x).reshape(64, 4, 2).max(axis=1).ravel()
    gfx942 = compile_file(src, "gfx942").output
    words = np.frombuffer(gfx942[:len(gfx942) // 4 * 4], dtype="<u4")
    assert (((words[:-1] & 0x1FF) == 0xF9) & ((words[1:] & ((1 << 21) | (1 << 29))) != 0)).any()
    rdna3, why = emulator.probe_emulator("gfx1100", [SHARED_AMDEMU])
    assert rdna3 is not None, why
    for device, hsaco in ((emulated_gfx942, gfx942), (rdna3, compile_file(src, "gfx1100").output)):
        got = device.launch(hsaco, "_Z6absmaxPK5uint4P7__half2",
                            [x.view(np.uint32), np.zeros(128, np.float16)], block=(64, 1, 1))[1]
        assert np.array_equal(got, want), device.arch


TYPED_KERNEL = r"""
#include <cuda_fp16.h>
extern __shared__ float staged[];
__global__ void mix(const double *x, float *y, unsigned char *z, float a, long long b, __half h,
                    unsigned char c, short s, int n) {
  int i = threadIdx.x;
  staged[i] = (float)x[i] * a;           // dynamic shared memory, read back by the other wave
  __syncthreads();
  float v = staged[63 - i];              // every lane's address in range (amdemu reads inactive lanes' too)
  if (i < n) y[i] = v + (float)(b >> 33) + __half2float(h);
  z[i] = (unsigned char)(i + c + s);
}
"""
TYPED_NAME = "_Z3mixPKdPfPhfx6__halfhsi"


def test_emulated_launch_passes_typed_scalars_and_returns_every_buffer(emulated_gfx942, tmp_path):
    """launch() as the corpus check uses it: buffers of several element types, by-value scalars of
    six sizes and kinds (a 64-bit one whose high word matters, a __half), `extern __shared__` shared
    by gfx1100's two wave32 waves across the barrier. (amdemu's LDS is 64 KiB whatever dynamic_lds
    asks, so the size itself is checked on the HIP side only: test_codegen's fake HIP.)"""
    from shflx.driver.amd import compile_file
    dev, why = emulator.probe_emulator("gfx1100", [SHARED_AMDEMU])
    assert dev is not None, why
    src = tmp_path / "mix.cu"
    src.write_text(TYPED_KERNEL)
    hsaco = compile_file(src, "gfx1100").output
    x, y, z = np.arange(64, dtype=np.float64), np.full(64, -1, np.float32), np.zeros(64, np.uint8)
    scalars = [np.float32(0.5), np.int64(3 << 33), np.float16(-2.0), np.uint8(250), np.int16(-300), np.int32(40)]
    got = dev.launch(hsaco, TYPED_NAME, [x, y, z, *scalars], block=(64, 1, 1), dynamic_lds=64 * 4)
    assert got[3:] == [None] * 6 and np.array_equal(got[0], x)
    want_y = np.where(np.arange(64) < 40, (63 - np.arange(64)) * 0.5 + 3 - 2, -1).astype(np.float32)
    assert np.array_equal(got[1], want_y)
    assert np.array_equal(got[2], ((np.arange(64) + 250 - 300) % 256).astype(np.uint8))
    assert np.array_equal(y, np.full(64, -1, np.float32)) and not z.any()       # the caller's arrays untouched
    wrong = [x, y, z, scalars[0], np.int32(3), *scalars[2:]]                    # an int for the long long
    with pytest.raises(ValueError, match="argument b: 4 bytes given, the kernel takes 8"):
        dev.launch(hsaco, TYPED_NAME, wrong, block=(64, 1, 1), dynamic_lds=64 * 4)
