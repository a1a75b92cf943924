"""A ``CodeObject`` back to assembly text that reassembles to the same code object contents.

Used for the read -> disassemble -> reassemble round trip: the target and code object
version directives; every function symbol of ``.text`` with its binding, visibility, type
and size; the whole ``.text`` disassembled linearly (branch targets get ``.L<addr>``
labels; bytes the decoder cannot read stay ``.long`` words, so the bytes survive either
way); the data sections (``.rodata``, ``.data``, ``.bss``) byte for byte with their object
symbols, kernel descriptors as ``.amdhsa_kernel`` blocks and relocated pointer slots as
``.quad <symbol>``; and the metadata YAML.
"""

from __future__ import annotations

import io
import re
import zlib

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from gcnforge.binary.descriptor import DESCRIPTOR_SIZE, format_directives
from gcnforge.binary.metadata import format_metadata_yaml
from gcnforge.binary.model import CodeObject, Symbol
from gcnforge.binary.target_id import parse_target_id
from gcnforge.diagnostics import Diagnostic

# Sections the linker makes; everything else allocated is reproduced from its bytes.
LINKER_SECTIONS = {".note", ".dynsym", ".gnu.hash", ".hash", ".dynstr", ".rela.dyn", ".dynamic", ".relro_padding",
                   ".text"}
R_AMDGPU_RELATIVE64 = 13


def _attrs(s: Symbol, kind: str) -> list[str]:
    out = []
    if s.binding == "GLOBAL":
        out.append(f"\t.globl {s.name}")
    elif s.binding == "WEAK":
        out.append(f"\t.weak {s.name}")
    if s.visibility in ("PROTECTED", "HIDDEN", "INTERNAL"):
        out.append(f"\t.{s.visibility.lower()} {s.name}")
    out.append(f"\t.type {s.name},@{kind}")
    return out


def code_object_to_asm(co: CodeObject, text_align_log2: int = 8) -> str:
    from gcnforge.asm import disassemble

    tid = parse_target_id(co.target)
    base, end = co.text_address, co.text_address + len(co.text)
    funcs = sorted((s for s in co.symbols.values() if s.type == "FUNC" and s.section == ".text"),
                   key=lambda s: (s.value, s.name))
    labels: dict[int, list[str]] = {}
    for s in funcs:
        labels.setdefault(s.value, []).append(s.name)
    targets: dict[int, str] = {}

    def symbolize(addr: int) -> str | None:
        if not base <= addr <= end:
            return None
        if addr in labels:
            return labels[addr][0]
        return targets.setdefault(addr, f".L{addr:x}")

    insts = disassemble(co.text, base)
    body = [(pc, di.text(pc, symbolize)) for pc, di in insts]  # first pass fills `targets`
    ends: dict[int, list[str]] = {}
    for s in funcs:
        ends.setdefault(s.value + s.size, []).append(s.name)

    out = [f'\t.amdgcn_target "{tid.triple_target()}"']
    if co.code_object_version:
        out.append(f"\t.amdhsa_code_object_version {co.code_object_version}")
    out += ["\t.text", f"\t.p2align {text_align_log2}"]
    for s in funcs:
        out += _attrs(s, "function")

    def emit_labels(pc: int) -> None:
        for name in ends.get(pc, []):
            out.append(f".Lend_{name}:")
        for name in labels.get(pc, []):
            out.append(f"{name}:")
        if pc in targets:
            out.append(f"{targets[pc]}:")

    boundaries = {pc for pc, _ in insts}
    for addr in set(labels) | set(targets) | set(ends):
        if addr not in boundaries and addr != end:
            raise Diagnostic(f"a symbol or branch target at 0x{addr:x} falls inside an instruction; "
                             "the code cannot be reassembled linearly")
    for pc, text in body:
        emit_labels(pc)
        out.append(f"\t{text}")
    emit_labels(end)
    for s in funcs:
        out.append(f"\t.size {s.name}, .Lend_{s.name}-{s.name}")

    out += _data_sections(co, tid.gfx90a_family)
    if co.metadata:
        out.append("\t.amdgpu_metadata")
        out.append(format_metadata_yaml(co.metadata).rstrip("\n"))
        out.append("\t.end_amdgpu_metadata")
    return "\n".join(out) + "\n"


MAX_DATA_SECTION = 1 << 24


def _data_sections(co: CodeObject, gfx90a: bool) -> list[str]:
    elf = ELFFile(io.BytesIO(co.data))
    secs = [s for s in elf.iter_sections() if s["sh_flags"] & 0x2 and s.name not in LINKER_SECTIONS]
    kds = {k.descriptor_address: k for k in co.kernels.values()}
    relocs = {off: addend for off, rtype, addend in co.relocations if rtype == R_AMDGPU_RELATIVE64}
    objects = {}
    for s in co.symbols.values():
        if s.section not in (None, "ABS", ".text") and not s.name.endswith(".kd"):
            objects.setdefault(s.value, []).append(s)
    # Pointer targets without a symbol get a local label.
    extra_labels = {a: f".Ldata_{a:x}" for a in relocs.values() if a not in objects}
    out: list[str] = []
    for sec in secs:
        start, size = sec["sh_addr"], sec["sh_size"]
        nobits = sec["sh_type"] == "SHT_NOBITS"
        flags = "aw" if sec["sh_flags"] & 0x1 else "a"
        kind = "@nobits" if nobits else "@progbits"
        out += [f'\t.section {sec.name},"{flags}",{kind}', f"\t.p2align {max(0, sec['sh_addralign'].bit_length() - 1)}"]
        if not re.fullmatch(r"[A-Za-z0-9_.$-]+", sec.name):  # what the assembler's .section accepts
            raise Diagnostic(f"section name {sec.name!r} cannot be written as assembly", "section header")
        if size > MAX_DATA_SECTION:  # re-emitted byte by byte: bounded work on any input
            raise Diagnostic(f"section {sec.name} is {size} bytes; at most {MAX_DATA_SECTION} can be re-emitted "
                             "as assembly", f"{sec.name} header")
        try:
            data = b"" if nobits else sec.data()
        except (ELFError, zlib.error) as e:  # a compressed-section flag, a bad compression header
            raise Diagnostic(f"section {sec.name}: {e}", f"{sec.name} header") from None
        if not nobits and len(data) < size:
            raise Diagnostic(f"section {sec.name} declares {size} bytes but the file holds {len(data)}",
                             f"{sec.name} header")
        pos = 0
        pending = bytearray()

        def flush() -> None:
            if pending:
                if nobits:
                    out.append(f"\t.zero {len(pending)}")
                else:
                    for i in range(0, len(pending), 16):
                        out.append("\t.byte " + ", ".join(str(b) for b in pending[i:i + 16]))
                pending.clear()

        while pos < size:
            addr = start + pos
            marks = objects.get(addr, [])
            if marks or addr in extra_labels or addr in kds or addr in relocs:
                flush()
            for s in marks:
                out += _attrs(s, "object")
                out.append(f"{s.name}:")
                out.append(f"\t.size {s.name}, {s.size}")
            if addr in extra_labels:
                out.append(f"{extra_labels[addr]}:")
            if addr in kds:
                k = kds[addr]
                out += ["\t" + line for line in format_directives(k.name, k.descriptor, gfx90a).splitlines()]
                pos += DESCRIPTOR_SIZE
                continue
            if addr in relocs:
                target = relocs[addr]
                name = objects[target][0].name if target in objects else extra_labels[target]
                out.append(f"\t.quad {name}")
                pos += 8
                continue
            pending.append(data[pos] if not nobits else 0)
            pos += 1
        flush()
    return out
