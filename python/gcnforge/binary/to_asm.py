"""A ``CodeObject`` back to assembly text that reassembles to the same ``.text`` and descriptors.

Used for the read -> disassemble -> reassemble round trip and by ``gcnforge dis --reassemblable``
style output: the target and code object version directives, every function symbol of
``.text`` with its binding, visibility, type and size, the whole ``.text`` disassembled
linearly (branch targets get ``.L<addr>`` labels; bytes the decoder cannot read stay
``.long`` words, so the bytes survive either way), one ``.amdhsa_kernel`` block per kernel
in descriptor order, and the metadata YAML.
"""

from __future__ import annotations

from gcnforge.binary.descriptor import format_directives
from gcnforge.binary.metadata import format_metadata_yaml
from gcnforge.binary.model import CodeObject
from gcnforge.binary.target_id import parse_target_id
from gcnforge.diagnostics import Diagnostic


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
        if s.binding == "GLOBAL":
            out.append(f"\t.globl {s.name}")
        elif s.binding == "WEAK":
            out.append(f"\t.weak {s.name}")
        if s.visibility in ("PROTECTED", "HIDDEN", "INTERNAL"):
            out.append(f"\t.{s.visibility.lower()} {s.name}")
        out.append(f"\t.type {s.name},@function")

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

    kernels = sorted(co.kernels.values(), key=lambda k: k.descriptor_address)
    if kernels:
        out += ["\t.rodata", "\t.p2align 6"]
        prev = None
        for k in kernels:
            if prev is not None and k.descriptor_address != prev + 64:
                raise Diagnostic("kernel descriptors are not contiguous in .rodata; cannot reproduce the layout")
            prev = k.descriptor_address
            out += ["\t" + line for line in format_directives(k.name, k.descriptor, tid.gfx90a_family).splitlines()]
    if co.metadata:
        out.append("\t.amdgpu_metadata")
        out.append(format_metadata_yaml(co.metadata).rstrip("\n"))
        out.append("\t.end_amdgpu_metadata")
    return "\n".join(out) + "\n"
