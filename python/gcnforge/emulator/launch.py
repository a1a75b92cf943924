"""What the emulator needs from a code object to launch one kernel.

The kernel descriptor is read from its 64 raw bytes by ``binary.descriptor`` (the one
decoder of it), so a dispatch follows the bits that are in the binary, not an
interpretation of them. Code objects come from ``gcnforge.binary.read_code_object``; the
ELF image (``CodeObject.data``) gives the ``<kernel>.kd`` and ``<kernel>`` symbols.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field

from gcnforge.binary.descriptor import KernelDescriptor
from gcnforge.diagnostics import Diagnostic


@dataclass
class KernelImage:
    name: str
    descriptor: KernelDescriptor
    text: bytes  # the whole .text section
    text_address: int
    entry: int  # address of the first instruction
    end: int  # end of the kernel symbol (or of .text)
    processor: str = "gfx942"  # from the ELF header's EF_AMDGPU_MACH (binary.target_id)
    metadata: dict = field(default_factory=dict)
    elf: bytes = b""  # the code object, for its line table (read only when a report needs it)

    def source_of(self, pc: int) -> str | None:
        """``file:line:col`` of the instruction at ``pc`` from the object's DWARF line table
        (the author's Python or MLIR line of a gcnforge kernel), or None."""
        return source_of(self.elf, pc) if self.elf else None


def _elf_bytes(code_object) -> bytes:
    if isinstance(code_object, (bytes, bytearray, memoryview)):
        return bytes(code_object)
    if isinstance(code_object, str) or hasattr(code_object, "read_bytes"):
        from pathlib import Path

        return Path(code_object).read_bytes()
    data = getattr(code_object, "data", None)
    if data is None:
        raise Diagnostic("emulator: expected a CodeObject (with .data) or ELF bytes")
    return bytes(data)


_IMAGES: dict = {}  # (sha1 of the ELF, kernel name) -> (descriptor, text, text address, entry, end)


def kernel_image(code_object, name: str) -> KernelImage:
    """Find kernel ``name`` (and its descriptor ``name.kd``) in a code object (the ELF is
    read once per content: repeated launches of a kernel skip it)."""
    data = _elf_bytes(code_object)
    key = (hashlib.sha1(data).digest(), name)
    found = _IMAGES.get(key)
    if found is None:
        if len(_IMAGES) >= 256:
            _IMAGES.clear()
        found = _IMAGES[key] = _read_image(data, name)
    md = {}
    kinfo = getattr(getattr(code_object, "kernels", None) or {}, "get", lambda _k: None)(name)
    if kinfo is not None:
        md = dict(getattr(kinfo, "metadata", {}) or {})
    return KernelImage(name, *found, metadata=md, elf=data)


def _read_image(data: bytes, name: str) -> tuple:
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    try:
        elf = ELFFile(io.BytesIO(data))
        syms = {}
        for sec_name in (".symtab", ".dynsym"):
            sec = elf.get_section_by_name(sec_name)
            if isinstance(sec, SymbolTableSection):  # a damaged sh_type makes it a plain section
                for s in sec.iter_symbols():
                    syms.setdefault(s.name, s)
        processor = _processor(elf["e_flags"])
        text_sec = elf.get_section_by_name(".text")
        if text_sec is None:
            raise Diagnostic("code object has no .text section")
        text, text_addr = text_sec.data(), text_sec["sh_addr"]
        kd_sym = syms.get(name + ".kd")
        if kd_sym is None:
            names = sorted(n[:-3] for n in syms if n.endswith(".kd"))
            raise Diagnostic(f"kernel '{name}' not found in code object", notes=(f"kernels: {', '.join(names)}",))
        kd_addr = kd_sym["st_value"]
        kd = None
        for sec in elf.iter_sections():
            a, sz = sec["sh_addr"], sec["sh_size"]
            if sec["sh_type"] != "SHT_NOBITS" and a <= kd_addr and kd_addr + 64 <= a + sz and a:
                off = kd_addr - a
                kd = sec.data()[off : off + 64]
                break
        if kd is None:
            raise Diagnostic(f"descriptor '{name}.kd' lies in no section")
    except Diagnostic:
        raise
    except Exception as e:  # noqa: BLE001
        # pyelftools reports damaged structures with assorted exception types (ELFError,
        # struct.error, construct's errors, ...): as in binary.reader, each is a Diagnostic
        kind = "ELF structure" if isinstance(e, ELFError) else type(e).__name__
        raise Diagnostic(f"malformed ELF code object ({kind}): {e}") from None
    desc = KernelDescriptor.from_bytes(kd)
    entry = kd_addr + desc.kernel_code_entry_byte_offset
    ksym = syms.get(name)
    end = text_addr + len(text)
    if ksym is not None and ksym["st_value"] == entry and ksym["st_size"]:
        end = entry + ksym["st_size"]
    if not (text_addr <= entry < text_addr + len(text)):
        raise Diagnostic(f"kernel '{name}': entry 0x{entry:x} outside .text")
    return desc, bytes(text), text_addr, entry, end, processor


_LINES: dict = {}  # sha1 of the ELF -> (sorted row addresses, places)


def source_of(data: bytes, pc: int) -> str | None:
    """The line-table row covering ``pc`` (the last row at or before it) as ``file:line:col``."""
    import bisect

    key = hashlib.sha1(data).digest()
    rows = _LINES.get(key)
    if rows is None:
        from elftools.elf.elffile import ELFFile

        from gcnforge.binary.dwarf_line import read_lines

        try:
            table = read_lines(ELFFile(io.BytesIO(data)))
        except Exception:  # noqa: BLE001  (a damaged .debug_* section: no source lines, the pc still says where)
            table = {}
        addrs = sorted(table)
        rows = _LINES[key] = (addrs, [table[a] for a in addrs])
        if len(_LINES) > 64:
            _LINES.pop(next(iter(_LINES)))
    i = bisect.bisect_right(rows[0], pc) - 1
    if i < 0:
        return None
    path, line, col = rows[1][i]
    return f"{path}:{line}:{col}" if col else f"{path}:{line}"


def _processor(e_flags: int) -> str:
    """The code object's processor; gfx942 for a machine value gcnforge does not name (the
    emulator ran every gfx9 object as gfx942 before it knew gfx950; the runtime refuses a
    mismatched target before a launch gets here)."""
    from gcnforge.binary.target_id import NAME_BY_MACH, EF_AMDGPU_MACH

    return NAME_BY_MACH.get(e_flags & EF_AMDGPU_MACH, "gfx942")
