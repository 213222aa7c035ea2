"""Clang offload bundles: the container HIP puts in a host object's `.hip_fatbin` section.

Written here from the layout clang documents ("Bundled Code Object Layout",
https://clang.llvm.org/docs/ClangOffloadBundler.html): the 24-byte magic `__CLANG_OFFLOAD_BUNDLE__`,
a little-endian u64 entry count, then per entry its offset (from the start of the bundle), size,
ID length and ID (no terminator), then the code objects. An ID is `<kind>-<triple>[-<target id>]`
with a four-part triple, e.g. `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+`; HIP's runtime expects a
(empty) host entry too, as clang's driver writes it. Code objects start on 4096-byte boundaries
like clang-offload-bundler's for HIP (their ELF segments are page aligned). No packaged tool is
needed; `read_bundle` reads back what `write_bundle` (or clang-offload-bundler) writes."""
from __future__ import annotations

import struct

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
ALIGN = 4096
HOST_ID = "host-x86_64-unknown-linux-gnu-"


class BundleError(ValueError):
    """The bytes are not an (uncompressed) clang offload bundle."""


def hip_entry_id(target_id: str) -> str:
    """The bundle ID of a HIP code object for `target_id` (gfx90a, gfx942:xnack+, ...)."""
    return f"hipv4-amdgcn-amd-amdhsa--{target_id}"


def write_bundle(objects: dict[str, bytes], host: bool = True) -> bytes:
    """A bundle holding `objects` (ID -> bytes) in the given order, after an empty host entry."""
    entries = ([(HOST_ID, b"")] if host else []) + list(objects.items())
    header = len(MAGIC) + 8 + sum(24 + len(i.encode()) for i, _ in entries)
    offsets, end = [], header
    for _, data in entries:
        if data:
            end = -(-end // ALIGN) * ALIGN
        offsets.append(end)
        end += len(data)
    out = bytearray(MAGIC + struct.pack("<Q", len(entries)))
    for (ident, data), off in zip(entries, offsets):
        raw = ident.encode()
        out += struct.pack("<QQQ", off, len(data), len(raw)) + raw
    for (_, data), off in zip(entries, offsets):
        out += bytes(off - len(out)) + data
    return bytes(out)


def read_bundle(blob: bytes) -> dict[str, bytes]:
    """ID -> code object of a bundle, in bundle order; BundleError if it is not one."""
    if not blob.startswith(MAGIC):
        raise BundleError("no __CLANG_OFFLOAD_BUNDLE__ magic (compressed bundles, CCOB, are not read)")
    try:
        (count,) = struct.unpack_from("<Q", blob, len(MAGIC))
        pos, out = len(MAGIC) + 8, {}
        for _ in range(count):
            off, size, n = struct.unpack_from("<QQQ", blob, pos)
            ident = blob[pos + 24: pos + 24 + n].decode()
            pos += 24 + n
            if off + size > len(blob) or len(ident) != n:
                raise BundleError(f"entry {ident!r} lies outside the bundle")
            out[ident] = blob[off: off + size]
    except struct.error:
        raise BundleError("the bundle header is truncated") from None
    return out
