"""MLIR-compatible printing of the ``amdgcn`` dialect's types and attributes.

xDSL prints ``!amdgcn.vgpr<[? + 4]>``; an IRDL-defined dialect in LLVM's ``mlir-opt`` only
knows the generic parameter list form ``!amdgcn.vgpr<-2 : i32, 4 : i32, 2 : i32>``. While
``enabled()`` is active, every type and attribute of the dialect prints its parameters in
that form (as builtin attributes), which is what ``gcnforge-opt --mlir-generic`` emits for
``mlir-opt --irdl-file=<gcnforge-opt --emit-irdl>`` to verify.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

_active = False


def active() -> bool:
    return _active


@contextlib.contextmanager
def enabled() -> Iterator[None]:
    global _active
    old, _active = _active, True
    try:
        yield
    finally:
        _active = old


def print_int_params(printer, values: Iterable[int]) -> None:
    printer.print_string("<" + ", ".join(f"{v} : i32" for v in values) + ">")


def quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
