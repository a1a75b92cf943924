"""Read any gfx9 HSA code object into a ``CodeObject`` (ELF parsing by pyelftools).

Every way the input can be wrong ends in a ``Diagnostic`` naming what is wrong: not an ELF
file, not 64-bit little-endian, wrong machine, a section or note that runs past the end of
the file, a metadata note that is not msgpack, a kernel descriptor outside its section.
pyelftools raises many exception types on damaged input; those are turned into a
Diagnostic too, never let through.
"""

from __future__ import annotations

import io
import os
import struct
from pathlib import Path

import msgpack
from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from gcnforge.binary.descriptor import DESCRIPTOR_SIZE, KernelDescriptor
from gcnforge.binary.model import CodeObject, KernelInfo, Symbol
from gcnforge.binary.target_id import (
    COV_BY_ABI_VERSION,
    EM_AMDGPU,
    NT_AMDGPU_METADATA,
    parse_target_id,
    target_from_e_flags,
)
from gcnforge.diagnostics import Diagnostic

_SHN = {"SHN_UNDEF": None, "SHN_ABS": "ABS", "SHN_COMMON": "COMMON"}
MAX_NOTES = 4096  # bound on notes walked per section (input-controlled loop)


def read_code_object(data: bytes | bytearray | str | os.PathLike, target: str | None = "gfx942") -> CodeObject:
    """Parse a code object from bytes or a file path. Raises only ``Diagnostic``.

    A clang offload bundle (HIP fat binary) is accepted too: its entry for ``target``'s
    processor is read (``target=None``: the only amdgcn entry)."""
    where = "<bytes>"
    if isinstance(data, (str, os.PathLike)):
        where = str(data)
        try:
            data = Path(data).read_bytes()
        except OSError as e:
            raise Diagnostic(f"cannot read code object: {e.strerror or e}", where) from None
    data = bytes(data)
    from gcnforge.binary.bundle import is_bundle, select_entry

    if is_bundle(data):
        proc = target.split(":")[0] if target else None
        data = select_entry(data, proc, where)
    try:
        return _read(data, where)
    except Diagnostic:
        raise
    except Exception as e:  # noqa: BLE001
        # The checks above name the common faults; pyelftools/construct signal the rest of the
        # damaged structures with assorted exception types (ELFError, struct.error, KeyError,
        # IndexError, OverflowError, ...). None of them may escape as anything but a Diagnostic.
        kind = "ELF structure" if isinstance(e, ELFError) else type(e).__name__
        raise Diagnostic(f"malformed ELF file ({kind}): {e}", where) from None


def _read(data: bytes, where: str) -> CodeObject:
    if len(data) < 4 or data[:4] != b"\x7fELF":
        raise Diagnostic("not an ELF file (bad magic)", where)
    if len(data) < 64:
        raise Diagnostic(f"truncated ELF header ({len(data)} bytes, need 64)", where)
    if data[4] != 2 or data[5] != 1:
        raise Diagnostic("not a 64-bit little-endian ELF file (AMDGPU code objects are ELF64 LSB)", where)
    e_machine = struct.unpack_from("<H", data, 18)[0]
    if e_machine != EM_AMDGPU:
        raise Diagnostic(f"wrong machine {e_machine} in ELF header (expected EM_AMDGPU = {EM_AMDGPU})", where)
    osabi, abiversion = data[7], data[8]
    elf = ELFFile(io.BytesIO(data))
    e_flags = elf.header["e_flags"]
    target = target_from_e_flags(e_flags, where)

    sections: dict[str, tuple[int, int, int]] = {}
    by_index = []
    for i, sec in enumerate(_iter_sections(elf, data, where)):
        by_index.append(sec)
        if sec.name and sec.name not in sections:
            sections[sec.name] = (sec["sh_addr"], sec["sh_offset"], sec["sh_size"])

    metadata: dict = {}
    for sec in by_index:
        if sec["sh_type"] == "SHT_NOTE":
            for name, ntype, desc in _notes(_section_bytes(sec, data, where), f"{where}: section {sec.name}"):
                if name == b"AMDGPU" and ntype == NT_AMDGPU_METADATA:
                    metadata = _unpack_metadata(desc, f"{where}: {sec.name} NT_AMDGPU_METADATA note")

    symbols = _symbols(elf, by_index)
    text = b""
    text_addr = 0
    if ".text" in sections:
        text_addr, _, _ = sections[".text"]
        text = _section_bytes(elf.get_section_by_name(".text"), data, where)

    if isinstance(metadata.get("amdhsa.target"), str):
        try:
            target = parse_target_id(metadata["amdhsa.target"])
        except Diagnostic:
            pass  # keep the e_flags view; the metadata string is informative only

    problems: list[str] = []
    kernels = _kernels(symbols, metadata, by_index, data, text, text_addr, where, problems)
    relocations = []
    for sec in by_index:
        if sec["sh_type"] == "SHT_RELA" and sec["sh_flags"] & 0x2:
            blob = _section_bytes(sec, data, where)
            for pos in range(0, len(blob) - len(blob) % 24, 24):
                r_offset, r_info, addend = struct.unpack_from("<QQq", blob, pos)
                relocations.append((r_offset, r_info & 0xFFFFFFFF, addend))
    cov = COV_BY_ABI_VERSION.get(abiversion, 0) if osabi == 64 else 0
    return CodeObject(
        target=str(target), kernels=kernels, text=text, text_address=text_addr, symbols=symbols,
        metadata=metadata, data=data, e_flags=e_flags, code_object_version=cov, sections=sections,
        relocations=tuple(relocations), problems=tuple(problems),
    )


