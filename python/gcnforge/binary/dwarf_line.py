"""A DWARF 5 line table for a code object: which source line and column each instruction
came from (``.loc``), as ``.debug_line`` plus the compile unit (``.debug_info``,
``.debug_abbrev``) that lets a symbolizer find it by address, so ``llvm-dwarfdump
--debug-line`` and ``llvm-objdump -d --line-numbers`` read it (DWARF 5 standard, 6.2 "Line
Number Information" and 7.5 "Format of Debugging Information"; the header fields as
llvm-mc 22 writes them for AMDGPU: minimum instruction length 4, line_base -5, line_range 14,
opcode_base 13). Names are inline strings (``DW_FORM_string``), not ``.debug_line_str``
offsets: the same table, one section fewer.

``debug_sections(files, rows, lo, hi)`` -> ``[(name, bytes)]``: ``files`` are ``(directory,
name)`` with DWARF 5's file 0 the primary source; ``rows`` ``(address, file, line, column)``
(final addresses, sorted or not); ``[lo, hi)`` the code they cover. ``read_lines(elf)``
reads the table back (pyelftools) as ``{address: (path, line, column)}``.
"""

from __future__ import annotations

import struct

PRODUCER = "gcnforge"
MIN_INST_LENGTH = 4  # every AMDGPU instruction is a multiple of 4 bytes
LINE_BASE, LINE_RANGE, OPCODE_BASE = -5, 14, 13
# operands of the standard opcodes 1..12 (DW_LNS_copy .. DW_LNS_set_isa)
STANDARD_OPCODE_LENGTHS = bytes([0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1])
DW_LNS_COPY, DW_LNS_ADVANCE_PC, DW_LNS_ADVANCE_LINE, DW_LNS_SET_FILE, DW_LNS_SET_COLUMN = 1, 2, 3, 4, 5
DW_LNE_END_SEQUENCE, DW_LNE_SET_ADDRESS = 1, 2
DW_LNCT_PATH, DW_LNCT_DIRECTORY_INDEX = 1, 2
DW_FORM_ADDR, DW_FORM_DATA4, DW_FORM_STRING, DW_FORM_UDATA, DW_FORM_SEC_OFFSET = 0x01, 0x06, 0x08, 0x0F, 0x17
DW_TAG_COMPILE_UNIT, DW_UT_COMPILE = 0x11, 0x01
DW_AT_NAME, DW_AT_STMT_LIST, DW_AT_LOW_PC, DW_AT_HIGH_PC, DW_AT_COMP_DIR, DW_AT_PRODUCER = 0x03, 0x10, 0x11, 0x12, 0x1B, 0x25


