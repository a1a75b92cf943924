"""gcnforge's wave64 emulator: runs gfx942 and gfx950 code objects (each as its own target) on the host with NumPy.

    from gcnforge.emulator import Device
    dev = Device()
    a = dev.memory.alloc(4096); dev.memory.write(a, data)
    stats = dev.run(code_object, "kernel", kernarg_bytes, grid=(n, 1, 1), block=(256, 1, 1))

See ``executor.py`` (dispatch and scheduling), ``ops_*.py`` (instruction semantics),
``sanitizer.py`` (checks) and ``memory.py`` (address spaces).
"""

from gcnforge.emulator.device import Device, EmulationError, RunStats

__all__ = ["Device", "RunStats", "EmulationError"]
