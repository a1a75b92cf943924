"""The instruction tables, one per target: for gfx942 every ``isa/data/gfx942_*.json`` is
merged (lazily, once per process) into ``Instruction`` records with lookup dicts built up
front, so the assembler and disassembler never scan linearly. A compact form is cached on
disk (see ``cache_dir``) and records are built on first lookup, so a process that needs ten
instructions pays for ten.

JSON layout (written by ``tools/isa_gen``): ``{"instructions": [ {record}, ... ]}`` where a
record has the ``Instruction`` fields and ``operands`` is a list of ``Operand`` dicts;
enum values are their strings; tuples are lists; defaults may be omitted.

Other targets are a delta over a base target, so a fact shared with gfx942 lives only in
gfx942's files: ``isa/data/gfx950_GROUP.delta.json`` holds ``"base"``, ``"remove"`` (the
``[encoding, opcode, mnemonic]`` keys of base records the target lacks) and
``"instructions"`` (records the target adds, or replaces by the same key). A group's table
is the base group's records with the delta applied, in the generator's order (sorted by
that key, which is unique). ``tools/isa_gen --mcpu gfx950 --check`` regenerates the full
table from LLVM and checks that delta bit for bit.

Which table a lookup reads: the ``target=`` argument, else the active target
(``use_target("gfx950")``, a context variable: per thread and task), else gfx942.
"""

from __future__ import annotations

import contextvars
import marshal
import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gcnforge.isa.encodings import ENCODINGS
from gcnforge.isa.schema import Counter, Encoding, Instruction, Operand, OperandKind, Role

DATA_DIR = Path(__file__).parent / "data"
TARGET = "gfx942"  # the default target
DELTA_BASE = {"gfx950": "gfx942"}  # targets stored as a delta over a base target's files
_ACTIVE: contextvars.ContextVar[str] = contextvars.ContextVar("gcnforge_isa_target", default=TARGET)


def known_targets() -> tuple[str, ...]:
    return (TARGET, *DELTA_BASE)


def processor(target: str) -> str:
    """``gfx950`` from ``gfx950``, ``gfx950:xnack-`` or ``amdgcn-amd-amdhsa--gfx950``."""
    t = target.strip()
    if t.startswith("amdgcn-amd-amdhsa-"):
        t = t[len("amdgcn-amd-amdhsa-"):].lstrip("-")
    return t.split(":")[0]


def active_target() -> str:
    return _ACTIVE.get()


@contextmanager
def use_target(target: str | None) -> Iterator[str]:
    """Make ``target`` (a processor or target id; None keeps the current one) the table that
    lookups without ``target=`` read, for the ``with`` block."""
    name = processor(target) if target else _ACTIVE.get()
    if name not in known_targets():
        from gcnforge.diagnostics import Diagnostic

        raise Diagnostic(f"no instruction table for target '{target}' (known: {', '.join(known_targets())})")
    token = _ACTIVE.set(name)
    try:
        yield name
    finally:
        _ACTIVE.reset(token)


def operand_from_dict(d: dict) -> Operand:
    return Operand(
        name=d["name"], kind=OperandKind(d["kind"]), field=d.get("field"), dwords=d.get("dwords", 1),
        role=Role(d.get("role", "use")), inline_const=d.get("inline_const", False),
        literal=d.get("literal", False), text=d.get("text"), files=d.get("files", ""),
        optype=d.get("optype", ""), optional=d.get("optional", False),
    )


def instruction_from_dict(d: dict) -> Instruction:
    return Instruction(
        mnemonic=d["mnemonic"], base=d["base"], encoding=d["encoding"], opcode=d["opcode"],
        llvm_name=d.get("llvm_name", ""), operands=tuple(operand_from_dict(o) for o in d.get("operands", ())),
        modifiers=tuple(d.get("modifiers", ())), implicit_uses=tuple(d.get("implicit_uses", ())),
        implicit_defs=tuple(d.get("implicit_defs", ())), counter=tuple(Counter(c) for c in d.get("counter", ())),
        sem=d.get("sem", ""), notes=tuple(d.get("notes", ())), zero_fields=tuple(d.get("zero_fields", ())),
    )


def operand_to_dict(o: Operand) -> dict:
    d: dict = {"name": o.name, "kind": str(o.kind), "field": o.field}
    if o.dwords != 1:
        d["dwords"] = o.dwords
    if o.role != Role.USE:
        d["role"] = str(o.role)
    for k in ("inline_const", "literal", "optional"):
        if getattr(o, k):
            d[k] = True
    for k in ("text", "files", "optype"):
        if getattr(o, k):
            d[k] = getattr(o, k)
    return d


def instruction_to_dict(i: Instruction) -> dict:
    d: dict = {"mnemonic": i.mnemonic, "base": i.base, "encoding": i.encoding, "opcode": i.opcode,
               "llvm_name": i.llvm_name, "operands": [operand_to_dict(o) for o in i.operands]}
    for k in ("modifiers", "implicit_uses", "implicit_defs", "notes", "zero_fields"):
        if getattr(i, k):
            d[k] = list(getattr(i, k))
    if i.counter:
        d["counter"] = [str(c) for c in i.counter]
    if i.sem:
        d["sem"] = i.sem
    return d


