"""The timing model's inputs from files and IR, for ``gcnforge stats`` and as a library:
``.s`` text, code objects and ``amdgcn`` IR become ``perfmodel.frontends.Block`` lists of
``issue.Item``. They live here, not in ``perfmodel``, because reading them takes ``asm``,
``binary``, ``dialect`` and ``schedule``, and ``perfmodel`` depends only on ``isa``
(DESIGN.md's layer table); ``perfmodel.frontends`` keeps what works on decoded records.

* ``blocks_from_asm_text``: each instruction line of a ``.s`` file is parsed and encoded
  with gcnforge's assembler and decoded back (labels resolve to 0: only the block
  structure matters); directives, ``.amdhsa_kernel`` and metadata sections are skipped.
  Blocks end at labels and after branches / ``s_endpgm``; a block whose branch goes back
  to its own label is a loop body (modeled in steady state too).
* ``blocks_from_code_object``: every kernel's code, disassembled, split the same way
  (branch targets from the decoder).
* ``blocks_from_ir``: every block of every kernel/function, and every ``amdgcn.loop`` body
  (a loop body is a straight-line region, also modeled in steady state with iteration n
  reading iteration n - 1's yielded values); SSA values are the keys, memory
  tokens and ``amdgcn.wait`` modeled exactly; ops that are not instructions (allocas,
  ranges, constants, ABI ops) cost nothing and forward readiness.
* ``analyze_file`` / ``analyze_ir`` / ``analyze_asm``: the issue model's reports of those blocks.
"""

from __future__ import annotations

from pathlib import Path

from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.perfmodel.frontends import Block, branch_targets, split_blocks, item_from_decoded
from gcnforge.perfmodel.issue import Item, Report, decode_waitcnt


def blocks_from_asm_text(text: str, filename: str = "<asm>") -> list[Block]:
    from gcnforge.asm import decode, parse_instruction

    out: list[Block] = []
    cur: list[Item] = []
    name = "entry"
    skip_until: str | None = None
    back_to: list[str | None] = [None]

    def flush(next_name: str) -> None:
        nonlocal cur, name
        if cur:
            body = cur
            out.append(Block(name, body, (lambda n, b=body: b) if back_to[0] == name else None))
        cur, name = [], next_name
        back_to[0] = None

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
            back_to[0] = p.label_refs[0] if p.label_refs else None
            flush(f"{name}+")
    flush("")
    return out


def blocks_from_code_object(data) -> list[Block]:
    from gcnforge.asm import disassemble
    from gcnforge.binary import read_code_object

    co = read_code_object(data)
    out: list[Block] = []
    for kname, k in co.kernels.items():
        dis = disassemble(k.code, 0)
        targets = {t for pc, d in dis for t in branch_targets(pc, d)}
        for i, (b, loop) in enumerate(split_blocks(dis, targets)):
            out.append(Block(f"{kname}#bb{i}", b, (lambda n, b=b: b) if loop else None))
    return out


# -- IR -------------------------------------------------------------------------------------------
def items_from_ir_block(ops, key=lambda v: v) -> list[Item]:
    """Items of IR ops; ``key`` names each SSA value (loop iterations rename them)."""
    from gcnforge.dialect.inst_ops import InstOp
    from gcnforge.dialect import WaitOp
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
                      [key(v) for v in op.args], [key(v) for v in outs], dw,
                      token=key(op.token) if op.token is not None else None)
            if inf.inst.base == "s_nop" and imms:
                it.nop = imms[0] & 0xF
            if inf.inst.base == "s_waitcnt" and imms:
                it.waitcnt = decode_waitcnt(imms[0])
            items.append(it)
        elif isinstance(op, WaitOp):
            items.append(Item("amdgcn.wait", "pseudo_wait", "", wait_for=[key(v) for v in op.tokens]))
        elif op.results and not op.regions:
            items.append(Item(op.name, "pseudo", "", [key(v) for v in op.operands], [key(v) for v in op.results]))
    return items


def _loop_iteration(lp):
    """``iteration(n)`` for an ``amdgcn.loop`` body: values defined in the body are keyed
    by iteration; iteration n's block arguments are iteration n - 1's yielded values."""
    from xdsl.ir import BlockArgument

    body = lp.block
    nidx = len(lp.unroll_dims)
    yields = list(lp.yield_op.values)
    inside = {r for op in body.ops for r in op.results}

    def key_at(v, n):
        while True:
            if isinstance(v, BlockArgument) and v.block is body and v.index >= nidx:
                if n == 0:
                    return v
                v, n = yields[v.index - nidx], n - 1
                continue
            return (v, n) if v in inside else v

    return lambda n: items_from_ir_block(body.ops, lambda v: key_at(v, n))


