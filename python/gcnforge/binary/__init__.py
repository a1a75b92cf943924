"""Code objects: kernel descriptor, AMDGPU metadata, ELF read and write, linking.

Public API (see /work/briefs/interfaces.md):
    read_code_object(bytes | path) -> CodeObject
    assemble(text, target="gfx942", toolchain="builtin" | "llvm", filename="<asm>") -> bytes
    CodeObject, KernelInfo, KernelDescriptor, Symbol
"""

from __future__ import annotations

from gcnforge.binary.descriptor import KernelDescriptor
from gcnforge.binary.model import CodeObject, KernelInfo, Symbol
from gcnforge.binary.reader import read_code_object

__all__ = ["CodeObject", "KernelInfo", "KernelDescriptor", "Symbol", "read_code_object", "assemble"]


def assemble(text: str, target: str = "gfx942", toolchain: str = "builtin", filename: str = "<asm>") -> bytes:
    """Assemble a whole ``.s`` file into code-object bytes (built-in, or llvm-mc + ld.lld)."""
    from gcnforge.binary.toolchain import assemble as _assemble

    return _assemble(text, target=target, toolchain=toolchain, filename=filename)
