"""Compare a code object with what its raised module emits (``.text``, descriptors, metadata)."""

from __future__ import annotations

from pathlib import Path

from gcnforge.binary import CodeObject, assemble, read_code_object


def original_code_object(path: str | Path) -> CodeObject:
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" and not data.startswith(b"__CLANG_OFFLOAD_BUNDLE__"):
        data = assemble(data.decode("utf-8", errors="replace"), filename=str(path))
    return read_code_object(data)


def differences(a: CodeObject, b: CodeObject) -> list[str]:
    """What differs between ``a`` (original) and ``b`` (re-emitted); [] when byte-identical."""
    out = []
    if a.text != b.text:
        n = next((i for i, (x, y) in enumerate(zip(a.text, b.text)) if x != y), min(len(a.text), len(b.text)))
        out.append(f".text differs at 0x{a.text_address + n:x} (sizes {len(a.text)} / {len(b.text)})")
    if a.text_address != b.text_address:
        out.append(f".text address 0x{a.text_address:x} became 0x{b.text_address:x}")
    for name, k in a.kernels.items():
        kb = b.kernels.get(name)
        if kb is None:
            out.append(f"kernel {name} is missing")
        elif kb.descriptor.to_bytes() != k.descriptor.to_bytes():
            out.append(f"kernel {name}: descriptor differs")
    if a.metadata != b.metadata:
        out.append("metadata differs")
    return out


def compare_file(path: str | Path, module=None) -> list[str]:
    from gcnforge.raising import module_code_object, raise_file

    if module is None:
        module = raise_file(path)
    return differences(original_code_object(path), read_code_object(module_code_object(module)))
