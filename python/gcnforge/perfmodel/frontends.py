"""Inputs of the issue model: decoded machine code (``.s`` text, code objects) and
``amdgcn`` IR. All of them become ``issue.Item`` lists per straight-line block, classified
by the ISA table's ``Instruction.sem`` (never by mnemonic patterns).

* ``items_from_decoded``: registers are keys ``("v", 7)`` per dword (AGPRs ``"a"``,
  SGPRs ``"s"``), implicit registers (vcc, exec, scc, m0) by name; ``s_waitcnt`` and
  ``s_nop`` decoded from their immediates.
* ``blocks_from_asm_text``: each instruction line of a ``.s`` file is parsed and encoded
  with gcnforge's assembler and decoded back (labels resolve to 0: only the block
  structure matters); directives, ``.amdhsa_kernel`` and metadata sections are skipped.
  Blocks end at labels and after branches / ``s_endpgm``.
* ``blocks_from_code_object``: every kernel's code, disassembled, split the same way
  (branch targets from the decoder).
* ``blocks_from_ir``: every block of every kernel/function, and every ``amdgcn.loop`` body
  (one iteration: a loop body is a straight-line region); SSA values are the keys, memory
  tokens and ``amdgcn.wait`` modeled exactly; ops that are not instructions (allocas,
  ranges, constants, ABI ops) cost nothing and forward readiness.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.perfmodel.issue import Item, decode_waitcnt

_REG_FILES = ("v", "s", "a")


def _data_dwords(inst, by_name: dict) -> int:
    for n in ("vdst", "vdata", "sdata", "sdst"):
        if n in by_name:
            return max(1, by_name[n])
    return 1


def item_from_decoded(d) -> Item | None:
    inst = d.inst
    if inst is None:
        return None
    roles = {o.name: str(o.role) for o in inst.operands}
    reads: list = []
    writes: list = []
    widths: dict[str, int] = {}
    imm = None
    for ov in d.operands:
        if ov.file in _REG_FILES:
            keys = [(ov.file, ov.index + k) for k in range(ov.dwords)]
            role = roles.get(ov.name, "use")
            if role in ("use", "defuse"):
                reads += keys
            if role in ("def", "defuse"):
                writes += keys
            widths[ov.name] = ov.dwords
        elif ov.file is not None:  # vcc, exec, m0 ... named
            (writes if roles.get(ov.name) == "def" else reads).append(("x", ov.file))
        elif ov.name == "simm16":
            imm = ov.value
    reads += [("x", r) for r in inst.implicit_uses]
    writes += [("x", r) for r in inst.implicit_defs]
    it = Item(d.text(), inst.sem or "valu", inst.base, reads, writes, _data_dwords(inst, widths))
    if inst.sem == "waitcnt" and inst.base == "s_waitcnt" and imm is not None:
        it.waitcnt = decode_waitcnt(imm)
    if inst.base == "s_nop" and imm is not None:
        it.nop = imm & 0xF
    return it


def _split(decoded: Iterable[tuple[int, object]], targets: set[int] = frozenset()) -> list[list[Item]]:
    blocks: list[list[Item]] = [[]]
    for pc, d in decoded:
        if pc in targets and blocks[-1]:
            blocks.append([])
        it = item_from_decoded(d)
        if it is None:
            continue
        blocks[-1].append(it)
        if it.sem == "branch" or it.base == "s_endpgm":
            blocks.append([])
    return [b for b in blocks if b]


def blocks_from_asm_text(text: str, filename: str = "<asm>") -> list[tuple[str, list[Item]]]:
    from gcnforge.asm import decode, parse_instruction

    out: list[tuple[str, list[Item]]] = []
    cur: list[Item] = []
    name = "entry"
    skip_until: str | None = None

    def flush(next_name: str) -> None:
        nonlocal cur, name
        if cur:
            out.append((name, cur))
        cur, name = [], next_name

    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("//")[0].split(";")[0].strip()
        if skip_until is not None:
            if line.startswith(skip_until):
                skip_until = None
            continue
        if not line:
            continue
        if line.startswith(".amdhsa_kernel"):
            skip_until = ".end_amdhsa_kernel"
            continue
        if line.startswith(".amdgpu_metadata"):
            skip_until = ".end_amdgpu_metadata"
            continue
        if line.endswith(":") and " " not in line:
            flush(line[:-1])
            continue
        if line.startswith("."):
            continue
        loc = SourceLoc(filename, n, raw.find(line) + 1)
        p = parse_instruction(line, loc)
        d = decode(p.encode(0, lambda _name: 0))
        it = item_from_decoded(d)
        if it is None:
            raise Diagnostic(f"cannot model '{line}'", loc)
        it.text = line
        cur.append(it)
        if it.sem == "branch" or it.base == "s_endpgm":
            flush(f"{name}+")
    flush("")
    return out


def blocks_from_code_object(data) -> list[tuple[str, list[Item]]]:
    from gcnforge.asm import disassemble
    from gcnforge.binary import read_code_object

    co = read_code_object(data)
    out: list[tuple[str, list[Item]]] = []
    for kname, k in co.kernels.items():
        dis = disassemble(k.code, 0)
        targets = {ov.target for _, d in dis for ov in d.operands if getattr(ov, "target", None) is not None}
        for i, b in enumerate(_split(dis, targets)):
            out.append((f"{kname}#bb{i}", b))
    return out


# -- IR -------------------------------------------------------------------------------------------
def items_from_ir_block(ops) -> list[Item]:
    from gcnforge.dialect.inst_ops import InstOp
    from gcnforge.dialect.structure_ops import WaitOp
    from gcnforge.dialect.types import ReadTokenType, RegisterType, WriteTokenType

    items: list[Item] = []
    for op in ops:
        if isinstance(op, InstOp):
            inf = op.info
            if inf is None:
                continue
            outs = [r for r in op.outs if not isinstance(r.type, ReadTokenType | WriteTokenType)]
            dw = outs[0].type.width if outs and isinstance(outs[0].type, RegisterType) else 1
            imms = op.imm_values
            it = Item(f"{op.name} {op.mnemonic}", inf.inst.sem or "valu", inf.inst.base,
                      list(op.args), outs, dw, token=op.token)
            if inf.inst.base == "s_nop" and imms:
                it.nop = imms[0] & 0xF
            if inf.inst.base == "s_waitcnt" and imms:
                it.waitcnt = decode_waitcnt(imms[0])
            items.append(it)
        elif isinstance(op, WaitOp):
            items.append(Item("amdgcn.wait", "pseudo_wait", "", wait_for=list(op.tokens)))
        elif op.results and not op.regions:
            items.append(Item(op.name, "pseudo", "", list(op.operands), list(op.results)))
    return items


def blocks_from_ir(module) -> list[tuple[str, list[Item]]]:
    from gcnforge.dialect.loop_ops import LoopOp
    from gcnforge.dialect.structure_ops import FuncOp, KernelOp

    out: list[tuple[str, list[Item]]] = []
    for k in module.walk():
        if not isinstance(k, KernelOp | FuncOp):
            continue
        kname = k.sym_name.data
        for bi, b in enumerate(k.body.blocks):
            items = items_from_ir_block(b.ops)
            if items:
                out.append((f"{kname}#bb{bi}", items))
        loops = [op for op in k.walk() if isinstance(op, LoopOp)]
        for li, lp in enumerate(loops):
            items = items_from_ir_block(lp.block.ops)
            if items:
                out.append((f"{kname}#loop{li} body (x{lp.trip_count})", items))
    return out


def load_blocks(path: str | Path) -> list[tuple[str, list[Item]]]:
    """Blocks of a ``.s``, ``.hsaco``/``.co``/``.o`` or ``.mlir`` file."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise Diagnostic(f"cannot read {p}: {e.strerror}", SourceLoc(str(p), 0)) from None
    if data[:4] == b"\x7fELF":
        return blocks_from_code_object(data)
    text = data.decode("utf-8", errors="replace")
    if p.suffix == ".mlir":
        return blocks_from_ir(parse_mlir(text, str(p)))
    return blocks_from_asm_text(text, str(p))


def parse_mlir(text: str, filename: str = "<mlir>"):
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError, VerifyException

    from gcnforge.schedule.dialect import context

    try:
        m = Parser(context(), text, filename).parse_module()
        m.verify()
    except ParseError as e:
        raise Diagnostic(str(e).strip().splitlines()[0] if str(e).strip() else "parse error",
                         SourceLoc(filename, 0)) from None
    except VerifyException as e:
        raise Diagnostic(str(e), SourceLoc(filename, 0)) from None
    return m
