"""A gfx942 or gfx950 code object (or ``.s`` file) -> ``amdgcn`` IR on allocated registers.

Per kernel (the descriptor's entry to the end of its symbol): the code is decoded
linearly, split into blocks at branch targets and after each branch / ``s_endpgm``, and
every instruction becomes an op (``lift.convert``) carrying ``pc`` (its byte address in the
code object). ``s_branch`` / ``s_cbranch_*`` become ``amdgcn.branch`` (target, then the
fall-through block), ``s_endpgm`` ``amdgcn.end``; a block that runs into the next one ends
with ``amdgcn.branch s_branch ^next {lift.fallthrough}``, which emits no instruction.
``s_setpc_b64`` (a computed jump) is refused with a diagnostic naming its pc.

The kernel keeps its ABI as ``amdgcn.kernel`` attributes (args, preloaded SGPRs/VGPRs,
LDS size, workgroup size, float mode) and, for exact re-emission, every ``.amdhsa_*``
value of its descriptor (``lift.amdhsa``). The module keeps what is not a kernel: the code
between kernels (``lift.text``: padding, non-kernel functions, as bytes), the data sections
(``lift.data``: assembly text, descriptors as placeholders) and the metadata (``lift.metadata``,
YAML).
"""

from __future__ import annotations

import re
from pathlib import Path

from xdsl.dialects.builtin import (
    ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp as BuiltinModule, StringAttr, UnitAttr, i64,
)
from xdsl.ir import Block, Region

from gcnforge.asm import DecodedInst, disassemble
from gcnforge.binary import CodeObject, KernelInfo, read_code_object
from gcnforge.binary.descriptor import CLANG_ORDER
from gcnforge.binary.metadata_schema import TYPE_NAMES
from gcnforge.binary.metadata import format_metadata_yaml
from gcnforge.binary.target_id import parse_target_id
from gcnforge.binary.toolchain import directive_target
from gcnforge.isa import table
from gcnforge.isa.target import USER_SGPRS, target
from gcnforge.binary.to_asm import _attrs, _data_sections
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.dialect import isa_info
from gcnforge.dialect.attrs import ARG_KINDS, ARG_TYPE_BYTES, ADDRESS_SPACES, ACCESS, FloatModeAttr, KernelArgAttr
from gcnforge.dialect.structure_ops import BranchOp, EndOp, KernelOp, ModuleOp
from gcnforge.raising.convert import Pins, encodes_back, instruction_op, raw_op

INDIRECT = ("s_setpc_b64", "s_cbranch_g_fork", "s_cbranch_join", "s_call_b64", "s_rfe_b64")
DESCRIPTOR_MARK = "\t# lift.descriptor "


def _pc_attr(pc: int) -> IntegerAttr:
    return IntegerAttr(pc, i64)


def _branch_target(pc: int, di: DecodedInst) -> int:
    for v in di.operands:
        if v.name == "simm16" or v.target is not None:
            if v.target is not None:
                return v.target
            off = v.value if v.value < 0x8000 else v.value - 0x10000
            return pc + 4 + 4 * off
    raise Diagnostic(f"branch at pc 0x{pc:x} has no target operand", f"pc 0x{pc:x}")


def _is_branch(di: DecodedInst) -> bool:
    return di.inst is not None and isa_info.is_branch(di.inst)


