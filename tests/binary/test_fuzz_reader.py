"""Fuzz read_code_object with mutated real code objects: nothing but Diagnostic may escape."""

from __future__ import annotations

import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcnforge.binary import assemble, read_code_object
from gcnforge.diagnostics import Diagnostic

from .corpus import CASES, kernel_file

# A built-in code object with metadata and several kernels (no LLVM needed), plus the
# clang-built ones when LLVM is present (via the fixture, in the second test).
_MD = """\t.amdgpu_metadata
---
amdhsa.kernels:
  - .args: [ { .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global } ]
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 256
    .name: defaults
    .private_segment_fixed_size: 0
    .sgpr_count: 8
    .symbol: defaults.kd
    .vgpr_count: 1
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.version: [ 1, 2 ]
...
\t.end_amdgpu_metadata
"""
SEED = assemble(kernel_file({k: CASES[k] for k in ("defaults", "sizes", "exceptions")}) + _MD)


def _check(data: bytes) -> None:
    try:
        co = read_code_object(data)
    except Diagnostic as d:
        assert str(d)
        return
    # A successful read must be self-consistent.
    for k in co.kernels.values():
        assert k.code == co.text[k.code_offset:k.code_offset + len(k.code)]


def _header_offsets(data: bytes) -> list[int]:
    """Offsets of fields that matter most: ELF header, program/section headers, symbols, note."""
    shoff, = struct.unpack_from("<Q", data, 40)
    shnum, = struct.unpack_from("<H", data, 60)
    offs = list(range(0, 64)) + list(range(64, 64 + 56 * 8))
    offs += list(range(shoff, min(len(data), shoff + 64 * shnum)))
    offs += list(range(0x1C8, 0x300))  # note/dynsym/hash area of a small object
    return [o for o in offs if o < len(data)]


mutation = st.one_of(
    st.tuples(st.just("byte"), st.integers(0, len(SEED) - 1), st.integers(0, 255)),
    st.tuples(st.just("hdr"), st.sampled_from(_header_offsets(SEED)), st.integers(0, 255)),
    st.tuples(st.just("u64"), st.sampled_from(_header_offsets(SEED)),
              st.sampled_from([0, 1, 0x7FFFFFFF, 0xFFFFFFFF, 2**63 - 1, 2**64 - 1, len(SEED), len(SEED) + 1])),
    st.tuples(st.just("trunc"), st.integers(0, len(SEED)), st.just(0)),
)


def _apply(data: bytes, muts) -> bytes:
    b = bytearray(data)
    for kind, off, val in muts:
        if kind in ("byte", "hdr") and off < len(b):
            b[off] = val
        elif kind == "u64" and off + 8 <= len(b):
            struct.pack_into("<Q", b, off, val)
        elif kind == "trunc":
            del b[off:]
    return bytes(b)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutation, min_size=1, max_size=4))
def test_mutated_builtin_object(muts):
    _check(_apply(SEED, muts))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(mutation, min_size=1, max_size=3), st.sampled_from(["vadd", "reduce_lds", "two_kernels"]))
def test_mutated_clang_object(clang_objects, muts, name):
    _check(_apply(clang_objects[name], muts))


@given(st.binary(max_size=256))
@settings(max_examples=200, deadline=None)
def test_random_bytes(data):
    _check(b"\x7fELF\x02\x01\x01\x40" + data)


@given(st.binary(max_size=300), st.sampled_from([b"__CLANG_OFFLOAD_BUNDLE__", b"CCOB"]))
@settings(max_examples=200, deadline=None)
def test_random_bundles(data, magic):
    _check(magic + data)
