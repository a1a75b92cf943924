"""Assembler expressions as LLVM MC parses them in AMDGPU assembly (GNU precedence).

Used for directive operands (``.amdhsa_next_free_vgpr max(totalnumvgprs(k.num_agpr,
k.num_vgpr), 1, 0)``), ``.set`` and data directives (``.long sym - .Lfunc_end0``).
Operators and precedence follow LLVM's AsmParser (non-Darwin): ``||`` 1, ``&&`` 2,
comparisons 3, ``+ -`` 4, ``| ^ & !`` 5, ``* / % << >>`` 6; unary ``- ~ ! +``.
The AMDGPU functions are those of AMDGPUMCExpr (``max``, ``or``, ``extrasgprs``,
``totalnumvgprs``, ``alignto``); ``occupancy`` only appears in clang's comments.

Values are ints or label-relative ``Reloc(section, offset)``; ``label - label`` in one
section is an int. Symbols resolve through a callback so ``.set`` may refer forward.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.record import FrozenRecord

MAX_DEPTH = 200  # nesting bound (input-controlled recursion)

_TOKEN = re.compile(
    r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)"
    r"|(?P<id>[A-Za-z_.$][\w.$@]*)"
    r"|(?P<op><<|>>|<=|>=|==|!=|<>|&&|\|\||[-+*/%&|^~!()<>,]))"
)


class Reloc(FrozenRecord):  # FrozenRecords, not dataclasses: ``gcnforge as`` start-up time
    """A label address not yet absolute: section + byte offset."""

    __slots__ = _fields = ("section", "offset")
    section: str
    offset: int

    def __init__(self, section: str, offset: int) -> None:
        object.__setattr__(self, "section", section)
        object.__setattr__(self, "offset", offset)


Value = int | Reloc


class Node(FrozenRecord):
    __slots__ = _fields = ("kind", "value", "args", "col")
    kind: str  # "num" | "sym" | "unary" | "binary" | "call"
    value: object  # int, symbol name, operator, or function name
    args: tuple
    col: int

    def __init__(self, kind: str, value: object, args: tuple = (), col: int = 0) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "col", col)


_BINARY = {
    "||": 1, "&&": 2,
    "==": 3, "!=": 3, "<>": 3, "<": 3, "<=": 3, ">": 3, ">=": 3,
    "+": 4, "-": 4,
    "|": 5, "^": 5, "&": 5, "!": 5,
    "*": 6, "/": 6, "%": 6, "<<": 6, ">>": 6,
}
FUNCTIONS = ("max", "or", "extrasgprs", "totalnumvgprs", "alignto")


class _Parser:
    def __init__(self, text: str, loc: SourceLoc):
        self.text, self.loc = text, loc
        self.toks: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                if text[pos:].strip() == "":
                    break
                bad = pos + len(text[pos:]) - len(text[pos:].lstrip())
                raise self.error(f"unexpected character '{text[bad]}' in expression", bad)
            kind = m.lastgroup
            self.toks.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0

    def error(self, msg: str, col: int) -> Diagnostic:
        return Diagnostic(msg, SourceLoc(self.loc.file, self.loc.line, self.loc.col + col))

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else ("end", "", len(self.text))

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, op: str):
        t = self.take()
        if t[1] != op:
            raise self.error(f"expected '{op}' in expression", t[2])

    def parse(self, min_prec: int = 1, depth: int = 0) -> Node:
        if depth > MAX_DEPTH:
            raise self.error("expression nested too deeply", self.peek()[2])
        lhs = self.primary(depth)
        while True:
            kind, text, col = self.peek()
            prec = _BINARY.get(text) if kind == "op" else None
            if prec is None or prec < min_prec:
                return lhs
            self.take()
            rhs = self.parse(prec + 1, depth + 1)
            lhs = Node("binary", text, (lhs, rhs), col)

    def primary(self, depth: int) -> Node:
        kind, text, col = self.take()
        if kind == "num":
            try:
                octal = len(text) > 1 and text[0] == "0" and text[1].isdigit()
                value = int(text, 8) if octal else int(text, 0)
            except ValueError:
                raise self.error(f"invalid number '{text}'", col) from None
            if value >> 64:
                raise self.error(f"integer '{text}' does not fit in 64 bits", col)
            return Node("num", _wrap(value), (), col)
        if kind == "id":
            if self.peek()[1] == "(" and text in FUNCTIONS:
                self.take()
                args = [self.parse(1, depth + 1)]
                while self.peek()[1] == ",":
                    self.take()
                    args.append(self.parse(1, depth + 1))
                self.expect(")")
                return Node("call", text, tuple(args), col)
            if self.peek()[1] == "(":
                raise self.error(f"unknown function '{text}' in expression", col)
            return Node("sym", text, (), col)
        if text == "(":
            node = self.parse(1, depth + 1)
            self.expect(")")
            return node
        if text in ("-", "~", "!", "+"):
            return Node("unary", text, (self.primary(depth + 1),), col)
        if kind == "end":
            raise self.error("expected an expression", col)
        raise self.error(f"unexpected '{text}' in expression", col)


def parse_expr(text: str, loc: SourceLoc) -> Node:
    """Parse a whole expression (diagnostic at the offending column, ``loc.col`` = text start)."""
    p = _Parser(text, loc)
    node = p.parse()
    kind, tok, col = p.peek()
    if kind != "end":
        raise p.error(f"unexpected '{tok}' after expression", col)
    return node


def symbols_in(node: Node) -> set[str]:
    if node.kind == "sym":
        return {node.value}
    out: set[str] = set()
    for a in node.args:
        out |= symbols_in(a)
    return out


class Evaluator:
    """Evaluates expression trees; ``lookup(name)`` gives a symbol's value or raises KeyError."""

    def __init__(self, lookup: Callable[[str], Value], loc: SourceLoc, amdgpu: "AmdgpuFunctions | None" = None):
        self.lookup, self.loc, self.amdgpu = lookup, loc, amdgpu or AmdgpuFunctions()

    def error(self, msg: str, node: Node) -> Diagnostic:
        return Diagnostic(msg, SourceLoc(self.loc.file, self.loc.line, self.loc.col + node.col))

    def absolute(self, node: Node) -> int:
        v = self.eval(node)
        if isinstance(v, Reloc):
            raise self.error("expression is not absolute (it refers to a label address)", node)
        return v

    def eval(self, node: Node, depth: int = 0) -> Value:
        if depth > MAX_DEPTH:
            raise self.error("expression nested too deeply", node)
        k = node.kind
        if k == "num":
            return node.value  # type: ignore[return-value]
        if k == "sym":
            try:
                return self.lookup(node.value)  # type: ignore[arg-type]
            except KeyError:
                raise self.error(f"undefined symbol '{node.value}' in expression", node) from None
        args = [self.eval(a, depth + 1) for a in node.args]
        if k == "unary":
            (a,) = args
            a = self._abs(a, node)
            return _wrap({"-": -a, "~": ~a, "!": int(not a), "+": a}[node.value])
        if k == "call":
            vals = [self._abs(a, node) for a in args]
            return self.amdgpu.call(node.value, vals, lambda m: self.error(m, node))
        op = node.value
        a, b = args
        if op == "+":
            if isinstance(a, Reloc) and isinstance(b, Reloc):
                raise self.error("cannot add two label addresses", node)
            if isinstance(a, Reloc):
                return Reloc(a.section, a.offset + b)  # type: ignore[operator]
            if isinstance(b, Reloc):
                return Reloc(b.section, b.offset + a)
            return _wrap(a + b)
        if op == "-":
            if isinstance(a, Reloc) and isinstance(b, Reloc):
                if a.section != b.section:
                    raise self.error(f"cannot subtract labels in different sections ({a.section}, {b.section})", node)
                return a.offset - b.offset
            if isinstance(a, Reloc):
                return Reloc(a.section, a.offset - b)  # type: ignore[operator]
            if isinstance(b, Reloc):
                raise self.error("cannot subtract a label address from a constant", node)
            return _wrap(a - b)
        a, b = self._abs(a, node), self._abs(b, node)
        if op in ("/", "%") and b == 0:
            raise self.error("division by zero in expression", node)
        if op in ("/", "%"):
            q = abs(a) // abs(b)
            q = q if (a >= 0) == (b >= 0) else -q  # C truncation
            return _wrap(q if op == "/" else a - b * q)
        if op in ("<<", ">>"):
            b &= 63  # as llvm-mc 22 evaluates on x86-64 hosts: `1<<70` is 64, `1<<-1` is INT64_MIN
            if op == "<<":
                return _wrap(a << b)
            return _wrap((a & 0xFFFFFFFFFFFFFFFF) >> b)  # MC uses a logical shift right by default
        table = {
            "*": lambda: a * b, "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
            "!": lambda: a | ~b, "==": lambda: -int(a == b), "!=": lambda: -int(a != b),
            "<>": lambda: -int(a != b), "<": lambda: -int(a < b), "<=": lambda: -int(a <= b),
            ">": lambda: -int(a > b), ">=": lambda: -int(a >= b),
            "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
        }
        return _wrap(table[op]())

    def _abs(self, v: Value, node: Node) -> int:
        if isinstance(v, Reloc):
            raise self.error("expression is not absolute (it refers to a label address)", node)
        return v


