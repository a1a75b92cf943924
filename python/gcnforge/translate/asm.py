"""Allocated ``amdgcn`` IR -> LLVM-syntax assembly text (a whole ``.s`` file).

Per kernel: ``.text`` with the code (block labels ``.LBB<k>_<i>``, a conditional branch
followed by ``s_branch`` when its fall-through block is not next), the ``.amdhsa_kernel``
block filled from the allocation and the ABI attributes, and one ``.amdgpu_metadata``
document (code object v5 / metadata 1.2) listing every kernel with its arguments.
Directive names and semantics: LLVM AMDGPUUsage, "Code Object V3+ Kernel Descriptor" and
"Code Object V5 Metadata"; register counts as LLVM derives them for gfx90a+ (unified VGPR
file: ``accum_offset`` = VGPRs rounded to 4, ``next_free_vgpr`` = accum_offset + AGPRs
when AGPRs are used).

Pre: ABI lowered, waits lowered (no ``amdgcn.wait``), registers allocated, calls inlined.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp as BuiltinModule
from xdsl.ir import Operation

from gcnforge.binary.metadata_schema import TYPE_NAMES
from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.constant import ConstantOp
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.structure_ops import (
    AllocaOp,
    BranchOp,
    CallOp,
    EndOp,
    FuncOp,
    KernelOp,
    MakeRangeOp,
    ModuleOp,
    SplitRangeOp,
    WaitOp,
)
from gcnforge.dialect.raw_ops import RawInstOp
from gcnforge.dialect.types import RegisterType
from gcnforge.dialect.value_ops import input_target
from gcnforge.isa import table
from gcnforge.translate.inst_text import inst_text
from gcnforge.translate.source_lines import SourceLines

PSEUDO = (AllocaOp, MakeRangeOp, SplitRangeOp, ConstantOp)


class Counts:
    """Registers used per file (a plain class: no ``@dataclass`` code generation at import)."""

    __slots__ = ("vgprs", "agprs", "sgprs")

    def __init__(self, vgprs: int, agprs: int, sgprs: int):
        self.vgprs = vgprs
        self.agprs = agprs
        self.sgprs = sgprs

    def __repr__(self) -> str:
        return f"Counts(vgprs={self.vgprs}, agprs={self.agprs}, sgprs={self.sgprs})"

    @property
    def accum_offset(self) -> int:
        return max(4, -(-self.vgprs // 4) * 4)

    @property
    def next_free_vgpr(self) -> int:
        return self.accum_offset + self.agprs if self.agprs else max(1, self.vgprs)


def register_counts(k: Operation) -> Counts:
    top = {"v": 0, "a": 0, "s": 0}
    seen: set[int] = set()  # types are shared objects: look at each one once
    for op in k.walk():
        for vals in (op.results, op.operands):
            for v in vals:
                t = v.type
                if id(t) in seen:
                    continue
                seen.add(id(t))
                if isinstance(t, RegisterType) and t.is_allocated:
                    top[t.FILE] = max(top[t.FILE], t.begin.data + t.width)
    return Counts(top["v"], top["a"], top["s"])


def _names(attr) -> list[str]:
    return [s.data for s in attr.data] if attr is not None else []


def kernel_text(k: KernelOp, index: int, src: SourceLines | None = None) -> str:
    return "\n".join(["\t.text", *kernel_lines(k, index, src=src)]) + "\n"


def kernel_lines(k: KernelOp, index: int, label: str = ".LBB", end: str = ".Lfunc_end",
                 where: Callable[[Operation], object] | None = None, src: SourceLines | None = None) -> list[str]:
    """The kernel's code as assembly lines: symbol, blocks (labels ``<label><index>_<i>``; a
    conditional branch is followed by ``s_branch`` when its fall-through block is not next, a
    raised branch marked ``lift.fallthrough`` to the next block prints nothing), ``.size``.
    ``where`` gives an instruction's error location (default: the op). ``src``: collects
    ``.file`` entries and writes a ``.loc`` before each instruction whose source place changed
    (None: no line directives)."""
    name = k.sym_name.data
    blocks = list(k.body.blocks)
    labels = {id(b): f"{label}{index}_{i}" for i, b in enumerate(blocks)}
    lines = [f"\t.globl\t{name}", "\t.p2align\t8", f"\t.type\t{name},@function", f"{name}:"]
    for bi, b in enumerate(blocks):
        if bi:
            lines.append(f"{labels[id(b)]}:")
        nxt = blocks[bi + 1] if bi + 1 < len(blocks) else None
        for op in b.ops:
            if not isinstance(op, PSEUDO):
                if src is not None and (d := src.directive(op)) is not None:
                    lines.append(d)
                lines += _op_lines(op, nxt, labels, where)
    lines.append(f"{end}{index}:")
    lines.append(f"\t.size\t{name}, {end}{index}-{name}")
    return lines


def _op_lines(op: Operation, nxt, labels: dict[int, str], where) -> list[str]:
    if isinstance(op, InstOp):
        try:
            return ["\t" + inst_text(op)]
        except Diagnostic as d:
            if where is None:
                raise
            raise Diagnostic(d.message, where(op)) from None
    if isinstance(op, EndOp):
        return ["\ts_endpgm"]
    if isinstance(op, BranchOp):
        dests = list(op.dests)
        if "lift.fallthrough" in op.attributes and dests[0] is nxt:
            return []
        out = [f"\t{op.mnemonic} {labels[id(dests[0])]}"]
        return out + ([f"\ts_branch {labels[id(dests[1])]}"] if len(dests) > 1 and dests[1] is not nxt else [])
    if isinstance(op, RawInstOp):  # raised bytes no codec reads: their words, the text as a comment
        enc = op.attributes.get("encoding")
        if enc is None:
            return ["\t" + op.text.data]
        raw = bytes.fromhex(enc.data)
        words = [int.from_bytes(raw[i:i + 4], "little") for i in range(0, len(raw), 4)]
        return ["\t.long " + ", ".join(f"0x{w:08x}" for w in words) + f"  ; {op.text.data}"]
    if isinstance(op, WaitOp):
        raise Diagnostic("amdgcn.wait must be lowered to s_waitcnt first (run amdgcn-insert-waits)", op)
    if isinstance(op, CallOp):
        raise Diagnostic(f"call to {op.callee} must be inlined (run amdgcn-inline)", op)
    raise Diagnostic(f"cannot translate '{op.name}' to assembly", where(op) if where else op)


def kernarg_layout(k: KernelOp) -> tuple[list[int], int, int]:
    off, offs, align = 0, [], 4
    for a in k.kernel_args:
        al = a.align.data
        off = -(-off // al) * al
        offs.append(off)
        off += a.size.data
        align = max(align, al)
    return offs, off, align


def descriptor_text(k: KernelOp, c: Counts | None = None) -> str:
    c = c or register_counts(k)
    user = _names(k.user_sgprs)
    system = _names(k.system_sgprs)
    vgprs = _names(k.system_vgprs)
    from gcnforge.isa.target import USER_SGPRS

    nuser = sum(USER_SGPRS[u] for u in user)
    preloaded = nuser + len(system)
    _, kernarg_size, _ = kernarg_layout(k)
    lds = k.lds_size.value.data if k.lds_size is not None else 0
    d = [f"\t.amdhsa_kernel {k.sym_name.data}",
         f"\t\t.amdhsa_group_segment_fixed_size {lds}",
         "\t\t.amdhsa_private_segment_fixed_size 0",
         f"\t\t.amdhsa_kernarg_size {kernarg_size}",
         f"\t\t.amdhsa_user_sgpr_count {nuser}"]
    for u in user:
        d.append(f"\t\t.amdhsa_user_sgpr_{u} 1")
    for s in system:
        if s == "private_segment_wavefront_offset":
            d.append("\t\t.amdhsa_enable_private_segment 1")
        else:
            d.append(f"\t\t.amdhsa_system_sgpr_{s} 1")
    if "workgroup_id_x" not in system:
        d.append("\t\t.amdhsa_system_sgpr_workgroup_id_x 0")
    wi = max((("xyz".index(v[-1])) for v in vgprs), default=0)
    d.append(f"\t\t.amdhsa_system_vgpr_workitem_id {wi}")
    d.append(f"\t\t.amdhsa_next_free_vgpr {c.next_free_vgpr}")
    d.append(f"\t\t.amdhsa_next_free_sgpr {max(c.sgprs, preloaded, 1)}")
    d.append(f"\t\t.amdhsa_accum_offset {c.accum_offset}")
    # float modes always spelled out: the assembler's own default for denorm_mode_32 is 0
    # (flush), but a kernel without FP attributes gets LLVM/clang's defaults (preserve
    # denormals: 3), which are #amdgcn.float_mode's defaults
    fm = k.float_mode
    defaults = {"round32": 0, "round16_64": 0, "denorm32": 3, "denorm16_64": 3, "dx10_clamp": 1, "ieee": 1}
    for key, directive in (("round32", "float_round_mode_32"), ("round16_64", "float_round_mode_16_64"),
                           ("denorm32", "float_denorm_mode_32"), ("denorm16_64", "float_denorm_mode_16_64"),
                           ("dx10_clamp", "dx10_clamp"), ("ieee", "ieee_mode")):
        v = getattr(fm, key).data if fm is not None else defaults[key]
        d.append(f"\t\t.amdhsa_{directive} {v}")
    d.append("\t.end_amdhsa_kernel")
    return "\n".join(d) + "\n"


def _yaml_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


# keys whose string values the author chose (quoted in the YAML); the others are enum words
_QUOTED = frozenset((".name", ".symbol", ".type_name"))


def metadata_map(kernels: list[KernelOp], counts: dict[int, Counts] | None = None, chip: str = "gfx942") -> dict:
    """The code object's metadata map (``amdhsa.kernels``, ``amdhsa.target``,
    ``amdhsa.version``), keys in the order the ``.amdgpu_metadata`` text lists them. Values
    are as written: ``metadata_text`` prints this map, ``metadata_values`` gives the note's."""
    ks = []
    for k in kernels:
        c = (counts or {}).get(id(k)) or register_counts(k)
        offs, size, align = kernarg_layout(k)
        lds = k.lds_size.value.data if k.lds_size is not None else 0
        wg = list(k.workgroup_size.get_values()) if k.workgroup_size is not None else None
        d: dict = {".agpr_count": c.agprs}
        if k.kernel_args:
            args = []
            for a, off in zip(k.kernel_args, offs):
                arg: dict = {".offset": off}
                if a.arg_name.data:
                    arg[".name"] = a.arg_name.data
                arg[".size"] = a.size.data
                arg[".value_kind"] = a.kind.data
                if a.kind.data == "global_buffer" and a.space.data != "none":
                    arg[".address_space"] = a.space.data
                if a.access.data != "none":
                    arg[".access"] = a.access.data
                if (t := a.arg_type.data) != "none":
                    star = "*" if a.kind.data == "global_buffer" else ""
                    arg[".type_name"] = TYPE_NAMES[t] + star
                args.append(arg)
            d[".args"] = args
        d.update({".group_segment_fixed_size": lds,
                  ".kernarg_segment_align": align,
                  ".kernarg_segment_size": size,
                  ".max_flat_workgroup_size": wg[0] * wg[1] * wg[2] if wg else 1024,
                  ".name": k.sym_name.data,
                  ".private_segment_fixed_size": 0,
                  ".sgpr_count": max(c.sgprs, 1),
                  ".sgpr_spill_count": 0,
                  ".symbol": k.sym_name.data + ".kd",
                  ".vgpr_count": c.next_free_vgpr,
                  ".vgpr_spill_count": 0,
                  ".wavefront_size": 64})
        if wg:
            d[".reqd_workgroup_size"] = [wg[0], wg[1], wg[2]]
        ks.append(d)
    return {"amdhsa.kernels": ks, "amdhsa.target": f"amdgcn-amd-amdhsa--{chip}", "amdhsa.version": [1, 2]}


