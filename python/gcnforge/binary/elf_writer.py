"""Link assembled sections into an AMDGPU HSA code object the way ``ld.lld -shared`` lays it out.

ELF64 LSB, ET_DYN, EM_AMDGPU, ELFOSABI_AMDGPU_HSA with the code-object-version ABI version,
e_flags from the target id. Layout (as ld.lld 22 does for a kernel-only object):

    ELF header, program headers (PHDR LOAD LOAD LOAD DYNAMIC GNU_RELRO GNU_STACK NOTE)
    R  segment: .note .dynsym .gnu.hash .hash .dynstr .rodata*      (vaddr == file offset)
    RX segment: .text                                               (next page, same offset mod 4 KiB)
    RW segment: .data* .dynamic
    .symtab .shstrtab .strtab, section headers

Dynamic symbols: every global/weak symbol that is not hidden (kernels as FUNC, their
``.kd`` descriptors as OBJECT). No relocations: every reference was resolved when the
sections were assembled (PC-relative within .text, label differences in data); a kernel
descriptor's kernel_code_entry_byte_offset is filled here, once addresses are known.
"""

from __future__ import annotations

import struct

from gcnforge.binary.target_id import ABI_VERSION_BY_COV, ELFOSABI_AMDGPU_HSA, EM_AMDGPU, TargetId
from gcnforge.diagnostics import Diagnostic
from gcnforge.record import FrozenRecord, Record, set_fields

PAGE = 0x1000
SHT = {"NULL": 0, "PROGBITS": 1, "SYMTAB": 2, "STRTAB": 3, "RELA": 4, "HASH": 5, "DYNAMIC": 6, "NOTE": 7, "NOBITS": 8,
       "DYNSYM": 11, "GNU_HASH": 0x6FFFFFF6}
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 1, 2, 4
STT = {"NOTYPE": 0, "OBJECT": 1, "FUNC": 2, "SECTION": 3}
STB = {"LOCAL": 0, "GLOBAL": 1, "WEAK": 2}
STV = {"DEFAULT": 0, "INTERNAL": 1, "HIDDEN": 2, "PROTECTED": 3}
PT_LOAD, PT_DYNAMIC, PT_NOTE, PT_PHDR = 1, 2, 4, 6
PT_GNU_STACK, PT_GNU_RELRO = 0x6474E551, 0x6474E552
PF_X, PF_W, PF_R = 1, 2, 4
DT_NULL, DT_HASH, DT_STRTAB, DT_SYMTAB, DT_STRSZ, DT_SYMENT, DT_GNU_HASH = 0, 4, 5, 6, 10, 11, 0x6FFFFEF5


# Records (gcnforge.record), not dataclasses: ``gcnforge as`` start-up time (issue 15).
class InputSection(Record):
    _fields = ("name", "data", "align", "flags", "nobits")
    name: str
    data: bytes
    align: int
    flags: str  # ELF .section flag letters: a (alloc), x (exec), w (write)
    nobits: bool

    def __init__(self, name: str, data: bytes, align: int = 1, flags: str = "a", nobits: bool = False) -> None:
        set_fields(self, name, data, align, flags, nobits)


class InputSymbol(Record):
    _fields = ("name", "section", "value", "size", "type", "binding", "visibility")
    name: str
    section: str | None  # section name; None for an absolute symbol
    value: int  # offset within the section (or the absolute value)
    size: int
    type: str
    binding: str
    visibility: str

    def __init__(self, name: str, section: str | None, value: int, size: int = 0, type: str = "NOTYPE",
                 binding: str = "LOCAL", visibility: str = "DEFAULT") -> None:
        set_fields(self, name, section, value, size, type, binding, visibility)


class KernelRecord(Record):
    _fields = ("name", "kd_section", "kd_offset", "loc")
    name: str  # kernel symbol; the descriptor symbol is name + ".kd"
    kd_section: str
    kd_offset: int
    loc: object  # the .amdhsa_kernel directive, for diagnostics

    def __init__(self, name: str, kd_section: str, kd_offset: int, loc: object = None) -> None:
        set_fields(self, name, kd_section, kd_offset, loc)


class DataReloc(FrozenRecord):
    """A 64-bit slot holding a label's address: becomes R_AMDGPU_RELATIVE64 in .rela.dyn."""

    __slots__ = _fields = ("section", "offset", "target_section", "target_offset")
    section: str  # output section of the slot (writable)
    offset: int
    target_section: str
    target_offset: int

    def __init__(self, section: str, offset: int, target_section: str, target_offset: int) -> None:
        set_fields(self, section, offset, target_section, target_offset)


