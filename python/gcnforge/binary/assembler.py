"""Whole-file assembler: a ``.s`` file as clang -S emits it -> code-object bytes.

Pass 1 walks the statements: sections, labels, alignment, data and instruction sizes
(instructions come from ``gcnforge.asm.parse_instruction``, whose size is known before
labels resolve), symbol attributes, ``.set`` definitions, ``.amdhsa_kernel`` blocks and
the ``.amdgpu_metadata`` YAML. Pass 2 evaluates every expression with all labels known,
encodes instructions with label resolution, builds kernel descriptors, then
``elf_writer.link`` lays the code object out like ld.lld -shared.

Directive coverage: see ``statements.DIRECTIVES``; anything else is a diagnostic.
"""

from __future__ import annotations

import re
import struct

from gcnforge.binary.elf_writer import DataReloc, InputSection, InputSymbol, KernelRecord, link, section_addresses
from gcnforge.binary.expr import AmdgpuFunctions, Evaluator, Node, Reloc, Value, parse_expr, symbols_in
from gcnforge.binary.ignored_directives import IgnoredDirectives
from gcnforge.binary.kernel_directives import DirectiveEntry, KernelBlock, build_descriptor
from gcnforge.binary.line_directives import LineTable
from gcnforge.binary.statements import Statement, statement_at
from gcnforge.binary.text_util import is_ident, names, shift, split_args, split_args_with_loc, string_arg, unquote
from gcnforge.binary.target_id import TargetId, parse_target_id
from gcnforge.diagnostics import MAX_ERRORS, Diagnostic, SourceLoc, collected

S_NOP_0 = 0xBF800000  # code-section padding, as AMDGPUAsmBackend::writeNopData emits
MAX_FILL = 1 << 26  # bound on bytes one .fill/.zero may add (input-controlled)
MAX_SECTION = 1 << 28  # bound on a section's size
MAX_SET_DEPTH = 100  # .set symbols nested through other .set symbols (recursion bound)
DEFAULT_COV = 6  # llvm-mc 22's default --amdhsa-code-object-version
_DATA_SIZES = {".byte": 1, ".short": 2, ".hword": 2, ".2byte": 2, ".value": 2, ".long": 4, ".int": 4,
               ".4byte": 4, ".quad": 8, ".8byte": 8}
_SECTION_DIRECTIVES = {".text": (".text", "ax"), ".data": (".data", "aw"), ".rodata": (".rodata", "a"),
                       ".bss": (".bss", "aw")}
_DEFAULT_FLAGS = {".text": "ax", ".rodata": "a", ".data": "aw", ".bss": "aw"}
# Directives clang 22 emits that do not change the code object ld.lld produces.
IGNORED = {".file", ".ident", ".addrsig", ".addrsig_sym", ".loc", ".cfi_sections", ".cfi_startproc",
           ".cfi_endproc", ".cfi_undefined", ".cfi_escape", ".cfi_def_cfa", ".cfi_offset", ".cfi_register",
           ".cfi_llvm_def_aspace_cfa", ".cfi_llvm_register_pair", ".cfi_llvm_vector_registers",
           ".cfi_llvm_vector_offset", ".cfi_llvm_vector_register_mask", ".cfi_def_cfa_register",
           ".cfi_restore", ".cfi_same_value", ".cfi_remember_state", ".cfi_restore_state",
           ".cfi_adjust_cfa_offset", ".cfi_def_cfa_offset"}


class _Section:
    __slots__ = ("name", "flags", "size", "align", "items", "data", "nobits")

    def __init__(self, name: str, flags: str, nobits: bool = False) -> None:
        self.name = name
        self.flags = flags
        self.size = 0
        self.align = 1
        self.items: list = []  # (offset, kind, payload, loc)
        self.data: list = []  # the "data" items again (pass 2 evaluates them first)
        self.nobits = nobits


class _SymAttr:
    __slots__ = ("binding", "visibility", "type", "size", "loc")

    def __init__(self) -> None:
        self.binding = "LOCAL"
        self.visibility = "DEFAULT"
        self.type = "NOTYPE"
        self.size: tuple[Node, SourceLoc] | None = None
        self.loc: SourceLoc | None = None  # first directive naming the symbol (for "never defined")