# -- the compact cached form -----------------------------------------------------------
# Parsing 1.4 MB of JSON and building every record takes ~60 ms, more than a small compile
# needs. On first use the table is also written, as plain tuples, to a marshal file in the
# user's cache directory; later processes load that (~3 ms) and build an ``Instruction``
# only when it is looked up. The file name and its contents carry a key made of the
# package version, this layout's number and, per JSON file, its name, byte length and
# CRC-32 of its bytes, so an upgraded or regenerated table is not served from an older
# cache. CRC-32 rather than a cryptographic hash: the key guards against accidental
# staleness, not an adversary; CRC-32 detects every change of up to 32 consecutive bits and
# misses a random change with probability 2**-32 (with the length also compared), and it
# costs a fraction of a millisecond over the ~1.5 MB with no hashlib/OpenSSL import (~3 ms
# of each ``gcnforge as`` process before).
_LAYOUT = 1  # bump when the tuple layout below changes


def cache_dir() -> Path | None:
    """``$GCNFORGE_CACHE_DIR``, else ``$XDG_CACHE_HOME/gcnforge``, else ``~/.cache/gcnforge``;
    None (no disk cache) when none of them is an absolute path."""
    base = os.environ.get("GCNFORGE_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "gcnforge")
    return Path(base) if os.path.isabs(base) else None


def _operand_row(o: Operand) -> tuple:
    return (o.name, str(o.kind), o.field, o.dwords, str(o.role), o.inline_const, o.literal, o.text, o.files,
            o.optional, o.optype)


def _operand_of_row(r: tuple) -> Operand:
    return Operand(name=r[0], kind=OperandKind(r[1]), field=r[2], dwords=r[3], role=Role(r[4]), inline_const=r[5],
                   literal=r[6], text=r[7], files=r[8], optional=r[9], optype=r[10])


def _compact(insts: list[Instruction], key: str) -> dict:
    """The marshal-able form: distinct operands once, instructions as tuples naming them by
    index, and the three lookup dicts (first record wins, as in the JSON order)."""
    operand_ix: dict[Operand, int] = {}
    rows = []
    by_mnemonic: dict[str, int] = {}
    variants: dict[str, list[int]] = {}
    by_opcode: dict[tuple[str, int], int] = {}
    for n, i in enumerate(insts):
        ops = tuple(operand_ix.setdefault(o, len(operand_ix)) for o in i.operands)
        rows.append((i.mnemonic, i.base, i.encoding, i.opcode, i.llvm_name, ops, i.modifiers, i.implicit_uses,
                     i.implicit_defs, tuple(str(c) for c in i.counter), i.sem, i.zero_fields, i.notes))
        by_mnemonic.setdefault(i.mnemonic, n)
        variants.setdefault(i.base, []).append(n)
        by_opcode.setdefault((i.encoding, i.opcode), n)
    return _shared({"key": key, "operands": [_operand_row(o) for o in operand_ix], "instructions": rows,
                    "by_mnemonic": by_mnemonic, "variants": {k: tuple(v) for k, v in variants.items()},
                    "by_opcode": by_opcode}, {})


def _shared(x, memo: dict):
    """``x`` with equal strings and tuples made one object: marshal writes a repeated object
    once and back-references it, which halves the file and its load time."""
    if isinstance(x, (str, tuple)):
        if isinstance(x, tuple):
            x = tuple(_shared(y, memo) for y in x)
        return memo.setdefault((type(x), x), x)
    if isinstance(x, list):
        return [_shared(y, memo) for y in x]
    if isinstance(x, dict):
        return {_shared(k, memo): _shared(v, memo) for k, v in x.items()}
    return x


def group_files(target: str) -> list[Path]:
    """The data files a target's table is made of (base groups first, then deltas)."""
    base = DELTA_BASE.get(target, target)
    files = sorted(DATA_DIR.glob(f"{base}_*.json"))
    return [f for f in files if not f.name.endswith(".delta.json")] + (
        sorted(DATA_DIR.glob(f"{target}_*.delta.json")) if target != base else [])


def record_key(d: dict) -> tuple[str, int, str]:
    return (d["encoding"], d["opcode"], d["mnemonic"])


def apply_delta(base: list[dict], delta: dict) -> list[dict]:
    """A group's records: ``base`` minus ``delta["remove"]``, with ``delta["instructions"]``
    added or replacing the record of the same key, sorted by key."""
    rows = {record_key(d): d for d in base}
    for k in delta.get("remove", ()):
        rows.pop(tuple(k), None)
    for d in delta.get("instructions", ()):
        rows[record_key(d)] = d
    return [rows[k] for k in sorted(rows)]


def target_records(target: str, blobs: list[bytes] | None = None) -> list[dict]:
    """Every record of ``target``'s table, as dicts in table order (no cache)."""
    import json

    files = group_files(target)
    blobs = blobs if blobs is not None else [f.read_bytes() for f in files]
    docs = {f.name: json.loads(b) for f, b in zip(files, blobs)}
    base = DELTA_BASE.get(target, target)
    out: list[dict] = []
    for f in files:
        if f.name.endswith(".delta.json"):
            continue
        recs = docs[f.name]["instructions"]
        if target != base:
            group = f.name[len(base) + 1:-len(".json")]
            recs = apply_delta(recs, docs.get(f"{target}_{group}.delta.json", {}))
        out.extend(recs)
    return out


def _read_sources(target: str) -> tuple[list[bytes], str]:
    from gcnforge import __version__

    files = group_files(target)
    blobs = [path.read_bytes() for path in files]
    key = f"gcnforge {__version__} layout {_LAYOUT} {target}" + "".join(
        f" {f.name}:{len(b)}:{zlib.crc32(b):08x}" for f, b in zip(files, blobs))
    return blobs, key


def _cache_name(target: str, key: str) -> str:
    # the key is long (a file name each); the name needs only to tell keys apart, and the
    # whole key stored in the file is compared on load
    return f"isa-{target}-{zlib.crc32(key.encode()):08x}-{zlib.adler32(key.encode()):08x}.marshal"


def _load_compact(target: str) -> dict:
    blobs, key = _read_sources(target)
    where = cache_dir()
    path = where / _cache_name(target, key) if where is not None else None
    try:
        if path is None:
            raise OSError("no cache directory")
        data = marshal.loads(path.read_bytes())
        if isinstance(data, dict) and data.get("key") == key:
            return data
    except (OSError, EOFError, ValueError, TypeError):
        pass  # absent, unreadable or damaged: rebuild below
    import json  # only when the cache is cold

    if target in DELTA_BASE:
        insts = [instruction_from_dict(d) for d in target_records(target, blobs)]
    else:  # the base target's files in order, as before
        insts = [instruction_from_dict(d) for b in blobs for d in json.loads(b)["instructions"]]
    data = _compact(insts, key)
    if path is None:
        return data
    tmp = None
    import tempfile  # only when the cache is written

    try:  # best effort: a read-only home only costs the next process the JSON parse again
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(marshal.dumps(data))
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the whole new one
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return data


class _Table:
    def __init__(self, target: str) -> None:
        data = _load_compact(target)
        self._operands = tuple(_operand_of_row(r) for r in data["operands"])
        self._rows = data["instructions"]
        self._objs: list[Instruction | None] = [None] * len(self._rows)
        self.by_mnemonic_ix: dict[str, int] = data["by_mnemonic"]
        self.variants_ix: dict[str, tuple[int, ...]] = data["variants"]
        self.by_opcode_ix: dict[tuple[str, int], int] = data["by_opcode"]
        self._all: tuple[Instruction, ...] | None = None

    def get(self, n: int) -> Instruction:
        inst = self._objs[n]
        if inst is None:
            r = self._rows[n]
            ops = self._operands
            inst = self._objs[n] = Instruction(
                mnemonic=r[0], base=r[1], encoding=r[2], opcode=r[3], llvm_name=r[4],
                operands=tuple(ops[k] for k in r[5]), modifiers=r[6], implicit_uses=r[7], implicit_defs=r[8],
                counter=tuple(Counter(c) for c in r[9]), sem=r[10], zero_fields=r[11], notes=r[12])
        return inst

    def all(self) -> tuple[Instruction, ...]:
        if self._all is None:
            self._all = tuple(self.get(n) for n in range(len(self._rows)))
        return self._all


_LOADED: dict[str, _Table] = {}  # target -> its table, built on first use


def _table(target: str | None = None) -> _Table:
    name = target or _ACTIVE.get()
    t = _LOADED.get(name)
    if t is None:
        t = _LOADED[name] = _Table(name)
    return t


def reload() -> None:
    """Forget the cached tables (after regenerating the JSON in-process)."""
    _LOADED.clear()


def instructions(target: str | None = None) -> tuple[Instruction, ...]:
    return _table(target).all()


def by_mnemonic(m: str, target: str | None = None) -> Instruction | None:
    t = _table(target)
    n = t.by_mnemonic_ix.get(m)
    return None if n is None else t.get(n)


def variants(base: str, target: str | None = None) -> tuple[Instruction, ...]:
    t = _table(target)
    return tuple(t.get(n) for n in t.variants_ix.get(base, ()))


def by_opcode(encoding: str, opcode: int, target: str | None = None) -> Instruction | None:
    t = _LOADED.get(target or _ACTIVE.get()) or _table(target)  # the decoder's hot path
    n = t.by_opcode_ix.get((encoding, opcode))
    return None if n is None else t.get(n)


def encodings() -> dict[str, Encoding]:
    return ENCODINGS


def mnemonics(target: str | None = None) -> tuple[str, ...]:
    return tuple(_table(target).by_mnemonic_ix)
