"""Export the ``amdgcn`` dialect as IRDL for LLVM's ``mlir-opt --irdl-file=...``.

``dialect_irdl_text()`` writes one ``irdl.dialect @amdgcn`` with

* every type with its parameter constraints (register widths and alignments as the
  allowed ``i32`` values, special-register names, ...);
* every attribute (``#amdgcn.inst`` lists every mnemonic of the ISA table);
* every op with operand / result / attribute constraints. Instruction-family ops constrain
  ``inst`` to the mnemonics of their family and their operands to the union of what the
  family's instructions accept (register files, special registers, constant types); the
  per-position checks stay in the xDSL verifier, since IRDL has one constraint per
  variadic group.

``print_mlir_generic(module)`` prints IR in generic form with the dialect's parameters in
MLIR's generic syntax, which ``mlir-opt`` parses with that IRDL file loaded.

Known limit of IRDL in LLVM 22: ops cannot declare successors or the terminator trait, so
``amdgcn.end``, ``amdgcn.branch``, ``amdgcn.return`` and ``amdgcn.yield`` are not in the export; the MLIR
printer spells them as unregistered ``amdgcn_cf.*`` ops (see ``TERMINATOR_NS``), and
``mlir-opt`` runs with ``--allow-unregistered-dialect``.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

from xdsl.dialects.builtin import DenseArrayBase, UnregisteredOp, i32
from xdsl.ir import Operation
from xdsl.printer import Printer

from gcnforge.dialect import isa_info, mlir_compat
from gcnforge.dialect.attrs import ACCESS, ADDRESS_SPACES, ARG_KINDS, ARG_TYPES, TARGETS
from gcnforge.dialect.types import SPECIAL_WIDTH, VALID_COUNTS

_FILE_TYPE = {"v": "vgpr", "s": "sgpr", "a": "agpr"}
_REG = ["irdl.base @amdgcn::@vgpr", "irdl.base @amdgcn::@sgpr", "irdl.base @amdgcn::@agpr"]
_TOKENS = ["irdl.base @amdgcn::@read_token", "irdl.base @amdgcn::@write_token"]
_STR = 'irdl.base "#builtin.string"'
_INT = 'irdl.base "#builtin.integer"'
MAX_VALUES = 32  # most values a return/call/wait/make_range may carry in MLIR-generic output
_CONST_TYPES = ('irdl.base "!builtin.integer"', "irdl.is f16", "irdl.is bf16", "irdl.is f32", "irdl.is f64")


class _Block:
    """Emits constraint ops with fresh SSA names inside one irdl.type/attribute/operation."""

    def __init__(self, out: list[str], indent: str = "    "):
        self.out, self.ind, self.n = out, indent, 0

    def op(self, text: str) -> str:
        name = f"%v{self.n}"
        self.n += 1
        self.out.append(f"{self.ind}{name} = {text}")
        return name

    def any_of(self, texts: Iterable[str]) -> str:
        vals = [self.op(t) for t in texts]
        if len(vals) == 1:
            return vals[0]
        return self.op(f"irdl.any_of({', '.join(vals)})")

    def is_strings(self, names: Iterable[str]) -> str:
        return self.any_of(f"irdl.is {mlir_compat.quote(n)}" for n in names)

    def is_i32(self, values: Iterable[int]) -> str:
        return self.any_of(f"irdl.is {v} : i32" for v in values)

    def line(self, text: str) -> None:
        self.out.append(f"{self.ind}{text}")


def _register_type(out: list[str], name: str) -> None:
    out.append(f"  irdl.type @{name} {{")
    b = _Block(out)
    begin = b.op('irdl.base "#builtin.integer"')
    count = b.is_i32(VALID_COUNTS)
    align = b.is_i32((1, 2, 4, 8, 16, 32))
    b.line(f"irdl.parameters(begin: {begin}, count: {count}, align: {align})")
    out.append("  }")


def _types(out: list[str]) -> None:
    for n in ("vgpr", "sgpr", "agpr"):
        _register_type(out, n)
    out.append("  irdl.type @special {")
    b = _Block(out)
    r = b.is_strings(SPECIAL_WIDTH)
    b.line(f"irdl.parameters(reg: {r})")
    out.append("  }")
    out.append("  irdl.type @read_token {\n  }")
    out.append("  irdl.type @write_token {\n  }")


def _attributes(out: list[str]) -> None:
    out.append("  irdl.attribute @target {")
    b = _Block(out)
    b.line(f"irdl.parameters(chip: {b.is_strings(TARGETS)})")
    out.append("  }")
    out.append("  irdl.attribute @inst {")
    b = _Block(out)
    names = sorted({m for ms in isa_info.family_mnemonics().values() for m in ms})
    b.line(f"irdl.parameters(mnemonic: {b.is_strings(names) if names else b.op('irdl.any')})")
    out.append("  }")
    out.append("  irdl.attribute @arg {")
    b = _Block(out)
    s = b.op('irdl.base "#builtin.string"')
    kind = b.is_strings(ARG_KINDS)
    size = b.op('irdl.base "#builtin.integer"')
    align = b.op('irdl.base "#builtin.integer"')
    space = b.is_strings(ADDRESS_SPACES)
    access = b.is_strings(ACCESS)
    atype = b.is_strings(ARG_TYPES)
    b.line(f"irdl.parameters(name: {s}, kind: {kind}, size: {size}, align: {align}, space: {space}, access: {access}, "
           f"type: {atype})")
    out.append("  }")
    out.append("  irdl.attribute @float_mode {")
    b = _Block(out)
    fields = ("round32", "round16_64", "denorm32", "denorm16_64", "dx10_clamp", "ieee")
    vals = [b.op('irdl.base "#builtin.integer"') for _ in fields]
    b.line("irdl.parameters(" + ", ".join(f"{f}: {v}" for f, v in zip(fields, vals, strict=True)) + ")")
    out.append("  }")


def _slot_constraints(slot: isa_info.Slot) -> set[str]:
    out = {f"irdl.base @amdgcn::@{_FILE_TYPE[f]}" for f in slot.files if f in _FILE_TYPE}
    if slot.specials:
        out.add("irdl.base @amdgcn::@special")
    if slot.const or slot.any_int:
        out |= set(_CONST_TYPES)
    return out


def _ordered(cons: set[str]) -> list[str]:
    order = [*_REG, "irdl.base @amdgcn::@special", *_CONST_TYPES, *_TOKENS]
    return [c for c in order if c in cons] + sorted(cons - set(order))


def family_positions(family: str) -> tuple[list[list[str]], list[list[str]]]:
    """Per-position constraint texts for the operands and results of a family op: the
    union, over the family's instructions (and their 'off' choices), of what the operand
    at that position accepts."""
    ops: list[set[str]] = []
    res: list[set[str]] = []
    for m in isa_info.family_mnemonics().get(family, ()):
        inf = isa_info.info(m)
        if inf is None:
            continue
        offable = [i for i, s in enumerate(inf.ssa_slots) if s.may_be_off]
        for mask in range(1 << len(offable)):
            offs = {offable[b] for b in range(len(offable)) if mask >> b & 1}
            present = [s for i, s in enumerate(inf.ssa_slots) if i not in offs]
            for pos, slot in enumerate(present):
                while len(ops) <= pos:
                    ops.append(set())
                ops[pos] |= _slot_constraints(slot)
            outs = [_slot_constraints(s) for s in present if s.is_def]
            if inf.token:
                outs.append(set(_TOKENS))
            for pos, c in enumerate(outs):
                while len(res) <= pos:
                    res.append(set())
                res[pos] |= c
    return [_ordered(c) for c in ops], [_ordered(c) for c in res]


# IRDL in LLVM 22 cannot declare terminators or successors, and every block of a region of
# an IRDL-defined op must end in a terminator. In MLIR-generic output the dialect's
# terminators are therefore printed as unregistered ops of the ``amdgcn_cf`` namespace
# (mlir-opt needs --allow-unregistered-dialect) and each amdgcn.module body ends with
# ``amdgcn_cf.module_end``. The xDSL verifier checks them; mlir-opt checks everything else.
TERMINATOR_NS = "amdgcn_cf"
_TERMINATORS = ("end", "branch", "return", "yield")

# Ops printed with one optional operand/result group per position (MLIR's IRDL binds a
# constraint variable to the first attribute it matches, so a variadic group would force
# all its elements to one type): name -> (operand groups or None, result groups or None).
SEGMENTS: dict[str, tuple[int | None, int | None]] = {}


def _operation(out: list[str], name: str, *, operands=None, results=None, attrs=None, regions=0) -> None:
    """operands/results: either a list of (group name, 'single', [constraint texts]) or
    ('positional', prefix, [[constraint texts] per position]) for per-position optional
    groups; attrs: {name: constraint text, ('strings', names) or ('inst', names)}."""
    out.append(f"  irdl.operation @{name} {{")
    b = _Block(out)
    seg: list[int | None] = [None, None]
    for i, (kw, groups) in enumerate((("operands", operands), ("results", results))):
        if not groups:
            continue
        if isinstance(groups, tuple) and groups[0] == "positional":
            _, prefix, per_pos = groups
            groups = [(f"{prefix}{k}", "optional", cons) for k, cons in enumerate(per_pos)]
            seg[i] = len(groups)
        parts = []
        for gname, variadicity, cons in groups:
            v = b.any_of(cons)
            parts.append(f"{gname}: {'' if variadicity == 'single' else variadicity + ' '}{v}")
        b.line(f"irdl.{kw}({', '.join(parts)})")
    if seg != [None, None]:
        SEGMENTS[f"amdgcn.{name}"] = (seg[0], seg[1])
    if attrs:
        entries = []
        for aname, c in attrs.items():
            if isinstance(c, tuple) and c[0] == "strings":
                v = b.is_strings(c[1])
            elif isinstance(c, tuple) and c[0] == "inst":
                names = b.is_strings(c[1]) if c[1] else b.op("irdl.any")
                v = b.op(f"irdl.parametric @amdgcn::@inst<{names}>")
            else:
                v = b.op(c)
            entries.append(f'"{aname}" = {v}')
        b.line("irdl.attributes {" + ", ".join(entries) + "}")
    if regions:
        rs = [b.op("irdl.region") for _ in range(regions)]
        b.line(f"irdl.regions({', '.join(f'r{i}: {r}' for i, r in enumerate(rs))})")
    out.append("  }")


def _pos(prefix: str, n: int, cons: list[str]) -> tuple:
    return ("positional", prefix, [cons] * n)


def _operations(out: list[str]) -> None:
    from gcnforge.dialect.inst_ops import FAMILY_OPS

    fams = isa_info.family_mnemonics()
    _operation(out, "module", attrs={"sym_name": _STR, "target": "irdl.base @amdgcn::@target"}, regions=1)
    _operation(out, "kernel", attrs={"sym_name": _STR}, regions=1)
    _operation(out, "func", attrs={"sym_name": _STR, "function_type": 'irdl.base "#builtin.type"'}, regions=1)
    _operation(
        out, "call", operands=_pos("arg", MAX_VALUES, ["irdl.any"]), results=_pos("res", MAX_VALUES, ["irdl.any"]),
        attrs={"callee": 'irdl.base "#builtin.symbol_ref"'},
    )
    _operation(out, "alloca", results=[("result", "single", [*_REG, "irdl.base @amdgcn::@special"])])
    _operation(out, "make_range", operands=_pos("part", MAX_VALUES, _REG), results=[("result", "single", _REG)])
    _operation(out, "split_range", operands=[("range", "single", _REG)], results=_pos("part", MAX_VALUES, _REG))
    _operation(out, "load_arg", results=[("result", "single", ["irdl.base @amdgcn::@sgpr"])], attrs={"index": _INT})
    _operation(out, "thread_id", results=[("result", "single", ["irdl.base @amdgcn::@vgpr"])],
               attrs={"dim": ("strings", ("x", "y", "z"))})
    _operation(out, "block_id", results=[("result", "single", ["irdl.base @amdgcn::@sgpr"])],
               attrs={"dim": ("strings", ("x", "y", "z"))})
    _operation(out, "lds_alloc", results=[("result", "single", ["irdl.is i32"])], attrs={"size": _INT, "align": _INT})
    _operation(out, "wait", operands=_pos("token", MAX_VALUES, _TOKENS))
    # (no required attributes: `count` is absent on a loop with run-time bounds, whose first
    # three operands are lb, ub, step; IRDL attributes cannot be optional)
    _operation(
        out, "loop", operands=_pos("init", MAX_VALUES, ["irdl.any"]), results=_pos("res", MAX_VALUES, ["irdl.any"]),
        regions=1,
    )
    from gcnforge.dialect.cond_ops import compare_mnemonics

    scalar = ["irdl.base @amdgcn::@sgpr", "irdl.is i32"]
    _operation(
        out, "if", operands=[("lhs", "single", scalar), ("rhs", "single", scalar)],
        results=_pos("res", MAX_VALUES, ["irdl.any"]), attrs={"inst": ("inst", compare_mnemonics())}, regions=2,
    )
    for fam in FAMILY_OPS:
        ops, res = family_positions(fam)
        _operation(
            out, fam, operands=("positional", "arg", ops) if ops else None,
            results=("positional", "out", res) if res else None,
            attrs={"inst": ("inst", fams.get(fam, ()))},
        )


def dialect_irdl_text() -> str:
    out: list[str] = [
        "// The amdgcn dialect as IRDL, generated by `gcnforge-opt --emit-irdl` from",
        "// gcnforge.dialect and the gfx942 ISA table. Load with mlir-opt --irdl-file=<this>.",
        "irdl.dialect @amdgcn {",
    ]
    _types(out)
    _attributes(out)
    _operations(out)
    out.append("}")
    return "\n".join(out) + "\n"


def print_mlir_generic(op: Operation) -> str:
    """Generic form with amdgcn parameters spelled as MLIR builtin attributes."""
    if not SEGMENTS:
        dialect_irdl_text()
    op = op.clone()
    for o in op.walk():
        seg = SEGMENTS.get(o.name)
        if seg is None:
            continue
        for n_groups, values, key in ((seg[0], o.operands, "operandSegmentSizes"), (seg[1], o.results, "resultSegmentSizes")):
            if n_groups is not None and len(values) <= n_groups:
                o.attributes[key] = DenseArrayBase.from_list(i32, [1] * len(values) + [0] * (n_groups - len(values)))
    for o in list(op.walk()):
        if o.name == "amdgcn.module":
            o.regions[0].block.add_op(UnregisteredOp.with_name(f"{TERMINATOR_NS}.module_end").create())
    s = io.StringIO()
    with mlir_compat.enabled():
        Printer(stream=s, print_generic_format=True).print_op(op)
    text = s.getvalue()
    for name in _TERMINATORS:
        text = text.replace(f'"amdgcn.{name}"(', f'"{TERMINATOR_NS}.{name}"(')
    return text + "\n"