def raise_kernel(k: KernelInfo, gfx90a: bool = True) -> KernelOp:
    insts = disassemble(k.code, k.entry)
    if not insts:
        raise Diagnostic(f"kernel {k.name} has no code", f"{k.name}")
    end = k.entry + len(k.code)
    starts = {pc for pc, _ in insts}
    leaders = {k.entry}
    for i, (pc, di) in enumerate(insts):
        m = di.inst.mnemonic if di.inst is not None else ""
        if m in INDIRECT:
            raise Diagnostic(f"indirect branch '{di.text(pc)}' at pc 0x{pc:x} in kernel {k.name}: its target is "
                             "computed at run time, so the control flow cannot be raised", f"pc 0x{pc:x}")
        if _is_branch(di):
            t = _branch_target(pc, di)
            if not k.entry <= t < end or t not in starts:
                raise Diagnostic(f"branch '{di.text(pc)}' at pc 0x{pc:x} in kernel {k.name} targets 0x{t:x}, "
                                 "which is not an instruction of the kernel", f"pc 0x{pc:x}")
            leaders.add(t)
        if (_is_branch(di) or m == "s_endpgm") and pc + di.size < end:
            leaders.add(pc + di.size)
    order = sorted(leaders)
    blocks = {pc: Block() for pc in order}
    region = Region([blocks[pc] for pc in order])
    entry = blocks[k.entry]
    kop = _kernel_op(k, region, gfx90a)
    pins = Pins(entry)
    cur: Block | None = None
    for i, (pc, di) in enumerate(insts):
        if pc in blocks:
            nb = blocks[pc]
            if cur is not None and not _terminated(cur):
                br = BranchOp("s_branch", nb)
                br.attributes["lift.fallthrough"] = UnitAttr()
                cur.add_op(br)
            cur = nb
        assert cur is not None
        m = di.inst.mnemonic if di.inst is not None else ""
        nxt = pc + di.size
        if m == "s_endpgm" and not di.operands or m == "s_endpgm" and all(not v.value for v in di.operands):
            op = EndOp()
        elif _is_branch(di):
            t = blocks[_branch_target(pc, di)]
            if m == "s_branch":
                op = BranchOp(m, t)
            else:
                if nxt >= end:
                    raise Diagnostic(f"'{m}' at pc 0x{pc:x} is the last instruction of kernel {k.name}: "
                                     "it has no fall-through block", f"pc 0x{pc:x}")
                op = BranchOp(m, t, blocks[nxt])
        else:
            off = pc - k.entry
            op = instruction_op(di, pc, pins)
            if op is None or not encodes_back(op, pc, k.code[off:off + di.size]):
                op = raw_op(di, pc, pins, k.code[off:off + di.size])
        op.attributes["pc"] = _pc_attr(pc)
        cur.add_op(op)
    pins.place()
    if cur is not None and not _terminated(cur):
        raise Diagnostic(f"kernel {k.name} runs past its last instruction (pc 0x{insts[-1][0]:x}) without "
                         "s_endpgm or a branch", f"pc 0x{insts[-1][0]:x}")
    return kop


def _terminated(b: Block) -> bool:
    return isinstance(b.last_op, BranchOp | EndOp)


def _md_int(a: dict, key: str, default: int, where: str) -> int:
    """An integer field of the kernel metadata; anything else (a list, a string) is malformed."""
    v = a.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise Diagnostic(f"metadata field {key} is {type(v).__name__} {v!r}, not an integer", where)
    return v


_ARG_TYPE_OF_NAME = {c: t for t, c in TYPE_NAMES.items()}


def _arg_type(type_name: object, kind: str, size: int) -> str:
    """The ``#amdgcn.arg`` type of a ``.type_name`` clang spells for a scalar or a pointer to
    one (``float``, ``'const float*'``); "none" for anything else (structs, vectors, typedefs,
    a value whose size is not its type's)."""
    if not isinstance(type_name, str):
        return "none"
    words = [w for w in type_name.replace("*", " * ").split() if w not in ("const", "volatile", "restrict")]
    ptr = words[-1:] == ["*"]
    if ptr != (kind == "global_buffer") or len(words) != 1 + ptr:
        return "none"
    t = _ARG_TYPE_OF_NAME.get(words[0], "none")
    return t if ptr or ARG_TYPE_BYTES.get(t) == size else "none"


def _kernel_args(md: dict, kernel: str = "") -> list[KernelArgAttr]:
    out = []
    args = md.get(".args", [])
    if not isinstance(args, list):
        raise Diagnostic(f"metadata field .args is {type(args).__name__}, not a list", f"kernel {kernel} metadata")
    for i, a in enumerate(args):
        where = f"kernel {kernel} metadata .args[{i}]"
        if not isinstance(a, dict):
            raise Diagnostic(f"argument entry is {type(a).__name__}, not a map", where)
        kind = a.get(".value_kind", "")
        if kind not in ARG_KINDS:
            continue
        size, off = _md_int(a, ".size", 4, where), _md_int(a, ".offset", 0, where)
        align = 1
        while align < 8 and align < size and off % (align * 2) == 0:
            align *= 2
        space = a.get(".address_space", "none")
        access = a.get(".actual_access", a.get(".access", "none"))
        try:
            arg = KernelArgAttr.make(name=str(a.get(".name", "")), kind=kind, size=size, align=align,
                                     space=space if space in ADDRESS_SPACES else "none",
                                     access=access if access in ACCESS else "none",
                                     type=_arg_type(a.get(".type_name"), kind, size))
            arg.verify()
        except Exception:  # an argument the dialect cannot describe: the metadata keeps it
            continue
        out.append(arg)
    return out


