"""gcnforge: AMD GPU (gfx942) kernels at the assembly level."""

__version__ = "0.1.0"