def _wrap(v: int) -> int:
    """Two's-complement int64, as MC evaluates."""
    v &= 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >> 63 else v


class AmdgpuFunctions:
    """AMDGPUMCExpr variadic functions for gfx940-class targets."""

    def __init__(self, gfx90a: bool = True, architected_flat_scratch: bool = True):
        self.gfx90a, self.arch_fs = gfx90a, architected_flat_scratch

    def extra_sgprs(self, vcc: bool, flat_scratch: bool, xnack: bool) -> int:
        # AMDGPUBaseInfo.cpp getNumExtraSGPRs (gfx8/gfx9 branch).
        extra = 2 if vcc else 0
        if xnack:
            extra = 4
        if flat_scratch or self.arch_fs:
            extra = 6
        return extra

    def call(self, name: str, args: list[int], error) -> int:
        if name == "max":
            return max(args)
        if name == "or":
            out = 0
            for a in args:
                out |= a
            return out
        if name == "alignto":
            if len(args) != 2 or args[1] <= 0:
                raise error("alignto(value, alignment) needs a positive alignment")
            return (args[0] + args[1] - 1) // args[1] * args[1]
        if name == "extrasgprs":
            if len(args) != 3:
                raise error("extrasgprs(vcc_used, flat_scratch_used, xnack_used) takes 3 arguments")
            return self.extra_sgprs(*(bool(a) for a in args))
        if name == "totalnumvgprs":
            if len(args) != 2:
                raise error("totalnumvgprs(num_agpr, num_vgpr) takes 2 arguments")
            agpr, vgpr = args
            # AMDGPUBaseInfo.cpp getTotalNumVGPRs: unified file on gfx90a+.
            if self.gfx90a and agpr:
                return (vgpr + 3) // 4 * 4 + agpr
            return max(vgpr, agpr)
        raise error(f"unknown function '{name}'")
