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
import re
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
    from gcnforge.dialect.structure_ops import KernelOp
    from gcnforge.passes import pipeline
    from gcnforge.target import to_assembly

    top = module.top if hasattr(module, "top") else module
    if schedule:
        from gcnforge.schedule.passes import PASSES as SPASSES

        for name in ("amdgcn-schedule", "amdgcn-lower-loops"):
            SPASSES[name]()().apply(None, top)
    pipeline.run(top, pipeline.parse(pipeline.DEFAULT))
    asm = dpp_text(to_assembly(top))
    blob = assemble(asm)
    out = Compiled(asm, blob)
    for k in top.walk():
        if isinstance(k, KernelOp):
            name = k.sym_name.data
            for attr, dst in (("regalloc", out.regs), ("regalloc_bound", out.bound)):
                a = k.attributes.get(attr)
                if a is not None:
                    dst[name] = {f: a.data[f].value.data for f in "vas"}
    return out


_DPP_RE = re.compile(r"dpp_ctrl:(\d+)")


def _dpp_spelling(m: re.Match) -> str:
    v = int(m.group(1))
    if v <= 0xFF:
        return "quad_perm:[" + ",".join(str((v >> (2 * i)) & 3) for i in range(4)) + "]"
    for base, name in ((0x100, "row_shl"), (0x110, "row_shr"), (0x120, "row_ror")):
        if base < v < base + 16:
            return f"{name}:{v - base}"
    named = {0x130: "wave_shl:1", 0x134: "wave_rol:1", 0x138: "wave_shr:1", 0x13C: "wave_ror:1",
             0x140: "row_mirror", 0x141: "row_half_mirror", 0x142: "row_bcast:15", 0x143: "row_bcast:31"}
    return named.get(v, m.group(0))


def dpp_text(asm: str) -> str:
    """Work around the assembly printer writing DPP controls as the raw ``dpp_ctrl:N`` field,
    which neither llvm-mc nor gcnforge's assembler reads: print LLVM's spelling
    (``quad_perm:[1,0,3,2]``, ``row_ror:4``...; AMD MI300 ISA guide, DPP_CTRL enumeration)."""
    return _DPP_RE.sub(_dpp_spelling, asm)


def devices() -> list[str]:
    """Devices an integration test runs on: always the emulator; HIP too when hip-python
    sees an AMD GPU (tests parametrize over ``["emulator", "hip"]`` and skip HIP with the
    reason otherwise)."""
    return ["emulator", "hip"]


def require_device(name: str) -> None:
    """pytest.skip with the backend's reason when ``name`` is not usable here."""
    import pytest

    from gcnforge.runtime.devices import _make

    if os.environ.get("GCNFORGE_DEVICE") and os.environ["GCNFORGE_DEVICE"] != name:
        pytest.skip(f"GCNFORGE_DEVICE={os.environ['GCNFORGE_DEVICE']} selects another device")
    b = _make(name)
    if not b.available():
        pytest.skip(f"{name}: {getattr(b, 'unavailable_reason', None) or 'not available'} "
                    "(HIP variants run only where an MI300 / gfx942 GPU is present)")
