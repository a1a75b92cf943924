"""The emulator's timing mode: run a sample of work-groups with real data, record what each
wave executed and the addresses its memory instructions touched, and hand that to
``gcnforge.perfmodel.timing.predict`` (the one cost/timing model) with a device profile.

Which work-groups run: those the dispatcher puts on CU 0 (ids 0, cus, 2*cus, ...; see
``perfmodel.timing``), one resident round of them; the whole grid when it has at most
``max_sample`` work-groups, so small launches also produce complete outputs. Grids are not
assumed uniform: the last work-group (the far corner) runs too, and when its path differs
from the first one's, one work-group of every edge class (last in x, in y, in z and their
combinations) runs as well. Each class's work-groups are modelled by that class's samples,
weighed by how many work-groups the class has (edge tiles, early exits of a sampled class).
When only a sample runs, the output buffers hold only the sampled work-groups' results
(the report says so, and the runtime's LaunchResult has ``partial``), unless ``complete``
asks to run the other work-groups afterwards, untimed (emulation time grows with the grid). Data-dependent kernels are modelled along the paths the sampled
work-groups took.

What is recorded per executed instruction and wave (through ``Device.run``'s ``trace`` and
``observe`` hooks, which cost nothing when off): its pc and, for vector memory, the distinct
cache lines (the profile's ``line_bytes``) its active lanes touched (global) or the LDS passes
its addresses need (one pass per dword per bank, times the worst bank's number of distinct
dwords; the target's ``lds_banks``: 32 on gfx942, AMD CDNA 3 white paper / ISA guide "LDS").
"""

from __future__ import annotations

import numpy as np

from gcnforge.diagnostics import Diagnostic
from gcnforge.isa.lds_banks import lds_passes
from gcnforge.perfmodel.frontends import item_from_decoded
from gcnforge.perfmodel.issue import Item
from gcnforge.perfmodel.occupancy import occupancy
from gcnforge.perfmodel.timing import TimingReport, predict

MAX_SAMPLE = 16  # work-groups emulated at most (seconds of emulation for typical kernels)
# the device profile's fields run_timed's emulation and recording read (which work-groups run, the
# occupancy that bounds the sample, the recorded cache lines); the others act only in the model
RECORDED_PROFILE_FIELDS = ("target", "cus", "line_bytes")


def static_items(image) -> dict[int, Item]:
    """The issue-model item of every instruction of the kernel, keyed by pc."""
    from gcnforge.asm import disassemble
    from gcnforge.emulator.device import emulated_target

    code = image.text[image.entry - image.text_address : image.end - image.text_address]
    out: dict[int, Item] = {}
    for pc, di in disassemble(code, image.entry, target=emulated_target(image.processor).name):
        it = item_from_decoded(di) if getattr(di, "inst", None) is not None else None
        out[pc] = it if it is not None else Item("<unknown>", "control", "")
    return out