def _iter_sections(elf: ELFFile, data: bytes, where: str):
    shoff, shnum, shentsize = elf.header["e_shoff"], elf.header["e_shnum"], elf.header["e_shentsize"]
    if shnum and (shentsize != 64 or shoff + shnum * shentsize > len(data)):
        raise Diagnostic(f"truncated section header table (offset {shoff}, {shnum} entries, file is {len(data)} bytes)", where)
    for i in range(shnum):
        yield elf.get_section(i)


def _section_bytes(sec, data: bytes, where: str) -> bytes:
    if sec["sh_type"] == "SHT_NOBITS":
        return b""
    off, size = sec["sh_offset"], sec["sh_size"]
    if off + size > len(data):
        raise Diagnostic(f"truncated section {sec.name or '?'}: bytes {off}..{off + size} past end of file ({len(data)} bytes)", where)
    return data[off:off + size]


def _notes(blob: bytes, where: str):
    """(name, type, desc) of each ELF note; 4-byte aligned name and desc."""
    pos = 0
    for _ in range(MAX_NOTES):
        if pos >= len(blob):
            return
        if pos + 12 > len(blob):
            raise Diagnostic(f"truncated note header at offset {pos}", where)
        namesz, descsz, ntype = struct.unpack_from("<III", blob, pos)
        pos += 12
        name_end = pos + namesz
        desc_start = pos + ((namesz + 3) & ~3)
        desc_end = desc_start + descsz
        if desc_end > len(blob):
            raise Diagnostic(f"truncated note at offset {pos - 12}: name {namesz} + desc {descsz} bytes exceed the section", where)
        yield blob[pos:name_end].rstrip(b"\0"), ntype, blob[desc_start:desc_end]
        pos = (desc_end + 3) & ~3
    raise Diagnostic(f"more than {MAX_NOTES} notes in one section", where)


def _unpack_metadata(desc: bytes, where: str) -> dict:
    try:
        md = msgpack.unpackb(desc, raw=False, strict_map_key=False)
    except Exception as e:  # msgpack raises ExtraData, FormatError, StackError, ValueError, ...
        raise Diagnostic(f"metadata note is not valid msgpack: {type(e).__name__}: {e}", where) from None
    if not isinstance(md, dict):
        raise Diagnostic(f"metadata note is msgpack {type(md).__name__}, expected a map", where)
    return md