def _kernel_op(k: KernelInfo, region: Region, gfx90a: bool) -> KernelOp:
    kd = k.descriptor
    user = [u for u in USER_SGPRS if getattr(kd, f"user_sgpr_{u}", 0)]
    system = [s for s in ("workgroup_id_x", "workgroup_id_y", "workgroup_id_z", "workgroup_info")
              if getattr(kd, f"system_sgpr_{s}")]
    if kd.enable_private_segment:
        system.append("private_segment_wavefront_offset")
    vgprs = ["workitem_id_x", "workitem_id_y", "workitem_id_z"][: min(kd.system_vgpr_workitem_id, 2) + 1]
    wg = k.metadata.get(".reqd_workgroup_size")
    lds = kd.group_segment_fixed_size
    fm = FloatModeAttr.make(round32=kd.float_round_mode_32, round16_64=kd.float_round_mode_16_64,
                            denorm32=kd.float_denorm_mode_32, denorm16_64=kd.float_denorm_mode_16_64,
                            dx10_clamp=kd.dx10_clamp, ieee=kd.ieee_mode)
    if not (isinstance(wg, list) and len(wg) == 3 and all(isinstance(x, int) for x in wg)):
        wg = None  # absent or malformed: the raised kernel states no workgroup size
    op = KernelOp(k.name, _kernel_args(k.metadata, k.name), region, user_sgprs=user, system_sgprs=system,
                  system_vgprs=vgprs, lds_size=lds if lds <= target(table.active_target()).lds_bytes else None,
                  workgroup_size=list(wg) if wg else None, float_mode=fm)
    d = kd.directives(gfx90a, reassemble=True)
    d.update(user_sgpr_kernarg_preload_length=kd.user_sgpr_kernarg_preload_length,
             user_sgpr_kernarg_preload_offset=kd.user_sgpr_kernarg_preload_offset)
    op.attributes["lift.amdhsa"] = DictionaryAttr({n: IntegerAttr(d[n], i64) for n in CLANG_ORDER if n in d})
    op.attributes["lift.entry"] = _pc_attr(k.entry)
    return op


def _text_gaps(co: CodeObject) -> list[tuple[int, int]]:
    spans = sorted((k.entry, k.entry + len(k.code)) for k in co.kernels.values())
    gaps, at = [], co.text_address
    for s, e in spans:
        if s < at:
            raise Diagnostic(f"kernels overlap at 0x{s:x}", f"0x{s:x}")
        if s > at:
            gaps.append((at, s))
        at = e
    end = co.text_address + len(co.text)
    if at < end:
        gaps.append((at, end))
    return gaps


def raise_code_object(co: CodeObject, name: str = "raised", progress=None) -> BuiltinModule:
    """Every kernel of ``co`` as an ``amdgcn.kernel`` in one ``amdgcn.module``, for the code
    object's processor (``#amdgcn.target<gfx950>`` for a gfx950 object: decoded and verified
    with gfx950's table; a processor without a table of its own is raised with gfx942's)."""
    tid = parse_target_id(co.target)
    if not co.kernels:
        raise Diagnostic("the code object has no kernels", name)
    proc = tid.processor if tid.processor in table.known_targets() else table.TARGET
    with table.use_target(proc):
        ordered = sorted(co.kernels.values(), key=lambda k: k.entry)
        kernels = []
        for i, k in enumerate(ordered):  # progress(done, total) per kernel: a bar for large objects
            kernels.append(raise_kernel(k, tid.gfx90a_family))
            if progress is not None:
                progress(i + 1, len(ordered))
    mod = ModuleOp(name, kernels, target=proc)
    a = mod.attributes
    a["lift.target"] = StringAttr(tid.triple_target())
    a["lift.code_object_version"] = IntegerAttr(co.code_object_version, i64)
    a["lift.text_address"] = _pc_attr(co.text_address)
    a["lift.text"] = ArrayAttr([_gap_attr(co, s, e) for s, e in _text_gaps(co)])
    kd_names = {k.descriptor_address: k.name for k in co.kernels.values()}
    data = _data_sections(co, tid.gfx90a_family)
    a["lift.data"] = StringAttr("\n".join(_mark_descriptors(data, kd_names)))
    if co.metadata:
        a["lift.metadata"] = StringAttr(format_metadata_yaml(co.metadata))
    return BuiltinModule([mod])


