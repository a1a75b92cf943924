"""Translation of allocated ``amdgcn`` IR to assembly text and code objects."""

from __future__ import annotations


def to_assembly(module, kernels: list[str] | None = None) -> str:
    from gcnforge.target.asm import module_text

    return module_text(module, kernels)


def to_code_object(module, toolchain: str = "builtin", kernels: list[str] | None = None) -> bytes:
    from gcnforge.binary import assemble

    if toolchain != "builtin":
        return assemble(to_assembly(module, kernels), toolchain=toolchain, filename="<gcnforge>")
    from gcnforge.target.asm import module_code

    text, md = module_code(module, kernels)
    return assemble(text, filename="<gcnforge>", metadata=md)
