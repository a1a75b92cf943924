"""Translation of allocated ``amdgcn`` IR to assembly text and code objects."""

from __future__ import annotations


def to_assembly(module, kernels: list[str] | None = None) -> str:
    from gcnforge.translate.asm import module_text

    return module_text(module, kernels)


def to_code_object(module, toolchain: str = "builtin", kernels: list[str] | None = None,
                   filename: str = "<gcnforge>") -> bytes:
    """The code object for the module's own ``#amdgcn.target``. The built-in toolchain takes the
    metadata map as is (no YAML printed and parsed back); LLVM's reads the assembly text."""
    from gcnforge.binary import assemble
    from gcnforge.dialect.value_ops import input_target

    target = input_target(module)
    if toolchain != "builtin":
        from gcnforge.translate.source_lines import compile_unit_text

        text = to_assembly(module, kernels)
        return assemble(text + compile_unit_text(text), target=target, toolchain=toolchain, filename=filename)
    from gcnforge.translate.asm import module_code

    text, md = module_code(module, kernels)
    return assemble(text, target=target, filename=filename, metadata=md)
