"""A copy of a code-object image whose AMDGPU metadata note is replaced.

Why: the HIP runtime copies a kernel's explicit arguments from the launch buffer one by one,
each at the offset its metadata ``.args`` entry names (ROCm clr, ``hipamd/src/hip_module.cpp``
and ``rocclr/platform/kernel.hpp`` ``KernelSignature``). A hand-written ``.s`` or a vendor
``.co`` often lists no ``.args`` at all and is launched with an explicit layout
(``ArgLayout.slots16``); HIP then passes the kernel no argument bytes. The HIP backend hands
``hipModuleLoadData`` an image whose metadata describes the layout's arguments; the file on
disk is never changed.

How: the new note is appended at the end of the image (8-byte aligned) and both the
``PT_NOTE`` program header and the ``SHT_NOTE`` section header that held the old metadata
note are pointed at it (the note becomes non-allocated: ``p_vaddr``/``sh_addr`` 0, ``SHF_ALLOC``
cleared). Notes are read through those headers (LLVM's ``ELFFile::notes``, comgr's metadata
lookup), never through a loaded segment, so nothing else in the image moves. ELF-64 layouts:
System V gABI, "ELF Header", "Program Header", "Section Header".
"""

from __future__ import annotations

import struct

from gcnforge.binary.metadata import metadata_note
from gcnforge.diagnostics import Diagnostic

PT_NOTE = 4
SHT_NOTE = 7
SHF_ALLOC = 0x2
_PHDR = struct.Struct("<IIQQQQQQ")  # p_type p_flags p_offset p_vaddr p_paddr p_filesz p_memsz p_align
_SHDR = struct.Struct("<IIQQQQIIQQ")  # sh_name type flags addr offset size link info addralign entsize


def replace_metadata(image: bytes, metadata: dict, where: str = "<code object>") -> bytes:
    """``image`` with its AMDGPU metadata note replaced by ``metadata`` (a whole
    ``amdhsa.*`` map). The image must already hold a note segment and a note section."""
    data = bytearray(image)
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise Diagnostic("not a 64-bit little-endian ELF image", where)
    e_phoff, e_shoff = struct.unpack_from("<QQ", data, 0x20)
    e_phentsize, e_phnum, e_shentsize, e_shnum = struct.unpack_from("<HHHH", data, 0x36)
    note = metadata_note(metadata)
    start = -(-len(data) // 8) * 8
    data += bytes(start - len(data)) + note
    patched = 0
    for i in range(e_phnum):
        off = e_phoff + i * e_phentsize
        h = list(_PHDR.unpack_from(data, off))
        if h[0] == PT_NOTE:
            h[2], h[3], h[4], h[5], h[6], h[7] = start, 0, 0, len(note), len(note), 4
            _PHDR.pack_into(data, off, *h)
            patched |= 1
    for i in range(e_shnum):
        off = e_shoff + i * e_shentsize
        h = list(_SHDR.unpack_from(data, off))
        if h[1] == SHT_NOTE:
            h[2] &= ~SHF_ALLOC
            h[3], h[4], h[5], h[8] = 0, start, len(note), 4
            _SHDR.pack_into(data, off, *h)
            patched |= 2
    if patched != 3:
        raise Diagnostic("the image has no note segment and note section to hold AMDGPU metadata", where)
    return bytes(data)


def _span(a: dict) -> range:
    return range(int(a.get(".offset", 0)), int(a.get(".offset", 0)) + int(a.get(".size", 0)))


def uncovered_args(kernel_metadata: dict, fields) -> list:
    """The ``fields`` (explicit ``ArgField``s of a launch layout) with bytes that no explicit
    ``.args`` entry of the kernel's metadata covers: HIP would not copy those bytes."""
    covered: set[int] = set()
    for a in kernel_metadata.get(".args") or []:
        if not str(a.get(".value_kind", "")).startswith("hidden_"):
            covered.update(_span(a))
    return [f for f in fields if not set(range(f.offset, f.offset + f.size)) <= covered]


def with_explicit_args(metadata: dict, kernel: str, fields, segment_size: int) -> dict:
    """``metadata`` (the whole map) with kernel ``kernel``'s ``.args`` describing ``fields`` as
    by-value arguments at their offsets and sizes. Hidden arguments the metadata lists stay
    where they are unless a field overlaps them; ``.kernarg_segment_size`` grows to
    ``segment_size`` if smaller."""
    kernels = [dict(k) for k in metadata.get("amdhsa.kernels", [])]
    for k in kernels:
        if k.get(".name") != kernel:
            continue
        need: set[int] = set()
        for f in fields:
            need.update(range(f.offset, f.offset + f.size))
        hidden = [a for a in k.get(".args") or [] if str(a.get(".value_kind", "")).startswith("hidden_")
                  and not need & set(_span(a))]
        mine = [{".name": f.name, ".offset": f.offset, ".size": f.size, ".value_kind": "by_value"} for f in fields]
        k[".args"] = sorted(mine + hidden, key=lambda a: a[".offset"])
        k[".kernarg_segment_size"] = max(int(k.get(".kernarg_segment_size", 0) or 0), segment_size)
        return {**metadata, "amdhsa.kernels": kernels}
    raise Diagnostic(f"kernel '{kernel}' is not in the code object's metadata",
                     notes=("HIP launches only kernels its metadata lists",))
