"""Code objects: kernel descriptor, AMDGPU metadata, ELF read and write, linking.

Public API (see /work/briefs/interfaces.md):
    read_code_object(bytes | path, target="gfx942") -> CodeObject   (ELF, or a clang offload bundle)
    assemble(text, target="gfx942", toolchain="builtin" | "llvm", filename="<asm>") -> bytes
    CodeObject, KernelInfo, KernelDescriptor, Symbol

Modules:
    descriptor          the 64-byte kernel descriptor: words, named bit fields, .amdhsa_* text
    kernel_directives   .amdhsa_kernel block -> descriptor (LLVM 22's rules and diagnostics)
    expr                MC expressions (GNU precedence, AMDGPU max/or/alignto/extrasgprs/totalnumvgprs)
    metadata            .amdgpu_metadata YAML <-> msgpack NT_AMDGPU_METADATA note
    target_id           gfx942:sramecc+:xnack- <-> e_flags, ABI version per code object version
    statements          assembly text -> labels / directives / instructions
    assembler           whole-file two-pass assembler (instructions via gcnforge.asm)
    elf_writer          ld.lld -shared layout: headers, dynsym/hash/dynamic, note, RELATIVE64 relocs
    reader, bundle      code object (or HIP fat binary) -> CodeObject, Diagnostic on any damage
    to_asm              CodeObject -> reassemblable text (round trip)
    toolchain           builtin | llvm (llvm-mc + ld.lld) behind one call
"""

from __future__ import annotations

__all__ = ["CodeObject", "KernelInfo", "KernelDescriptor", "Symbol", "read_code_object", "assemble"]


def assemble(text: str, target: str = "gfx942", toolchain: str = "builtin", filename: str = "<asm>",
             metadata: dict | None = None) -> bytes:
    """Assemble a whole ``.s`` file into code-object bytes (built-in, or llvm-mc + ld.lld).
    ``metadata``: the ``.amdgpu_metadata`` map when ``text`` has no such block (a compile
    passes it directly instead of printing YAML and parsing it back)."""
    from gcnforge.binary.toolchain import assemble as _assemble

    return _assemble(text, target=target, toolchain=toolchain, filename=filename, metadata=metadata)


def __getattr__(name: str):
    # imported on first use: the reader pulls in pyelftools, and assembling needs neither it
    # nor the code-object model
    if name == "read_code_object":
        from gcnforge.binary.reader import read_code_object

        return read_code_object
    if name == "KernelDescriptor":
        from gcnforge.binary.descriptor import KernelDescriptor

        return KernelDescriptor
    if name in ("CodeObject", "KernelInfo", "Symbol"):
        from gcnforge.binary import model

        return getattr(model, name)
    raise AttributeError(f"module 'gcnforge.binary' has no attribute {name!r}")
