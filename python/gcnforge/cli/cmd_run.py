"""``gcnforge run``: launch one kernel of a code object (on the emulator unless a matching
GPU is present or ``--device`` says otherwise) and print the results.

    gcnforge run saxpy.co saxpy --grid 4 --block 256 -a out=zeros:1024:f32 -a x=x.npy -a n=1024 -a a=2.0
    gcnforge run vendor.co gemm --layout "c:f32*;a:f32*;b:f32*;m:u32;n:u32;k:u32" -a c=zeros:64x64:f32 ...

Arguments are ``-a name=value`` (or ``-a value``, taken in order). Pointer arguments take a ``.npy``
file or a generated array ``zeros|ones|arange|rand:SHAPE:DTYPE`` (SHAPE like ``64x64``);
scalars take numbers, converted to the argument's declared type. Pointer arguments are
summarised after the run (``--print-arrays`` prints them); ``--save NAME=out.npy`` writes one
(``--save DIR`` every one as ``DIR/<name>.npy``); ``--expect NAME=ref.npy`` compares one with a
reference (``--rtol``/``--atol``) and exits 1 on a mismatch; ``--quiet`` prints only problems.
Without ``--timing`` no time is printed for an emulated run (the timing model's prediction is
what ``--timing`` gives; a GPU run prints its measured time).
"""

from __future__ import annotations

import argparse

import re
import sys
from pathlib import Path

import numpy as np

from gcnforge.cli import _mcpu as target_option, _timing as timing_option
from gcnforge.diagnostics import Diagnostic

_GEN = re.compile(r"^(zeros|ones|arange|rand):([0-9x]+):([A-Za-z0-9_]+)$")


