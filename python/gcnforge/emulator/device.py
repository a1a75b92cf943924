"""``Device``: the emulator's public face (memory + kernel launches)."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from gcnforge.emulator.core import WAVE
from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator.decode import decode_kernel
from gcnforge.emulator.executor import EmulationError, Executor
from gcnforge.emulator.launch import kernel_image
from gcnforge.emulator.memory import Memory
from gcnforge.isa import table
from gcnforge.isa.target import MAX_KERNARG_BYTES, TARGETS, Target, target

DEFAULT_MAX_INSTRUCTIONS = 50_000_000  # wave-instructions per launch (minutes of emulation at most)
# A sanitized run issues ~10k instructions a second (every issue runs the checks), so the launch
# budget above would let an endless loop whose state never repeats (the livelock check cannot
# see it) run for an hour: by default no wave of a sanitized run executes more than this.
SANITIZE_MAX_WAVE_INSTRUCTIONS = 50_000
SCRATCH_BATCH_BYTES = 1 << 28  # emulated private memory per batch of waves (fewer waves when it is large)
WAVES_PER_BATCH = 256  # waves emulated together (memory bound: ~128 KiB of VGPRs per wave)


@dataclass
class RunStats:
    kernel: str
    grid: tuple
    block: tuple
    waves: int = 0
    wave_instructions: int = 0  # instructions executed, counted once per wave
    issues: int = 0  # NumPy-level instruction executions (a group of lockstep waves = 1)
    cycles: int = 0  # modeled: the longest wave's issue cycles (all workgroups resident)
    by_mnemonic: dict = field(default_factory=dict)
    reports: list = field(default_factory=list)  # sanitizer reports (continue mode): each site's first
    report_counts: dict = field(default_factory=dict)  # (pc, kind) -> occurrences (continue mode)
    suppressed: dict = field(default_factory=dict)  # (pc, kind) -> occurrences a suppression rule matched

    @property
    def lockstep_factor(self) -> float:
        return self.wave_instructions / max(self.issues, 1)


def emulated_target(processor: str) -> Target:
    """The target the emulator runs a code object for: its own (gfx942, gfx950: every target
    ``isa.target`` describes), else gfx942's, as before gfx950 existed."""
    return TARGETS.get(processor) or target("gfx942")


def _check_segments(kernel: str, group: int, dynamic: int, private: int, kernarg: int = 0,
                    t: Target | None = None) -> None:
    """Segment sizes from the kernel descriptor, checked against the target before any memory
    is set aside for them (a corrupt descriptor must not become a huge allocation)."""
    t = t or target("gfx942")
    if dynamic < 0:
        raise Diagnostic(f"dynamic LDS of {dynamic} bytes is negative", f"kernel '{kernel}'")
    if group + dynamic > t.lds_bytes:
        what = f"{group} bytes (group_segment_fixed_size)" + (f" + {dynamic} dynamic" if dynamic else "")
        raise Diagnostic(f"the kernel needs {what} of LDS; {t.name} has {t.lds_bytes} per workgroup",
                         f"{kernel}.kd+0x0 (group_segment_fixed_size)")
    per_item = t.max_scratch_per_wave // t.wave_size
    if private > per_item:
        raise Diagnostic(f"private_segment_fixed_size {private} bytes per work-item exceeds {t.name}'s "
                         f"{per_item} ({t.max_scratch_per_wave} bytes of scratch per wave)",
                         f"{kernel}.kd+0x4 (private_segment_fixed_size)")
    if kernarg > MAX_KERNARG_BYTES:
        raise Diagnostic(f"kernarg_size {kernarg} bytes exceeds gcnforge's bound of {MAX_KERNARG_BYTES}",
                         f"{kernel}.kd+0x8 (kernarg_size)")


