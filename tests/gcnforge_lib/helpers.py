"""Build a kernel with the builder, compile it with the default pipeline and run it on the
emulator (the NumPy reference is each test's own)."""

from __future__ import annotations

from gcnforge.builder import Module


def compile_module(m: Module) -> bytes:
    from gcnforge.passes import pipeline
    from gcnforge.translate import to_code_object

    pipeline.run(m.top, pipeline.parse(pipeline.DEFAULT))
    return to_code_object(m.top)


def run(m: Module, name: str, *args, grid=(1, 1, 1), block=(64, 1, 1), sanitize: bool = True):
    import gcnforge

    blob = compile_module(m)
    return gcnforge.load(blob, device="emulator")[name](*args, grid=grid, block=block, device="emulator",
                                                        sanitize=sanitize)
