"""Compile a ``gcnforge.builder.Module`` to a gfx942 code object, the way the main job does.

``compile_module(m, schedule=False)`` runs, in order: ``amdgcn-schedule`` (only when the
kernel uses ``gcnforge.schedule`` loops: it expands them) and ``amdgcn-lower-loops``, then the
default pipeline (inline, ABI lowering, register allocation, waits, hazards), translates to
assembly text and assembles with the built-in toolchain. The result keeps the assembly,
the code-object bytes and, per kernel, the allocator's register use and its lower bound
(the most registers simultaneously live) so benchmarks can compare them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass
class Compiled:
    asm: str
    blob: bytes
    regs: dict[str, dict[str, int]] = field(default_factory=dict)  # kernel -> {v, a, s} used
    bound: dict[str, dict[str, int]] = field(default_factory=dict)  # kernel -> {v, a, s} max live

    def load(self, device: str | None = None):
        import gcnforge.runtime as rt

        return rt.load(self.blob, device=device)


def compile_module(module, schedule: bool = False) -> Compiled:
    from gcnforge.binary import assemble
    from gcnforge.passes import pipeline
    from gcnforge.translate import to_assembly

    top = module.top if hasattr(module, "top") else module
    if schedule:
        from gcnforge.schedule.passes import PASSES as SPASSES

        for name in ("amdgcn-schedule", "amdgcn-lower-loops"):
            SPASSES[name]()().apply(None, top)
    pipeline.run(top, pipeline.parse(pipeline.DEFAULT))
    asm = to_assembly(top)
    # the builder Module's target (gfx942 or gfx950; a bare IR module: the assembly's own)
    blob = assemble(asm, target=getattr(module, "target", None) or "gfx942")
    out = Compiled(asm, blob)
    for k in top.walk():
        if k.name == "amdgcn.kernel":
            name = k.sym_name.data
            for attr, dst in (("regalloc", out.regs), ("regalloc_bound", out.bound)):
                a = k.attributes.get(attr)
                if a is not None:
                    dst[name] = {f: a.data[f].value.data for f in "vas"}
    return out


def devices() -> list[str]:
    """Devices an integration test runs on: always the emulator; HIP too when hip-python
    sees an AMD GPU (tests parametrize over ``["emulator", "hip"]`` and skip HIP with the
    reason otherwise)."""
    return ["emulator", "hip"]


def require_device(name: str) -> None:
    """pytest.skip with the backend's reason when ``name`` is not usable here."""
    import pytest

    from gcnforge.runtime.devices import _make

    env = os.environ.get("GCNFORGE_DEVICE")
    if env and env.split(":")[0] != name:  # hip:N is a hip device (the one 'hip' then names)
        pytest.skip(f"GCNFORGE_DEVICE={env} selects another device")
    b = _make(name)
    if not b.available():
        pytest.skip(f"{name}: {getattr(b, 'unavailable_reason', None) or 'not available'} "
                    "(HIP variants run only where an MI300 / gfx942 GPU is present)")
