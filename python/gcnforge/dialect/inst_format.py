"""Custom syntax of the instruction ops (see ``inst_ops``), and their modifier dictionary.

Operands print in the ISA table's order with immediates inline and ``off`` for absent
register fields; modifiers follow as ``name`` or ``name = value``; the operand types
close the line. Parsing reads exactly as many operands as the table says the instruction
has (so an op without operands never swallows the next line) and only the encoding's
modifiers; result types are derived from the destinations, so they are not printed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr, IntegerAttr, StringAttr, UnitAttr, i32, i64
from xdsl.ir import Attribute, SSAValue

from gcnforge.dialect import isa_info
from gcnforge.dialect.attrs import InstAttr
from gcnforge.isa import waitcnt

if TYPE_CHECKING:  # xdsl's parser and printer only when IR text is read or written (issue 15)
    from xdsl.parser import Parser, UnresolvedOperand
    from xdsl.printer import Printer


def mods_attr(mods: dict[str, object], order: Sequence[str] = ()) -> DictionaryAttr | None:
    """Modifiers as a dictionary attribute: True -> unit, int -> i32, list -> array<i32>,
    str -> string (symbolic values such as SDWA's ``WORD_1``). Keys follow ``order`` (the
    table's modifier order, which is LLVM's print order) so the text is canonical."""
    if not mods:
        return None
    rank = {k: i for i, k in enumerate(order)}
    out: dict[str, Attribute] = {}
    for k, v in sorted(mods.items(), key=lambda kv: rank.get(kv[0], len(rank))):
        if v is True:
            out[k] = UnitAttr()
        elif isinstance(v, bool) or v is None:
            continue  # False / None: modifier absent
        elif isinstance(v, int):
            out[k] = IntegerAttr(v, i32)
        elif isinstance(v, list | tuple):
            out[k] = DenseArrayBase.from_list(i32, [int(x) for x in v])
        elif isinstance(v, str):
            out[k] = StringAttr(v)
        else:
            raise TypeError(f"modifier {k}={v!r}: expected bool, int, list of int or str")
    return DictionaryAttr(out) if out else None


def mod_value(a: Attribute) -> object:
    if isinstance(a, UnitAttr):
        return True
    if isinstance(a, IntegerAttr):
        return a.value.data
    if isinstance(a, DenseArrayBase):
        return list(a.get_values())
    if isinstance(a, StringAttr):
        return a.data
    return a


def print_inst(op, printer: Printer) -> None:
    printer.print_string(" " + op.mnemonic)
    inf = op.info
    items: list[str | SSAValue] = []
    offs = set(op.off_slots)
    imms = list(op.imm_values)
    args = list(op.args)
    if inf is not None and len(imms) == len(inf.imm_slots):
        ai = ii = si = 0
        for s in inf.slots:
            if s.operand.kind == "label":
                continue
            if s.ssa:
                if si in offs:
                    items.append("off")
                elif ai < len(args):
                    items.append(args[ai])
                    ai += 1
                si += 1
            else:
                v = imms[ii]
                # s_waitcnt prints its counters as LLVM does (vmcnt(0) lgkmcnt(0)); the parser
                # reads that spelling back to the same immediate. A value with unused bits set
                # has no such spelling and stays an integer.
                items.append(waitcnt.text(v) if op.mnemonic == "s_waitcnt" and waitcnt.is_canonical(v) else str(v))
                ii += 1
        items.extend(args[ai:])
    else:
        items = [*args, *(str(v) for v in imms)]
    for n, it in enumerate(items):
        printer.print_string(", " if n else " ")
        if isinstance(it, str):
            printer.print_string(it)
        else:
            printer.print_operand(it)
    for k, v in op.modifiers.items():
        if v is True:
            printer.print_string(f" {k}")
        elif isinstance(v, list):
            printer.print_string(f" {k} = [{', '.join(map(str, v))}]")
        else:
            printer.print_string(f" {k} = {v}")
    extra = {k: a for k, a in op.attributes.items() if k not in ("inst", "imms", "off", "mods")}
    if extra:
        printer.print_op_attributes(extra)
    if args:
        printer.print_string(" : ")
        printer.print_list([a.type for a in args], printer.print_attribute)


def parse_inst(cls, parser: Parser):
    pos = parser.pos
    mnemonic = parser.parse_identifier(" (an instruction mnemonic)")
    end = parser.pos
    if isa_info.info(mnemonic) is None:
        parser.raise_error(isa_info.unknown_message(mnemonic), pos, end)
    inf = isa_info.info(mnemonic)
    assert inf is not None
    # The table fixes how many operands follow, so an op without operands never swallows
    # the next line's result name, and only the encoding's modifiers are read.
    n_items = len(inf.ssa_slots) + len(inf.imm_slots)
    unresolved: list[UnresolvedOperand] = []
    imms: list[int] = []
    offs: list[int] = []
    ssa_index = 0
    for n in range(n_items):
        if n:
            parser.parse_punctuation(",", f" ({mnemonic} takes {n_items} operands)")
        if (u := parser.parse_optional_unresolved_operand()) is not None:
            unresolved.append(u)
            ssa_index += 1
        elif parser.parse_optional_keyword("off"):
            offs.append(ssa_index)
            ssa_index += 1
        elif (v := parser.parse_optional_integer(allow_boolean=False, allow_negative=True)) is not None:
            imms.append(v)
        elif (c := parser.parse_optional_keyword_in(waitcnt.MAX)) is not None:
            counters: dict[str, int] = {}
            while c is not None:  # s_waitcnt vmcnt(0) lgkmcnt(0)
                if c in counters:
                    parser.raise_error(f"{c} given twice")
                parser.parse_punctuation("(")
                cpos = parser.pos
                counters[c] = parser.parse_integer(allow_negative=False)
                if counters[c] > waitcnt.MAX[c]:
                    parser.raise_error(f"{c} must be in 0..{waitcnt.MAX[c]}", cpos, parser.pos)
                parser.parse_punctuation(")")
                c = parser.parse_optional_keyword_in(waitcnt.MAX)
            imms.append(waitcnt.pack(**counters))
        else:
            parser.raise_error(f"expected an operand, 'off' or an integer immediate ({mnemonic} takes {n_items})")
    mods: dict[str, object] = {}
    allowed = inf.inst.modifiers
    while (k := parser.parse_optional_keyword_in(allowed) if allowed else None) is not None:
        if parser.parse_optional_punctuation("="):
            if parser.parse_optional_punctuation("["):
                vals = []
                if not parser.parse_optional_punctuation("]"):
                    vals = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_integer)
                    parser.parse_punctuation("]")
                mods[k] = vals
            elif (iv := parser.parse_optional_integer(allow_boolean=False, allow_negative=True)) is not None:
                mods[k] = iv
            else:
                mods[k] = parser.parse_identifier(" (a modifier value)")
        else:
            mods[k] = True
    extra = parser.parse_optional_attr_dict()
    types: list[Attribute] = []
    tpos = parser.pos
    if unresolved:
        parser.parse_punctuation(":", " followed by the operand types")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    if len(types) != len(unresolved):
        parser.raise_error(f"{len(unresolved)} operand(s) but {len(types)} type(s)", tpos, parser.pos)
    operands = parser.resolve_operands(unresolved, types, tpos)
    attrs: dict[str, Attribute] = {"inst": InstAttr.get(mnemonic)}
    if imms:
        attrs["imms"] = DenseArrayBase.from_list(i64, imms)
    if offs:
        attrs["off"] = DenseArrayBase.from_list(i64, offs)
    if (m := mods_attr(mods, inf.inst.modifiers)) is not None:
        attrs["mods"] = m
    attrs.update(extra)
    return cls.create(
        operands=operands, result_types=cls.derive_result_types(mnemonic, types, offs), attributes=attrs
    )


