"""Whole-grid time from sampled work-groups: the timing model's front door.

``predict`` takes what the emulator recorded for a sample of work-groups (their waves'
executed pcs and memory lines, see ``engine``), the kernel's occupancy and a device profile,
and returns one ``TimingReport``.

Dispatch: work-groups go round-robin over the XCDs and, within an XCD, over its CUs (the
hardware dispatcher places them greedily on CUs with free resources, which for uniform
work-groups is the same order), so CU 0 receives work-groups 0, cus, 2*cus, ... and has the
most (``ceil(n / cus)``); the kernel ends when it does. That CU is simulated with its whole
queue (at most ``occupancy.wgs_per_cu`` resident at once: rounds and the tail fall out).

Assumptions, stated:
* work-groups are uniform: a queued work-group the emulator did not run replays a sampled
  one (its private lines moved to fresh addresses; lines that two sampled work-groups both
  touched are treated as shared data and keep their addresses);
* when the queue is long, two and three rounds are simulated and the rest extrapolated at the
  per-round time;
* device-wide HBM traffic is the modelled CU's misses scaled by work-groups, never more than
  the bytes of the buffers the kernel touched (each read once from HBM; the 256 MiB Infinity
  Cache holds the rest); time is at least that traffic at peak HBM bandwidth;
* the bandwidth a CU's misses get inside the simulation follows the same rule: the ratio of
  the bytes all work-groups read to those buffers' bytes (``reuse``) is how many times the
  shared caches multiply HBM's bandwidth, up to the Infinity Cache's peak (``memory``);
* no host launch overhead is added (the measured times we compare with are device times).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gcnforge.perfmodel.costs import mfma_flops
from gcnforge.perfmodel.device import DeviceProfile
from gcnforge.perfmodel.engine import CUResult, simulate_cu
from gcnforge.perfmodel.occupancy import Occupancy

SIM_BUDGET = 400_000  # dynamic wave-instructions simulated per prediction (a few seconds)
_FRESH = 1 << 40  # line-number offset per replayed work-group (beyond any real address)


@dataclass
class TimingReport:
    kernel: str
    device: str
    seconds: float
    cycles: float  # of the busiest CU
    clock_hz: float
    workgroups: int
    workgroups_per_cu: int  # on the busiest CU
    sampled: int  # work-groups the emulator ran
    occupancy: Occupancy
    bytes_hbm: float  # modelled device-wide HBM reads
    bytes_written: float
    mfma_flops: float  # FLOPs of the MFMAs executed (device-wide estimate)
    flops: float | None  # the caller's FLOP count, if given
    pct_mfma_peak: float
    pct_hbm_bw: float
    limiter: str
    utilization: dict[str, float] = field(default_factory=dict)  # per pipe, on the busiest CU
    stalls: dict[str, float] = field(default_factory=dict)  # wave-cycles waiting, by cause
    loops: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cu: CUResult | None = None  # the simulated CU (slices for the trace)

    @property
    def us(self) -> float:
        return self.seconds * 1e6

    @property
    def tflops(self) -> float | None:
        f = self.flops if self.flops is not None else (self.mfma_flops or None)
        return None if not f or not self.seconds else f / self.seconds / 1e12

    def text(self) -> str:
        o = self.occupancy
        lines = [f"{self.kernel} on {self.device} (modelled): {self.us:.2f} us",
                 f"  grid {self.workgroups} work-groups, {self.workgroups_per_cu} on the busiest CU; occupancy "
                 f"{o.waves_per_simd} waves/SIMD, {o.wgs_per_cu} work-groups/CU (limit: {o.limiter}); "
                 f"emulated {self.sampled}"]
        tf = self.tflops
        lines.append(f"  {'' if tf is None else f'{tf:.2f} TFLOP/s, '}{self.pct_mfma_peak:.1f}% of MFMA peak, "
                     f"HBM {self.bytes_hbm / 1e6:.3f} MB read + {self.bytes_written / 1e6:.3f} MB written "
                     f"({self.pct_hbm_bw:.1f}% of peak bandwidth)")
        lines.append(f"  limited by: {self.limiter}")
        if self.utilization:
            lines.append("  busy: " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in sorted(self.utilization.items())))
        for lp in self.loops:
            lines.append(f"  loop 0x{lp['head_pc']:x}-0x{lp['back_edge_pc']:x}: {lp['iterations']} iterations, "
                         f"{lp['cycles_per_iteration']:.0f} cycles each, {100 * lp['fraction']:.0f}% of the time")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()


def _mfma_flops_of(static, streams, target: str) -> float:
    f = 0.0
    for st in streams:
        for pc, _m in st:
            it = static[pc]
            if it.sem == "mfma":
                try:
                    f += mfma_flops(it.base, target)
                except KeyError:
                    pass
    return f


def _shared_lines(sample: dict[int, list]) -> set[int]:
    seen: dict[int, int] = {}
    for g, streams in sample.items():
        mine = set()
        for st in streams:
            for _pc, m in st:
                if m is not None and m[0] != "lds":
                    mine.update(m[1])
        for ln in mine:
            seen[ln] = seen.get(ln, 0) + 1
    return {ln for ln, c in seen.items() if c > 1}


def _replay(streams: list, k: int, shared: set[int]) -> list:
    off = (k + 1) * _FRESH
    out = []
    for st in streams:
        out.append([(pc, m if m is None or m[0] == "lds" else
                     (m[0], tuple(ln if ln in shared else ln + off for ln in m[1]), m[2])) for pc, m in st])
    return out


def _reuse(sample: dict[int, list], n_wg: int, line_bytes: int, footprint_bytes: float | None) -> float:
    """Device-wide bytes read (the sampled work-groups' distinct lines, scaled to the grid)
    over the bytes of the buffers read: how often the average byte is fetched."""
    if not footprint_bytes or not sample:
        return 1.0
    lines = 0
    for streams in sample.values():
        mine = set()
        for st in streams:
            for _pc, m in st:
                if m is not None and m[0] == "load":
                    mine.update(m[1])
        lines += len(mine)
    return max(1.0, lines * line_bytes * n_wg / len(sample) / footprint_bytes)


def predict(static: dict, sample: dict[int, list], n_wg: int, occ: Occupancy, prof: DeviceProfile, *,
            kernel: str = "kernel", flops: float | None = None, footprint_bytes: float | None = None,
            keep_slices: bool = False, simds: int = 4) -> TimingReport:
    """``sample``: work-group linear id -> its waves' streams (``engine.Stream``)."""
    cus = prof.cus
    active = min(cus, n_wg)
    q = -(-n_wg // cus)
    ids = sorted(sample)
    shared = _shared_lines(sample)
    notes: list[str] = []
    resident = max(1, occ.wgs_per_cu)
    if occ.wgs_per_cu == 0:
        notes.append("the kernel does not fit on a CU (occupancy 0); modelled as one work-group at a time")

    def queue(n: int) -> list:
        out = []
        for k in range(n):
            wid = k * cus
            if wid in sample:
                out.append(sample[wid])
            else:
                out.append(_replay(sample[ids[k % len(ids)]], k, shared))
        return out

    per_wg = max(1, sum(len(s) for st in sample.values() for s in st) // max(1, len(sample)))
    reuse = _reuse(sample, n_wg, prof.line_bytes, footprint_bytes)
    if q * per_wg <= SIM_BUDGET or q <= 3 * resident:
        cu = simulate_cu(static, queue(q), resident, prof, active, simds, keep_slices, reuse=reuse)
        cycles = cu.cycles
        simulated = q
    else:
        q1, q2 = 2 * resident, 3 * resident
        c1 = simulate_cu(static, queue(q1), resident, prof, active, simds, reuse=reuse).cycles
        cu = simulate_cu(static, queue(q2), resident, prof, active, simds, keep_slices, reuse=reuse)
        rounds = -(-q // resident)
        cycles = cu.cycles + (rounds - 3) * (cu.cycles - c1)
        simulated = q2
        notes.append(f"{q} work-groups on the busiest CU: {q2} simulated, {rounds - 3} further rounds "
                     f"extrapolated at {cu.cycles - c1:.0f} cycles each")
    scale = n_wg / simulated  # device-wide totals from the simulated CU
    bytes_hbm = cu.mem.bytes_read_hbm * scale
    if footprint_bytes is not None and bytes_hbm > footprint_bytes:
        bytes_hbm = float(footprint_bytes)
    bytes_w = cu.mem.bytes_written * scale
    seconds = cycles / prof.clock_hz
    bw_s = (bytes_hbm + bytes_w) / prof.hbm_bytes_per_s
    if bw_s > seconds:
        notes.append(f"HBM-bandwidth floor: {bw_s * 1e6:.2f} us > the CU model's {seconds * 1e6:.2f} us")
        seconds = bw_s
    mf = _mfma_flops_of(static, [s for g in sample.values() for s in g], prof.target) * n_wg / max(1, len(sample))
    per_cu = {"lds", "vmem", "smem"}  # one per CU; the others one per SIMD
    util = {p: min(1.0, b / (cu.cycles * (1 if p in per_cu else simds))) for p, b in cu.busy.items()
            if cu.cycles > 0 and p in ("mfma", "valu", "lds", "vmem", "salu", "trans")}
    mfma_busy_dev = cu.busy.get("mfma", 0.0) * scale
    pct_mfma = 100 * mfma_busy_dev / (seconds * prof.clock_hz * simds * cus) if seconds else 0.0
    pct_hbm = 100 * (bytes_hbm + bytes_w) / seconds / prof.hbm_bytes_per_s if seconds else 0.0
    cands = {"MFMA (matrix cores)": util.get("mfma", 0.0), "VALU": util.get("valu", 0.0),
             "LDS bandwidth": util.get("lds", 0.0), "vector memory issue": util.get("vmem", 0.0),
             "HBM bandwidth": pct_hbm / 100}
    lim, val = max(cands.items(), key=lambda kv: kv[1])
    if val < 0.5:
        cause = max(cu.stall, key=lambda k: cu.stall[k]) if cu.stall and any(cu.stall.values()) else "issue"
        lim = f"latency (waves mostly waiting on {cause})"
        if active < cus:
            lim += f"; only {active} of {cus} CUs have work"
    return TimingReport(kernel, prof.name, seconds, cycles, prof.clock_hz, n_wg, q, len(sample), occ, bytes_hbm,
                        bytes_w, mf, flops, pct_mfma, pct_hbm, lim, util, dict(cu.stall), cu.loops, notes, cu)


__all__ = ["TimingReport", "predict"]
