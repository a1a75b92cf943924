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
* a queued work-group the emulator did not run replays the sampled one of its path class
  (``path_of``: the emulator's timing mode samples one work-group of every distinct path it
  finds -- full tile, edge tiles, early exit -- and ``weights`` gives how many work-groups of
  the grid each stands for; without them every work-group replays the sample round-robin).
  Its private lines move to fresh addresses; lines that two sampled work-groups both
  touched are treated as shared data and keep their addresses;
* when the queue is long, two and three rounds are simulated and the rest extrapolated at the
  per-round time;
* device-wide HBM traffic is the modelled CU's misses scaled by work-groups, never more than
  the bytes of the buffers the kernel touched when they fit the 256 MiB Infinity Cache (each
  read once from HBM, the Infinity Cache holds the rest); time is at least that traffic at
  the profile's achievable (measured) HBM bandwidth;
* the bandwidth a CU's misses get inside the simulation follows the same rule: the ratio of
  the bytes all work-groups read to those buffers' bytes (``reuse``) is how many times the
  shared caches multiply HBM's bandwidth, up to the Infinity Cache's (``memory``);
* the CU is simulated in cycles of the boost clock (``clock_hz``); the kernel's time is
  those cycles at the mean sustained clock (``DeviceProfile.sustained_clock``: lower the
  busier the matrix cores are device-wide and the longer the kernel runs), the memory
  latencies stay the boost clock's cycles (they are ns behind the fabric: slightly pessimistic
  for throttled kernels);
* every prediction includes the profile's per-launch overhead (``launch_overhead_s``:
  dispatch and end-of-kernel write-back), reported apart from the kernel's own time;
* the report names the limiter, its regime (``regime_of``) and the band of relative error the
  profile's held-out residuals give for that regime; a TFLOP/s above the device's published
  Max-Achievable FLOPs for the MFMA's data type is flagged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gcnforge.perfmodel.costs import mfma_cycles, mfma_flops
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
    kernel_seconds: float = 0.0  # the kernel alone (without the launch overhead)
    launch_seconds: float = 0.0
    clock_eff_hz: float = 0.0  # mean sustained clock the kernel ran at
    mfma_density: float = 0.0  # device-wide matrix-core busy fraction
    regime: str = ""
    band: tuple[float, float] | None = None  # relative error band of the regime (held-out residuals)
    dtype: str | None = None  # the MFMAs' data type
    mfma: str | None = None  # the MFMA executed most
    launches: int = 1
    utilization: dict[str, float] = field(default_factory=dict)  # per pipe, on the busiest CU
    stalls: dict[str, float] = field(default_factory=dict)  # wave-cycles waiting, by cause
    loops: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cu: CUResult | None = None  # the simulated CU (slices for the trace)
    sampled_ids: tuple[int, ...] = ()  # linear ids (x + gx (y + gy z)) of the work-groups the emulator ran

    @property
    def us(self) -> float:
        return self.seconds * 1e6

    @property
    def tflops(self) -> float | None:
        f = self.flops if self.flops is not None else (self.mfma_flops or None)
        return None if not f or not self.seconds else f / self.seconds / 1e12

    def text(self) -> str:
        o = self.occupancy
        band = (f" (no error band: no held-out calibration rows in the {self.regime} regime)" if self.band is None else
                f" (band {self.us * (1 + self.band[0]):.2f}-{self.us * (1 + self.band[1]):.2f} us from held-out "
                f"residuals of the {self.regime} regime)")
        lines = [f"{self.kernel} on {self.device} (modelled): {self.us:.2f} us{band}",
                 f"  kernel {self.kernel_seconds * 1e6:.2f} us at {self.clock_eff_hz / 1e6:.0f} MHz (the mean sustained "
                 f"clock: boost {self.clock_hz / 1e6:.0f}, matrix cores {100 * self.mfma_density:.0f}% busy) + launch "
                 f"{self.launch_seconds * 1e6:.2f} us",
                 f"  grid {self.workgroups} work-groups, {self.workgroups_per_cu} on the busiest CU; occupancy "
                 f"{o.waves_per_simd} waves/SIMD, {o.wgs_per_cu} work-groups/CU (limit: {o.limiter}); "
                 f"emulated {self.sampled}"]
        tf = self.tflops
        lines.append(f"  {'' if tf is None else f'{tf:.2f} TFLOP/s, '}{self.pct_mfma_peak:.1f}% of MFMA peak, "
                     f"HBM {self.bytes_hbm / 1e6:.3f} MB read + {self.bytes_written / 1e6:.3f} MB written "
                     f"({self.pct_hbm_bw:.1f}% of peak bandwidth)")
        lines.append(f"  limited by: {self.limiter} (regime: {self.regime})")
        if self.utilization:
            lines.append("  busy: " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in sorted(self.utilization.items())))
        for lp in self.loops:
            lines.append(f"  loop 0x{lp['head_pc']:x}-0x{lp['back_edge_pc']:x}: {lp['iterations']} iterations, "
                         f"{lp['cycles_per_iteration']:.0f} cycles each, {100 * lp['fraction']:.0f}% of the time")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()


