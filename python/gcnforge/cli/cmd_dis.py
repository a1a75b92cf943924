"""``gcnforge dis FILE``: disassemble an HSACO (per kernel/function, llvm-objdump layout) or
a raw code blob (``--base`` gives its address)."""

from __future__ import annotations

import sys
from pathlib import Path


def _run(args) -> int:
    from gcnforge.asm.listing import objdump_lines

    data = Path(args.file).read_bytes()
    if data[:4] == b"\x7fELF" and not args.raw:
        from gcnforge.binary import read_code_object

        co = read_code_object(data)
        syms = sorted((s.value, s.name) for s in co.symbols.values()
                      if s.type == "FUNC" and s.section == ".text")
        print(f"\n{Path(args.file).name}:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n")
        lines = objdump_lines(co.text, co.text_address, syms)
    else:
        lines = objdump_lines(data, args.base, [(args.base, "blob")] if args.base is not None else [])
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def register(sub) -> None:
    p = sub.add_parser("dis", help="disassemble a gfx942 code object (HSACO) or raw code blob")
    p.add_argument("file")
    p.add_argument("--raw", action="store_true", help="treat the file as a raw code blob even if it is an ELF")
    p.add_argument("--base", type=lambda s: int(s, 0), default=0, help="address of a raw blob's first byte")
    p.set_defaults(func=_run)
