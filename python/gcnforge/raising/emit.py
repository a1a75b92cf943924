"""Raised (allocated) ``amdgcn`` IR -> assembly text -> code object, exactly.

The code is ``gcnforge.translate.asm.kernel_lines`` (the compiler's block emitter, with
``.Llift`` labels and pc locations; ``amdgcn.branch ... {lift.fallthrough}`` emits nothing
when its block is next); what differs is the frame: the kernel descriptor comes from the
kernel's ``lift.amdhsa`` values verbatim (not recomputed from the allocation), the code
between kernels and the data sections come back from the module's ``lift.text`` /
``lift.data``, and the metadata from ``lift.metadata``. A kernel marked ``lift.recount``
(re-allocated by ``lift.ssa``) gets its register counts recomputed from its registers.

Pre: registers allocated, no ``amdgcn.wait`` / ``amdgcn.call`` left.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, UnitAttr
from xdsl.ir import Operation

from gcnforge.binary.metadata import format_metadata_yaml, parse_metadata_yaml
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.dialect.structure_ops import KernelOp, ModuleOp
from gcnforge.raising.lifter import DESCRIPTOR_MARK
from gcnforge.isa import table
from gcnforge.translate.asm import descriptor_text, kernel_lines, register_counts


def _where(op: Operation, kname: str) -> str:
    pc = op.attributes.get("pc")
    return f"@{kname} pc 0x{pc.value.data:x}" if isinstance(pc, IntegerAttr) else f"@{kname}"


def _recounted(k: KernelOp, d: dict[str, int]) -> dict[str, int]:
    c = register_counts(k)
    d = dict(d)
    d["next_free_vgpr"] = c.next_free_vgpr
    d["accum_offset"] = c.accum_offset
    d["next_free_sgpr"] = max(c.sgprs, d.get("user_sgpr_count", 0) + sum(
        d.get(f"system_sgpr_workgroup_{x}", 0) for x in ("id_x", "id_y", "id_z", "info")), 1)
    return d


def outgrows_descriptor(k: KernelOp) -> bool:
    """Whether the kernel's code names registers its raised descriptor does not provide
    (an edited kernel, re-allocated with more registers than clang's)."""
    a = k.attributes.get("lift.amdhsa")
    if not isinstance(a, DictionaryAttr):
        return False
    d = {n: v.value.data for n, v in a.data.items()}
    c = register_counts(k)
    vgpr_top = d.get("accum_offset", d.get("next_free_vgpr", 0)) if c.agprs else d.get("next_free_vgpr", 0)
    return (c.vgprs > vgpr_top or c.sgprs > d.get("next_free_sgpr", 0)
            or (c.agprs and d.get("accum_offset", 0) + c.agprs > d.get("next_free_vgpr", 0)))


def recount_grown(module: Operation) -> list[str]:
    """Mark ``lift.recount`` every raised kernel that ``outgrows_descriptor``; their names."""
    out = []
    for k in module.walk():
        if isinstance(k, KernelOp) and "lift.recount" not in k.attributes and outgrows_descriptor(k):
            k.attributes["lift.recount"] = UnitAttr()
            out.append(k.sym_name.data)
    return out


def descriptor_lines(k: KernelOp) -> list[str]:
    a = k.attributes.get("lift.amdhsa")
    if not isinstance(a, DictionaryAttr):
        return descriptor_text(k).rstrip("\n").splitlines()
    d = {n: v.value.data for n, v in a.data.items()}
    if "lift.recount" in k.attributes:
        d = _recounted(k, d)
    return ([f"\t.amdhsa_kernel {k.sym_name.data}"] + [f"\t\t.amdhsa_{n} {v}" for n, v in d.items()]
            + ["\t.end_amdhsa_kernel"])


def _metadata(mod: ModuleOp, kernels: list[KernelOp]) -> str | None:
    a = mod.attributes.get("lift.metadata")
    if a is None:
        return None
    text = a.data
    recount = [k for k in kernels if "lift.recount" in k.attributes]
    if not recount:
        return text
    md = parse_metadata_yaml(text, SourceLoc("<lift.metadata>", 1, 1))
    for entry in md.get("amdhsa.kernels", []):
        for k in recount:
            if entry.get(".name") == k.sym_name.data:
                c = register_counts(k)
                entry[".vgpr_count"] = c.next_free_vgpr
                entry[".agpr_count"] = c.agprs
                entry[".sgpr_count"] = max(c.sgprs, 1)
    return format_metadata_yaml(md)


def _gap_lines(g: DictionaryAttr) -> list[str]:
    body = bytes.fromhex(g.data["bytes"].data)
    marks = {o.value.data: s.data for s, o in zip(g.data["symbols"].data, g.data["offsets"].data)}
    out = g.data["directives"].data.splitlines()
    pending = bytearray()

    def flush() -> None:
        for i in range(0, len(pending), 16):
            out.append("\t.byte " + ", ".join(str(b) for b in pending[i:i + 16]))
        pending.clear()

    for i, b in enumerate(body):
        if i in marks:
            flush()
            out.append(f"{marks[i]}:")
        pending.append(b)
    flush()
    return out


def module_asm(module: Operation) -> str:
    """The whole ``.s`` for a raised module (or any allocated module with ``amdgcn.module``),
    printed with its ``#amdgcn.target``'s table."""
    mods = [op for op in module.walk() if isinstance(op, ModuleOp)]
    if len(mods) != 1:
        raise Diagnostic(f"expected one amdgcn.module, found {len(mods)}")
    with table.use_target(mods[0].chip):
        return _module_asm(mods[0])


def _module_asm(mod: ModuleOp) -> str:
    kernels = [op for op in mod.body.block.ops if isinstance(op, KernelOp)]
    if not kernels:
        raise Diagnostic("no amdgcn.kernel to emit", f"@{mod.sym_name.data}")
    a = mod.attributes
    target = a["lift.target"].data if "lift.target" in a else f"amdgcn-amd-amdhsa--{mod.chip}"
    version = a["lift.code_object_version"].value.data if "lift.code_object_version" in a else 5
    out = [f'\t.amdgcn_target "{target}"', f"\t.amdhsa_code_object_version {version}", "\t.text", "\t.p2align 8"]
    segments: list[tuple[int, int, object]] = []
    for i, k in enumerate(kernels):
        e = k.attributes.get("lift.entry")
        segments.append((e.value.data if isinstance(e, IntegerAttr) else 1 << 62, 0, (i, k)))
    for g in (a["lift.text"].data if "lift.text" in a else ()):
        segments.append((g.data["at"].value.data, 1, g))
    for _, kind, item in sorted(segments, key=lambda s: (s[0], s[1])):
        if kind == 0:
            out += kernel_lines(item[1], item[0], ".Llift", ".Llift_end", lambda op, n=item[1].sym_name.data: _where(op, n))
        else:
            out += _gap_lines(item)
    by_name = {k.sym_name.data: k for k in kernels}
    data = _text(a["lift.data"].data, mod).splitlines() if "lift.data" in a else []
    placed = set()
    for ln in data:
        if ln.startswith(DESCRIPTOR_MARK):
            name = ln[len(DESCRIPTOR_MARK):]
            if name not in by_name:
                raise Diagnostic(f"the data sections hold the descriptor of kernel {name}, which the module "
                                 "no longer has", f"@{mod.sym_name.data}")
            out += descriptor_lines(by_name[name])
            placed.add(name)
        else:
            out.append(ln)
    missing = [k for k in kernels if k.sym_name.data not in placed]
    if missing:
        out += ['\t.section .rodata,"a",@progbits', "\t.p2align 6"]
        for k in missing:
            out += descriptor_lines(k)
    md = _metadata(mod, kernels)
    if md is not None:
        out += ["\t.amdgpu_metadata", md.rstrip("\n"), "\t.end_amdgpu_metadata"]
    return "\n".join(out) + "\n"


def _text(data: str | bytes, mod: Operation) -> str:
    """A string attribute's text: xDSL's parser keeps a literal with escaped non-ASCII bytes
    (``"\\EF\\BF\\BD"``, as printed for a raised non-ASCII symbol name) as ``bytes``."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Diagnostic(f"lift.data is not UTF-8 text: {e}", f"@{mod.sym_name.data}") from None


def module_code_object(module: Operation, toolchain: str = "builtin", filename: str = "<lift>") -> bytes:
    from gcnforge.binary import assemble

    text = module_asm(module)
    a = next(op for op in module.walk() if isinstance(op, ModuleOp)).attributes
    # the code object's own target id when raised (its processor may lack a table), else the module's
    tid = a["lift.target"].data if "lift.target" in a else None
    target = table.processor(tid) if isinstance(tid, str) else next(
        op for op in module.walk() if isinstance(op, ModuleOp)).chip
    return assemble(text, target=target, toolchain=toolchain, filename=filename)