R_AMDGPU_RELATIVE64 = 13
DT_RELA, DT_RELASZ, DT_RELAENT, DT_RELACOUNT = 7, 8, 9, 0x6FFFFFF9


class _Out(Record):
    _fields = ("name", "sh_type", "flags", "data", "align", "entsize", "link", "info", "addr", "offset", "size")

    def __init__(self, name: str, sh_type: int, flags: int, data: bytes, align: int, entsize: int = 0,
                 link: str | None = None, info: int = 0, addr: int = 0, offset: int = 0, size: int = -1) -> None:
        self.name = name
        self.sh_type = sh_type
        self.flags = flags
        self.data = data
        self.align = align
        self.entsize = entsize
        self.link = link
        self.info = info
        self.addr = addr
        self.offset = offset
        self.size = len(data) if size < 0 else size


def _elf_hash(name: bytes) -> int:
    h = 0
    for c in name:
        h = ((h << 4) + c) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


def _gnu_hash(name: bytes) -> int:
    h = 5381
    for c in name:
        h = (h * 33 + c) & 0xFFFFFFFF
    return h


class _StrTab:
    def __init__(self):
        self.data = bytearray(b"\0")
        self.index: dict[str, int] = {"": 0}

    def add(self, s: str) -> int:
        if s not in self.index:
            self.index[s] = len(self.data)
            self.data += s.encode() + b"\0"
        return self.index[s]


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a if a > 1 else x


def section_addresses(target: TargetId, cov: int, sections: list[InputSection], symbols: list[InputSymbol],
                      kernels: list[KernelRecord], metadata: dict | None, n_relocs: int = 0) -> dict[str, int]:
    """The virtual address ``link`` will give each section (only sizes, alignments, flags, symbol
    names, the metadata and the number of data relocations matter), so code can be encoded
    with final addresses first."""
    dummy = [DataReloc("", 0, "", 0)] * n_relocs
    return link(target, cov, sections, symbols, kernels, metadata, dummy, _layout_only=True)  # type: ignore[return-value]


def link(target: TargetId, cov: int, sections: list[InputSection], symbols: list[InputSymbol],
         kernels: list[KernelRecord], metadata: dict | None, relocs: list[DataReloc] = (),
         _layout_only: bool = False, debug: list[tuple[str, bytes]] = ()) -> bytes:
    """Lay out, resolve descriptor entry offsets and write the ELF image. ``debug``: non-allocated
    ``.debug_*`` sections (name, bytes), placed before ``.symtab`` as ld.lld places them."""
    if cov not in ABI_VERSION_BY_COV:
        raise Diagnostic(f"unsupported code object version {cov} (gcnforge writes 4, 5 and 6)")
    sym_by_name = {s.name: s for s in symbols}
    for k in kernels:
        if k.name not in sym_by_name or sym_by_name[k.name].section is None:
            raise Diagnostic(f"kernel '{k.name}' has a .amdhsa_kernel block but no label '{k.name}:' in the code",
                             k.loc)
    note = b""
    if metadata is not None:  # (imported here: msgpack and the YAML reader only for files with metadata)
        from gcnforge.binary.metadata import metadata_note

        note = metadata_note(metadata)
    lay = _Layout(sections, symbols, note, relocs)
    if _layout_only:
        return {name: o.addr for name, o in lay.sec_out.items()}  # type: ignore[return-value]
    _patch_descriptors(lay, sections, kernels, sym_by_name)
    _dynamic_tables(lay, relocs)
    all_out, shstrtab, shoff = _static_tables(lay, symbols, debug)
    index_of = {o.name: i + 1 for i, o in enumerate(all_out)}
    image = bytearray(shoff + 64 * (len(all_out) + 1))
    for o in all_out:
        if o.sh_type != SHT["NOBITS"]:
            assert len(o.data) == o.size, o.name
            image[o.offset:o.offset + o.size] = o.data
    nphdrs = _program_headers(lay, image)
    for i, o in enumerate(all_out, start=1):  # section headers
        struct.pack_into("<IIQQQQIIQQ", image, shoff + 64 * i, shstrtab.index[o.name], o.sh_type, o.flags,
                         o.addr, o.offset, o.size, index_of[o.link] if o.link else 0, o.info, o.align, o.entsize)
    ident = b"\x7fELF" + bytes([2, 1, 1, ELFOSABI_AMDGPU_HSA, ABI_VERSION_BY_COV[cov]]) + bytes(7)
    struct.pack_into("<16sHHIQQQIHHHHHH", image, 0, ident, 3, EM_AMDGPU, 1, 0, 64, shoff, target.e_flags(),
                     64, 56, nphdrs, 64, len(all_out) + 1, index_of[".shstrtab"])
    return bytes(image)


