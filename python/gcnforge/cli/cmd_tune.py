"""``gcnforge tune``: search a kernel family's variants and write the winners as tuned rows
of a registry CSV (see ``gcnforge.runtime.tuning`` for what a family file defines).

    gcnforge tune my_gemm.py --shapes 64x64x32 128x128x64 -o tuned.csv [--device emulator] [--e2e]
    gcnforge tune my_gemm.py --shapes ... -o tuned.csv --jobs 2          # a process pool (default: every core)
    gcnforge tune my_gemm.py --shapes ... -o tuned.csv --resume          # skip trials in the database
    gcnforge tune my_gemm.py --shapes ... -o tuned.csv --cluster auto    # Dask (pip install 'gcnforge[cluster]')
    gcnforge tune --export --db tuned.db -o tables/                      # registry CSVs from the database
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from gcnforge.cli import _mcpu as target_option, _timing as timing_option
from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.tune_work import user_error as _user_error

FORMATS = ("table", "plain", "csv", "markdown")


def register(subparsers) -> None:
    p = subparsers.add_parser("tune", help="tune a kernel family and write the winners to a CSV",
                              description=__doc__.replace("``", "'"),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("family_file", nargs="?", help="Python file defining the family object")
    p.add_argument("--family", default="family", help="name of the family object in the file (default: family)")
    p.add_argument("--shapes", nargs="+", metavar="MxNxK", help="problem shapes")
    p.add_argument("-o", "--output", help="tuned CSV to write (with --export: the directory for the CSVs)")
    p.add_argument("--device", choices=("hip", "emulator"), default=None, help="default: HIP if a matching GPU is present")
    timing_option.add_option(p, "emulator: rank by the timing model's predicted time on DEVICE (default: the family target's device)",
                              "the family's target")
    p.add_argument("--e2e", action="store_true", help="time the whole operation (pre/post-processing included)")
    p.add_argument("--repeat", type=int, default=None, help="timed runs per trial (default: 5 on GPU, 1 on the emulator)")
    p.add_argument("--seed", type=int, default=0, help="seed for the family's random inputs (and --budget's sample)")
    target_option.add_option(p, what=": the family's target (its build() runs with it as the default "
                                     "Module target; default: the family's own, gfx942)")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="worker processes (default: every core on the emulator, 1 on a GPU); the CSV is the same for any N")
    p.add_argument("--cluster", metavar="ADDRESS|auto", default=None,
                   help="run builds and trials as tasks on a Dask scheduler at ADDRESS (tcp://host:8786), or on a "
                        "local cluster of --jobs workers (auto); pip install 'gcnforge[cluster]'")
    p.add_argument("--db", default=None, metavar="PATH",
                   help="SQLite database every finished trial is committed to (default: tune.db beside the CSV)")
    p.add_argument("--resume", action="store_true", help="take the trials the database holds instead of running them")
    p.add_argument("--budget", type=int, default=None, metavar="N",
                   help="run at most N variants per shape: the lowest roofline bounds first (a seeded random "
                        "sample without them); the best of those, not necessarily of the grid")
    p.add_argument("--no-prune", dest="prune", action="store_false",
                   help="run every trial, even one whose roofline bound loses to the best time found")
    p.add_argument("--export", action="store_true", help="write registry CSVs from --db into the directory -o, and stop")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="results on standard output (default: table on a terminal, plain otherwise)")
    p.set_defaults(func=run)


def parse_shape(text: str) -> tuple[int, int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX,]\s*(\d+)\s*[xX,]\s*(\d+)\s*", text)
    if not m or any(int(g) == 0 for g in m.groups()):
        raise Diagnostic(f"shape '{text}' must be MxNxK with positive integers (e.g. 64x64x32)")
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def run(args) -> int:
    from gcnforge.isa import table

    if args.export:
        return _export(args)
    if not args.family_file or not args.shapes or not args.output:
        raise Diagnostic("tune needs a family file, --shapes and -o (or --export --db PATH -o DIR)")
    for name in ("jobs", "budget"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise Diagnostic(f"--{name} must be at least 1")
    path = Path(args.family_file)
    shapes = [parse_shape(s) for s in args.shapes]
    target = target_option.processor(args.target)
    with table.use_target(target):  # Modules the family builds default to --target
        return _tune(args, path, shapes, target)


def _export(args) -> int:
    from gcnforge.runtime.tune_store import export

    if not args.db or not args.output:
        raise Diagnostic("--export needs --db PATH (the database) and -o DIR (where the CSVs go)")
    for p in export(args.db, args.output):
        print(f"wrote {p}")
    return 0


def _command(args, target: str | None) -> str:
    """The command that reproduces the CSV (options that change only how it runs are left out)."""
    return (f"gcnforge tune {args.family_file}" + (f" --family {args.family}" if args.family != "family" else "")
            + (f" --timing {args.timing}" if args.timing else "") + (f" --device {args.device}" if args.device else "")
            + (" --e2e" if args.e2e else "") + (f" --target {target}" if target else "")
            + (f" --seed {args.seed}" if args.seed else "") + (f" --budget {args.budget}" if args.budget else "")
            + f" --shapes {' '.join(args.shapes)} -o {args.output}")


def _tune(args, path: Path, shapes, target: str | None) -> int:
    from gcnforge.runtime.tune_work import FamilyFile
    from gcnforge.runtime.tuning import tune

    fam = FamilyFile(str(path), args.family, target).load()  # diagnostics name the path as given
    ref = FamilyFile(str(path.resolve()), args.family, target)  # workers may run elsewhere
    if args.jobs is None:  # every core on the emulator; one on a GPU (measured times side by side would distort)
        from gcnforge.runtime.devices import get_device

        on_emulator = args.cluster is not None or get_device(args.device, fam.target).name == "emulator"
        jobs = (os.cpu_count() or 1) if on_emulator else 1
    else:
        jobs = args.jobs
    db = args.db or str(Path(args.output).parent / "tune.db")
    from gcnforge.cli._progress import progress

    try:
        with progress(f"tune {fam.name}", unit="tasks") as bar:
            report = tune(fam, shapes, args.output, device=args.device, e2e=args.e2e, repeat=args.repeat,
                          seed=args.seed, timing=args.timing, comments=(f"written by: {_command(args, target)}",),
                          jobs=jobs, cluster=args.cluster, db=db, resume=args.resume, prune=args.prune,
                          budget=args.budget, family_file=ref, progress=lambda st: bar(st.done, st.total, _label(fam, st)))
    except Diagnostic:
        raise
    except (Exception, SystemExit) as e:
        raise _user_error(e, path) from None
    fmt = args.format or ("table" if sys.stdout.isatty() else "plain")
    _print_results(report, fmt)
    missing = [s for s in shapes if s not in report.winners]
    note = f" ({report.resumed} from {db})" if report.resumed else ""
    print(f"wrote {len(report.winners)} tuned row(s) to {args.output} ({report.time_kind} times){note}",
          file=sys.stdout if fmt in ("table", "plain") else sys.stderr)
    if missing:
        print(f"error: no variant passed the check for shape(s) {', '.join('x'.join(map(str, s)) for s in missing)}",
              file=sys.stderr)
        return 1
    return 0


def _label(fam, st) -> str:
    """The bar's label: the best time so far of the shape whose trial just finished."""
    if st.trial is None:
        return f"tune {fam.name}: building"
    shape = st.trial.shape
    best = st.best.get(shape)
    won = f"best {best.variant.name} {best.seconds * 1e6:.3f} us" if best else "no variant passed yet"
    return f"{'x'.join(map(str, shape))}: {won} ({len(st.best)} shape(s) with a winner)"


def _print_results(report, fmt: str) -> None:
    """The trials as a rich table (terminal), or plain/CSV/Markdown text that is never truncated
    or wrapped, for pipes, logs and scripts."""
    from gcnforge.runtime.tuning import COLUMNS, result_rows, results_table

    rows = result_rows(report)
    header = [c or "winner" for c in COLUMNS]
    if fmt == "table":
        from rich.console import Console

        Console().print(results_table(report))
    elif fmt == "csv":
        import csv

        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    elif fmt == "markdown":
        print("| " + " | ".join(c.replace("|", "\\|") for c in header) + " |")
        print("|" + "---|" * len(header))
        for r in rows:
            print("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    else:
        print(f"tuning results ({report.time_kind} times)")
        widths = [max(len(x) for x in col) for col in zip(header, *rows)]
        for r in [header, *rows]:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
