"""``gcnforge stats FILE``: the gfx942 issue model of each straight-line block / loop body
(modeled cycles, busiest pipe, MFMA utilization, busy cycles per pipe).

    gcnforge stats gemm.s               # assembly text (an instruction per line)
    gcnforge stats kernel.hsaco         # every kernel of a code object, per basic block
    gcnforge stats kernel.mlir          # amdgcn IR: blocks and amdgcn.loop bodies
    gcnforge stats gemm.s --mca         # also llvm-mca's figures for the same blocks
    gcnforge stats loop.mlir --schedule # expand scheduled loops first, then model
"""

from __future__ import annotations


def register(subparsers) -> None:
    p = subparsers.add_parser("stats", help="gfx942 issue model: cycles, busiest pipe, MFMA utilization",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("file", help=".s, .hsaco/.co or .mlir")
    p.add_argument("--mca", action="store_true",
                   help="compare with llvm-mca -mcpu=gfx942 (assembly and code objects; cycles x4, see perfmodel.mca)")
    p.add_argument("--block", default=None, help="only blocks whose name contains this")
    p.add_argument("--schedule", action="store_true",
                   help=".mlir: expand scheduled amdgcn.loop ops first (amdgcn-schedule), model what is emitted")
    p.set_defaults(func=run)


def run(args) -> int:
    from gcnforge.perfmodel.frontends import load_blocks

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
    for i, b in enumerate(blocks):
        r = b.report()
        print(r.text())
        if mca is not None and i in mca:
            m = mca[i]
            print(f"  llvm-mca: {m.total_cycles} cycles (x{MCA_CYCLE} = {m.total_cycles * MCA_CYCLE} shader clocks), "
                  + ", ".join(f"{k} {v:g}" for k, v in m.pressure.items() if v))
    return 0
