"""``gcnforge devices``: what can run kernels here -- the emulator (always) and every AMD GPU
HIP shows (index for ``--device hip:N``, target id, product name, CUs, memory), with the
timing model's device profile that describes it.

    gcnforge devices
    HIP_VISIBLE_DEVICES=2,3 gcnforge devices      # HIP's own filter: GPUs renumbered 0, 1
"""

from __future__ import annotations

# Bound on GPUs listed: more than any node has (an input-controlled loop must be bounded).
MAX_GPUS = 64


def register(subparsers) -> None:
    p = subparsers.add_parser("devices", help="list the emulator and the AMD GPUs HIP sees, with their timing profiles",
                              description=__doc__.split("\n\n")[0])
    p.set_defaults(func=run)


def gpu_rows() -> tuple[list[tuple[str, ...]], str | None]:
    """One row per GPU: (device, target id, product, CUs, memory GiB, profile, why), and the
    reason there are none (None when HIP answered)."""
    from gcnforge.perfmodel import profiles
    from gcnforge.runtime.devices import _make

    first = _make("hip")
    count = first.device_count()
    if count == 0:
        first.available()
        return [], first.unavailable_reason or "no AMD GPU"
    rows = []
    for i in range(min(count, MAX_GPUS)):
        b = _make(f"hip:{i}")
        name = "hip" if i == 0 else f"hip:{i}"
        if not b.available():
            rows.append((name, "-", b.unavailable_reason or "not available", "-", "-", "-", ""))
            continue
        prof, why = profiles.match(b.arch, b.cu_count, b.product_name)
        rows.append((name, b.arch, b.product_name, str(b.cu_count), f"{b.memory_bytes / 2**30:.0f}",
                     prof.name.lower() if prof else "none", why))
    return rows, None


def run(args) -> int:
    from gcnforge.isa.target import TARGETS

    print(f"emulator  runs {', '.join(TARGETS)} code objects (timing profiles: gcnforge run --timing)")
    rows, none = gpu_rows()
    if none:
        print(f"no AMD GPU: {none}")
        return 0
    head = ("device", "target id", "product", "CUs", "GiB", "profile", "matched by")
    widths = [max(len(r[i]) for r in (head, *rows)) for i in range(len(head))]
    for r in (head, *rows):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0
