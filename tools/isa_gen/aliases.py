"""Regenerate ``python/gcnforge/isa/data/gfx942.aliases.json`` (with ``--mcpu gfx950``, the
gfx950 delta over it): every mnemonic alias llvm-mc 22 accepts for the target, with the
table records it encodes as.

    python -m tools.isa_gen.aliases [--mcpu gfx942|gfx950] [--check]

An alias here is a spelling that is neither a table mnemonic nor a table ``base`` (the
suffix-less name the assembler already expands to its e32/e64/sdwa/dpp records). Where the
candidates come from, all of it LLVM's AMDGPU TableGen output or rules of its parser:

* the assembly matcher's mnemonic table (``MnemonicTable`` of the ``AMDGPUGenAsmMatcher.inc``
  that ``llvm-tblgen -gen-asm-matcher`` writes from ``llvm/lib/Target/AMDGPU/*.td``), read
  out of the installed LLVM 22 library: every instruction spelling of every AMDGPU
  generation and every ``InstAlias`` (the gfx940 MFMA renames of VOP3PInstructions.td's
  ``VOP3P_Real_MFMA_gfx940_aliases``: ``v_mfma_f32_32x32x8f16`` for
  ``v_mfma_f32_32x32x8_f16``; gfx950's ``v_mfma_f32_16x16x32f16`` ...). Reading the table
  from the same LLVM that is the oracle keeps ``--check`` reproducible without the sources.
  ``tests/asm/test_aliases.py`` checks that llvm-mc refuses every other name of it on the
  target ("not supported on this GPU"), so none is left out;
* ``MnemonicAlias``/``AMDGPUMnemonicAlias`` names are not in that table (the generated
  ``applyMnemonicAliases`` compares them in code), so every table mnemonic's shortenings at
  an ``_`` (``v_accvgpr_read`` for ``v_accvgpr_read_b32``, VOP3PInstructions.td) and its
  spellings with an ``_`` next to a digit dropped (``v_smfmac_f32_16x16x32f16``) are probed;
* the parser's encoding suffixes (``AMDGPUAsmParser::parseMnemonicSuffix``): ``_e32``,
  ``_e64``, ``_sdwa``, ``_dpp`` after any table mnemonic or alias that has none
  (``s_nop_e32``, ``v_mfma_f32_32x32x8_f16_e64``) and a second one after a table mnemonic
  that has one (``v_mov_b32_sdwa_e64``: ``stacked``);
* ``_vgprcd`` after every MFMA name: the suffix of LLVM's VGPR-accumulator MFMA records
  (``V_MFMA_*_vgprcd_e64``). It is part of record names only: llvm-mc refuses every one.

Each candidate is probed with ``llvm-mc -show-encoding`` on up to ``SAMPLES`` corpus lines
(``tools/isa_gen/corpus*``; gfx950 adds ``gfx950_forms``) of each related table mnemonic:
the one it was derived from, else the mnemonics it equals without ``_``, else the closest
spellings (``difflib``). It is an alias when LLVM encodes such a line; what it stands for
is the table record LLVM's bytes decode as, ``[mnemonic, encoding, opcode]`` (its
canonical name, and the record itself: ``v_clrexcp_e64`` is the VOP3 ``v_clrexcp``).
Left out, and printed by the generator: a spelling whose bytes no table record decodes
(``v_nop_sdwa``: a form the table lacks, as LLVM 22's disassembler does not decode it).
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

from gcnforge.isa import table
from gcnforge.isa.encodings import ENCODINGS
from tools.isa_gen import common

OUT = table.DATA_DIR / "gfx942.aliases.json"
BASE = "gfx942"  # gfx950's file is a delta over gfx942's
SUFFIXES = ("_e32", "_e64", "_sdwa", "_dpp")
SAMPLES = 2  # corpus lines tried per related mnemonic
SKIPPED: set[str] = set()  # spellings llvm-mc encodes as bytes no table record decodes
_ANCHOR = "v_accvgpr_read_b32"  # an entry of the matcher's mnemonic table
_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_.")


# -- the matcher's mnemonic table -------------------------------------------------------------
def _llvm_binaries() -> list[Path]:
    """llvm-mc and the LLVM shared libraries it may link (Debian: ``lib/libLLVM.so.22.1``)."""
    mc = Path(common.require_tool("llvm-mc")).resolve()
    libs = sorted((mc.parent.parent / "lib").glob("libLLVM*.so*"))
    return [mc, *(p.resolve() for p in libs)]


def matcher_mnemonics() -> list[str]:
    """The AMDGPU assembly matcher's mnemonic table: length-prefixed names, sorted; found by
    one entry (``_ANCHOR``) and walked from there both ways while the entries stay valid."""
    anchor = bytes([len(_ANCHOR)]) + _ANCHOR.encode()
    for path in dict.fromkeys(_llvm_binaries()):
        data = path.read_bytes()
        at = data.find(anchor)
        if at >= 0:
            return _walk(data, at)
    raise SystemExit("the AMDGPU assembly matcher's mnemonic table was not found in LLVM 22's binaries")


def _walk(data: bytes, at: int) -> list[str]:
    start = at
    while True:  # back: the bytes before an entry are the previous name, after its length byte
        k = start - 1
        while k >= 0 and data[k] in _CHARS:
            k -= 1
        n = start - k - 1
        if n == 0 or data[k] != n:
            break
        start = k
    names = []
    p = start
    while data[p] and all(c in _CHARS for c in data[p + 1:p + 1 + data[p]]):
        names.append(data[p + 1:p + 1 + data[p]].decode())
        p += 1 + data[p]
    if names != sorted(names) or _ANCHOR not in names:
        raise SystemExit("the AMDGPU assembly matcher's mnemonic table did not read back sorted")
    return names


# -- candidates ----------------------------------------------------------------------------------
def _shortenings(m: str) -> list[str]:
    parts = m.split("_")
    return ["_".join(parts[:k]) for k in range(2, len(parts))]


def _dropped_underscore(m: str) -> list[str]:
    """``m`` without one ``_`` next to a digit (``32x32x8_f16`` -> ``32x32x8f16``)."""
    return [m[:i] + m[i + 1:] for i, c in enumerate(m)
            if c == "_" and 1 < i < len(m) - 1 and (m[i - 1].isdigit() or m[i + 1].isdigit())]


def _squash(m: str) -> str:
    return m.replace("_", "")


def candidates(known: set[str], mnemonics: list[str]) -> dict[str, set[str]]:
    """Candidate spelling (without an encoding suffix) -> the table mnemonics whose corpus
    lines it is probed with."""
    out: dict[str, set[str]] = {}

    def add(c: str, rel: str) -> None:
        if c not in known:
            out.setdefault(c, set()).add(rel)

    for m in mnemonics:
        for c in _shortenings(m) + _dropped_underscore(m) + ([m + "_vgprcd"] if "mfma" in m else []):
            add(c, m)
    squashed: dict[str, list[str]] = {}
    by_word: dict[str, list[str]] = {}
    for m in mnemonics:
        squashed.setdefault(_squash(m), []).append(m)
        by_word.setdefault(_word(m), []).append(m)
    for name in matcher_mnemonics():
        if name in known:
            continue
        rel = squashed.get(_squash(name)) or difflib.get_close_matches(name, by_word.get(_word(name), []), 3, 0.6)
        for r in rel:
            add(name, r)
    return out


def _word(m: str) -> str:
    """The first word and two letters of the second: the pool of close spellings."""
    head, _, rest = m.partition("_")
    return f"{head}_{rest[:2]}"


def suffixed(names: dict[str, set[str]], known: set[str]) -> dict[str, set[str]]:
    """Each name without an encoding suffix, with each suffix (when not a table mnemonic)."""
    return {n + s: rel for n, rel in names.items() if not n.endswith(SUFFIXES) for s in SUFFIXES
            if n + s not in known}


def stacked(mnemonics: list[str], known: set[str]) -> dict[str, set[str]]:
    """Each table mnemonic that ends in an encoding suffix, with a second one: the parser strips
    only the last (``parseMnemonicSuffix``) and matches the rest against the matcher table, which
    holds suffixed spellings too (gfx9's ``v_mov_b32_sdwa``, gfx11's ``v_trunc_f32_e64``), so
    llvm-mc 22 takes ``v_mov_b32_sdwa_e64`` as ``v_mov_b32_e64`` and ``v_trunc_f32_e64_e32`` as
    ``v_trunc_f32_e32``. Related: the record the last suffix names, and the mnemonic itself."""
    have = set(mnemonics)
    out: dict[str, set[str]] = {}
    for m in mnemonics:
        first = next((s for s in SUFFIXES if m.endswith(s)), None)
        if first is None:
            continue
        for s in SUFFIXES:
            if m + s not in known:
                out[m + s] = {m} | ({m[: -len(first)] + s} & have)
    return out


# -- probing -------------------------------------------------------------------------------------
def samples(target: str) -> dict[str, list[str]]:
    """Table mnemonic -> up to SAMPLES corpus lines spelled with it, which LLVM accepts."""
    from tools.isa_gen import corpus, gfx950_forms

    with table.use_target(target):
        lines = [line for _, line in corpus.forms()]
    if target == "gfx950":
        lines += list(gfx950_forms.FORMS)
    by: dict[str, list[str]] = {}
    for line in lines:
        m = line.split(None, 1)[0]
        got = by.setdefault(m, [])
        if len(got) < SAMPLES:
            got.append(line)
    flat = [(m, line) for m, ls in by.items() for line in ls]
    res = common.assemble_text([line for _, line in flat], target)
    good: dict[str, list[str]] = {}
    for (m, line), (_, enc, _err) in zip(flat, res):
        if enc is not None:
            good.setdefault(m, []).append(line)
    return good


def probe(target: str) -> dict[str, list[list]]:
    """Alias -> the records it encodes as, ``[mnemonic, encoding, opcode]`` each, in the
    order the assembler tries them (shorter encodings first, as LLVM picks them)."""
    recs = table.instructions(target)
    known = {i.mnemonic for i in recs} | {i.base for i in recs}
    mnemonics = sorted({i.mnemonic for i in recs})
    lines_of = samples(target)
    found = _accepted(candidates(known, mnemonics), lines_of, target)
    more = suffixed({m: {m} for m in mnemonics}, known)
    for a, rows in found.items():
        for s, rel in suffixed({a: {r[0] for r in rows}}, known).items():
            more.setdefault(s, set()).update(rel)
    found.update(_accepted(more, lines_of, target))
    found.update(_accepted(stacked(mnemonics, known), lines_of, target))
    return {a: [list(r) for r in sorted(v, key=lambda r: (ENCODINGS[r[1]].size, r))] for a, v in sorted(found.items())}


def _accepted(cands: dict[str, set[str]], lines_of: dict[str, list[str]], target: str) -> dict[str, set[tuple]]:
    """The candidates llvm-mc encodes in a related mnemonic's corpus line, each with the
    table records of what it encoded (found by decoding LLVM's bytes: the name LLVM prints
    can be shared by two records, ``v_clrexcp`` for the VOP1 and the VOP3 one, or belong
    to none, ``v_mul_lo_i32``: ``v_mul_lo_u32``'s encoding)."""
    from gcnforge.asm import decode

    probes = [(c, c + line[len(line.split(None, 1)[0]):]) for c in sorted(cands) for rel in sorted(cands[c])
              for line in lines_of.get(rel, ())]
    out: dict[str, set[tuple]] = {}
    for (c, _), (_text, enc, _err) in zip(probes, common.assemble_text([p for _, p in probes], target)):
        if enc is None:
            continue
        inst = decode(enc, target=target).inst
        if inst is None:  # not an alias: an instruction the table lacks (llvm-mc cannot decode it either)
            SKIPPED.add(f"{target}: {c} ({enc.hex()})")
            continue
        out.setdefault(c, set()).add((inst.mnemonic, inst.encoding, inst.opcode))
    return out


# -- files ---------------------------------------------------------------------------------------
def render(target: str) -> str:
    found = probe(target)
    head = {"generator": f"tools/isa_gen/aliases.py (python -m tools.isa_gen.aliases --mcpu {target})",
            "source": f"LLVM 22 AMDGPU assembly matcher table + parser suffix rules, probed with llvm-mc -mcpu={target}",
            "target": target}
    if target == BASE:
        body = {"aliases": found}
    else:
        base = json.loads(OUT.read_text())["aliases"]
        body = {"base": BASE, "remove": sorted(set(base) - set(found)),
                "aliases": {a: c for a, c in found.items() if base.get(a) != c}}
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    for k, v in body.items():
        if k == "aliases":
            rows = [f"  {json.dumps(a)}: {json.dumps(c)}" for a, c in v.items()]
            lines.append(' "aliases": {' + ("\n" + ",\n".join(rows) + "\n }" if rows else "}"))
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v)},")
    return "\n".join(lines) + "\n}\n"


def out_path(target: str) -> Path:
    return OUT.with_name(f"{target}.aliases.json")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.isa_gen.aliases")
    ap.add_argument("--check", action="store_true", help="compare with the committed file, write nothing")
    ap.add_argument("--mcpu", default=BASE, choices=table.known_targets())
    args = ap.parse_args(argv)
    text = render(args.mcpu)
    for s in sorted(SKIPPED):
        print(f"skipped, no table record decodes LLVM's bytes: {s}")
    out = out_path(args.mcpu)
    if args.check:
        same = out.exists() and out.read_text() == text
        print(f"{out}: {'up to date' if same else 'DIFFERS'}")
        return 0 if same else 1
    out.write_text(text)
    print(f"wrote {out} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
