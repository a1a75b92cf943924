"""What the emulator needs from a code object to launch one kernel.

The kernel descriptor is read from its 64 raw bytes, exactly as the command processor
does (LLVM AMDGPUUsage, "Kernel Descriptor" for GFX9: field offsets and bit positions
below are from that table), so a dispatch follows the bits that are in the binary, not an
interpretation of them. Code objects come from ``gcnforge.binary.read_code_object``; the
ELF image (``CodeObject.data``) gives the ``<kernel>.kd`` and ``<kernel>`` symbols.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass, field

from gcnforge.diagnostics import Diagnostic


def _bits(v: int, lo: int, width: int) -> int:
    return (v >> lo) & ((1 << width) - 1)


@dataclass(frozen=True)
class Descriptor:
    group_segment_fixed_size: int
    private_segment_fixed_size: int
    kernarg_size: int
    entry_offset: int  # kernel_code_entry_byte_offset (relative to the descriptor)
    rsrc1: int
    rsrc2: int
    rsrc3: int
    code_properties: int
    kernarg_preload: int

    @classmethod
    def from_bytes(cls, b: bytes) -> "Descriptor":
        if len(b) != 64:
            raise Diagnostic(f"kernel descriptor must be 64 bytes, got {len(b)}")
        gs, ps, ks = struct.unpack_from("<III", b, 0)
        (entry,) = struct.unpack_from("<q", b, 16)
        r3, r1, r2 = struct.unpack_from("<III", b, 44)
        props, preload = struct.unpack_from("<HH", b, 56)
        return cls(gs, ps, ks, entry, r1, r2, r3, props, preload)

    # compute_pgm_rsrc1
    @property
    def vgpr_count(self) -> int:  # gfx90a+: unified file, granule 8
        return (_bits(self.rsrc1, 0, 6) + 1) * 8

    @property
    def sgpr_count(self) -> int:
        return (_bits(self.rsrc1, 6, 4) + 1) * 16

    @property
    def float_round_mode_32(self) -> int:
        return _bits(self.rsrc1, 12, 2)

    @property
    def float_denorm_mode_32(self) -> int:
        return _bits(self.rsrc1, 16, 2)

    @property
    def float_denorm_mode_16_64(self) -> int:
        return _bits(self.rsrc1, 18, 2)

    @property
    def dx10_clamp(self) -> bool:
        return bool(_bits(self.rsrc1, 21, 1))

    @property
    def ieee_mode(self) -> bool:
        return bool(_bits(self.rsrc1, 23, 1))

    # compute_pgm_rsrc2
    @property
    def enable_private_segment(self) -> bool:
        return bool(_bits(self.rsrc2, 0, 1))

    @property
    def user_sgpr_count(self) -> int:
        return _bits(self.rsrc2, 1, 5)

    @property
    def workgroup_id(self) -> tuple[bool, bool, bool]:
        return tuple(bool(_bits(self.rsrc2, 7 + i, 1)) for i in range(3))  # type: ignore[return-value]

    @property
    def workgroup_info(self) -> bool:
        return bool(_bits(self.rsrc2, 10, 1))

    @property
    def vgpr_workitem_id(self) -> int:
        return _bits(self.rsrc2, 11, 2)

    # compute_pgm_rsrc3 (gfx90a+): accum_offset = (bits[5:0] + 1) * 4
    @property
    def accum_offset(self) -> int:
        return (_bits(self.rsrc3, 0, 6) + 1) * 4

    # kernel_code_properties
    def prop(self, bit: int) -> bool:
        return bool(_bits(self.code_properties, bit, 1))

    @property
    def preload_length(self) -> int:
        return _bits(self.kernarg_preload, 0, 7)

    @property
    def preload_offset(self) -> int:
        return _bits(self.kernarg_preload, 7, 9)


@dataclass
class KernelImage:
    name: str
    descriptor: Descriptor
    text: bytes  # the whole .text section
    text_address: int
    entry: int  # address of the first instruction
    end: int  # end of the kernel symbol (or of .text)
    metadata: dict = field(default_factory=dict)


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


def kernel_image(code_object, name: str) -> KernelImage:
    """Find kernel ``name`` (and its descriptor ``name.kd``) in a code object."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    data = _elf_bytes(code_object)
    try:
        elf = ELFFile(io.BytesIO(data))
        syms = {}
        for sec_name in (".symtab", ".dynsym"):
            sec = elf.get_section_by_name(sec_name)
            if sec is not None:
                for s in sec.iter_symbols():
                    syms.setdefault(s.name, s)
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
    except ELFError as e:
        raise Diagnostic(f"not an ELF code object: {e}") from None
    desc = Descriptor.from_bytes(kd)
    entry = kd_addr + desc.entry_offset
    ksym = syms.get(name)
    end = text_addr + len(text)
    if ksym is not None and ksym["st_value"] == entry and ksym["st_size"]:
        end = entry + ksym["st_size"]
    if not (text_addr <= entry < text_addr + len(text)):
        raise Diagnostic(f"kernel '{name}': entry 0x{entry:x} outside .text")
    md = {}
    kinfo = getattr(getattr(code_object, "kernels", None) or {}, "get", lambda _k: None)(name)
    if kinfo is not None:
        md = dict(getattr(kinfo, "metadata", {}) or {})
    return KernelImage(name, desc, bytes(text), text_addr, entry, end, md)