class _Layout:
    """The allocated output sections of one link in ld.lld's order, with their addresses and
    file offsets, and the PT_LOAD segments that hold them."""

    def __init__(self, sections: list[InputSection], symbols: list[InputSymbol], note: bytes, relocs) -> None:
        # Dynamic symbols: exported (global/weak, not hidden/internal), defined.
        exported = [s for s in symbols
                    if s.binding != "LOCAL" and s.visibility in ("DEFAULT", "PROTECTED") and s.section is not None]
        self.dynstr = _StrTab()
        for s in exported:
            self.dynstr.add(s.name)
        # .gnu.hash (ld.lld's GnuHashTableSection): all exported symbols hashed (symoffset 1),
        # nbuckets = max(1, n / 4), bloom filter of NextPowerOf2(n * 12 / 64) 64-bit words, shift 26;
        # .dynsym is ordered by bucket (stable).
        self.nb = nb = max(1, len(exported) // 4)
        self.mask_words = 1 << ((len(exported) * 12 // 64).bit_length()) if exported else 1
        self.exported = sorted(exported, key=lambda s: _gnu_hash(s.name.encode()) % nb)
        self.note = note
        self._sections(sections, bool(relocs) and len(relocs))
        self._addresses()

    def _sections(self, sections: list[InputSection], nrelocs: int) -> None:
        r_secs = [s for s in sections if "a" in s.flags and "x" not in s.flags and "w" not in s.flags]
        x_secs = [s for s in sections if "a" in s.flags and "x" in s.flags]
        w_secs = [s for s in sections if "a" in s.flags and "w" in s.flags and "x" not in s.flags]
        # LOADs: R (headers at least), RX if the code is not empty, RW relro (.dynamic), RW data if any.
        # ld.lld reserves header space for the RX LOAD even when .text is empty, then omits it.
        n_loads = 1 + bool(x_secs) + 1 + bool(w_secs)
        self.nphdr = 1 + n_loads + 3 + bool(self.note)  # PHDR, LOADs, DYNAMIC, GNU_RELRO, GNU_STACK, NOTE
        outs: list[_Out] = [_Out(".note", SHT["NOTE"], SHF_ALLOC, self.note, 4)] if self.note else []
        n = len(self.exported)
        self.nsyms = n + 1
        self.dynsym_out = _Out(".dynsym", SHT["DYNSYM"], SHF_ALLOC, b"", 8, entsize=24, link=".dynstr", info=1,
                               size=24 * (n + 1))
        self.gnuhash_out = _Out(".gnu.hash", SHT["GNU_HASH"], SHF_ALLOC, b"", 8, link=".dynsym",
                                size=16 + 8 * self.mask_words + 4 * self.nb + 4 * n)
        self.hash_out = _Out(".hash", SHT["HASH"], SHF_ALLOC, b"", 4, entsize=4, link=".dynsym",
                             size=4 * (2 + 2 * self.nsyms))
        self.dynstr_out = _Out(".dynstr", SHT["STRTAB"], SHF_ALLOC, bytes(self.dynstr.data), 1)
        outs += [self.dynsym_out, self.gnuhash_out, self.hash_out, self.dynstr_out]
        self.rela_out = None
        if nrelocs:  # ld.lld: .rela.dyn right after .dynstr, RELATIVE relocations only
            self.rela_out = _Out(".rela.dyn", SHT["RELA"], SHF_ALLOC, b"", 8, entsize=24, link=".dynsym",
                                 size=24 * nrelocs)
            outs.append(self.rela_out)
        self.sec_out: dict[str, _Out] = {}

        def add(s: InputSection, flags: int, nobits: bool) -> None:
            self.sec_out[s.name] = _Out(s.name, SHT["NOBITS" if nobits else "PROGBITS"], flags, s.data, s.align)
            outs.append(self.sec_out[s.name])

        for s in r_secs:
            add(s, SHF_ALLOC, s.nobits)
        first_x = len(outs)
        for s in x_secs:
            add(s, SHF_ALLOC | SHF_EXECINSTR, False)
        self.dynamic_out = _Out(".dynamic", SHT["DYNAMIC"], SHF_ALLOC | SHF_WRITE, b"", 8, entsize=16,
                                link=".dynstr", size=16 * (7 + 4 * bool(nrelocs)))
        first_relro = len(outs)
        outs.append(self.dynamic_out)  # ld.lld puts the relro part (.dynamic) before writable data
        first_w = len(outs)
        for s in w_secs:
            add(s, SHF_ALLOC | SHF_WRITE, s.nobits)
        self.outs = outs
        self.groups = [(0, first_x, PF_R), (first_x, first_relro, PF_R | PF_X), (first_relro, first_w, PF_R | PF_W),
                       (first_w, len(outs), PF_R | PF_W)]

    def _addresses(self) -> None:
        """One PT_LOAD per permission class; a new segment starts on a new page at the same
        offset modulo the page size (ld.lld's layout)."""
        outs = self.outs
        off = 64 + 56 * self.nphdr
        va = off
        self.segments: list[tuple[int, int, int]] = []  # (first, last+1, flags)
        for gi, (a, b, flags) in enumerate(self.groups):
            if a == b:
                continue
            if gi > 0:
                # ld.lld (default -z noseparate-code): the segment's first address is
                # alignTo(dot, page) + dot % page, then the section's own alignment; its file
                # offset is the next one congruent to that address modulo the page size.
                va = _align(va, PAGE) + va % PAGE
                va = _align(va, max(o.align for o in outs[a:b]))
                off += (va - off) % PAGE
            for o in outs[a:b]:
                pad = _align(off, o.align) - off
                off += pad
                va += pad
                o.offset, o.addr = off, va
                va += o.size
                if o.sh_type != SHT["NOBITS"]:
                    off += o.size
            if sum(o.size for o in outs[a:b]) or gi == 0:  # an empty .text gets an address but no PT_LOAD
                self.segments.append((a, b, flags))
        self.end = off

    def sym_addr(self, s: InputSymbol) -> int:
        if s.section is None:
            return s.value
        if s.section not in self.sec_out:
            raise Diagnostic(f"symbol '{s.name}' is in section '{s.section}', which is not allocated in the code object")
        return self.sec_out[s.section].addr + s.value

    def sym_entry(self, strtab: _StrTab, s: InputSymbol, index_of: dict[str, int]) -> bytes:
        shndx = 0xFFF1 if s.section is None else index_of[s.section]
        info = (STB[s.binding] << 4) | STT.get(s.type, 0)
        return struct.pack("<IBBHQQ", strtab.add(s.name), info, STV[s.visibility], shndx, self.sym_addr(s), s.size)


def _patch_descriptors(lay: _Layout, sections: list[InputSection], kernels: list[KernelRecord],
                       sym_by_name: dict[str, InputSymbol]) -> None:
    """kernel_code_entry_byte_offset = entry - descriptor (descriptor bytes 16..23)."""
    patched = {s.name: bytearray(s.data) for s in sections}
    for k in kernels:
        kd_addr = lay.sec_out[k.kd_section].addr + k.kd_offset
        struct.pack_into("<q", patched[k.kd_section], k.kd_offset + 16, lay.sym_addr(sym_by_name[k.name]) - kd_addr)
    for name, o in lay.sec_out.items():
        o.data = bytes(patched[name])


def _dynamic_tables(lay: _Layout, relocs) -> None:
    """.dynsym, .gnu.hash, .hash, .rela.dyn and .dynamic."""
    index_of = {o.name: i + 1 for i, o in enumerate(lay.outs)}
    nb, mask_words, nsyms = lay.nb, lay.mask_words, lay.nsyms
    lay.dynsym_out.data = bytes(24) + b"".join(lay.sym_entry(lay.dynstr, s, index_of) for s in lay.exported)
    hashes = [_gnu_hash(s.name.encode()) for s in lay.exported]
    bloom = [0] * mask_words
    for h in hashes:
        bloom[(h // 64) & (mask_words - 1)] |= (1 << (h % 64)) | (1 << ((h >> 26) % 64))
    buckets = [0] * nb
    chains = []
    for i, h in enumerate(hashes):
        b = h % nb
        if not buckets[b]:
            buckets[b] = i + 1
        last = i + 1 == len(hashes) or hashes[i + 1] % nb != b
        chains.append((h & ~1) | int(last))
    lay.gnuhash_out.data = struct.pack("<IIII", nb, 1, mask_words, 26) + struct.pack(f"<{mask_words}Q", *bloom) + \
        struct.pack(f"<{nb}I", *buckets) + struct.pack(f"<{len(chains)}I", *chains)
    sysv_b = [0] * nsyms
    sysv_c = [0] * nsyms
    for i, s in enumerate(lay.exported, start=1):
        b = _elf_hash(s.name.encode()) % nsyms
        sysv_c[i] = sysv_b[b]
        sysv_b[b] = i
    lay.hash_out.data = struct.pack(f"<II{nsyms}I{nsyms}I", nsyms, nsyms, *sysv_b, *sysv_c)
    rela_dyn = b""
    if lay.rela_out is not None:
        rela_dyn = struct.pack("<8Q", DT_RELA, lay.rela_out.addr, DT_RELASZ, lay.rela_out.size, DT_RELAENT, 24,
                               DT_RELACOUNT, len(relocs))
        lay.rela_out.data = b"".join(
            struct.pack("<QQq", lay.sec_out[r.section].addr + r.offset, R_AMDGPU_RELATIVE64,
                        lay.sec_out[r.target_section].addr + r.target_offset) for r in relocs)
    lay.dynamic_out.data = rela_dyn + struct.pack(
        "<14Q", DT_SYMTAB, lay.dynsym_out.addr, DT_SYMENT, 24, DT_STRTAB, lay.dynstr_out.addr, DT_STRSZ,
        lay.dynstr_out.size, DT_GNU_HASH, lay.gnuhash_out.addr, DT_HASH, lay.hash_out.addr, DT_NULL, 0)


def _static_tables(lay: _Layout, symbols: list[InputSymbol], debug: list[tuple[str, bytes]] = ()
                   ) -> tuple[list[_Out], _StrTab, int]:
    """The ``debug`` sections, .symtab (locals, then _DYNAMIC (local hidden), then globals:
    ld.lld's order), .shstrtab and .strtab after the allocated sections; (every output section,
    .shstrtab, header offset)."""
    index_of = {o.name: i + 1 for i, o in enumerate(lay.outs)}
    strtab = _StrTab()
    locals_ = [s for s in symbols if s.binding == "LOCAL" and not s.name.startswith(".L")]
    globals_ = [s for s in symbols if s.binding != "LOCAL"]
    dynamic_sym = InputSymbol("_DYNAMIC", ".dynamic", 0, 0, "NOTYPE", "LOCAL", "HIDDEN")
    lay.sec_out[".dynamic"] = lay.dynamic_out
    symtab = bytes(24) + b"".join(lay.sym_entry(strtab, s, index_of) for s in [*locals_, dynamic_sym, *globals_])
    symtab_out = _Out(".symtab", SHT["SYMTAB"], 0, symtab, 8, entsize=24, link=".strtab", info=len(locals_) + 2)
    shstrtab = _StrTab()
    shstr_out = _Out(".shstrtab", SHT["STRTAB"], 0, b"", 1)
    strtab_out = _Out(".strtab", SHT["STRTAB"], 0, b"", 1)
    tail = [*(_Out(n, SHT["PROGBITS"], 0, d, 1) for n, d in debug), symtab_out, shstr_out, strtab_out]
    for o in [*lay.outs, *tail]:
        shstrtab.add(o.name)
    shstr_out.data = bytes(shstrtab.data)
    shstr_out.size = len(shstr_out.data)
    strtab_out.data = bytes(strtab.data)
    strtab_out.size = len(strtab_out.data)
    off = lay.end
    for o in tail:
        off = _align(off, o.align)
        o.offset = off
        off += o.size
    return [*lay.outs, *tail], shstrtab, _align(off, 8)


def _program_headers(lay: _Layout, image: bytearray) -> int:
    """Write the program headers; their count."""
    outs, dyn = lay.outs, lay.dynamic_out
    phdrs = [(PT_PHDR, PF_R, 64, 64, 56 * lay.nphdr, 56 * lay.nphdr, 8)]  # covers the reserved space, as ld.lld
    for a, b, flags in lay.segments:
        first, last = outs[a], outs[b - 1]
        start_off = 0 if a == 0 else first.offset
        start_va = 0 if a == 0 else first.addr
        filesz = (last.offset + (0 if last.sh_type == SHT["NOBITS"] else last.size)) - start_off
        memsz = last.addr + last.size - start_va
        phdrs.append((PT_LOAD, flags, start_off, start_va, filesz, memsz, PAGE))
    phdrs.append((PT_DYNAMIC, PF_R | PF_W, dyn.offset, dyn.addr, dyn.size, dyn.size, 8))
    phdrs.append((PT_GNU_RELRO, PF_R, dyn.offset, dyn.addr, dyn.size, dyn.size, 1))
    phdrs.append((PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0))
    if lay.note:
        n = outs[0]
        phdrs.append((PT_NOTE, PF_R, n.offset, n.addr, n.size, n.size, 4))
    assert len(phdrs) <= lay.nphdr
    for i, (ptype, flags, poff, pva, filesz, memsz, align) in enumerate(phdrs):
        struct.pack_into("<IIQQQQQQ", image, 64 + 56 * i, ptype, flags, poff, pva, pva, filesz, memsz, align)
    return len(phdrs)