def metadata_values(md: dict) -> dict:
    """The map the assembler makes of ``metadata_text(...)``: every string typed by its
    text as LLVM types a YAML scalar (``gcnforge.binary.metadata.scalar_value``), so that
    a code object written from the map in-process is the one assembling the text gives."""
    from gcnforge.binary.metadata import scalar_value

    def conv(v):
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items()}
        if isinstance(v, list):
            return [conv(x) for x in v]
        return scalar_value(v) if isinstance(v, str) else v

    return conv(md)


def _yaml_scalar(key: str, v) -> str:
    return _yaml_str(v) if key in _QUOTED else str(v)


def metadata_text(kernels: list[KernelOp], counts: dict[int, Counts] | None = None, chip: str = "gfx942") -> str:
    md = metadata_map(kernels, counts, chip)
    out = ["\t.amdgpu_metadata", "---", "amdhsa.kernels:"]
    for d in md["amdhsa.kernels"]:
        first = "  - "
        for key, v in d.items():
            if key == ".args":
                out.append("    .args:")
                for arg in v:
                    lead = "      - "
                    for ak, av in arg.items():
                        out.append(f"{lead}{ak}: {_yaml_scalar(ak, av)}")
                        lead = "        "
            elif isinstance(v, list):
                out.append(f"    {key}: [{', '.join(map(str, v))}]")
            else:
                out.append(f"{first}{key}: {_yaml_scalar(key, v)}")
            first = "    "
    out += [f"amdhsa.target: {md['amdhsa.target']}", "amdhsa.version:"]
    out += [f"  - {v}" for v in md["amdhsa.version"]]
    out += ["...", "", "\t.end_amdgpu_metadata"]
    return "\n".join(out) + "\n"