REGIMES = {"MFMA (matrix cores)": "MFMA", "HBM bandwidth": "HBM", "LDS bandwidth": "CU pipes", "VALU": "CU pipes",
           "vector memory issue": "CU pipes"}


def regime_of(limiter: str) -> str:
    """The regime a limiter belongs to: MFMA, HBM, CU pipes (LDS / VALU / vector memory issue)
    or latency (no unit more than half busy)."""
    return REGIMES.get(limiter, "latency")


def dtype_of(base: str) -> str | None:
    """The data type of an MFMA mnemonic's inputs, as the MAF tables name them."""
    tail = base.rsplit("_", 1)[-1]
    for key, name in (("bf16", "bf16"), ("f16", "fp16"), ("fp8", "fp8"), ("bf8", "fp8"), ("i8", "int8"),
                      ("xf32", "xf32"), ("f64", "fp64"), ("f32", "fp32"), ("f8f6f4", "fp8")):
        if key in tail:
            return name
    return None


def _mfma_of(static, streams, target: str) -> tuple[float, float, dict]:
    """(FLOPs, matrix-core cycles, executions by mnemonic) of the MFMAs in ``streams``."""
    f = c = 0.0
    kinds: dict[str, int] = {}
    for st in streams:
        for pc, _m in st:
            it = static[pc]
            if it.sem == "mfma":
                kinds[it.base] = kinds.get(it.base, 0) + 1
                try:
                    f += mfma_flops(it.base, target)
                    c += mfma_cycles(it.base, target, it.formats)
                except KeyError:
                    pass
    return f, c, kinds


def kernel_seconds(cycles: float, mfma_density: float, prof: DeviceProfile,
                   dense_hz: float | None = None) -> tuple[float, float]:
    """(seconds, mean clock) of ``cycles`` of the boost clock run at the sustained clock: the
    fixed point of T = cycles / clock(density, T); ``dense_hz``: ``DeviceProfile.dense_clock``."""
    t = cycles / prof.clock_hz
    f = prof.clock_hz
    for _ in range(40):
        f = prof.sustained_clock(mfma_density, t, dense_hz)
        t_new = cycles / f
        if abs(t_new - t) <= 1e-9 * t:
            break
        t = t_new
    return cycles / f, f


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


def retime(rep: TimingReport, prof: DeviceProfile) -> float:
    """The seconds ``rep`` (a prediction made with another setting of the profile's fitted
    parameters) gives under ``prof``'s: the same simulated cycles, device-wide MFMA density and
    traffic, at ``prof``'s sustained clock, HBM floor and launch overhead (the launches
    ``rep`` counted). ``predict`` computes its own seconds this way."""
    s, _ = kernel_seconds(rep.cycles, rep.mfma_density, prof, prof.dense_clock(rep.mfma, rep.dtype))
    s = max(s, (rep.bytes_hbm + rep.bytes_written) / prof.hbm_achievable)
    return s + prof.launch_overhead_s * rep.launches


