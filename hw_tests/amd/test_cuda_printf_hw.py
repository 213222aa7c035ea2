"""Device printf (ROCm's buffered printf, shflx_cuda.h's __printf_alloc) on each AMD device.

On a GPU the HIP runtime gives the kernel a printf buffer (the code object's amdhsa.printf
metadata asks for one) and prints the records after the kernel: every thread's line appears on
stdout and printf returns 0. The emulator passes no printf buffer (a 0 hidden argument,
shared/amdemu/README.md), so there __printf_alloc reserves nothing, nothing is printed and printf
returns -1: the kernel runs on, with its other results intact.

  pytest hw_tests/amd/test_cuda_printf_hw.py"""
from __future__ import annotations

import contextlib
import hashlib
import re
import struct

import numpy as np
import pytest

from hw_devices import assert_bit_exact, code_object, device_params, require, selected
from shflx.codegen.inspect import inspect_code_object

SOURCE = r"""
extern "C" __global__ void hello(const int *in, int *out) {
  int t = threadIdx.x;
  int r = printf("shflx printf: thread %d value %d half %f\n", t, in[t], 0.5 * in[t]);
  out[t] = in[t] * 3 + (r << 16);
}
"""


def _cases(device):
    yield "hello", "hello", ()


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_device_printf_prints_on_a_gpu_and_keeps_the_kernel_running(device, case, tmp_path_factory, capfd):
    require(device)
    hsaco = code_object(SOURCE, "printf.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    v = np.arange(64, dtype=np.int32) * 7 - 100
    got = np.asarray(device.run_kernel(hsaco, "hello", [v], 64, np.int32, block=(64, 1, 1), grid=(1, 1, 1)))
    printed = capfd.readouterr().out
    if selected().kind == "emulator":             # no printf buffer: printf returns -1, prints nothing
        assert_bit_exact(got, (v * 3 + (-1 << 16)).astype(np.int32), f"printf without a buffer ({device.arch})")
        assert "shflx printf" not in printed
        return
    assert_bit_exact(got, (v * 3).astype(np.int32), f"printf's return value ({device.arch})")
    lines = sorted(ln for ln in printed.splitlines() if ln.startswith("shflx printf"))
    want = sorted(f"shflx printf: thread {t} value {int(v[t])} half {0.5 * int(v[t]):f}" for t in range(64))
    assert lines == want


# The records themselves, on the emulator, read back as the HIP runtime reads them: the test gives
# the kernel a printf buffer (what the runtime does on a GPU; amdemu passes 0) and decodes it with
# the code object's amdhsa.printf metadata. The record layout is clang's buffered printf
# (llvm/lib/Transforms/Utils/AMDGPUEmitPrintf.cpp, callBufferedPrintfStart/ArgPush): a control
# dword (frame bytes << 2 | 2 for a constant format | 0 for stdout), the low 64 bits of the format's
# MD5 (little-endian), then each argument: a non-string zero-extended (integers) or widened to
# double (floats) into 8 bytes, a string copied with its NUL and padded to a multiple of 8. The
# buffer starts with the used byte count and the buffer's size (ROCm-Device-Libs ockl
# __printf_alloc, OFFSET 8). One thread per block: amdemu runs a wave's global_atomic_cmpswap on one
# address as if every lane found the old value (each lane of a 64-thread block sees 0 from an
# atomicCAS(p, 0, lane + 1); a GPU serializes them), so __printf_alloc's loop would hand every
# lane of a wave the same room; blocks run one after another there.
RECORDS = r"""
extern "C" __global__ void records(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x, v = in[t];
  const char *parity = (v & 1) ? "odd" : "evenly";
  out[t] = printf("t=%d v=%i u=%#x big=%lld f=%.3f g=%g c=%c s=%s p=%s 100%%\n", t, v, (unsigned)v,
                  (long long)v * 1000000007LL, v / 4.0f, 0.5 * v, 'a' + t % 26, "const", parity);
}
"""
CONVERSION = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)(hh|h|ll|l|z|j|t)?([diouxXfFeEgGaAcs%])")


def _formats(meta: dict) -> dict[int, str]:
    """amdhsa.printf entries `0:0:<md5 low 64 bits, hex>,<format>` by hash."""
    out = {}
    for entry in meta["amdhsa.printf"]:
        _id, _sizes, rest = entry.split(":", 2)
        digest, fmt = rest.split(",", 1)
        out[int(digest, 16)] = fmt
    return out


