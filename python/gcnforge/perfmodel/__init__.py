"""gfx942 issue model (issue 8): modeled cycles, busiest pipe and MFMA utilization of a
straight-line region or loop body. Depends only on ``isa``; reading ``.s`` text, code objects
or ``amdgcn`` IR into its input is ``gcnforge.cli.model_input``'s job::

    from gcnforge.cli.model_input import analyze_file, analyze_ir
    for r in analyze_file("kernel.s"): print(r.text())

* ``costs``      per-class pipes, busy cycles and latencies (with sources): the one cost
                 model (``stats``, the emulator's run statistics, ``tune``)
* ``device``     ``DeviceProfile``; ``profiles/`` one cited file per device (MI300X, MI308X, MI325X;
                 gfx950: MI355X, MI350X), ``profiles.resolve`` the one a code object's target runs under
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
* ``frontends``  decoded machine code -> items and blocks
* ``mca``        the same blocks through ``llvm-mca`` for comparison
"""

from __future__ import annotations

from gcnforge.perfmodel.issue import Item, Report, simulate


__all__ = ["Item", "Report", "simulate"]
