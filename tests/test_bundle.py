"""Clang offload bundles (codegen.bundle) against the layout clang documents, parsed here by hand,
and against clang-offload-bundler where one is installed."""
from __future__ import annotations

import shutil
import struct
import subprocess

import pytest

from shflx.codegen.bundle import BundleError, hip_entry_id, read_bundle, write_bundle


def parse_by_hand(blob: bytes) -> list[tuple[str, int, bytes]]:
    """The documented layout, read independently: magic(24) count(u64) {offset size idlen id}*."""
    assert blob[:24] == b"__CLANG_OFFLOAD_BUNDLE__"
    count = int.from_bytes(blob[24:32], "little")
    pos, out = 32, []
    for _ in range(count):
        off, size, n = (int.from_bytes(blob[pos + 8 * k: pos + 8 * k + 8], "little") for k in range(3))
        out.append((blob[pos + 24: pos + 24 + n].decode(), off, blob[off: off + size]))
        pos += 24 + n
    return out


def test_written_bundles_follow_the_documented_layout():
    objs = {hip_entry_id("gfx90a"): b"\x7fELF" + bytes(range(200)), hip_entry_id("gfx942:xnack+"): b"\x7fELF42"}
    blob = write_bundle(objs)
    entries = parse_by_hand(blob)
    assert [e[0] for e in entries] == ["host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx90a",
                                       "hipv4-amdgcn-amd-amdhsa--gfx942:xnack+"]
    assert entries[0][2] == b"" and entries[1][2] == objs[hip_entry_id("gfx90a")]
    assert all(off % 4096 == 0 for _, off, data in entries if data)
    assert read_bundle(blob) == {"host-x86_64-unknown-linux-gnu-": b"", **objs}


@pytest.mark.parametrize("blob", [b"", b"__CLANG_OFFLOAD_BUNDLE_", b"__CLANG_OFFLOAD_BUNDLE__\x01",
                                  b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<QQQQ", 1, 9999, 10, 1) + b"x"])
def test_broken_bundles_are_refused(blob):
    with pytest.raises(BundleError):
        read_bundle(blob)


def test_clang_offload_bundler_reads_ours(tmp_path):
    tool = next((shutil.which(n) for n in ("clang-offload-bundler", "clang-offload-bundler-19",
                                             "clang-offload-bundler-16", "clang-offload-bundler-15") if shutil.which(n)), None)
    if tool is None:
        pytest.skip("no clang-offload-bundler installed (.ci/run installs hipcc, which brings one)")
    path = tmp_path / "b.hipfb"
    objs = {hip_entry_id("gfx90a"): b"gfx90a code", hip_entry_id("gfx1100"): b"gfx1100 code" * 50}
    path.write_bytes(write_bundle(objs))
    listed = subprocess.run([tool, "-list", "-type=o", f"-input={path}"], capture_output=True, text=True)
    assert listed.returncode == 0 and set(listed.stdout.split()) == {"host-x86_64-unknown-linux-gnu-", *objs}
    out = tmp_path / "one"
    done = subprocess.run([tool, "-unbundle", "-type=o", f"-input={path}", f"-targets={hip_entry_id('gfx1100')}",
                           f"-output={out}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == objs[hip_entry_id("gfx1100")]