def _gap_attr(co: CodeObject, s: int, e: int) -> DictionaryAttr:
    kernel_names = set(co.kernels)
    syms = sorted((x for x in co.symbols.values() if x.type == "FUNC" and x.section == ".text"
                   and s <= x.value < e and x.name not in kernel_names), key=lambda x: x.value)
    lines = []
    for x in syms:
        lines += _attrs(x, "function")
        lines.append(f"\t.size {x.name}, {x.size}")
    body = co.text[s - co.text_address:e - co.text_address]
    return DictionaryAttr({"at": _pc_attr(s), "bytes": StringAttr(body.hex()),
                           "symbols": ArrayAttr([StringAttr(x.name) for x in syms]),
                           "offsets": ArrayAttr([_pc_attr(x.value - s) for x in syms]),
                           "directives": StringAttr("\n".join(lines))})


def _mark_descriptors(lines: list[str], kd_names: dict[int, str]) -> list[str]:
    """Replace each ``.amdhsa_kernel`` block by a placeholder the emitter fills from the IR."""
    out, skipping = [], False
    for ln in lines:
        s = ln.strip()
        if s.startswith(".amdhsa_kernel "):
            out.append(DESCRIPTOR_MARK + s.split(None, 1)[1])
            skipping = True
            continue
        if skipping:
            if s == ".end_amdhsa_kernel":
                skipping = False
            continue
        out.append(ln)
    return out


def raise_file(path: str | Path, target: str | None = None, progress=None) -> BuiltinModule:
    """Raise a code object file, or a ``.s`` file (assembled by the built-in assembler first,
    for its ``.amdgcn_target``, else ``target``, else gfx942). A ``target`` (processor) that
    is not the code object's is a Diagnostic."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise Diagnostic(f"cannot read {p}: {e.strerror}", str(p)) from None
    if not data:
        raise Diagnostic("empty file: neither a code object nor assembly text", str(p))
    lines: dict[int, str] = {}
    binary = data[:4] == b"\x7fELF" or data.startswith(b"__CLANG_OFFLOAD_BUNDLE__")
    if not binary:
        text = data.decode("utf-8", errors="replace")
        tid = directive_target(text, str(p))
        data, lines = _assemble_with_lines(text, str(p), tid.processor if tid else (target or table.TARGET))
    name = p.stem.replace("-", "_").replace(".", "_") or "raised"
    if not (name[0].isalpha() or name[0] == "_"):
        name = "m_" + name
    co = read_code_object(p if binary else data)  # a file's problems are reported at the file
    if target is not None and parse_target_id(co.target).processor != target:
        raise Diagnostic(f"--target {target}: the code object is for {co.target}", str(p))
    try:
        module = raise_code_object(co, name, progress)
    except Diagnostic as d:  # at an address: for a .s input, at the line that made it
        m = re.fullmatch(r"(?:pc )?0x([0-9a-f]+)", str(d.loc))
        src = lines.get(int(m.group(1), 16) - co.text_address) if m else None
        if src is None:
            if d.loc == name:  # about the whole object (no kernels): at the file
                raise Diagnostic(d.message, str(p), d.notes) from None
            raise
        file, line = src.rsplit(":", 1)
        raise Diagnostic(d.message, SourceLoc(file, int(line), 1), d.notes) from None
    if lines:
        for op in module.walk():
            pc = op.attributes.get("pc")
            if isinstance(pc, IntegerAttr) and pc.value.data - co.text_address in lines:
                op.attributes["src"] = StringAttr(lines[pc.value.data - co.text_address])
    return module


def _assemble_with_lines(text: str, filename: str, target: str = "gfx942") -> tuple[bytes, dict[int, str]]:
    """Assemble with the built-in assembler; also each instruction's ``.text`` offset ->
    ``file:line`` (read from the assembler's section items; {} if that is not available)."""
    from gcnforge.binary.assembler import Assembler, assemble_builtin

    asm = Assembler(target, filename)
    try:
        data = asm.run(text)
    except Diagnostic:
        raise
    except Exception:  # anything unusual: let the public entry point report it
        return assemble_builtin(text, target, filename=filename), {}
    lines: dict[int, str] = {}
    try:
        for sec in asm.sections.values():
            out, base = asm._placement.get(sec.name, (sec.name, 0))  # noqa: SLF001
            if out != ".text":
                continue
            for off, kind, _payload, loc in sec.items:
                if kind == "inst" and loc is not None:
                    loc = asm.item_loc(loc)
                    lines[base + off] = f"{loc.file}:{loc.line}"
    except AttributeError:
        lines = {}
    return data, lines
