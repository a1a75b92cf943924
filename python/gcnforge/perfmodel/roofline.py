"""A timing report drawn on its device's roofline (``gcnforge run --timing D --roofline out.png``,
or ``roofline.draw(result.timing, profiles.get(D), "out.png")``).

Axes: arithmetic intensity (FLOP per byte of HBM traffic, reads and writes) against TFLOP/s,
both logarithmic. Ceilings: the device's achievable HBM bandwidth (the profile's measured
figure where it has one), its MFMA peak as the report computed it, and each published
Max-Achievable FLOPs figure (AMD's MAF blog) the profile lists. The kernel is one point. The
ceilings come from the same profile the prediction used, so the point sits under them unless
the report itself says it beats them. matplotlib is an optional extra (``pip install
'gcnforge[plot]'``); without it ``draw`` raises a Diagnostic saying so.
"""

from __future__ import annotations

from gcnforge.diagnostics import Diagnostic


def point(report) -> tuple[float, float]:
    """(FLOP per HBM byte, TFLOP/s) of a ``TimingReport``."""
    flops = report.flops if report.flops is not None else report.mfma_flops
    nbytes = report.bytes_hbm + report.bytes_written
    if not flops or not report.seconds:
        raise Diagnostic(f"{report.kernel}: no FLOP count to place on a roofline (the kernel runs no MFMA; "
                         "pass flops= / --flops N)")
    if not nbytes:
        raise Diagnostic(f"{report.kernel}: no HBM traffic modelled, so no arithmetic intensity")
    return flops / nbytes, flops / report.seconds / 1e12


def ceilings(report, profile) -> dict[str, float]:
    """Compute ceilings in TFLOP/s: the MFMA peak the report measured its use against, and the
    profile's published MAF figures."""
    out = {}
    tf = report.tflops
    if tf and report.pct_mfma_peak > 0 and report.flops is None:
        out["MFMA peak"] = tf / (report.pct_mfma_peak / 100)
    for dtype, f in getattr(profile, "maf_flops", ()):
        out[f"MAF {dtype}"] = f / 1e12
    return out


def draw(report, profile, path: str) -> str:
    """Write the roofline PNG (or any format matplotlib infers from ``path``); returns ``path``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise Diagnostic("--roofline needs matplotlib: pip install 'gcnforge[plot]'") from None
    x, y = point(report)
    bw = profile.hbm_achievable / 1e12  # TB/s: TFLOP/s per FLOP/byte
    tops = ceilings(report, profile)
    top = max([*tops.values(), y * 2])
    lo, hi = min(x / 10, 0.1), max(x * 10, top / bw * 10)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    xs = [lo, top / bw, hi]  # the slope up to the highest ceiling's knee, then flat
    ax.plot(xs, [min(bw * v, top) for v in xs], color="tab:blue",
            label=f"HBM {bw:.2f} TB/s ({profile.name}, achievable)")
    for i, (name, t) in enumerate(sorted(tops.items(), key=lambda kv: -kv[1])):
        ax.plot([t / bw, hi], [t, t], linestyle="-" if i == 0 else "--", label=f"{name} {t:.0f} TFLOP/s")
    ax.scatter([x], [y], color="tab:red", zorder=5, label=f"{report.kernel}: {y:.3g} TFLOP/s at {x:.3g} FLOP/B")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP per HBM byte)")
    ax.set_ylabel("TFLOP/s")
    limiter = str(report.limiter).split(";")[0].split(" (")[0]
    ax.set_title(f"{report.kernel} on {report.device}: {report.us:.3g} us, limited by {limiter}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