def predict(static: dict, sample: dict[int, list], n_wg: int, occ: Occupancy, prof: DeviceProfile, *,
            kernel: str = "kernel", flops: float | None = None, footprint_bytes: float | None = None,
            keep_slices: bool = False, simds: int = 4, path_of=None, weights: dict[int, float] | None = None,
            launches: int = 1) -> TimingReport:
    """``sample``: work-group linear id -> its waves' streams (``engine.Stream``); ``path_of(wid)``:
    the sampled work-group a work-group the emulator did not run stands for; ``weights``: how
    many of the grid's work-groups each sampled one stands for (default: an equal share)."""
    cus = prof.cus
    active = min(cus, n_wg)
    q = -(-n_wg // cus)
    ids = sorted(sample)
    shared = _shared_lines(sample)
    notes: list[str] = []
    resident = max(1, occ.wgs_per_cu)
    if occ.wgs_per_cu == 0:
        notes.append("the kernel does not fit on a CU (occupancy 0); modelled as one work-group at a time")
    if weights is None:
        weights = {g: n_wg / len(ids) for g in ids}

    def queue(n: int) -> list:
        out = []
        for k in range(n):
            wid = k * cus
            if wid in sample:
                out.append(sample[wid])
            else:
                src = path_of(wid) if path_of is not None else ids[k % len(ids)]
                out.append(_replay(sample[src], k, shared))
        return out

    per_wg = max(1, sum(len(s) for st in sample.values() for s in st) // max(1, len(sample)))
    reuse = _reuse(sample, n_wg, prof.line_bytes, footprint_bytes)
    kw = dict(reuse=reuse, footprint_bytes=footprint_bytes, shared=shared)
    if q * per_wg <= SIM_BUDGET or q <= 3 * resident:
        cu = simulate_cu(static, queue(q), resident, prof, active, simds, keep_slices, **kw)
        cycles = cu.cycles
        simulated = q
    else:
        q1, q2 = 2 * resident, 3 * resident
        c1 = simulate_cu(static, queue(q1), resident, prof, active, simds, **kw).cycles
        cu = simulate_cu(static, queue(q2), resident, prof, active, simds, keep_slices, **kw)
        rounds = -(-q // resident)
        cycles = cu.cycles + (rounds - 3) * (cu.cycles - c1)
        simulated = q2
        notes.append(f"{q} work-groups on the busiest CU: {q2} simulated, {rounds - 3} further rounds "
                     f"extrapolated at {cu.cycles - c1:.0f} cycles each")
    return _report(static, sample, cu, cycles, simulated, n_wg, occ, prof, kernel, flops, footprint_bytes, simds,
                   weights, launches, active, notes)


def _report(static, sample, cu: CUResult, cycles, simulated, n_wg, occ, prof, kernel, flops, footprint_bytes, simds,
            weights, launches, active, notes) -> TimingReport:
    """Device-wide totals, the sustained clock, the launch overhead, limiter, regime and band."""
    cus = prof.cus
    scale = n_wg / simulated  # device-wide totals from the simulated CU
    bytes_hbm = cu.mem.bytes_read_hbm * scale
    if footprint_bytes is not None and bytes_hbm > footprint_bytes and footprint_bytes <= prof.mall_bytes:
        bytes_hbm = float(footprint_bytes)
    bytes_w = cu.mem.bytes_written * scale
    mf = mc = 0.0
    kinds: dict[str, int] = {}
    for g, streams in sample.items():
        f1, c1, k1 = _mfma_of(static, streams, prof.target)
        mf += f1 * weights.get(g, 0.0)
        mc += c1 * weights.get(g, 0.0)
        for k, v in k1.items():
            kinds[k] = kinds.get(k, 0) + v
    density = min(1.0, mc / (cycles * simds * cus)) if cycles else 0.0
    mfma = max(kinds, key=kinds.get) if kinds else None
    dtype = dtype_of(mfma) if mfma else None
    seconds, clock = kernel_seconds(cycles, density, prof, prof.dense_clock(mfma, dtype))
    bw_s = (bytes_hbm + bytes_w) / prof.hbm_achievable
    if bw_s > seconds:
        notes.append(f"HBM-bandwidth floor: {bw_s * 1e6:.2f} us at the achievable {prof.hbm_achievable / 1e12:.2f} "
                     f"TB/s > the CU model's {seconds * 1e6:.2f} us")
        seconds = bw_s
    launch = prof.launch_overhead_s * launches
    per_cu = {"lds", "vmem", "smem"}  # one per CU; the others one per SIMD
    util = {p: min(1.0, b / (cu.cycles * (1 if p in per_cu else simds))) for p, b in cu.busy.items()
            if cu.cycles > 0 and p in ("mfma", "valu", "lds", "vmem", "salu", "trans")}
    pct_mfma = 100 * mc / (seconds * prof.clock_hz * simds * cus) if seconds else 0.0
    pct_hbm = 100 * (bytes_hbm + bytes_w) / seconds / prof.hbm_bytes_per_s if seconds else 0.0
    cands = {"MFMA (matrix cores)": util.get("mfma", 0.0), "VALU": util.get("valu", 0.0),
             "LDS bandwidth": util.get("lds", 0.0), "vector memory issue": util.get("vmem", 0.0),
             "HBM bandwidth": (bytes_hbm + bytes_w) / seconds / prof.hbm_achievable if seconds else 0.0}
    lim, val = max(cands.items(), key=lambda kv: kv[1])
    if val < 0.5:
        cause = max(cu.stall, key=lambda k: cu.stall[k]) if cu.stall and any(cu.stall.values()) else "issue"
        lim = f"latency (waves mostly waiting on {cause})"
        if active < cus:
            lim += f"; only {active} of {cus} CUs have work"
    regime = regime_of(lim)
    rep = TimingReport(kernel, prof.name, seconds + launch, cycles, prof.clock_hz, n_wg, -(-n_wg // cus), len(sample),
                       occ, bytes_hbm, bytes_w, mf, flops, pct_mfma, pct_hbm, lim, seconds, launch, clock, density,
                       regime, prof.band(regime), dtype, mfma, launches, util, dict(cu.stall), cu.loops, notes, cu,
                       tuple(sorted(sample)))
    maf = prof.maf(dtype) if dtype else None
    if maf and rep.tflops and rep.tflops * 1e12 > maf:
        steady = prof.sustained_clock(density, 0.0, prof.dense_clock(mfma, dtype))
        why = (f"it runs {rep.kernel_seconds * 1e6:.0f} us, against the {prof.throttle_tau_s * 1e6:.0f} us the clock takes "
               f"to fall from boost, at a mean {clock / 1e6:.0f} MHz (steady {steady / 1e6:.0f} MHz); MAF is a long "
               f"GEMM's median" if clock > steady * 1.001 else "the flops counted exceed the MFMAs executed")
        notes.append(f"ABOVE MAF: {rep.tflops:.1f} TFLOP/s exceeds {prof.name}'s published Max-Achievable "
                     f"{maf / 1e12:.0f} TFLOP/s for {dtype} (AMD ROCm blog, MAF part 2): {why}")
    return rep


__all__ = ["TimingReport", "predict", "retime", "kernel_seconds", "regime_of", "dtype_of"]
