"""gfx942 issue model (issue 8): modeled cycles, busiest pipe and MFMA utilization of a
straight-line region or loop body, from ``.s`` text, code objects or ``amdgcn`` IR.

    from gcnforge.perfmodel import analyze_file, analyze_ir
    for r in analyze_file("kernel.s"): print(r.text())

* ``costs``      per-class pipes, busy cycles and latencies (with sources): the one cost
                 model (``stats``, the emulator's run statistics, ``tune``)
* ``device``     ``DeviceProfile``; ``profiles/`` one cited file per device (MI300X, MI308X, MI325X)
* ``occupancy``  waves per SIMD / work-groups per CU from VGPR/AGPR/SGPR/LDS use
* ``engine``     one CU cycle by cycle (SIMDs, pipes, waits, barriers) replaying emulated waves
* ``memory``     vector L1 / L2 / Infinity Cache-HBM with latencies and bandwidth shares
* ``timing``     whole-grid prediction (dispatch, rounds, tail) -> ``TimingReport``
* ``trace_json`` the modelled execution as a Chrome/Perfetto trace
* ``kernels``    microbenchmark kernels (pointer chase, streaming copy)

The emulator's timing mode (``gcnforge.emulator.timing_mode``; from Python
``kernel(..., device="emulator", timing="mi300x")``, from the CLI ``gcnforge run ...
--timing mi308x --trace-out run.json``) drives ``timing.predict`` with real addresses.
* ``issue``      the in-order issue simulation (``Item``, ``simulate``, ``Report``)
* ``frontends``  decoded code / assembly text / IR -> items
* ``mca``        the same blocks through ``llvm-mca`` for comparison
"""

from __future__ import annotations

from gcnforge.perfmodel.issue import Item, Report, simulate


def analyze_file(path) -> list[Report]:
    from gcnforge.perfmodel.frontends import load_blocks

    return [b.report() for b in load_blocks(path)]


def analyze_ir(module) -> list[Report]:
    from gcnforge.perfmodel.frontends import blocks_from_ir

    return [b.report() for b in blocks_from_ir(module)]


def analyze_asm(text: str, name: str = "<asm>") -> list[Report]:
    from gcnforge.perfmodel.frontends import blocks_from_asm_text

    return [b.report() for b in blocks_from_asm_text(text, name)]


__all__ = ["Item", "Report", "simulate", "analyze_file", "analyze_ir", "analyze_asm"]
