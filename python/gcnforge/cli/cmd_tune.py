"""``gcnforge tune``: search a kernel family's variants and write the winners as tuned rows
of a registry CSV (see ``gcnforge.runtime.tuning`` for what a family file defines).

    gcnforge tune my_gemm.py --shapes 64x64x32 128x128x64 -o tuned.csv [--device emulator] [--e2e]
"""

from __future__ import annotations

import argparse

import importlib.util
import re
import sys
import traceback
from pathlib import Path

from gcnforge.cli import _mcpu as target_option, _timing as timing_option
from gcnforge.diagnostics import Diagnostic, SourceLoc


def register(subparsers) -> None:
    p = subparsers.add_parser("tune", help="tune a kernel family and write the winners to a CSV",
                              description=__doc__.replace("``", "'"),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("family_file", help="Python file defining the family object")
    p.add_argument("--family", default="family", help="name of the family object in the file (default: family)")
    p.add_argument("--shapes", nargs="+", required=True, metavar="MxNxK", help="problem shapes")
    p.add_argument("-o", "--output", required=True, help="tuned CSV to write")
    p.add_argument("--device", choices=("hip", "emulator"), default=None, help="default: HIP if a matching GPU is present")
    timing_option.add_option(p, "emulator: rank by the timing model's predicted time on DEVICE", "the family's target")
    p.add_argument("--e2e", action="store_true", help="time the whole operation (pre/post-processing included)")
    p.add_argument("--repeat", type=int, default=None, help="timed runs per trial (default: 5 on GPU, 1 on the emulator)")
    p.add_argument("--seed", type=int, default=0, help="seed for the family's random inputs")
    target_option.add_option(p, what=": the family's target (its build() runs with it as the default "
                                     "Module target; default: the family's own, gfx942)")
    p.set_defaults(func=run)


def parse_shape(text: str) -> tuple[int, int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX,]\s*(\d+)\s*[xX,]\s*(\d+)\s*", text)
    if not m or any(int(g) == 0 for g in m.groups()):
        raise Diagnostic(f"shape '{text}' must be MxNxK with positive integers (e.g. 64x64x32)")
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def _user_error(e: BaseException, path: Path) -> Diagnostic:
    """A Diagnostic pointing at the deepest frame of the family file in ``e``'s traceback."""
    loc: object = str(path)
    for fr in traceback.extract_tb(e.__traceback__):
        if Path(fr.filename).resolve() == path.resolve():
            loc = SourceLoc(str(path), fr.lineno or 1, 1)
    return Diagnostic(f"family code raised {type(e).__name__}: {e}", loc)


def load_family(path: Path, attr: str):
    if not path.is_file():
        raise Diagnostic(f"family file '{path}' not found")
    spec = importlib.util.spec_from_file_location(f"gcnforge_family_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise Diagnostic(f"cannot load '{path}' as Python")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(mod)
    except Diagnostic:
        raise
    except (Exception, SystemExit) as e:  # the user's file: report where it failed, no traceback
        raise _user_error(e, path) from None
    finally:
        sys.path.remove(str(path.parent))
    if not hasattr(mod, attr):
        raise Diagnostic(f"'{path}' defines no '{attr}' (the family object; choose another with --family)")
    return getattr(mod, attr)


def run(args) -> int:
    from gcnforge.isa import table
    from gcnforge.runtime.tuning import results_table, tune

    path = Path(args.family_file)
    shapes = [parse_shape(s) for s in args.shapes]
    target = target_option.processor(args.target)
    with table.use_target(target):  # Modules the family builds default to --target
        return _tune(args, path, shapes, target, results_table, tune)


def _tune(args, path: Path, shapes, target: str | None, results_table, tune) -> int:
    from rich.console import Console

    fam = load_family(path, args.family)
    if target is not None:
        try:
            fam.target = target
        except (AttributeError, TypeError) as e:
            raise Diagnostic(f"--target {target}: cannot set the family's target ({e})", str(path)) from None
    cmd = (f"gcnforge tune {args.family_file}" + (f" --family {args.family}" if args.family != "family" else "")
           + (f" --timing {args.timing}" if args.timing else "") + (f" --device {args.device}" if args.device else "")
           + (" --e2e" if args.e2e else "") + (f" --target {target}" if target else "")
           + f" --shapes {' '.join(args.shapes)} -o {args.output}")
    try:
        report = tune(fam, shapes, args.output, device=args.device, e2e=args.e2e, repeat=args.repeat, seed=args.seed,
                      timing=args.timing, comments=(f"written by: {cmd}",))
    except Diagnostic:
        raise
    except (Exception, SystemExit) as e:
        raise _user_error(e, path) from None
    con = Console()
    con.print(results_table(report))
    missing = [s for s in shapes if s not in report.winners]
    con.print(f"wrote {len(report.winners)} tuned row(s) to {args.output} ({report.time_kind} times)")
    if missing:
        print(f"error: no variant passed the check for shape(s) {', '.join('x'.join(map(str, s)) for s in missing)}",
              file=sys.stderr)
        return 1
    return 0