def _render(fmt: str, frame: bytes) -> tuple[str, int]:
    """The line `fmt` prints with the arguments of one record's `frame`; bytes of it consumed."""
    at, pieces, last = 0, [], 0
    for m in CONVERSION.finditer(fmt):
        pieces.append(fmt[last:m.start()])
        last = m.end()
        length, conv = m.group(2) or "", m.group(3)
        spec = "%" + m.group(1) + conv                # Python's % takes no length modifier
        if conv == "%":
            pieces.append("%")
            continue
        if conv == "s":
            text = frame[at:frame.index(b"\0", at)]
            at += (len(text) + 1 + 7) // 8 * 8
            pieces.append(spec % text.decode())
            continue
        raw = int.from_bytes(frame[at:at + 8], "little")
        at += 8
        if conv in "fFeEgGaA":
            value = struct.unpack("<d", raw.to_bytes(8, "little"))[0]
        else:
            bits = 64 if length in ("ll", "l", "z", "j", "t") else 8 if conv == "c" else 32
            value = raw & ((1 << bits) - 1)
            if conv in "di" and value >> (bits - 1):
                value -= 1 << bits
            if conv == "c":
                value = chr(value)
        pieces.append(spec % value)
    pieces.append(fmt[last:])
    return "".join(pieces), at


def _decode(buffer: np.ndarray, formats: dict[int, str]) -> list[str]:
    """Every record in the printf buffer, as the lines the runtime prints."""
    raw = buffer.tobytes()
    used = int.from_bytes(raw[0:4], "little")
    at, lines = 8, []
    while at < 8 + used:
        control = int.from_bytes(raw[at:at + 4], "little")
        size = control >> 2
        assert control & 3 == 2, f"record at {at}: control {control:#x} (want a constant format, stdout)"
        fmt = formats[int.from_bytes(raw[at + 4:at + 12], "little")]
        line, consumed = _render(fmt, raw[at + 12:at + size])
        assert 12 + consumed == size, f"record at {at}: {size} bytes, its arguments fill {12 + consumed}"
        lines.append(line)
        at += size
    assert at == 8 + used
    return lines


@contextlib.contextmanager
def _printf_buffer(buffer: np.ndarray):
    """amdemu launches with `buffer` as the hidden printf-buffer argument (it passes 0 otherwise)."""
    import amdemu.loader as loader
    build = loader.build_kernarg

    def with_buffer(k, explicit, grid, block, dynamic_lds=0):
        karg = bytearray(build(k, explicit, grid, block, dynamic_lds))
        [slot] = [a[".offset"] for a in k.args if a[".value_kind"] == "hidden_printf_buffer"]
        karg[slot:slot + 8] = buffer.ctypes.data.to_bytes(8, "little")
        return bytes(karg)

    loader.build_kernarg = with_buffer
    try:
        yield
    finally:
        loader.build_kernarg = build


def _emulated(device):
    if selected().kind == "emulator":
        yield "records", "records", ()


@pytest.mark.parametrize("room", ["all", "some"])
@pytest.mark.parametrize("device,case", device_params(_emulated))
def test_device_printf_records_decode_to_each_threads_line(device, case, room, tmp_path_factory):
    require(device)
    hsaco = code_object(RECORDS, "printf_records.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    meta = inspect_code_object(hsaco).metadata
    formats = _formats(meta)
    fmt = "t=%d v=%i u=%#x big=%lld f=%.3f g=%g c=%c s=%s p=%s 100%%\n"
    assert formats == {int.from_bytes(hashlib.md5(fmt.encode()).digest()[:8], "little"): fmt}
    threads = 128
    v = (np.arange(threads, dtype=np.int64) * 2654435761 % 2001 - 1000).astype(np.int32)
    want = [f"t={t} v={x} u={x & 0xffffffff:#x} big={x * 1000000007} f={x / 4:.3f} g={0.5 * x:g} "
            f"c={chr(97 + t % 26)} s=const p={'odd' if x & 1 else 'evenly'} 100%\n" for t, x in enumerate(v.tolist())]
    record = 12 + 8 * 7 + 8 + 8                      # control, hash, 7 scalars, "const", "odd"/"evenly"
    fits = threads if room == "all" else 45
    buffer = np.zeros((8 + record * fits + (record - 1 if room == "some" else 64)) // 4, np.uint32)
    buffer[1] = buffer.nbytes
    with _printf_buffer(buffer):
        got = np.asarray(device.run_kernel(hsaco, "records", [v], threads, np.int32, block=(1, 1, 1),
                                           grid=(threads, 1, 1)))
    printed = _decode(buffer, formats)
    assert int(buffer[0]) == record * fits
    assert sorted(printed) == sorted(want[t] for t in np.flatnonzero(got == 0))
    assert sorted(got.tolist()) == [-1] * (threads - fits) + [0] * fits   # printf: 0, or -1 with no room