def blocks_from_ir(module) -> list[Block]:
    from gcnforge.dialect.loop_ops import LoopOp
    from gcnforge.dialect import FuncOp, KernelOp

    out: list[Block] = []
    for k in module.walk():
        if not isinstance(k, KernelOp | FuncOp):
            continue
        kname = k.sym_name.data
        for bi, b in enumerate(k.body.blocks):
            items = items_from_ir_block(b.ops)
            if any(not it.sem.startswith("pseudo") for it in items):
                out.append(Block(f"{kname}#bb{bi}", items))
        loops = [op for op in k.walk() if isinstance(op, LoopOp)]
        for li, lp in enumerate(loops):
            it = _loop_iteration(lp)
            items = it(0)
            if any(not x.sem.startswith("pseudo") for x in items):
                out.append(Block(f"{kname}#loop{li} body (x{'n' if lp.is_runtime else lp.trip_count})", items, it))
    return out


def load_blocks(path: str | Path, schedule: bool = False, target: str | None = None) -> list[Block]:
    """Blocks of a ``.s``, ``.hsaco``/``.co``/``.o`` or ``.mlir`` file (``schedule``: run
    ``amdgcn-schedule`` on IR first, so scheduled loops are modeled as they will be emitted),
    decoded with the instruction table of their target: a code object's, a module's
    ``#amdgcn.target``, a ``.s`` file's ``.amdgcn_target``, else ``target`` (else gfx942). A
    ``target`` (processor) that is not the input's is a Diagnostic."""
    from gcnforge.isa import table

    with table.use_target(input_target(path, target)):
        return _load_blocks(Path(path), schedule)


def input_target(path: str | Path, target: str | None = None) -> str | None:
    """The processor whose table and facts model ``path``: the one the file names for itself
    (if gcnforge knows it), else ``target``; a ``target`` that is not the file's is a Diagnostic."""
    from gcnforge.isa import table

    p = Path(path)
    want = table.processor(target) if target else None
    have = _input_processor(p)
    if want is not None and have is not None and have != want:
        raise Diagnostic(f"--target {want}: the input is for {have}", str(p))
    return have if have in table.known_targets() else want


def _input_processor(p: Path) -> str | None:
    """The processor a file names for itself (ELF e_flags, .amdgcn_target, #amdgcn.target), or None."""
    import re

    from gcnforge.isa import table

    try:
        data = p.read_bytes()
    except OSError:
        return None  # reported by the loader
    if data[:4] == b"\x7fELF":
        try:
            from gcnforge.binary import read_code_object

            return table.processor(read_code_object(data).target)
        except Diagnostic:
            return None
    text = data.decode("utf-8", errors="replace")
    m = re.search(r'#amdgcn\.target<"?([\w-]+)' if p.suffix == ".mlir" else r'^\s*\.amdgcn_target\s+"([^"]*)"',
                  text, re.M)
    return table.processor(m.group(1)) if m else None


def _load_blocks(p: Path, schedule: bool) -> list[Block]:
    try:
        data = p.read_bytes()
    except OSError as e:
        raise Diagnostic(f"cannot read {p}: {e.strerror}", SourceLoc(str(p), 0)) from None
    if data[:4] == b"\x7fELF":
        try:
            return blocks_from_code_object(data)
        except Diagnostic as d:  # the reader only sees bytes: name the file
            raise Diagnostic(d.message, str(p) if d.loc in (None, "<bytes>") else d.loc, d.notes) from None
    if p.suffix in (".hsaco", ".co", ".o", ".so"):
        raise Diagnostic("not an ELF code object (bad magic)" if data else "empty code object", str(p))
    text = data.decode("utf-8", errors="replace")
    if p.suffix == ".mlir":
        m = parse_mlir(text, str(p))
        if schedule:
            from gcnforge.schedule.passes import schedule_loops

            schedule_loops(m)
        return blocks_from_ir(m)
    return blocks_from_asm_text(text, str(p))


def parse_mlir(text: str, filename: str = "<mlir>"):
    """IR text through the dialect's one located entry (every op knows its line)."""
    from gcnforge.dialect.source import parse_module
    from gcnforge.schedule.dialect import context

    return parse_module(text, filename, context())


def analyze_file(path) -> list[Report]:
    """Issue-model reports of every block of a ``.s``, code object or ``.mlir`` file."""
    return [b.report() for b in load_blocks(path)]


def analyze_ir(module) -> list[Report]:
    """Issue-model reports of every block and loop body of an ``amdgcn`` IR module."""
    return [b.report() for b in blocks_from_ir(module)]


def analyze_asm(text: str, name: str = "<asm>") -> list[Report]:
    """Issue-model reports of assembly text (``.s``)."""
    return [b.report() for b in blocks_from_asm_text(text, name)]
