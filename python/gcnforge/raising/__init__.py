"""Raising: any gfx942 code object or ``.s`` file -> the ``amdgcn`` dialect, and back.

* ``lifter``   code object -> allocated IR (blocks and branches, pinned registers, ABI and
               the descriptor kept as kernel attributes, pc on every op)
* ``convert``  one decoded instruction -> one instruction op (checked to re-encode exactly)
* ``lift.inst`` (``gcnforge.dialect.raw_ops``): an instruction the ops cannot describe, kept as text
* ``emit``     raised IR -> ``.s`` -> code object, byte-identical when nothing was changed
* ``ssa``      pinned registers -> SSA values where the data flow allows, for re-allocation
* ``verify``   the wait / hazard verifiers on raised code, findings named by original pc

API::

    module = raise_file("k.hsaco")                  # or raise_code_object(read_code_object(...))
    data = module_code_object(module)               # same .text and descriptors as k.hsaco
    text = print_module(module); parse_module(text) # the .mlir form
"""

from __future__ import annotations

import io

from xdsl.dialects.builtin import ModuleOp as BuiltinModule
from xdsl.printer import Printer

from gcnforge.raising.emit import module_asm, module_code_object
from gcnforge.raising.lifter import raise_code_object, raise_file
from gcnforge.dialect import context


def print_module(module: BuiltinModule) -> str:
    buf = io.StringIO()
    Printer(stream=buf).print_op(module)
    return buf.getvalue() + "\n"


def parse_module(text: str, filename: str = "<mlir>") -> BuiltinModule:
    """Parse (and verify) a raised module's text; errors as located ``Diagnostic``s."""
    from gcnforge.dialect.source import parse_module as parse_located

    return parse_located(text, filename, context())


__all__ = ["raise_file", "raise_code_object", "module_asm", "module_code_object", "print_module", "parse_module"]