def uleb(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def sleb(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40)
        out.append(b | (0 if done else 0x80))
        if done:
            return bytes(out)


def _cstr(s: str) -> bytes:
    return s.encode("utf-8", "replace") + b"\0"


def _row(dfile: int, dcol: int, dline: int, dops: int) -> bytes:
    """One row: changed file/column registers (-1: unchanged), then a special opcode when the
    line and address advances fit one (DWARF 5, 6.2.5.1), else advance_line/advance_pc/copy."""
    p = bytearray()
    if dfile >= 0:
        p.append(DW_LNS_SET_FILE)
        p += uleb(dfile)
    if dcol >= 0:
        p.append(DW_LNS_SET_COLUMN)
        p += uleb(dcol)
    special = (dline - LINE_BASE) + LINE_RANGE * dops + OPCODE_BASE
    if LINE_BASE <= dline < LINE_BASE + LINE_RANGE and special <= 255:
        p.append(special)
        return bytes(p)
    if dline:
        p.append(DW_LNS_ADVANCE_LINE)
        p += sleb(dline)
    if dops:
        p.append(DW_LNS_ADVANCE_PC)
        p += uleb(dops)
    p.append(DW_LNS_COPY)
    return bytes(p)


def _program(rows: list[tuple[int, int, int, int]], lo: int, hi: int) -> bytes:
    parts = [b"\0" + uleb(9) + bytes([DW_LNE_SET_ADDRESS]) + struct.pack("<Q", lo)]
    addr, file, line, col = lo, 1, 1, 0  # the state machine's initial registers (file 1 in DWARF 5 too)
    cache: dict[tuple[int, int, int, int], bytes] = {}  # unrolled code repeats a few row deltas
    for a, f, ln, c in rows:
        key = (f if f != file else -1, c if c != col else -1, ln - line, (a - addr) // MIN_INST_LENGTH)
        enc = cache.get(key)
        if enc is None:
            enc = cache[key] = _row(*key)
        parts.append(enc)
        addr, file, line, col = a, f, ln, c
    tail = bytearray()
    if hi > addr:
        tail.append(DW_LNS_ADVANCE_PC)
        tail += uleb((hi - addr) // MIN_INST_LENGTH)
    tail += b"\0" + uleb(1) + bytes([DW_LNE_END_SEQUENCE])
    parts.append(bytes(tail))
    return b"".join(parts)


def _line_unit(files: list[tuple[str, str]], rows, lo: int, hi: int) -> bytes:
    dirs: list[str] = []
    for d, _ in files:
        if d not in dirs:
            dirs.append(d)
    h = bytearray(struct.pack("<BBBbBB", MIN_INST_LENGTH, 1, 1, LINE_BASE, LINE_RANGE, OPCODE_BASE))
    h += STANDARD_OPCODE_LENGTHS
    h += bytes([1]) + uleb(DW_LNCT_PATH) + uleb(DW_FORM_STRING)
    h += uleb(len(dirs)) + b"".join(_cstr(d) for d in dirs)
    h += bytes([2]) + uleb(DW_LNCT_PATH) + uleb(DW_FORM_STRING) + uleb(DW_LNCT_DIRECTORY_INDEX) + uleb(DW_FORM_UDATA)
    h += uleb(len(files)) + b"".join(_cstr(n) + uleb(dirs.index(d)) for d, n in files)
    body = struct.pack("<HBBI", 5, 8, 0, len(h)) + bytes(h) + _program(rows, lo, hi)
    return struct.pack("<I", len(body)) + body


def compile_unit_abbrev() -> bytes:
    """``.debug_abbrev``: one compile unit without children, its attributes in the order the
    unit below writes them (``translate.source_lines`` writes the same for llvm-mc)."""
    return uleb(1) + uleb(DW_TAG_COMPILE_UNIT) + b"\0" + b"".join(
        uleb(at) + uleb(form) for at, form in ((DW_AT_PRODUCER, DW_FORM_STRING), (DW_AT_NAME, DW_FORM_STRING),
                                               (DW_AT_COMP_DIR, DW_FORM_STRING), (DW_AT_STMT_LIST, DW_FORM_SEC_OFFSET),
                                               (DW_AT_LOW_PC, DW_FORM_ADDR), (DW_AT_HIGH_PC, DW_FORM_DATA4))) + b"\0\0\0"


def _compile_unit(files: list[tuple[str, str]], lo: int, hi: int) -> tuple[bytes, bytes]:
    abbrev = compile_unit_abbrev()
    d, n = files[0]
    die = uleb(1) + _cstr(PRODUCER) + _cstr(n) + _cstr(d) + struct.pack("<IQI", 0, lo, hi - lo)
    body = struct.pack("<HBBI", 5, DW_UT_COMPILE, 8, 0) + die
    return abbrev, struct.pack("<I", len(body)) + body


def debug_sections(files: list[tuple[str, str]], rows, lo: int, hi: int) -> list[tuple[str, bytes]]:
    rows = sorted(rows, key=lambda r: r[0])  # stable: rows at one address keep their order
    rows = [r for i, r in enumerate(rows) if i + 1 == len(rows) or rows[i + 1][0] != r[0]]  # the last .loc wins
    abbrev, info = _compile_unit(files, lo, hi)
    return [(".debug_abbrev", abbrev), (".debug_info", info), (".debug_line", _line_unit(files, rows, lo, hi))]


def read_lines(elf) -> dict[int, tuple[str, int, int]]:
    """``{address: (path, line, column)}`` of every row of the object's line tables (pyelftools
    ``ELFFile``; empty when it has no DWARF)."""
    import os

    if not elf.has_dwarf_info() or elf.get_section_by_name(".debug_info") is None:
        return {}
    dw = elf.get_dwarf_info()
    out: dict[int, tuple[str, int, int]] = {}
    for cu in dw.iter_CUs():
        lp = dw.line_program_for_CU(cu)
        if lp is None:
            continue
        dirs = [d.decode() if isinstance(d, bytes) else d for d in lp["include_directory"]]
        names = []
        for fe in lp["file_entry"]:
            nm = fe.name.decode() if isinstance(fe.name, bytes) else fe.name
            names.append(os.path.join(dirs[fe.dir_index], nm) if fe.dir_index < len(dirs) else nm)
        for e in lp.get_entries():
            s = e.state
            if s is None or s.end_sequence:
                continue
            path = names[s.file] if s.file < len(names) else f"<file {s.file}>"
            out[s.address] = (path, s.line, s.column)
    return out