class _Recorder:
    def __init__(self, static: dict[int, Item], lin_of, line_bytes: int, target: str):
        self.static = static
        self.lin_of = lin_of
        self.line = line_bytes
        self.target = target
        self.streams: dict[tuple[int, int], list] = {}
        self.cur: dict[tuple[int, int], list] = {}
        self.lines: set[int] = set()

    def on_trace(self, ev) -> None:
        self.cur = {}
        for slot, wg in zip(ev.waves, ev.workgroups):
            key = (self.lin_of(wg), slot)
            entry = [ev.pc, None]
            self.streams.setdefault(key, []).append(entry)
            self.cur[key] = entry

    def on_observe(self, space, addrs, n, mask, w) -> None:
        ex = self._ex
        for j, i in enumerate(w):
            key = (self.lin_of(ex.wgs[ex.wg_of[i]]), int(ex.wave_slot[i]))
            entry = self.cur.get(key)
            if entry is None:
                continue
            sel = addrs[j][mask[j]]
            if space == "lds":
                m = entry[1]
                if m is not None and m[0] != "lds":
                    continue  # a global load into LDS (LDS DMA): its global side governs
                entry[1] = ("lds", lds_passes(sel, n, self.target) + (m[1] if m else 0))
            elif space == "global":
                if sel.size == 0:
                    continue
                a = sel.astype(np.uint64)
                ln = np.union1d(a // np.uint64(self.line), (a + np.uint64(n - 1)) // np.uint64(self.line))
                lines = tuple(int(x) for x in ln)
                sem = self.static[entry[0]].sem
                kind = "atomic" if "atomic" in sem else "store" if "store" in sem else "load"
                if kind != "store":
                    self.lines.update(lines)  # read footprint (caps the HBM read estimate)
                m = entry[1]
                if m is None or m[0] == "lds":
                    entry[1] = (kind, lines, int(sel.size) * n)
                elif kind != "atomic":  # a second access of the same instruction (read2, x2 halves)
                    entry[1] = (kind, tuple(sorted(set(m[1]) | set(lines))), m[2] + int(sel.size) * n)

    def bind(self, ex) -> None:
        self._ex = ex


def _footprint(memory, lines: set[int], line: int) -> float:
    """Bytes of the live allocations the recorded read lines (of ``line`` bytes) fall in."""
    if not lines:
        return 0.0
    arr = np.fromiter((ln * line for ln in lines), dtype=np.uint64, count=len(lines))
    total = 0
    for a in memory.allocs:
        if a.live and np.any((arr + np.uint64(line) > np.uint64(a.addr)) & (arr < np.uint64(a.addr + a.size))):
            total += a.size
    return float(total)


def _signature(streams: list) -> tuple:
    """What identifies a work-group's path: each wave's executed pcs."""
    return tuple(hash(tuple(pc for pc, _ in st)) for st in streams)


def _klass(lin: int, grid: tuple[int, int, int]) -> str:
    """A work-group's position class: which dimensions it is the last of (of those > 1)."""
    x, y, z = lin % grid[0], (lin // grid[0]) % grid[1], lin // (grid[0] * grid[1])
    edges = [d for d, c, g in zip("xyz", (x, y, z), grid) if g > 1 and c == g - 1]
    return "edge " + "".join(edges) if edges else "interior"


def _edge_reps(grid: tuple[int, int, int]) -> list[int]:
    """One work-group of every edge class (last in x, y, z and their combinations)."""
    import itertools

    dims = [d for d in range(3) if grid[d] > 1]
    out = []
    for flags in itertools.product((False, True), repeat=len(dims)):
        c = [0, 0, 0]
        for d, f in zip(dims, flags):
            c[d] = grid[d] - 1 if f else 0
        out.append(c[0] + grid[0] * (c[1] + grid[1] * c[2]))
    return out


def _classes(sample: dict[int, list], grid: tuple[int, int, int], cus: int):
    """(path_of, weights): a work-group the emulator did not run replays a sample of its position
    class; each sample stands for its class's count divided over the class's samples."""
    import math

    by: dict[str, list[int]] = {}
    for g in sorted(sample):
        by.setdefault(_klass(g, grid), []).append(g)
    interior = by.get("interior") or by[min(by)]

    def count(k: str) -> int:
        dims = [(d, g) for d, g in zip("xyz", grid) if g > 1]
        return math.prod(1 if d in k.split(" ", 1)[-1] and k != "interior" else g - 1 for d, g in dims)

    weights: dict[int, float] = {}
    for k, gs in by.items():
        for g in gs:
            weights[g] = count(k) / len(gs)

    def path_of(wid: int) -> int:
        gs = by.get(_klass(wid, grid), interior)
        return gs[(wid // cus) % len(gs)]

    return path_of, weights


def run_timed(device, code_object, kernel: str, kernarg: bytes, grid, block, profile, *, flops: float | None = None,
              dynamic_lds: int = 0, keep_slices: bool = False, max_sample: int = MAX_SAMPLE,
              complete: bool = False, **run_kw) -> tuple[object, TimingReport]:
    """Run ``kernel`` under the timing mode on ``device`` (an emulator ``Device``) with the device
    ``profile`` (a name, a ``DeviceProfile``, or True / 'auto': the default device of the code
    object's target, ``perfmodel.profiles.DEFAULT``; another target's device is a Diagnostic); returns
    (RunStats of the timed run, TimingReport). ``complete``: then run the work-groups the
    sample left out, untimed, so every output is written (each work-group runs once)."""
    from gcnforge.emulator.launch import kernel_image
    from gcnforge.perfmodel import profiles

    grid = tuple(int(g) for g in (tuple(grid) + (1, 1, 1))[:3])
    block = tuple(int(b) for b in (tuple(block) + (1, 1, 1))[:3])
    if any(g < 1 for g in grid) or any(b < 1 for b in block):
        raise Diagnostic(f"bad launch shape grid={grid} block={block}")
    image = kernel_image(code_object, kernel)
    from gcnforge.emulator.device import emulated_target

    # the device profile must describe hardware of the object's target (True / 'auto': its default)
    prof = profiles.resolve(profile, emulated_target(image.processor).name)
    d = image.descriptor
    static = static_items(image)
    nthreads = block[0] * block[1] * block[2]
    occ = occupancy(d.next_free_vgpr, d.next_free_sgpr, d.group_segment_fixed_size + int(dynamic_lds), nthreads,
                    prof.target)
    n_wg = grid[0] * grid[1] * grid[2]
    q = -(-n_wg // prof.cus)
    want = [k * prof.cus for k in range(min(q, max(1, occ.wgs_per_cu), max_sample))]
    whole = n_wg <= max(len(want), max_sample)
    if whole:
        want = list(range(n_wg))

    def coords(lin: int) -> tuple[int, int, int]:
        return (lin % grid[0], (lin // grid[0]) % grid[1], lin // (grid[0] * grid[1]))

    def lin_of(wg) -> int:
        return int(wg[0]) + grid[0] * (int(wg[1]) + grid[1] * int(wg[2]))

    rec = _Recorder(static, lin_of, prof.line_bytes, prof.target)

    def trace(ev):
        rec.bind(ev.state)
        rec.on_trace(ev)

    def run(ids: list[int]):
        return device.run(code_object, kernel, kernarg, grid, block, dynamic_lds=dynamic_lds, trace=trace,
                          observe=rec.on_observe, workgroups=[coords(i) for i in ids], **run_kw)

    if whole:
        stats = device.run(code_object, kernel, kernarg, grid, block, dynamic_lds=dynamic_lds, trace=trace,
                           observe=rec.on_observe, **run_kw)
    else:
        stats = run(want + ([n_wg - 1] if n_wg - 1 not in want else []))
    sample: dict[int, list] = {}
    for (lin, slot), st in sorted(rec.streams.items()):
        sample.setdefault(lin, []).append([(pc, m) for pc, m in st])
    path_of = weights = None
    if not whole:
        extra = [i for i in _edge_reps(grid) if i not in sample]
        if _signature(sample[n_wg - 1]) != _signature(sample[0]):
            if extra:
                run(extra)
                sample = {}
                for (lin, slot), st in sorted(rec.streams.items()):
                    sample.setdefault(lin, []).append([(pc, m) for pc, m in st])
            path_of, weights = _classes(sample, grid, prof.cus)
    missing = [pc for st in sample.values() for s in st for pc, _ in s if pc not in static]
    if missing:
        raise Diagnostic(f"timing mode: executed pc 0x{missing[0]:x} is not an instruction of '{kernel}'")
    rep = predict(static, sample, n_wg, occ, prof, kernel=kernel, flops=flops,
                  footprint_bytes=_footprint(device.memory, rec.lines, prof.line_bytes), keep_slices=keep_slices,
                  path_of=path_of, weights=weights)
    if weights is not None and len({_signature(v) for v in sample.values()}) > 1:
        rep.notes.append("heterogeneous grid: " + ", ".join(
            f"{c} ({'path of WG ' + str(g)}: {weights[g]:.0f} work-groups)" for c, g in
            sorted((_klass(g, grid), g) for g in weights)))
    done = set(sample)  # every work-group that ran: the CU-0 round, the far corner, edge classes
    if not whole and complete:
        device.run(code_object, kernel, kernarg, grid, block, dynamic_lds=dynamic_lds,
                   workgroups=[coords(i) for i in range(n_wg) if i not in done], **run_kw)
        rep.notes.append(f"sampled {len(done)} of {n_wg} work-groups for the prediction; the other "
                         f"{n_wg - len(done)} ran afterwards, untimed: outputs complete")
    elif not whole:
        rep.notes.append(f"sampled {len(done)} of {n_wg} work-groups: outputs PARTIAL, the buffers hold only "
                         f"their results (complete outputs: timing_complete=True)")
    return stats, rep


__all__ = ["run_timed", "static_items", "lds_passes"]