def register(subparsers) -> None:
    p = subparsers.add_parser("run", help="run a kernel of a code object and print its results",
                              description=__doc__.replace("``", "'"),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("code_object", help="code object (.co / .hsaco)")
    p.add_argument("kernel", help="kernel name")
    p.add_argument("-a", "--arg", dest="args", action="append", default=[], metavar="NAME=VALUE",
                   help="a kernel argument (repeat; bare values are taken in order)")
    p.add_argument("--grid", required=True, help="workgroups: X or X,Y,Z")
    p.add_argument("--block", required=True, help="work-items per workgroup: X or X,Y,Z")
    p.add_argument("--layout", default=None, help="16-byte-slot layout 'name:type;...' when metadata is not usable")
    target_option.add_option(p, what=": the code object must be for it (default: any; the code object names its target)")
    p.add_argument("--device", type=_device_name, default=None, metavar="emulator|hip|hip:N",
                   help="default: HIP (GPU 0) if a GPU matching the code object is present, else the emulator; "
                        "hip:N is GPU N (see gcnforge devices)")
    p.add_argument("--sanitize", action="store_true", help="check memory accesses (emulator)")
    p.add_argument("--sanitize-continue", action="store_true",
                   help="like --sanitize, but run to the end: every site (kind, pc) is printed once, in full at its "
                        "first occurrence, then a summary table with the count of each; exit 1 if any")
    p.add_argument("--suppress", default=None, metavar="FILE",
                   help="sanitizer suppressions: one rule per line, 'kind=hazard pc=0x100-0x180 kernel=gemm*' "
                        "(any of the three); matching reports are counted, not printed, and do not stop the run")
    p.add_argument("--trace", action="store_true",
                   help="print each executed instruction's pc and text (emulator)")
    timing_option.add_option(p, "predict the kernel's time on DEVICE with the emulator's timing mode (runs a sample "
                                "of work-groups when the grid is large)", "the code object's target")
    p.add_argument("--trace-out", default=None, metavar="FILE",
                   help="with --timing: write the modelled execution as a Chrome/Perfetto trace (JSON)")
    p.add_argument("--roofline", default=None, metavar="FILE.png",
                   help="with --timing: draw the kernel on the device's roofline (needs matplotlib: "
                        "pip install 'gcnforge[plot]')")
    p.add_argument("--timing-complete", action="store_true",
                   help="with --timing on a sampled grid: run the other work-groups afterwards, untimed, so every "
                        "output is written")
    p.add_argument("--timing-sample", type=int, default=None, metavar="N",
                   help="with --timing: emulate at most N work-groups of the CU-0 round (default 16; a grid of at "
                        "most N runs whole)")
    p.add_argument("--flops", type=float, default=None, help="with --timing: the launch's FLOP count (for TFLOP/s)")
    p.add_argument("--dynamic-lds", type=int, default=0, help="extra dynamic LDS bytes")
    p.add_argument("--save", action="append", default=[], metavar="NAME=FILE.npy|DIR",
                   help="after the run, write argument NAME to FILE.npy (repeat), or every pointer argument "
                        "as DIR/<name>.npy")
    p.add_argument("--expect", action="append", default=[], metavar="NAME=REF.npy",
                   help="compare argument NAME after the run with REF.npy (--rtol/--atol); exit 1 on a mismatch")
    p.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance of --expect (default %(default)s)")
    p.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance of --expect (default %(default)s)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print nothing but diagnostics, --expect mismatches and sanitizer reports")
    p.add_argument("--print-arrays", action="store_true",
                   help="print pointer arguments' contents (default: a one-line summary each)")
    p.add_argument("--seed", type=int, default=0, help="seed for rand: arrays")
    p.add_argument("--max-instructions", type=int, default=None, metavar="N",
                   help="emulator: stop with a diagnostic after N wave-instructions (default "
                        "50,000,000, and with --sanitize at most 50,000 per wave, seconds of sanitized "
                        "emulation; a kernel whose state repeats stops within seconds anyway)")
    p.set_defaults(func=run)


def parse_dims(text: str, what: str) -> tuple[int, ...]:
    parts = [p.strip() for p in text.replace("x", ",").split(",")]
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise Diagnostic(f"--{what} '{text}' must be 1 to 3 positive integers separated by commas")
    return tuple(int(p) for p in parts)


def _dtype(name: str, spec: str) -> np.dtype:
    from gcnforge.runtime.types import parse_type

    st = parse_type(name)
    if st is not None and st.lanes == 1:
        return st.dtype
    try:
        return np.dtype(name)
    except TypeError:
        raise Diagnostic(f"unknown dtype '{name}' in '{spec}'") from None


def make_array(spec: str, rng: np.random.Generator) -> np.ndarray:
    if spec.endswith(".npy"):
        p = Path(spec)
        if not p.is_file():
            raise Diagnostic(f"array file '{spec}' not found")
        try:
            return np.load(p, allow_pickle=False)
        except ValueError as e:
            raise Diagnostic(f"cannot read '{spec}': {e}") from None
    m = _GEN.match(spec)
    if not m:
        raise Diagnostic(f"'{spec}' is not an array: use a .npy file or zeros|ones|arange|rand:SHAPE:DTYPE")
    kind, shape_s, dt_s = m.groups()
    shape = tuple(int(s) for s in shape_s.split("x") if s)
    if not shape or any(s == 0 for s in shape) or np.prod(shape, dtype=np.int64) > 1 << 28:
        raise Diagnostic(f"shape '{shape_s}' in '{spec}' must be positive and at most 2^28 elements")
    dt = _dtype(dt_s, spec)
    if kind == "zeros":
        return np.zeros(shape, dt)
    if kind == "ones":
        return np.ones(shape, dt)
    if kind == "arange":
        return np.arange(int(np.prod(shape)), dtype=dt).reshape(shape)
    return (rng.random(shape) * 2 - 1).astype(dt) if dt.kind == "f" else rng.integers(0, 100, shape).astype(dt)


def _scalar(text: str) -> object:
    try:
        return int(text, 0)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise Diagnostic(f"'{text}' is not a number") from None


def run(args) -> int:
    import gcnforge.runtime as rt
    from gcnforge.runtime.kernargs import ArgLayout

    want = target_option.processor(args.target)  # an unknown name fails before the load
    mod = rt.load(Path(args.code_object))
    target_option.check_code_object(want, mod.target, args.code_object)
    layout = ArgLayout.slots16([s for s in args.layout.split(";") if s.strip()]) if args.layout else None
    k = mod.kernel(args.kernel, layout=layout)
    named = _arguments(args, k)
    extra, device = _launch_options(args)
    from gcnforge.cli._progress import progress

    with progress(f"{args.kernel}{' (sanitized)' if args.sanitize or args.sanitize_continue else ''}") as bar:
        extra["progress"] = bar
        res = k(grid=parse_dims(args.grid, "grid"), block=parse_dims(args.block, "block"), device=device,
                sanitize=args.sanitize or args.sanitize_continue, dynamic_lds=args.dynamic_lds, **extra, **named)
    return _report(args, res, named)


def _arguments(args, k) -> dict[str, object]:
    """The kernel's arguments from ``-a`` (by name or position): arrays for pointers, scalars."""
    fields = {f.name: f for f in k.layout.explicit}
    order = list(fields)
    rng = np.random.default_rng(args.seed)
    named: dict[str, object] = {}
    for i, a in enumerate(args.args):
        name, sep, val = a.partition("=")
        if not sep:
            if i >= len(order):
                raise Diagnostic(f"kernel '{args.kernel}' takes {len(order)} argument(s), {len(args.args)} given")
            name, val = order[i], a
        if name not in fields:
            raise Diagnostic(f"kernel '{args.kernel}' has no argument '{name}'", notes=(f"arguments: {', '.join(order)}",))
        f = fields[name]
        if f.kind == "ptr":
            named[name] = make_array(val, rng)
        else:
            v = _scalar(val)
            named[name] = v
        if f.kind == "value" and f.type is not None and f.type.lanes > 1:
            raise Diagnostic(f"argument '{name}' is a vector ({f.type}); vectors cannot be given on the command line")
    return named


def _launch_options(args) -> tuple[dict[str, object], object]:
    """The launch's keyword options (trace, sanitizer, timing) and its device."""
    extra: dict[str, object] = {}
    if args.trace:
        # one line per instruction issue (all waves executing it together): pc, then its text
        extra["trace"] = lambda ev: print(f"0x{ev.pc:06x}: {ev.text}")
    if args.sanitize_continue:
        extra["sanitize_mode"] = "continue"
    if args.suppress:
        if not (args.sanitize or args.sanitize_continue):
            raise Diagnostic("--suppress silences sanitizer reports: add --sanitize or --sanitize-continue")
        from gcnforge.emulator.suppressions import Suppressions

        extra["sanitize_suppress"] = Suppressions.load(args.suppress)  # a bad file fails before the run
    if (args.trace_out or args.flops is not None or args.timing_complete or args.roofline
            or args.timing_sample is not None) and not args.timing:
        raise Diagnostic("--trace-out, --flops, --roofline, --timing-complete and --timing-sample need --timing DEVICE")
    if args.timing:
        if args.trace:
            raise Diagnostic("--trace and --timing cannot be combined")
        from gcnforge.perfmodel import profiles

        # a name is checked here; whether its device runs the code object's target, at the launch
        timing = True if args.timing.lower() == "auto" else profiles.get(args.timing)
        extra.update(timing=timing, flops=args.flops, trace_out=args.trace_out)
        if args.timing_complete:
            extra["timing_complete"] = True
        if args.timing_sample is not None:
            extra["timing_sample"] = args.timing_sample  # checked by the launch (a located Diagnostic)
        args.device = args.device or "emulator"
    device: object = args.device
    if args.max_instructions is not None:
        if args.max_instructions < 1:
            raise Diagnostic(f"--max-instructions {args.max_instructions} must be a positive count")
        if args.device not in (None, "emulator"):
            raise Diagnostic(f"--max-instructions bounds the emulator; it does not apply to --device {args.device}")
        from gcnforge.runtime.emulator_backend import EmulatorBackend

        device = EmulatorBackend(max_instructions=args.max_instructions)
    return extra, device


def _report(args, res, named: dict[str, object]) -> int:
    """Print the run (time, arrays, sanitizer reports); the exit status."""
    say = (lambda *a, **k: None) if args.quiet else print
    # One answer to "how long": a time only when one was asked for (--timing: the model's
    # prediction for the whole grid) or measured (a GPU's events), never the emulator's
    # issue-model cycles of whatever it happened to run.
    measured = f", {res.seconds * 1e6:.3f} us measured" if res.seconds is not None and not res.modeled else ""
    say(f"ran {args.kernel} on {res.backend}{measured}")
    if res.timing is not None:
        say(res.timing.text())
        if args.trace_out:
            say(f"trace written to {args.trace_out}")
        if args.roofline:
            from gcnforge.perfmodel import profiles, roofline

            roofline.draw(res.timing, profiles.get(res.timing.device), args.roofline)
            say(f"roofline written to {args.roofline}")
    arrays = {n: v for n, v in named.items() if isinstance(v, np.ndarray)}
    if res.partial:
        say("outputs: only the sampled work-groups ran (timing mode), so the arrays are partial and not shown; "
            "--timing-complete runs the rest, untimed")
    else:
        for name, v in arrays.items():
            if args.print_arrays:
                with np.printoptions(threshold=64, edgeitems=4, linewidth=100):
                    say(f"{name} {v.dtype}{list(v.shape)}:\n{v}")
            else:
                say(summarize(name, v))
    _save(args.save, arrays)
    bad = _expect(args.expect, arrays, args.rtol, args.atol, res.partial)
    sys.stdout.flush()
    reports = list(getattr(res.stats, "reports", None) or ())
    suppressed = dict(getattr(res.stats, "suppressed", None) or {})
    if reports or suppressed:
        print(sanitizer_summary(reports, dict(getattr(res.stats, "report_counts", None) or {}), suppressed),
              file=sys.stderr)
    if reports:
        return 1
    return 1 if bad else 0


def summarize(name: str, v: np.ndarray) -> str:
    """One line per array: shape, dtype, range, mean, the first values."""
    head = ", ".join(f"{x:.6g}" if v.dtype.kind == "f" else str(x) for x in v.reshape(-1)[:4])
    if v.size == 0:
        return f"{name} {v.dtype}{list(v.shape)}: empty"
    if v.dtype.kind in "fiub":
        w = v.astype(np.float64)
        return (f"{name} {v.dtype}{list(v.shape)}: min {w.min():.6g} max {w.max():.6g} mean {w.mean():.6g} "
                f"[{head}{', ...' if v.size > 4 else ''}]")
    return f"{name} {v.dtype}{list(v.shape)}: [{head}{', ...' if v.size > 4 else ''}]"


def _pairs(specs: list[str], what: str, arrays: dict) -> list[tuple[str, Path]]:
    out = []
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not path:
            raise Diagnostic(f"{what} '{spec}': expected NAME=FILE.npy")
        if name not in arrays:
            raise Diagnostic(f"{what} '{spec}': no pointer argument '{name}'",
                             notes=(f"pointer arguments: {', '.join(arrays) or 'none'}",))
        out.append((name, Path(path)))
    return out


def _save(specs: list[str], arrays: dict) -> None:
    dirs = [s for s in specs if "=" not in s]
    for d in dirs:
        Path(d).mkdir(parents=True, exist_ok=True)
        for name, v in arrays.items():
            np.save(Path(d) / f"{name}.npy", v)
    for name, path in _pairs([s for s in specs if "=" in s], "--save", arrays):
        np.save(path, arrays[name])


def _expect(specs: list[str], arrays: dict, rtol: float, atol: float, partial: bool) -> int:
    """Compare with references; print one line per mismatching argument; the count of them."""
    pairs = _pairs(specs, "--expect", arrays)
    if pairs and partial:
        raise Diagnostic("--expect needs the whole grid's outputs; this timed launch ran a sample of work-groups")
    bad = 0
    for name, path in pairs:
        ref = make_array(str(path), np.random.default_rng(0))
        got = arrays[name]
        if ref.shape != got.shape and ref.size == got.size:
            ref = ref.reshape(got.shape)
        if ref.shape != got.shape:
            print(f"--expect {name}: shape {list(got.shape)} != reference {list(ref.shape)} ({path})", file=sys.stderr)
            bad += 1
            continue
        g, r = got.astype(np.float64), ref.astype(np.float64)
        ok = np.isclose(g, r, rtol=rtol, atol=atol, equal_nan=True)
        if not ok.all():
            idx = np.argwhere(~ok)
            first = tuple(int(i) for i in idx[0])
            print(f"--expect {name}: {len(idx)} of {ok.size} elements differ from {path} (rtol {rtol}, atol {atol}); "
                  f"max abs error {np.nanmax(np.abs(g - r)):.6g}; first at {list(first)}: {got[first]!r} != "
                  f"{ref[first]!r}", file=sys.stderr)
            bad += 1
    return bad


def _device_name(text: str) -> str:
    """``--device``: 'emulator', 'hip' or 'hip:N' (argparse turns the ValueError into a usage error)."""
    from gcnforge.runtime.devices import gpu_index

    if text != "emulator" and gpu_index(text) is None:
        raise argparse.ArgumentTypeError(f"'{text}' is not a device (emulator, hip, hip:N)")
    return text


def sanitizer_summary(reports: list, counts: dict, suppressed: dict) -> str:
    """Each site's first report in full, then a table: kind, pc, occurrences, instruction; then
    the suppressed counts (compute-sanitizer's shape: every error once per site, a summary)."""
    out = [str(r) for r in reports]
    if reports:
        out.append("")
        out.append(f"sanitizer summary: {len(reports)} site(s), {sum(counts.values()) or len(reports)} occurrence(s)")
        rows = [(r.kind or "?", f"0x{r.loc.pc:x}", str(counts.get((r.loc.pc, r.kind), 1)), r.loc.text)
                for r in reports if getattr(r, "loc", None) is not None]
        head = ("kind", "pc", "count", "instruction")
        w = [max(len(x[i]) for x in (head, *rows)) for i in range(3)]
        for row in (head, *rows):
            out.append(f"  {row[0].ljust(w[0])}  {row[1].rjust(w[1])}  {row[2].rjust(w[2])}  {row[3]}")
    if suppressed:
        out.append(f"suppressed: {sum(suppressed.values())} occurrence(s) at {len(suppressed)} site(s) "
                   f"({', '.join(sorted({k for _, k in suppressed}))})")
    return "\n".join(out)