def _symbols(elf: ELFFile, sections: list) -> dict[str, Symbol]:
    out: dict[str, Symbol] = {}
    for table_name in (".symtab", ".dynsym"):
        table = elf.get_section_by_name(table_name)
        if table is None or not hasattr(table, "iter_symbols"):
            continue
        for sym in table.iter_symbols():
            if not sym.name:
                continue
            shndx = sym["st_shndx"]
            if isinstance(shndx, int):
                sec = sections[shndx].name if shndx < len(sections) else None
            else:
                sec = _SHN.get(shndx, shndx)
            s = Symbol(
                name=sym.name, value=sym["st_value"], size=sym["st_size"],
                type=sym["st_info"]["type"].removeprefix("STT_"),
                binding=sym["st_info"]["bind"].removeprefix("STB_"),
                visibility=sym["st_other"]["visibility"].removeprefix("STV_"),
                section=sec,
            )
            prev = out.get(s.name)
            if prev is None or (prev.binding == "LOCAL" and s.binding != "LOCAL"):
                out[s.name] = s
        if out:
            break
    return out


def _read_vaddr(addr: int, size: int, sections: list, data: bytes) -> bytes | None:
    """Bytes at a virtual address, from the allocated section that holds them, or None."""
    for sec in sections:
        if not sec["sh_flags"] & 0x2 or sec["sh_type"] == "SHT_NOBITS":  # SHF_ALLOC
            continue
        start, end = sec["sh_addr"], sec["sh_addr"] + sec["sh_size"]
        if start <= addr and addr + size <= end:
            off = sec["sh_offset"] + (addr - start)
            if off + size <= len(data):
                return data[off:off + size]
    return None


def _kernels(symbols, metadata, sections, data, text, text_addr, where, problems: list[str]) -> dict[str, KernelInfo]:
    md_kernels = metadata.get("amdhsa.kernels", []) if isinstance(metadata, dict) else []
    md_by_symbol = {}
    if isinstance(md_kernels, list):
        for k in md_kernels:
            if isinstance(k, dict):
                md_by_symbol[str(k.get(".symbol", f"{k.get('.name')}.kd"))] = k
    kd_names = [n for n, s in symbols.items() if n.endswith(".kd") and s.type == "OBJECT" and s.section not in (None, "ABS")]
    for sym_name in md_by_symbol:
        if sym_name not in kd_names:
            problems.append(f"metadata names kernel descriptor symbol '{sym_name}' but the code object has no such symbol")
    kernels = {}
    for kd_name in kd_names:
        kd_sym = symbols[kd_name]
        name = kd_name[:-3]
        raw = _read_vaddr(kd_sym.value, DESCRIPTOR_SIZE, sections, data)
        if raw is None:
            raise Diagnostic(f"kernel descriptor '{kd_name}' at 0x{kd_sym.value:x} is out of range of every allocated section", where)
        kd = KernelDescriptor.from_bytes(raw, where)
        entry = kd_sym.value + kd.kernel_code_entry_byte_offset
        code_offset = entry - text_addr
        if not text or not (0 <= code_offset < len(text)):
            raise Diagnostic(
                f"kernel '{name}': entry 0x{entry:x} (descriptor 0x{kd_sym.value:x} + kernel_code_entry_byte_offset "
                f"{kd.kernel_code_entry_byte_offset}) is outside .text", where)
        fn = symbols.get(name)
        size = fn.size if fn is not None and fn.value == entry and fn.size else len(text) - code_offset
        code = text[code_offset:code_offset + size]
        meta = md_by_symbol.get(kd_name, {})
        kernels[name] = KernelInfo(name=name, descriptor=kd, metadata=meta, code_offset=code_offset,
                                   code=code, entry=entry, descriptor_address=kd_sym.value)
    return kernels


def loaded_digest(data: bytes) -> str:
    """SHA-256 of what a loader maps from a code object: the name and bytes of every SHF_ALLOC
    section (code, kernel descriptors, the metadata note, dynamic symbols), in file order.
    Debug information (``.debug_line`` names the build's source directory) and other unmapped
    sections are left out, so two builds of the same kernel from different paths agree."""
    import hashlib

    where = "<code object>"
    try:
        elf = ELFFile(io.BytesIO(bytes(data)))
        h = hashlib.sha256()
        for sec in _iter_sections(elf, bytes(data), where):
            if sec["sh_flags"] & 0x2:  # SHF_ALLOC
                h.update(sec.name.encode() + b"\0" + _section_bytes(sec, bytes(data), where))
    except ELFError as e:
        raise Diagnostic(f"not an ELF code object ({e})", where) from None
    return h.hexdigest()
