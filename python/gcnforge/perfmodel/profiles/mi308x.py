"""AMD Instinct MI308X (CDNA3, gfx942): the 80-CU MI300-series part.

[AITER] AMD's aiter tuning tables (PyPI ``amd-aiter``, ``aiter/configs/bf16_tuned_gemm.csv``)
        record ``cu_num`` = 80 for this device, i.e. ``hipDeviceProp_t.multiProcessorCount``.
[MI300] Everything else is taken from the MI300X profile: the MI308X is built from the same
        XCD / IOD / HBM3 package with fewer CUs enabled (8 XCDs of 10 CUs), so clock, caches,
        latencies and HBM bandwidth are assumed equal to MI300X's. AMD publishes no MI308X
        data sheet we could cite; this is an assumption, stated as such.
"""

from dataclasses import replace

from gcnforge.perfmodel.profiles.mi300x import PROFILE as _MI300X

PROFILE = replace(_MI300X, name="MI308X", cus=80, xcds=8,  # [AITER]
                  sources=("aiter bf16_tuned_gemm.csv cu_num=80", "MI300X profile (assumed equal otherwise)"))