def kernels_of(module: Operation) -> list[KernelOp]:
    return [op for op in module.walk() if isinstance(op, KernelOp)]


def module_text(module: Operation, only: list[str] | None = None) -> str:
    """The whole ``.s`` for the kernels of ``module`` (all, or those named in ``only``), for
    its ``#amdgcn.target`` (``.amdgcn_target`` and the metadata's ``amdhsa.target``; the
    instructions printed from that target's table)."""
    chip = input_target(module)
    with table.use_target(chip):
        text, _ = _module_text(module, only, chip, True)
    return text


def module_code(module: Operation, only: list[str] | None = None) -> tuple[str, dict]:
    """``module_text`` without its ``.amdgpu_metadata`` block, and that block's map as the
    assembler would read it (``metadata_values``): for assembling in-process without
    printing the YAML and parsing it back (PyYAML is ~10% of a small compile)."""
    chip = input_target(module)
    with table.use_target(chip):
        text, md = _module_text(module, only, chip, False)
    return text, metadata_values(md)


def _module_text(module: Operation, only: list[str] | None, chip: str, with_metadata: bool) -> tuple[str, dict]:
    ks = kernels_of(module)
    if only:
        missing = [n for n in only if n not in {k.sym_name.data for k in ks}]
        if missing:
            raise Diagnostic(f"no kernel named {', '.join(missing)} (have: {', '.join(k.sym_name.data for k in ks)})")
        ks = [k for k in ks if k.sym_name.data in only]
    if not ks:
        raise Diagnostic("no amdgcn.kernel to compile", module)
    parts = [f'\t.amdgcn_target "amdgcn-amd-amdhsa--{chip}"', "\t.amdhsa_code_object_version 5"]
    counts = {id(k): register_counts(k) for k in ks}
    src = SourceLines()
    for i, k in enumerate(ks):
        parts.append(kernel_text(k, i, src))
        parts.append('\t.section\t.rodata,"a",@progbits')
        parts.append("\t.p2align\t6, 0x0")
        parts.append(descriptor_text(k, counts[id(k)]))
    parts[2:2] = src.file_directives()  # every file a .loc names, before the first .loc
    if with_metadata:
        parts.append(metadata_text(ks, counts, chip))
        return "\n".join(parts), {}
    return "\n".join(parts) + "\n", metadata_map(ks, counts, chip)


__all__ = ["module_text", "module_code", "metadata_map", "register_counts", "Counts", "BuiltinModule", "ModuleOp", "FuncOp"]
