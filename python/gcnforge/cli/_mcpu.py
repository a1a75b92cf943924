"""The ``--target`` option every command shares: which processor a kernel, an assembly
file or a code object is for. ``--mcpu`` (and LLVM's single-dash ``-mcpu=``) is the same
option, as llvm-mc / clang spell it. The list of processors in the help text and in the
diagnostic for an unknown one is ``gcnforge.isa.target.TARGETS``."""

from __future__ import annotations

from gcnforge.diagnostics import Diagnostic
from gcnforge.isa.target import TARGETS


def known() -> str:
    return ", ".join(TARGETS)


def add_option(p, default: str | None = None, what: str = "") -> None:
    """``--target PROC`` / ``--mcpu PROC`` / ``-mcpu=PROC`` on parser ``p`` (dest ``target``)."""
    dflt = f"; default {default}" if default else ""
    p.add_argument("--target", "--mcpu", "-mcpu", dest="target", default=default, metavar="PROC",
                   help=f"target processor: {known()} (a target id such as {next(iter(TARGETS))}:xnack- "
                        f"names its processor){what}{dflt}")


def processor(text: str | None, default: str | None = None) -> str | None:
    """The processor ``text`` names (``gfx950`` from ``gfx950:xnack-`` or
    ``amdgcn-amd-amdhsa--gfx950``), ``default`` when None; an unknown one is a Diagnostic."""
    if text is None:
        return default
    from gcnforge.isa.table import processor as proc

    name = proc(str(text))
    if name not in TARGETS:
        raise Diagnostic(f"unknown target '{text}' (known: {known()})")
    return name


def check_code_object(want: str | None, target_id: str, where: str) -> None:
    """A ``--target`` that names another processor than the code object's is a mistake."""
    if want is None:
        return
    from gcnforge.isa.table import processor as proc

    have = proc(str(target_id))
    if have != want:
        raise Diagnostic(f"--target {want}: the code object is for {target_id}", where)
