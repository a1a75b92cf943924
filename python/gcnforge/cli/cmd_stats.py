"""``gcnforge stats FILE``: the gfx942 issue model of each straight-line block / loop body
(modeled cycles, busiest pipe, MFMA utilization, busy cycles per pipe).

    gcnforge stats gemm.s               # assembly text (an instruction per line)
    gcnforge stats kernel.hsaco         # every kernel of a code object, per basic block
    gcnforge stats kernel.mlir          # amdgcn IR: blocks and amdgcn.loop bodies
    gcnforge stats gemm.s --mca         # also llvm-mca's figures for the same blocks
    gcnforge stats loop.mlir --schedule # expand scheduled loops first, then model
    gcnforge stats kernel.co --timing mi300x  # also occupancy and times at the device's clock

The model is ``perfmodel`` (the same cost table the emulator's timing mode and ``tune`` use);
this static view is one wave in isolation. For a whole-kernel prediction with real
addresses, caches and other waves run it: ``gcnforge run ... --timing mi300x``.
"""

from __future__ import annotations

from gcnforge.cli import _mcpu as target_option, _timing as timing_option


def register(subparsers) -> None:
    p = subparsers.add_parser("stats", help="gfx942 issue model: cycles, busiest pipe, MFMA utilization",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("file", help=".s, .hsaco/.co or .mlir")
    p.add_argument("--mca", action="store_true",
                   help="compare with llvm-mca -mcpu=gfx942 (assembly and code objects; cycles x4, see perfmodel.mca)")
    p.add_argument("--block", default=None, help="only blocks whose name contains this")
    target_option.add_option(p, what=" (default: the input's own: a code object's, .amdgcn_target, "
                                     "#amdgcn.target, else gfx942)")
    p.add_argument("--schedule", action="store_true",
                   help=".mlir: expand scheduled amdgcn.loop ops first (amdgcn-schedule), model what is emitted")
    timing_option.add_option(p, "device profile: code objects also print each kernel's occupancy, and cycles are "
                                "converted to microseconds at its clock", "the input's target")
    p.set_defaults(func=run)


def _occupancy_lines(path, prof) -> list[str]:
    from pathlib import Path

    from gcnforge.binary import read_code_object
    from gcnforge.perfmodel.occupancy import occupancy

    co = read_code_object(Path(path).read_bytes())
    out = []
    for name, k in co.kernels.items():
        d = k.descriptor
        wg = k.metadata.get(".reqd_workgroup_size") or [k.metadata.get(".max_flat_workgroup_size", 256), 1, 1]
        threads = int(wg[0]) * int(wg[1]) * int(wg[2])
        o = occupancy(d.next_free_vgpr, d.next_free_sgpr, d.group_segment_fixed_size, threads, prof.target)
        out.append(f"{name} on {prof.name}: {d.next_free_vgpr} VGPRs (unified), {d.next_free_sgpr} SGPRs, "
                   f"{d.group_segment_fixed_size} B LDS, {threads} work-items -> {o.waves_per_simd} waves/SIMD, "
                   f"{o.wgs_per_cu} work-groups/CU (limit: {o.limiter})")
    return out


def run(args) -> int:
    from gcnforge.cli.model_input import load_blocks

    from gcnforge.cli.model_input import input_target
    from gcnforge.isa import table

    # the input's target for decoding and for the cost model's facts (MFMA cycles)
    with table.use_target(input_target(args.file, target_option.processor(args.target))):
        return _run(args, load_blocks)


def _run(args, load_blocks) -> int:
    blocks = load_blocks(args.file, schedule=args.schedule)
    if args.block:
        blocks = [b for b in blocks if args.block in b.name]
    if not blocks:
        print(f"{args.file}: no instructions to model")
        return 0
    mca = None
    if args.mca and not str(args.file).endswith(".mlir"):
        from gcnforge.perfmodel.mca import MCA_CYCLE, run_mca

        from gcnforge.diagnostics import Diagnostic

        req = {i: (f"b{i}", [it.text for it in b.items if it.base != "s_endpgm"]) for i, b in enumerate(blocks)}
        req = {i: v for i, v in req.items() if v[1]}  # llvm-mca drops empty regions
        try:
            mca = dict(zip(req, run_mca(list(req.values())), strict=True))
        except (RuntimeError, ValueError) as e:
            raise Diagnostic(f"llvm-mca: {e}") from None
    prof = None
    if args.timing:
        from gcnforge.isa.table import active_target
        from gcnforge.perfmodel import profiles

        prof = profiles.resolve(args.timing, active_target())  # a device of the input's target
        if str(args.file).endswith((".co", ".hsaco", ".so", ".o")):
            for line in _occupancy_lines(args.file, prof):
                print(line)
    for i, b in enumerate(blocks):
        r = b.report(prof)  # the profile's latencies (without --timing: the target's default device's)
        print(r.text())
        if prof is not None:
            us = 1e6 / prof.clock_hz
            it = f", {r.per_iteration * us:.4f} us per iteration" if r.per_iteration is not None else ""
            print(f"  one wave through this block at {prof.name}'s {prof.clock_hz / 1e6:.0f} MHz: "
                  f"{r.cycles * us:.4f} us{it}")
        if mca is not None and i in mca:
            m = mca[i]
            print(f"  llvm-mca: {m.total_cycles} cycles (x{MCA_CYCLE} = {m.total_cycles * MCA_CYCLE} shader clocks), "
                  + ", ".join(f"{k} {v:g}" for k, v in m.pressure.items() if v))
    if prof is not None and blocks:
        # one answer to "how long": these are per-block figures of one wave alone, not a launch's
        print(f"note: not the kernel's time: the figures above are one wave through each block in isolation; "
              f"a launch's predicted time (the whole grid, real addresses, caches, every wave) is "
              f"'gcnforge run FILE KERNEL --grid .. --block .. --timing {prof.name.lower()}'")
    return 0
