"""gcnforge: AMD GPU (gfx942) kernels at the assembly level."""

__version__ = "0.1.0"

# Top-level conveniences, imported lazily so `import gcnforge` stays cheap:
#   gcnforge.assemble(text, target="gfx942", toolchain="builtin") -> code-object bytes (binary)
#   gcnforge.load(path_or_bytes) -> runtime Module (runtime)
#   gcnforge.to_device / empty / bench -> device buffers and timing (runtime)
_LAZY = {
    "assemble": ("gcnforge.binary", "assemble"),
    "load": ("gcnforge.runtime", "load"),
    "to_device": ("gcnforge.runtime", "to_device"),
    "empty": ("gcnforge.runtime", "empty"),
    "bench": ("gcnforge.runtime", "bench"),
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'gcnforge' has no attribute {name!r}")
