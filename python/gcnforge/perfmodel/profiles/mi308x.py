"""AMD Instinct MI308X (CDNA3, gfx942): the 80-CU MI300-series part, the device of the
measured times the timing model is calibrated on.

[AITER] AMD's aiter tuning tables (PyPI ``amd-aiter``, ``aiter/configs/bf16_tuned_gemm.csv``)
        record ``cu_num`` = 80 for this device, i.e. ``hipDeviceProp_t.multiProcessorCount``.
[MI300] Everything else is taken from the MI300X profile: the MI308X is built from the same
        XCD / IOD / HBM3 package with fewer CUs enabled (8 XCDs of 10 CUs), so boost clock,
        caches, latencies and (achievable) HBM bandwidth are assumed equal to MI300X's. AMD
        publishes no MI308X data sheet or Max-Achievable FLOPs we could cite; this is an
        assumption, stated as such.
[FIT]   Fitted by ``benchmarks/bench_timing_model.py`` on the calibration rows (aiter
        bf16_tuned_gemm.csv cu_num 80, asm_a8w8_gemm.csv's rows measured by aiter commit
        b277344435; k-fold cross-validated there):
        ``clock_mfma_hz`` absorbs the MI308X's unpublished sustained clock under matrix-core
        load (700 MHz with every matrix core busy; the power-cap form of
        ``DeviceProfile.sustained_clock`` scales it by 1 / density, so aiter's 2024 int8 GEMM,
        matrix cores 44-57% busy and LDS-bound in the model, runs at 1.23-1.58 GHz and the bf16 rows,
        under 26% busy, at boost). Every fold of the cross-validation picks 700 MHz. For
        comparison: AMD's MAF part 2 gives the MI300X's BF16 MAF GEMM a median 1207 MHz; no
        MI308X data sheet or MAF states its figure (a lower power or clock cap is a possible
        cause; not verified). ``launch_overhead_s`` and ``throttle_tau_s`` as in mi300x.py (the
        MI300X uses these values). ``bands``: the held-out relative residuals per regime from the
        same run.
"""

from dataclasses import replace

from gcnforge.perfmodel.profiles.mi300x import PROFILE as _MI300X

CLOCK_MFMA_HZ = 7.0e8  # [FIT]

PROFILE = replace(_MI300X, name="MI308X", cus=80, xcds=8,  # [AITER]
                  clock_mfma_hz=CLOCK_MFMA_HZ, maf_flops=(),  # [FIT]; no published MAF
                  fitted=_MI300X.fitted + (("clock_mfma_hz", "the MI308X's unpublished sustained clock under "
                                            "matrix-core load (see the module docstring)"),),
                  sources=("aiter bf16_tuned_gemm.csv cu_num=80", "MI300X profile (assumed equal otherwise)",
                           "fitted: bench_timing_model.py"))
