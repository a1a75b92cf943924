"""AMD Instinct MI325X (CDNA3, gfx942).

[DS] AMD Instinct MI325X data sheet / ROCm "AMD GPU specifications" table: 304 CUs (38 per
     XCD), 2100 MHz peak engine clock, 256 GB HBM3E at 6.0 TB/s peak bandwidth, 256 MiB
     Infinity Cache, 4 MiB L2 per XCD. Same CDNA3 XCD as MI300X, so cache bandwidths and
     on-die latencies are MI300X's; HBM3E latency assumed equal to MI300X's HBM3.
"""

from dataclasses import replace

from gcnforge.perfmodel.profiles.mi300x import PROFILE as _MI300X

PROFILE = replace(_MI300X, name="MI325X", hbm_bytes_per_s=6.0e12,  # [DS]
                  sources=("AMD MI325X data sheet", "ROCm GPU specifications", "MI300X profile (same XCD)"))
