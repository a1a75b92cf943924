"""The in-memory model of a code object that the runtime, the emulator and the CLIs share.

A ``CodeObject`` is what ``read_code_object`` returns for any gfx9 HSA code object (ours,
clang + ld.lld's, a vendor library's): the target id, the decoded AMDGPU metadata note, the
``.text`` bytes and, per kernel, the 64-byte kernel descriptor decoded into the
``.amdhsa_*`` fields plus the kernel's code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gcnforge.binary.descriptor import KernelDescriptor


@dataclass(frozen=True, slots=True)
class Symbol:
    """One ELF symbol (from ``.symtab`` when present, else ``.dynsym``)."""

    name: str
    value: int  # virtual address (or the absolute value for SHN_ABS symbols)
    size: int
    type: str  # "FUNC", "OBJECT", "NOTYPE", "SECTION", ...
    binding: str  # "LOCAL", "GLOBAL", "WEAK"
    visibility: str  # "DEFAULT", "PROTECTED", "HIDDEN", "INTERNAL"
    section: str | None  # section name, "ABS", or None when undefined


@dataclass(frozen=True, slots=True)
class KernelInfo:
    """One kernel: its descriptor, metadata map and code."""

    name: str
    descriptor: KernelDescriptor
    metadata: dict  # this kernel's entry of amdhsa.kernels (keys keep their leading dot)
    code_offset: int  # entry point as a byte offset into CodeObject.text
    code: bytes  # from the entry to the end of the kernel symbol (st_size bytes)
    entry: int  # entry point virtual address (descriptor address + kernel_code_entry_byte_offset)
    descriptor_address: int = 0  # virtual address of the ``<name>.kd`` symbol


@dataclass(frozen=True, slots=True)
class CodeObject:
    """A whole code object."""

    target: str  # target id, e.g. "gfx942", "gfx942:sramecc+:xnack-"
    kernels: dict[str, KernelInfo]
    text: bytes  # contents of .text
    text_address: int  # virtual address of .text
    symbols: dict[str, Symbol]
    metadata: dict  # the whole decoded NT_AMDGPU_METADATA msgpack map ({} when absent)
    data: bytes  # the ELF image
    e_flags: int = 0
    code_object_version: int = 0  # 4, 5 or 6 (from EI_ABIVERSION); 0 if unknown
    sections: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # name -> (addr, offset, size)
    # Dynamic relocations (.rela.dyn): (r_offset, type, addend); a loader at base B writes
    # B + addend to B + r_offset for R_AMDGPU_RELATIVE64 (13), the only kind ld.lld emits here.
    relocations: tuple[tuple[int, int, int], ...] = ()
    # Inconsistencies that do not stop reading (e.g. metadata for a kernel with no descriptor).
    problems: tuple[str, ...] = ()

    def kernel(self, name: str) -> KernelInfo:
        from gcnforge.diagnostics import Diagnostic

        try:
            return self.kernels[name]
        except KeyError:
            known = ", ".join(sorted(self.kernels)) or "none"
            raise Diagnostic(f"no kernel named '{name}' in code object (kernels: {known})") from None
