"""Clang offload bundles (``__CLANG_OFFLOAD_BUNDLE__``, how HIP fat binaries and many vendor
``.co``/``.hsaco`` files carry per-GPU code objects): pick the entry for a target.

Layout (clang/lib/Driver/OffloadBundler.cpp): 24-byte magic, u64 entry count, then per entry
u64 offset, u64 size, u64 id length, id (``hipv4-amdgcn-amd-amdhsa--gfx942:xnack-``).
Compressed bundles (``CCOB``: u16 version, u16 method 0 = zlib / 1 = zstd, sizes, hash, data)
are unpacked with zlib, or with the ``zstandard`` module when it is installed.
"""

from __future__ import annotations

import struct
import zlib

from gcnforge.diagnostics import Diagnostic

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
COMPRESSED_MAGIC = b"CCOB"
MAX_ENTRIES = 4096


def is_bundle(data: bytes) -> bool:
    return data.startswith(MAGIC) or data.startswith(COMPRESSED_MAGIC)


def bundle_entries(data: bytes, where: object = None) -> list[tuple[str, bytes]]:
    """(id, bytes) of every entry."""
    if data.startswith(COMPRESSED_MAGIC):
        data = _decompress(data, where)
    if not data.startswith(MAGIC):
        raise Diagnostic("not a clang offload bundle", where)
    pos = len(MAGIC)
    if pos + 8 > len(data):
        raise Diagnostic("truncated offload bundle header", where)
    (n,) = struct.unpack_from("<Q", data, pos)
    pos += 8
    if n > MAX_ENTRIES:
        raise Diagnostic(f"offload bundle claims {n} entries", where)
    out = []
    for i in range(n):
        if pos + 24 > len(data):
            raise Diagnostic(f"truncated offload bundle entry {i}", where)
        off, size, idlen = struct.unpack_from("<QQQ", data, pos)
        pos += 24
        if pos + idlen > len(data) or off + size > len(data):
            raise Diagnostic(f"offload bundle entry {i} runs past the end of the file", where)
        ident = data[pos:pos + idlen].decode("utf-8", "replace")
        pos += idlen
        out.append((ident, data[off:off + size]))
    return out


def select_entry(data: bytes, processor: str | None = None, where: object = None) -> bytes:
    """The amdgcn code object for ``processor`` (or the only amdgcn entry when None)."""
    entries = [(i, b) for i, b in bundle_entries(data, where) if "amdgcn-amd-amdhsa" in i and b]
    if processor is not None:
        matching = [(i, b) for i, b in entries if i.split("--", 1)[-1].split(":")[0] == processor]
    else:
        matching = entries
    if len(matching) == 1:
        return matching[0][1]
    ids = ", ".join(i for i, _ in entries) or "none"
    what = f"for {processor}" if processor else "(choose one with a target)"
    raise Diagnostic(f"offload bundle has {len(matching)} amdgcn code objects {what}; entries: {ids}", where)


def _decompress(data: bytes, where: object) -> bytes:
    if len(data) < 8:
        raise Diagnostic("truncated compressed offload bundle", where)
    version, method = struct.unpack_from("<HH", data, 4)
    header = {1: 4 + 4 + 8 + 8, 2: 4 + 4 + 4 + 8 + 8, 3: 4 + 4 + 8 + 8 + 8}.get(version)
    if header is None:
        raise Diagnostic(f"unsupported compressed offload bundle version {version}", where)
    payload = data[header:]
    try:
        if method == 0:
            return zlib.decompress(payload)
        if method == 1:
            try:
                import zstandard  # optional
            except ImportError:
                raise Diagnostic("zstd-compressed offload bundle: install the 'zstandard' package, or unbundle it "
                                 "with 'clang-offload-bundler -unbundle' first", where) from None
            return zstandard.ZstdDecompressor().decompress(payload, max_output_size=1 << 30)
    except Diagnostic:
        raise
    except Exception as e:
        raise Diagnostic(f"cannot decompress offload bundle: {e}", where) from None
    raise Diagnostic(f"unknown offload bundle compression method {method}", where)