class Assembler:
    def __init__(self, target: str | TargetId = "gfx942", filename: str = "<asm>"):
        self.target = target if isinstance(target, TargetId) else parse_target_id(target)
        self.filename = filename
        self.cov = DEFAULT_COV
        self.sections: dict[str, _Section] = {}
        self.cur: _Section = self._section(".text", "ax", None)
        self.labels: dict[str, Reloc] = {}
        self.sets: dict[str, tuple[Node, SourceLoc]] = {}
        self.attrs: dict[str, _SymAttr] = {}
        self.kernels: list[tuple[KernelBlock, _Section, int, SourceLoc]] = []
        self.metadata: dict | None = None
        self.fns = AmdgpuFunctions(self.target.gfx90a_family, self.target.architected_flat_scratch)
        self._evaluating: set[str] = set()
        self._memo: dict[str, Value] = {}
        self._placement: dict[str, tuple[str, int]] = {}
        self.ignored = IgnoredDirectives()  # still checked as llvm-mc checks them
        self.lines = LineTable()  # .file / .loc rows (a line table only when a .loc was seen)

    # -- symbols ------------------------------------------------------------------------
    def _attr(self, name: str, loc: SourceLoc | None = None) -> _SymAttr:
        a = self.attrs.setdefault(name, _SymAttr())
        if a.loc is None:
            a.loc = loc
        return a

    def _assign(self, name: str, node: Node, loc: SourceLoc) -> None:
        """``.set name, expr`` / ``name = expr``. As in LLVM MC, a redefinition may use the
        old value (``.set x, 1`` then ``.set x, x+1``), but a symbol that reaches itself
        through not-yet-defined symbols is a cycle (``.set x, x+1``; ``.set y, x`` then
        ``.set x, y``): an error where LLVM reports it, not a symbol that never evaluates."""
        if name in self.sets and name in symbols_in(node):
            node = _substitute(node, name, self.sets[name][0])
        seen: set[str] = set()
        todo = list(symbols_in(node))
        while todo:
            s = todo.pop()
            if s == name:
                raise Diagnostic(f"cyclic dependency detected for symbol '{name}'",
                                 SourceLoc(loc.file, loc.line, loc.col + node.col))
            if s in seen:
                continue
            seen.add(s)
            if s in self.sets and s not in self.labels:
                todo.extend(symbols_in(self.sets[s][0]))
        self.sets[name] = (node, loc)
        self._memo.clear()

    def lookup(self, name: str) -> Value:
        if name in self.labels:
            return self.labels[name]
        if name in self._memo:
            return self._memo[name]
        if name in self.sets:
            if name in self._evaluating:
                raise Diagnostic(f"recursive definition of symbol '{name}'", self.sets[name][1])
            if len(self._evaluating) > MAX_SET_DEPTH:
                raise Diagnostic(f"symbol '{name}' is defined through more than {MAX_SET_DEPTH} nested .set symbols",
                                 self.sets[name][1])
            self._evaluating.add(name)
            try:
                node, loc = self.sets[name]
                value = Evaluator(self.lookup, loc, self.fns).eval(node)
            finally:
                self._evaluating.discard(name)
            self._memo[name] = value  # .set chains would otherwise be re-evaluated exponentially
            return value
        raise KeyError(name)

    def evaluate(self, node: Node, loc: SourceLoc) -> Value:
        return Evaluator(self.lookup, loc, self.fns).eval(node)

    def absolute(self, node: Node, loc: SourceLoc) -> int:
        return Evaluator(self.lookup, loc, self.fns).absolute(node)

    # -- sections -----------------------------------------------------------------------
    def _section(self, name: str, flags: str | None, loc: SourceLoc | None) -> _Section:
        sec = self.sections.get(name)
        if sec is None:
            if flags is None:
                flags = _DEFAULT_FLAGS.get(name, _DEFAULT_FLAGS.get("." + name.split(".")[1], "") if name.count(".") > 1 else "")
            sec = _Section(name, flags, nobits=name == ".bss" or name.startswith(".bss."))
            if "x" in flags:
                sec.align = 4  # llvm-mc gives AMDGPU code sections 4-byte alignment
            self.sections[name] = sec
        return sec

    def _emit(self, kind: str, size: int, payload, loc: SourceLoc) -> None:
        self.cur.items.append((self.cur.size, kind, payload, loc))
        self.cur.size += size
        if self.cur.size > MAX_SECTION:
            raise Diagnostic(f"section {self.cur.name} exceeds {MAX_SECTION} bytes", loc)

    def _align(self, align: int, fill: int | None, fill_size: int, max_skip: int | None, loc: SourceLoc) -> None:
        if align <= 0 or align & (align - 1):
            raise Diagnostic(f"alignment must be a power of 2, got {align}", loc)
        if align > 1 << 16:
            raise Diagnostic(f"alignment {align} is too large", loc)
        pad = -self.cur.size % align
        self.cur.align = max(self.cur.align, align)
        if max_skip is not None and pad > max_skip:
            return
        if pad:
            self._emit("pad", pad, (fill, fill_size, pad), loc)

    # -- pass 1 -------------------------------------------------------------------------
    def run(self, text: str) -> bytes:
        from gcnforge.isa import table

        # the target's instruction table (other gfx9 processors have none yet: gfx942's, as before)
        proc = self.target.processor
        with table.use_target(proc if proc in table.known_targets() else None):
            return self._run(text)

    def _run(self, text: str) -> bytes:
        from gcnforge.asm.literal_shapes import LiteralShapes

        lines = text.split("\n")
        n = len(lines)
        filename = self.filename
        # raw line -> (ParsedInst, column) for a label-free, position-independent instruction
        # line seen before: the same raw text is the same statement (only its line differs)
        repeats: dict[str, tuple[object, int]] = {}
        # unrolled code repeats lines: parse each distinct one once (instruction text -> parse);
        # "s_cbranch_scc0 .LBB0_7" lines differing in the label share one parse (text before it)
        memo = _Parses({}, {}, LiteralShapes())  # s_add_u32 s4, s4, 0x1a2b / 0x1a2c / ...: one parse
        cache = memo.cache
        plain = _PLAIN_INSTRUCTION.fullmatch
        errors: list[Diagnostic] = []  # every bad line is reported, not only the first
        loc_seen = self.lines.parsed  # '.loc' arguments read (and checked) before -> (file, line, column)
        loc_rows = self.lines.rows
        i = 0
        while i < n:
            raw = lines[i]
            if raw[:6] == "\t.loc\t" and (seen := loc_seen.get(raw[6:])) is not None:
                i += 1  # a compile's line-table row seen before: no Statement (first time: below)
                cur = self.cur
                loc_rows.append((cur.name, cur.size, *seen))
                continue
            hit = repeats.get(raw)
            if hit is not None:
                i += 1
                cur = self.cur
                # the location as (line, column): a SourceLoc only if someone asks (item_loc)
                cur.items.append((cur.size, "inst", hit[0], (i, hit[1])))
                cur.size += hit[0].size
                if cur.size > MAX_SECTION:
                    raise Diagnostic(f"section {cur.name} exceeds {MAX_SECTION} bytes", SourceLoc(filename, i, hit[1]))
                continue
            start = i
            try:
                m = plain(raw)
                if m is not None:  # a bare instruction line (most lines): no statement_at, no Statement
                    i += 1
                    text = m.group(2)
                    loc = SourceLoc(filename, i, m.end(1) + 1)
                    parsed = cache.get(text)
                    if parsed is None:
                        parsed = self._parse(text, loc, m.group(3), memo)
                    labelled = False
                else:
                    st, i = statement_at(lines, i, filename)
                    what = self._statement(st)
                    if what != "instruction":
                        if what == "kernel":
                            i = self._kernel_block(lines, i, st)
                        continue
                    text, loc, labelled = st.text, st.loc, bool(st.labels)
                    parsed = cache.get(text)
                    if parsed is None:
                        parsed = self._parse(text, loc, None, memo)
            except Diagnostic as d:
                errors.append(d)
                if len(errors) >= MAX_ERRORS:
                    break
                i = _resume(lines, start, i)
                continue
            cur = self.cur
            if not labelled and not parsed.label_refs:
                repeats[raw] = (parsed, loc.col)
                cur.items.append((cur.size, "inst", parsed, (i, loc.col)))
            else:
                cur.items.append((cur.size, "inst", parsed, loc))
            cur.size += parsed.size
            if cur.size > MAX_SECTION:
                raise Diagnostic(f"section {cur.name} exceeds {MAX_SECTION} bytes", loc)
        try:
            self.ignored.finish()  # (an unfinished .cfi frame)
        except Diagnostic as d:
            errors.append(d)
        if errors:
            raise collected(errors)
        return self._finish()

    def _statement(self, st: Statement) -> str:
        """Pass 1 of a statement that is not a bare instruction line: its labels, then the
        directive or assignment. What is left to the caller: "instruction", "kernel" (an
        ``.amdhsa_kernel`` block to read), or "" (nothing)."""
        for label, lloc in st.labels:
            self._define_label(label, lloc)
        kind = st.kind
        if kind == "instruction":
            return kind
        if kind == "assign":
            self._assign(st.name, parse_expr(st.args, st.args_loc), st.args_loc)
        elif kind != "empty":
            d = st.name
            if d == ".amdhsa_kernel":
                return "kernel"
            if d == ".amdgpu_metadata":
                if self.metadata is not None:
                    raise Diagnostic("more than one .amdgpu_metadata block", st.loc)
                from gcnforge.binary.metadata import parse_metadata_yaml  # (PyYAML: only when there is a block)

                self.metadata = parse_metadata_yaml(st.block, st.loc)
            else:
                self._directive(st)
        return ""

    @staticmethod
    def _parse(text: str, loc: SourceLoc, head: str | None, memo: "_Parses"):
        """The parse of an instruction text not seen before (``head``: its mnemonic, when
        known), remembered in ``memo`` for the lines that repeat it."""
        from gcnforge.asm import ParsedInst, Tok, parse_instruction  # the instruction encoder

        # "s_cbranch_scc0 .LBB0_7": lines that differ only in a trailing local label
        # parse alike (the label is a fixup), so one parse serves all of them
        if "." in text:
            k = max(text.rfind(" "), text.rfind(","))
            label = text[k + 1:] if k > 0 and text[k + 1:k + 2] == "." else ""
        else:
            k, label = -1, ""  # no label can end the line
        shape = memo.branches.get(text[:k + 1]) if label and _LOCAL_LABEL.fullmatch(label) else None
        if shape is not None:
            fld = shape.fixups[0][0]
            return ParsedInst(shape.inst, shape.fields, shape.literal, shape.size, (label,), loc,
                              shape.codec, ((fld, label, Tok(label, k + 2)),), shape.extra)
        parsed = memo.literals.reuse(text, loc, head)
        if parsed is None:
            parsed = parse_instruction(text, loc)
            if not parsed.label_refs:
                memo.literals.remember(text, parsed)
        if not parsed.label_refs:  # position-independent: same text, same bytes
            memo.cache[text] = parsed
        elif label and len(parsed.fixups) == 1 and _is_branch_fixup(parsed.fixups[0], label, k + 2):
            memo.branches[text[:k + 1]] = parsed
        return parsed

    def item_loc(self, loc: SourceLoc | tuple[int, int] | None) -> SourceLoc | None:
        """The ``SourceLoc`` of a section item's location (repeated instruction lines keep
        only ``(line, column)``)."""
        return SourceLoc(self.filename, loc[0], loc[1]) if type(loc) is tuple else loc

    def _define_label(self, name: str, loc: SourceLoc) -> None:
        if name in self.labels or name in self.sets:
            raise Diagnostic(f"symbol '{name}' is already defined", loc)
        self.labels[name] = Reloc(self.cur.name, self.cur.size)

    def _kernel_block(self, lines: list[str], i: int, st: Statement) -> int:
        name = st.args.strip()
        if not name or not is_ident(name):
            raise Diagnostic("expected symbol name after .amdhsa_kernel", st.args_loc)
        block = KernelBlock(name, st.loc, [], self.target.architected_flat_scratch)
        while True:
            if i >= len(lines):
                raise Diagnostic("expected .end_amdhsa_kernel before end of file", st.loc)
            s, i = statement_at(lines, i, self.filename)
            if s.labels:
                raise Diagnostic("labels are not allowed inside .amdhsa_kernel", s.labels[0][1])
            if s.kind == "empty":
                continue
            if s.kind != "directive" or not s.name.startswith(".amdhsa_") and s.name != ".end_amdhsa_kernel":
                raise Diagnostic("expected .amdhsa_ directive or .end_amdhsa_kernel", s.loc)
            if s.name == ".end_amdhsa_kernel":
                break
            block.add(DirectiveEntry(s.name, parse_expr(s.args, s.args_loc), s.loc, s.args_loc))
        if "a" not in self.cur.flags:
            raise Diagnostic(f"kernel descriptor for '{name}' must be in an allocated section such as .rodata, "
                             f"not {self.cur.name}", st.loc)
        # LLVM: <name>.kd copies the kernel symbol's binding/visibility at this point; a default
        # visibility kernel becomes protected (static relocations from the descriptor).
        ka = self._attr(name, st.loc)
        kd = self._attr(name + ".kd", st.loc)
        kd.binding, kd.visibility, kd.type = ka.binding, ka.visibility, "OBJECT"
        kd.size = (Node("num", 64), st.loc)
        if ka.visibility == "DEFAULT":
            ka.visibility = "PROTECTED"
        self._define_label(name + ".kd", st.loc)
        self.kernels.append((block, self.cur, self.cur.size, s.loc))
        self._emit("kd", 64, len(self.kernels) - 1, st.loc)
        return i

    def _directive(self, st: Statement) -> None:
        d, args, loc = st.name, st.args, st.args_loc
        if d in IGNORED:
            self.ignored.check(d, args, loc, st.loc)
            if d == ".loc":
                self.lines.loc(args, self.cur.name, self.cur.size, loc)
            elif d == ".file":
                self.lines.file(args, loc)
            return
        if d in _SECTION_DIRECTIVES:
            name, flags = _SECTION_DIRECTIVES[d]
            self.cur = self._section(name, flags, st.loc)
        elif d in (".section", ".pushsection"):
            parts = split_args(args)
            if not parts:
                raise Diagnostic("expected section name", loc)
            name = parts[0].strip()
            if len(name) >= 2 and name[0] == name[-1] == '"':
                name = name[1:-1]
            if not is_ident(name) and not re.fullmatch(r"[\w.$-]+", name):
                raise Diagnostic(f"invalid section name '{parts[0].strip()}'", loc)
            flags = parts[1].strip().strip('"') if len(parts) > 1 else None
            if flags is not None and set(flags) - set("axwMSGTR?oe"):
                raise Diagnostic(f"unknown section flags '{flags}'", loc)
            sec = self._section(name, flags, loc)
            if len(parts) > 2 and parts[2].strip() in ("@nobits", "%nobits"):
                sec.nobits = True
            self.cur = sec
        elif d == ".amdgcn_target":
            tid = parse_target_id(string_arg(args, loc), loc)
            if tid.processor != self.target.processor:
                raise Diagnostic(f".amdgcn_target directive's target id {args.strip()} does not match the specified "
                                 f"target {self.target}", loc)
            self.target = tid
            self.fns = AmdgpuFunctions(tid.gfx90a_family, tid.architected_flat_scratch)
        elif d == ".amdhsa_code_object_version":
            v = self.absolute(parse_expr(args, loc), loc)
            if v not in (4, 5, 6):
                raise Diagnostic(f"unsupported code object version {v} (gcnforge writes 4, 5 and 6)", loc)
            self.cov = v
        elif d in (".globl", ".global", ".weak", ".local"):
            for name in names(args, loc):
                self._attr(name, loc).binding = {".weak": "WEAK", ".local": "LOCAL"}.get(d, "GLOBAL")
        elif d in (".protected", ".hidden", ".internal"):
            for name in names(args, loc):
                self._attr(name, loc).visibility = d[1:].upper()
        elif d == ".type":
            parts = split_args(args)
            if len(parts) != 2:
                raise Diagnostic("expected '.type name, @function|@object'", loc)
            kind = parts[1].strip().lstrip("@%").lower()
            types = {"function": "FUNC", "stt_func": "FUNC", "object": "OBJECT", "stt_object": "OBJECT",
                     "notype": "NOTYPE", "stt_notype": "NOTYPE"}
            if kind not in types:
                raise Diagnostic(f"unsupported symbol type '{parts[1].strip()}'", loc)
            self._attr(parts[0].strip(), loc).type = types[kind]
        elif d == ".size":
            parts = args.split(",", 1)
            if len(parts) != 2:
                raise Diagnostic("expected '.size name, expression'", loc)
            self._attr(parts[0].strip(), loc).size = (parse_expr(parts[1], shift(loc, len(parts[0]) + 1)), loc)
        elif d in (".set", ".equ"):
            parts = args.split(",", 1)
            if len(parts) != 2 or not is_ident(parts[0].strip()):
                raise Diagnostic(f"expected '{d} name, expression'", loc)
            vloc = shift(loc, len(parts[0]) + 1)
            self._assign(parts[0].strip(), parse_expr(parts[1], vloc), vloc)
        elif d in (".p2align", ".p2alignl", ".p2alignw", ".balign", ".balignl", ".balignw", ".align"):
            vals = [self._now(a, loc) if a.strip() else None for a in split_args(args)]
            if not vals or vals[0] is None:
                raise Diagnostic(f"expected alignment after {d}", loc)
            if d.startswith(".p2align") and not 0 <= vals[0] <= 16:
                raise Diagnostic("alignment exponent out of range", loc)
            align = 1 << vals[0] if d.startswith(".p2align") else vals[0]
            fill_size = 4 if d.endswith("l") else 2 if d.endswith("w") else 1
            self._align(align, vals[1] if len(vals) > 1 else None, fill_size, vals[2] if len(vals) > 2 else None, loc)
        elif d in _DATA_SIZES:
            size = _DATA_SIZES[d]
            for part, ploc in split_args_with_loc(args, loc):
                self._emit("data", size, (size, parse_expr(part, ploc)), ploc)
                self.cur.data.append(self.cur.items[-1])
        elif d in (".zero", ".space", ".skip"):
            vals = [self._now(a, loc) for a in split_args(args)]
            if not vals or vals[0] < 0 or vals[0] > MAX_FILL:
                raise Diagnostic(f"invalid size for {d}", loc)
            self._emit("fill", vals[0], (vals[0], 1, vals[1] if len(vals) > 1 else 0), loc)
        elif d == ".fill":
            vals = [self._now(a, loc) for a in split_args(args)]
            count, size, value = (vals + [1, 0])[:3] if len(vals) >= 1 else (None, 1, 0)
            if count is None or count < 0 or size not in (1, 2, 4, 8) or count * size > MAX_FILL:
                raise Diagnostic("invalid .fill (count, size 1/2/4/8, value)", loc)
            self._emit("fill", count * size, (count, size, value), loc)
        elif d in (".ascii", ".asciz", ".string"):
            for part, ploc in split_args_with_loc(args, loc):
                data = unquote(part.strip(), ploc) + (b"\0" if d != ".ascii" else b"")
                self._emit("bytes", len(data), data, ploc)
        elif d in (".end_amdhsa_kernel", ".end_amdgpu_metadata"):
            raise Diagnostic(f"{d} without a matching start directive", st.loc)
        else:
            raise Diagnostic(f"unknown directive '{d}'", st.loc)

    def _now(self, text: str, loc: SourceLoc) -> int:
        """A value that must be known in pass 1 (sizes, alignments)."""
        try:
            return self.absolute(parse_expr(text, loc), loc)
        except Diagnostic as e:
            raise Diagnostic(f"{e.message} (this value must be known when the directive is read)", e.loc) from None

    # -- pass 2 -------------------------------------------------------------------------
    def _finish(self) -> bytes:
        self._placement = self._compute_placement()
        kernel_records = [KernelRecord(b.name, *self._place(sec.name, off), b.loc) for b, sec, off, _ in self.kernels]
        symbols = self._symbols()
        # Final addresses first (they depend only on sizes and names), so instructions can refer
        # to labels in other output sections (sym@rel32@lo of a .rodata table from .text), which
        # ld.lld resolves from relocations.
        values, relocs = self._data_values()
        placeholders = [InputSection(n, bytes(size), align, flags, nobits)
                        for n, (size, align, flags, nobits) in self._output_shapes().items()]
        addrs = section_addresses(self.target, self.cov, placeholders, symbols, kernel_records, self.metadata,
                                  len(relocs))
        datas: dict[str, bytearray] = {}
        encoded: dict[int, bytes] = {}  # id(ParsedInst) -> bytes, for the shared label-free ones
        errors: list[Diagnostic] = []  # every line whose label or symbol does not resolve
        for sec in self.sections.values():
            out_name, base = self._placement.get(sec.name, (sec.name, 0))
            if sec.nobits:
                for off, kind, payload, loc in sec.items:
                    if kind not in ("pad", "fill") or (kind == "fill" and payload[2]):
                        raise Diagnostic(f"cannot put data in NOBITS section {sec.name}", self.item_loc(loc))
                datas[sec.name] = bytearray()
                continue
            # Items are contiguous (each starts where the previous one ends), so the section is
            # the concatenation of their bytes; the descriptor's 64 bytes are filled in below.
            parts: list[bytes] = []
            put = parts.append
            code = "x" in sec.flags
            for off, kind, payload, loc in sec.items:
                if kind == "inst" and not payload.fixups:
                    # no label or symbol: the bytes do not depend on the address, and pass 1
                    # shares one ParsedInst among all lines with the same text
                    enc = encoded.get(id(payload))
                    if enc is None:
                        enc = encoded[id(payload)] = payload.codec.encode(payload, base + off)
                        if len(enc) != payload.size:
                            raise Diagnostic(f"internal: instruction encoded to {len(enc)} bytes, expected "
                                             f"{payload.size}", self.item_loc(loc))
                    put(enc)
                elif kind == "inst":  # refers to labels or symbols: encoded at its final place
                    put(self._encode_linked(payload, base + off, loc, out_name, addrs, errors))
                elif kind == "data":
                    size, node = payload
                    v = values[(sec.name, off)]
                    if not -(1 << (8 * size - 1)) <= v < 1 << (8 * size):
                        raise Diagnostic(f"value {v} does not fit in {size} bytes", loc)
                    put((v & ((1 << 8 * size) - 1)).to_bytes(size, "little"))
                elif kind == "fill":
                    count, size, value = payload
                    chunk = (value & ((1 << 8 * size) - 1)).to_bytes(size, "little")
                    put(chunk * count)
                elif kind == "bytes":
                    put(payload)
                elif kind == "pad":
                    fill, fill_size, n = payload
                    if fill is None and code:
                        # AMDGPUAsmBackend::writeNopData: zeros for the odd bytes, then s_nop 0 words.
                        put(bytes(n % 4) + struct.pack("<I", S_NOP_0) * (n // 4))
                    elif fill is not None:
                        chunk = (fill & ((1 << 8 * fill_size) - 1)).to_bytes(fill_size, "little")
                        put(chunk * (n // fill_size) + chunk[: n % fill_size])
                    else:
                        put(bytes(n))
                elif kind == "kd":
                    put(bytes(64))
                else:  # pragma: no cover - every kind _emit writes is handled above
                    raise Diagnostic(f"internal: unknown section item kind {kind!r}", self.item_loc(loc))
            buf = bytearray(b"".join(parts))
            if len(buf) != sec.size:
                raise Diagnostic(f"internal: section {sec.name} laid out to {len(buf)} bytes, expected {sec.size}")
            datas[sec.name] = buf
        if errors:
            raise collected(errors)

        for block, sec, off, end_loc in self.kernels:
            kd = build_descriptor(block, self.absolute, self.target, end_loc)
            datas[sec.name][off:off + 64] = kd.to_bytes()

        sections = self._merge_sections(datas)
        debug = self._line_table(addrs, sections) if self.lines.rows else ()
        return link(self.target, self.cov, sections, symbols, kernel_records, self.metadata, relocs, debug=debug)

    def _line_table(self, addrs: dict[str, int], sections: list[InputSection]) -> list[tuple[str, bytes]]:
        """``.debug_*`` sections of the ``.loc`` rows at their final addresses, over ``.text``."""
        from gcnforge.binary.dwarf_line import debug_sections

        base: dict[str, int | None] = {}  # input section -> address of its offset 0 (None: not in the object)
        for sec in {r[0] for r in self.lines.rows}:
            out, b = self._placement.get(sec, (None, 0))
            base[sec] = addrs[out] + b if out in addrs else None
        rows = [(base[sec] + off, f, line, col) for sec, off, f, line, col in self.lines.rows if base[sec] is not None]
        text = next((s for s in sections if s.name == ".text"), None)
        if not rows or text is None or ".text" not in addrs:
            return []
        lo = addrs[".text"]
        return debug_sections(self.lines.file_list(), rows, lo, lo + len(text.data))

    def _encode_linked(self, inst, pc: int, loc: SourceLoc, out_name: str, addrs: dict[str, int],
                       errors: list[Diagnostic]) -> bytes:
        """The bytes of an instruction that refers to labels or symbols, at ``pc`` in output
        section ``out_name``; an error (an undefined symbol, a branch out of range) goes to
        ``errors``, at the symbol's column, and zeros stand in, so every such line is reported."""
        def resolve(name: str) -> int:
            # Addresses are offsets in the output section, so code may refer to labels in
            # other input sections that ld.lld would merge into the same one (.text.*).
            try:
                v = self.lookup(name)
            except KeyError:
                at = self.item_loc(loc)
                tok = next((t for _, n, t in inst.fixups if n == name), None)
                raise Diagnostic(f"undefined symbol '{name}'", tok.loc(at) if tok is not None else at) from None
            if isinstance(v, Reloc):
                out, placed = self._place(v.section, v.offset)
                if out == out_name:
                    return placed
                if out not in addrs or out_name not in addrs:
                    raise Diagnostic(f"label '{name}' is in section {out}, which is not in the code object",
                                     self.item_loc(loc))
                return addrs[out] + placed - addrs[out_name]  # relative to this section's start
            return v

        try:
            enc = inst.encode(pc, resolve)
        except Diagnostic as d:
            errors.append(d)
            return bytes(inst.size)
        if len(enc) != inst.size:
            raise Diagnostic(f"internal: instruction encoded to {len(enc)} bytes, expected {inst.size}", loc)
        return enc

    def _data_values(self) -> tuple[dict[tuple[str, int], int], list[DataReloc]]:
        """Values of the data directives; a label address in a 64-bit slot of a writable section
        becomes an R_AMDGPU_RELATIVE64 dynamic relocation (slot 0, addend = address), as ld.lld
        -shared makes it. Anywhere else it is an error (ld.lld: text relocation / -fPIC)."""
        values: dict[tuple[str, int], int] = {}
        relocs: list[DataReloc] = []
        for sec in self.sections.values():
            for off, kind, payload, loc in sec.data:
                size, node = payload
                v = self.evaluate(node, loc)
                if isinstance(v, Reloc):
                    if size != 8 or "w" not in sec.flags or "a" not in sec.flags:
                        raise Diagnostic("the address of a label is only allowed in a .quad in a writable allocated "
                                         "section (it needs a dynamic relocation); use a label difference", loc)
                    relocs.append(DataReloc(*self._place(sec.name, off), *self._place(v.section, v.offset)))
                    v = 0
                values[(sec.name, off)] = v
        return values, relocs

    def _output_shapes(self) -> dict[str, tuple[int, int, str, bool]]:
        """Output section -> (size, alignment, flags, nobits), from the placement."""
        shapes: dict[str, tuple[int, int, str, bool]] = {}
        for sec in self.sections.values():
            if not self._kept(sec):
                continue
            out, base = self._placement[sec.name]
            size, align, flags, nobits = shapes.get(out, (0, 1, sec.flags, sec.nobits))
            shapes[out] = (max(size, base + sec.size), max(align, sec.align),
                           "".join(sorted(set(flags) | set(sec.flags))), nobits and sec.nobits)
        return shapes

    def _output_name(self, name: str) -> str:
        for prefix in (".text", ".rodata", ".data", ".bss"):
            if name.startswith(prefix + "."):
                return prefix
        return name

    def _kept(self, sec: _Section) -> bool:
        return "a" in sec.flags and bool(sec.size or sec.name == ".text")

    def _compute_placement(self) -> dict[str, tuple[str, int]]:
        """Input section -> (output section, base offset), by ld.lld's default rules: ``.text.*``
        into ``.text``, ``.rodata.*`` into ``.rodata``, ``.data.*`` into ``.data``, ``.bss.*``
        into ``.bss``, each input aligned within its output, in order of first appearance."""
        sizes: dict[str, int] = {}
        placement = {}
        for sec in self.sections.values():
            if not self._kept(sec):
                continue
            out = self._output_name(sec.name)
            base = _align_up(sizes.get(out, 0), sec.align)
            placement[sec.name] = (out, base)
            sizes[out] = base + sec.size
        return placement

    def _merge_sections(self, datas: dict[str, bytearray]) -> list[InputSection]:
        outs: dict[str, dict] = {}
        for sec in self.sections.values():
            if not self._kept(sec):
                continue
            out_name, base = self._placement[sec.name]
            o = outs.setdefault(out_name, {"data": bytearray(), "align": 1, "flags": sec.flags, "nobits": sec.nobits})
            o["data"] += bytes(base - len(o["data"]))  # ld.lld pads between input sections with zeros
            o["data"] += datas[sec.name] if not sec.nobits else bytes(sec.size)
            o["align"] = max(o["align"], sec.align)
            o["flags"] = "".join(sorted(set(o["flags"]) | set(sec.flags)))
            o["nobits"] = o["nobits"] and sec.nobits
        # NOBITS outputs keep zero bytes of their size here; the writer gives them no file space.
        return [InputSection(n, bytes(o["data"]), o["align"], o["flags"], o["nobits"]) for n, o in outs.items()]

    def _place(self, section: str, offset: int) -> tuple[str, int]:
        out, base = self._placement.get(section, (section, 0))
        return out, base + offset

    def _symbols(self) -> list[InputSymbol]:
        out = []
        for name, attr in self.attrs.items():
            if name not in self.labels and name not in self.sets:
                if attr.binding != "LOCAL" or attr.size is not None:
                    raise Diagnostic(f"symbol '{name}' is declared but never defined (undefined symbols need a "
                                     "linker with dynamic relocations; define it in this file)", attr.loc)
        all_names = list(self.labels) + [n for n in self.sets if n not in self.labels]
        for name in all_names:
            if name.startswith(".L"):
                continue
            attr = self.attrs.get(name, _SymAttr())
            size = 0
            if attr.size is not None:
                node, loc = attr.size
                size = self.absolute(node, loc)
            if name in self.labels:
                r = self.labels[name]
                if "a" not in self.sections[r.section].flags:
                    continue  # labels in non-allocated sections (.AMDGPU.csdata ...) are dropped with them
                out.append(InputSymbol(name, *self._place(r.section, r.offset), size, attr.type, attr.binding,
                                       attr.visibility))
            else:
                try:
                    v = self.lookup(name)
                except (Diagnostic, KeyError):
                    continue  # .set symbols that do not evaluate are not emitted (never referenced by code)
                if isinstance(v, Reloc):
                    out.append(InputSymbol(name, *self._place(v.section, v.offset), size, attr.type, attr.binding,
                                           attr.visibility))
                else:
                    out.append(InputSymbol(name, None, v & 0xFFFFFFFFFFFFFFFF, size, attr.type, attr.binding, attr.visibility))
        return out


def _substitute(node: Node, name: str, by: Node) -> Node:
    """``node`` with every use of symbol ``name`` replaced by the tree ``by``."""
    if node.kind == "sym":
        return by if node.value == name else node
    if not node.args:
        return node
    return Node(node.kind, node.value, tuple(_substitute(a, name, by) for a in node.args), node.col)


def _align_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


# A line statement_at would read as a bare instruction with nothing to strip: blanks, then a
# mnemonic (no ':'), operands separated by blanks, no comment, string, '=' or other white space.
# Groups: the indent, the instruction text, its mnemonic.
_PLAIN_INSTRUCTION = re.compile(r"([ \t]*)(([A-Za-z_][^\s:;\"/=]*)(?:[ \t]+[^\s;\"/=]+)*)[ \t]*")
_LOCAL_LABEL = re.compile(r"\.[A-Za-z_][\w.]*")  # .LBB0_7, .Lblk12: no register, number or modifier


class _Parses:
    """What one run remembers of the instruction texts it parsed (see ``Assembler._run``)."""

    __slots__ = ("cache", "branches", "literals")

    def __init__(self, cache: dict, branches: dict, literals) -> None:
        self.cache = cache  # instruction text -> its parse (label-free, position-independent)
        self.branches = branches  # instruction text before a trailing local label -> a parse of it
        self.literals = literals  # asm.literal_shapes.LiteralShapes


def _resume(lines: list[str], start: int, i: int) -> int:
    """Where pass 1 goes on after an error in the statement that began at line ``start``
    (``i``: where it had got to): the next line; past an ``.amdhsa_kernel`` block's end,
    so its directives are not read as top-level ones."""
    i = max(i, start + 1)
    if lines[start].strip().startswith(".amdhsa_kernel"):
        while i < len(lines) and not lines[i - 1].strip().startswith(".end_amdhsa_kernel"):
            i += 1
    return i


def _is_branch_fixup(fixup: tuple, label: str, col: int) -> bool:
    """True when ``fixup`` is a branch to ``label`` taken from the token at ``col`` (not a
    ``sym@rel32`` literal): then another label at that place changes only the fixup."""
    fld, name, tok = fixup
    return not fld.startswith("@") and name == label and tok.text == label and tok.col == col


class _ParseOnly(Assembler):
    def _finish(self) -> bytes:
        return b""


def check_statements(text: str, target: str = "gfx942", filename: str = "<asm>") -> None:
    """What ``llvm-mc`` refuses while it reads the file, before any layout: every directive
    (the ``.amdgpu_metadata`` YAML, the ignored ones' operands), label and instruction; not the
    linking of the pieces (``gcnforge as`` without ``-o`` checks this, as ``llvm-mc
    -show-encoding`` does)."""
    try:
        _ParseOnly(target, filename).run(text)
    except RecursionError:
        raise Diagnostic("expressions or symbol definitions nested too deeply", filename) from None


def assemble_builtin(text: str, target: str = "gfx942", filename: str = "<asm>",
                     metadata: dict | None = None) -> bytes:
    """``metadata``: the ``.amdgpu_metadata`` map, given instead of a YAML block in ``text``
    (a compile in the same process; checked like a parsed block)."""
    try:
        asm = Assembler(target, filename)
        if metadata is not None:
            from gcnforge.binary.metadata_schema import verify_metadata

            verify_metadata(metadata, SourceLoc(filename, 1, 1))
            asm.metadata = metadata
        return asm.run(text)
    except RecursionError:
        raise Diagnostic("expressions or symbol definitions nested too deeply", filename) from None
