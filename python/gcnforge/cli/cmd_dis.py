"""``gcnforge dis FILE``: disassemble an HSACO (per kernel/function, llvm-objdump layout) or
a raw code blob (``--base`` gives its address)."""

from __future__ import annotations

import sys
from pathlib import Path


def _run(args) -> int:
    from gcnforge.asm.listing import objdump_lines
    from gcnforge.cli._source import read_bytes
    from gcnforge.diagnostics import Diagnostic

    data = read_bytes(args.file)
    if not data:
        raise Diagnostic("empty file: nothing to disassemble", args.file)
    if data[:4] == b"\x7fELF" and not args.raw:
        from gcnforge.binary import read_code_object

        try:
            co = read_code_object(data)
        except Diagnostic as d:  # the reader only sees bytes: name the file
            raise Diagnostic(d.message, args.file if d.loc in (None, "<bytes>") else d.loc, d.notes) from None
        syms = sorted((s.value, s.name) for s in co.symbols.values()
                      if s.type == "FUNC" and s.section == ".text")
        print(f"\n{Path(args.file).name}:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n")
        lines = objdump_lines(co.text, co.text_address, syms, target=_table_target(co.target, args.file))
    else:
        if not args.raw and _looks_like_text(data):
            # A .s or .mlir given by mistake would otherwise "disassemble" as nonsense.
            raise Diagnostic("not an ELF code object (this looks like a text file); "
                             "use --raw to disassemble it as a raw code blob anyway", args.file)
        lines = objdump_lines(data, args.base, [(args.base, "blob")] if args.base is not None else [],
                              target=args.target)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _table_target(target_id: str, where: str) -> str | None:
    """The instruction table for a code object's target (gfx950's, else gfx942's as before:
    the other gfx9 processors have no table of their own yet)."""
    from gcnforge.isa import table

    proc = table.processor(target_id)
    return proc if proc in table.known_targets() else None


def _looks_like_text(data: bytes) -> bool:
    """Printable UTF-8 with line breaks (machine code has NULs and high bytes within 64 bytes)."""
    head = data[:4096]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(c.isprintable() or c in "\n\r\t" for c in text)


def _address(s: str) -> int:
    return int(s, 0)


_address.__name__ = "address"  # argparse names the type in its message: "invalid address value"


def register(sub) -> None:
    p = sub.add_parser("dis", help="disassemble a gfx942/gfx950 code object (HSACO) or raw code blob")
    p.add_argument("file")
    from gcnforge.cli._mcpu import known

    p.add_argument("--target", "--mcpu", "-mcpu", dest="target", default="gfx942",
                   help=f"instruction set of a raw blob: {known()} (default gfx942; a code object names its own)")
    p.add_argument("--raw", action="store_true", help="treat the file as a raw code blob even if it is an ELF")
    p.add_argument("--base", type=_address, default=0, help="address of a raw blob's first byte")
    p.set_defaults(func=_run)