class _WorkGroups:
    """The grid's work-group ids in dispatch order (x fastest), made one batch at a time: a
    huge grid is never a list (the instruction budget ends it)."""

    def __init__(self, grid):
        self.grid = grid
        self.count = grid[0] * grid[1] * grid[2]

    def __getitem__(self, s: slice) -> list:
        gx, gy = self.grid[0], self.grid[1]
        return [(j % gx, j // gx % gy, j // (gx * gy)) for j in range(*s.indices(self.count))]



def _budgets(max_instructions, sanitize: bool) -> tuple[int | None, int | None]:
    """(instructions the launch may execute, per wave) for ``Device.run``'s ``max_instructions``."""
    if not isinstance(max_instructions, str):
        return max_instructions, None
    if max_instructions != "default":
        raise ValueError(f"max_instructions must be a count, None or 'default', not {max_instructions!r}")
    return DEFAULT_MAX_INSTRUCTIONS, SANITIZE_MAX_WAVE_INSTRUCTIONS if sanitize else None


def _launch_shape(grid, block) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    grid = tuple(int(g) for g in (tuple(grid) + (1, 1, 1))[:3])
    block = tuple(int(b) for b in (tuple(block) + (1, 1, 1))[:3])
    if any(g < 1 for g in grid) or any(b < 1 for b in block):
        raise Diagnostic(f"bad launch shape grid={grid} block={block}")
    if any(g * b >= 1 << 32 for g, b in zip(grid, block)):  # the dispatch packet's grid_size_* are u32
        raise Diagnostic(f"grid={grid} of block={block}: more than 2^32-1 work-items in a dimension")
    return grid, block  # type: ignore[return-value]


def _selected(grid, workgroups) -> tuple[object, int]:
    """The work-groups to run (all of the grid, or the given ids) and how many."""
    if workgroups is None:
        wgs = _WorkGroups(grid)
        return wgs, wgs.count
    ids = [tuple(int(c) for c in g) for g in workgroups]
    if any(not all(0 <= c < n for c, n in zip(g, grid)) for g in ids):
        raise Diagnostic(f"work-group ids {ids} outside the grid {grid}")
    return ids, len(ids)

class Device:
    """An emulated device: ``memory`` and ``run``. Each launch runs as the code object's
    target (gfx942 or gfx950, ``emulated_target``): its instruction table and semantics, its
    LDS size and work-group limit."""

    def __init__(self):
        self.memory = Memory()
        self.clock = 0

    def _dispatch_packet(self, grid, block, kernarg_addr, priv, group) -> int:
        # hsa_kernel_dispatch_packet_t (HSA Platform System Architecture spec, 2.9)
        pkt = struct.pack("<HHHHHHIIIIIQQQQ", 0, 3, block[0], block[1], block[2], 0, grid[0] * block[0],
                          grid[1] * block[1], grid[2] * block[2], priv, group, 0, kernarg_addr, 0, 0)
        addr = self.memory.alloc(len(pkt), 64, name="dispatch_packet")
        self.memory.write(addr, pkt)
        return addr

    def run(self, code_object, kernel: str, kernarg: bytes, grid, block, sanitize=False,
            max_instructions: int | None | str = "default", dynamic_lds: int = 0,
            lockstep: bool = True, sanitize_mode: str = "stop", waves_per_batch: int = WAVES_PER_BATCH,
            trace=None, workgroups=None, observe=None, sanitize_suppress=None, progress=None) -> RunStats:
        """Run ``kernel`` over ``grid`` workgroups (a count per dimension) of ``block``
        work-items. ``sanitize``: check the execution (see ``sanitizer.py``);
        ``sanitize_mode`` 'stop' raises the first report, 'continue' collects them in
        ``RunStats.reports``; ``sanitize_suppress`` (``suppressions.Suppressions``) silences the
        reports its rules match; ``progress(done, total)`` is called after each batch of
        work-groups (a progress bar's hook). ``trace(event)``: called before every executed instruction
        with a ``TraceEvent`` (pc, text, workgroups and waves executing it) — a debugger's
        hook (print it, stop with an exception, inspect ``event.state``). ``workgroups``: run
        only these work-group ids (x, y, z) of the grid (the timing mode's sample);
        ``observe(space, addrs, nbytes, mask, waves)``: called for every vector memory access
        with its lanes' addresses (the timing mode's hook; None costs nothing).
        ``max_instructions``: wave-instructions the launch may execute before it stops with a
        ``budget`` error (None: no limit). The default is ``DEFAULT_MAX_INSTRUCTIONS`` and, when
        sanitizing, also at most ``SANITIZE_MAX_WAVE_INSTRUCTIONS`` per wave (seconds of
        sanitized emulation); a number given here (``gcnforge run --max-instructions N``)
        replaces both."""
        max_instructions, wave_budget = _budgets(max_instructions, sanitize)
        grid, block = _launch_shape(grid, block)
        image = kernel_image(code_object, kernel)
        t = emulated_target(image.processor)
        if block[0] * block[1] * block[2] > t.max_flat_workgroup_size:
            raise Diagnostic(f"workgroup of {block[0] * block[1] * block[2]} work-items exceeds {t.name}'s "
                             f"{t.max_flat_workgroup_size}")
        d = image.descriptor
        prog = decode_kernel(image.text, image.text_address, image.entry, image.end, t.name)
        lds = d.group_segment_fixed_size + int(dynamic_lds)
        _check_segments(kernel, d.group_segment_fixed_size, int(dynamic_lds), d.private_segment_fixed_size,
                        d.kernarg_size, t)
        ka = bytes(kernarg) + b"\0" * max(0, d.kernarg_size - len(kernarg))
        kernarg_addr = self.memory.alloc(max(len(ka), 4), 256, name="kernarg")
        if ka:
            self.memory.write(kernarg_addr, ka)
        dispatch = self._dispatch_packet(grid, block, kernarg_addr, d.private_segment_fixed_size, lds)
        queue = self.memory.alloc(256, 64, name="queue")
        stats = RunStats(kernel, grid, block)
        san = None
        if sanitize:
            from gcnforge.emulator.sanitizer import Sanitizer

            san_kw = {"mode": sanitize_mode, "suppress": sanitize_suppress}
        wgs, nwgs = _selected(grid, workgroups)
        nthreads = block[0] * block[1] * block[2]
        wpg = -(-nthreads // WAVE)
        per = max(1, waves_per_batch // wpg)
        if d.private_segment_fixed_size:  # bound the scratch arrays the batch allocates
            per = max(1, min(per, SCRATCH_BATCH_BYTES // (wpg * WAVE * d.private_segment_fixed_size)))
        remaining = max_instructions
        cycles = 0
        with table.use_target(t.name):  # table lookups (the sanitizer's) read the target's
            try:
                for i in range(0, nwgs, per):
                    if sanitize:
                        san = Sanitizer(image, prog, stats, **san_kw)
                    ex = Executor(self, image, prog, wgs[i : i + per], block, kernarg_addr, dispatch, queue, lds,
                                  sanitizer=san, lockstep=lockstep, budget=remaining, clock0=self.clock,
                                  wave_budget=wave_budget)
                    ex.launch_budget = max_instructions
                    ex.trace = trace
                    ex.observe = observe
                    if san is not None:
                        san.attach(ex)
                    with np.errstate(all="ignore"):  # IEEE results (inf/nan) are what the kernel gets
                        ex.run()
                    stats.waves += ex.W
                    stats.wave_instructions += ex.executed
                    stats.issues += ex.issued
                    cycles = max(cycles, int(ex.cycles.max()) if ex.W else 0)
                    for k, v in ex.counts.items():
                        stats.by_mnemonic[k] = stats.by_mnemonic.get(k, 0) + v
                    if progress is not None:
                        progress(min(i + per, nwgs), nwgs)
                    if remaining is not None:
                        remaining -= ex.executed
                        if i == 0 and nwgs > per:
                            _refuse_over_budget(kernel, nwgs, min(per, nwgs), ex.executed, max_instructions)
            finally:
                for a in (kernarg_addr, dispatch, queue):
                    self.memory.free(a)
        stats.cycles = cycles
        self.clock += cycles
        return stats


def _refuse_over_budget(kernel: str, nwgs: int, first: int, executed: int, budget: int) -> None:
    """After the first batch: a launch whose work-groups all do what the first ones did would
    execute ``nwgs / first * executed`` wave-instructions; refuse it now, with that estimate,
    when it is over the budget (instead of running minutes to stop at the budget anyway).
    Work-groups that exit early make the estimate high; the flag that lifts the budget says so."""
    estimate = executed * nwgs // max(first, 1)
    if estimate > budget:
        per_wg = executed / max(first, 1)
        raise EmulationError(
            f"{kernel}: this launch would execute about {estimate:,} wave-instructions ({nwgs:,} work-groups x "
            f"{per_wg:,.0f} per work-group, measured on the first {first}), over the emulator's budget of "
            f"{budget:,}", None,
            ("raise the budget: gcnforge run --max-instructions N, or EmulatorBackend(max_instructions=N) / "
             "Device.run(max_instructions=N) from Python (None: no limit); or launch a smaller grid, or "
             "--timing, which runs a sample of work-groups",), kind="budget")


__all__ = ["Device", "RunStats", "EmulationError", "emulated_target"]
