"""Generate ``python/gcnforge/isa/data/gfx942_vector.json``: every vector-ALU instruction
form LLVM 22 knows for gfx942 (VOP1, VOP2, VOPC, VOP3A, VOP3B, VOP3P, VOP3P-MAI, and the
DPP/SDWA forms of VOP1/VOP2/VOPC).

Method (LLVM is the source; nothing is listed by hand):

1. Discovery: disassemble every opcode value of every vector encoding with sentinel field
   values (vdst=10, src0=20, src1/vsrc1=30, src2=40, VOP3B sdst=0) through
   ``llvm-mc --disassemble -show-inst``, with a few templates per encoding (VGPR sources,
   SGPR sources, fewer sources, all-zero) because LLVM refuses bits in unused fields.
   The printed mnemonic, LLVM's opcode name and which sentinel appears where give the
   operand list (field, register file, width).
2. Probing: each found form is re-assembled with candidate operands (SGPR, AGPR, inline
   constant, literal) in each source slot, and with each modifier (``-x``, ``|x|``,
   ``sext()``, clamp, omod, op_sel, ...) to learn what LLVM accepts.
3. Facts LLVM's text does not carry come from AMD's "AMD Instinct MI300 Instruction Set
   Architecture Reference Guide" (CDNA3): semantic class (ch. 6 VALU, 6.x transcendental
   unit, ch. 7 MFMA), implicit EXEC/VCC uses and definitions (ch. 6.1-6.4, VOPC 6.4,
   V_CNDMASK/V_ADDC/V_DIV_FMAS; V_READLANE/V_WRITELANE ignore EXEC, ch. 6.7 "Lane
   operations").

Modifier names used in ``Instruction.modifiers`` (the VOP codecs in
``gcnforge.asm.vop*`` rely on them):

* ``neg0..2``/``abs0..2``: float source modifier accepted on source i (``-x``, ``|x|``);
  ``sext0``/``sext1``: SDWA integer ``sext(x)``.
* ``clamp``, ``omod`` (``mul:2``, ``mul:4``, ``div:2``), ``op_sel`` (VOP3A, gfx9 f16
  ops), ``op_sel_hi``, ``neg_lo``, ``neg_hi`` (VOP3P), ``cbsz``, ``abid``, ``blgp``,
  ``neg`` (MFMA; ``neg`` only for f64 MFMA).
* DPP: ``dpp_ctrl``, ``row_mask``, ``bank_mask``, ``bound_ctrl``; SDWA: ``dst_sel``,
  ``dst_unused``, ``src0_sel``, ``src1_sel``.
"""

from __future__ import annotations

# Both registers are read and written: v_swap_b32 (LLVM VOP_SWAP_I32: "$vdst = $src1, $vdst1 =
# $src0") and gfx950's v_permlane{16,32}_swap_b32 (the CDNA4 ISA pseudo-code writes VDST and
# SRC0; LLVM's llvm.amdgcn.permlane{16,32}.swap return both new values, clang's builtins a pair)
SWAPS = ("v_swap_b32", "v_permlane16_swap_b32", "v_permlane32_swap_b32")

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gcnforge.isa.table import instruction_from_dict  # noqa: E402
from tools.isa_gen import common  # noqa: E402
from tools.isa_gen.vector_discover import _parse_reg, discover, operands_of, split_text, strip_suffix  # noqa: E402
from tools.isa_gen.vector_types import implicit, is_scale_load, sem_class, src_optype  # noqa: E402

REF_ISA = "AMD Instinct MI300 ISA Reference Guide (CDNA3)"

__all__ = ["discover", "generate", "rows", "split_text"]


# ---------------------------------------------------------------------------------------
# 3. build records
# ---------------------------------------------------------------------------------------
_ENC_OF = {"VOP1": "VOP1", "VOP2": "VOP2", "VOPC": "VOPC", "VOP1_DPP": "VOP1_DPP", "VOP2_DPP": "VOP2_DPP",
           "VOPC_DPP": "VOPC_DPP", "VOP1_SDWA": "VOP1_SDWA", "VOP2_SDWA": "VOP2_SDWA", "VOPC_SDWA": "VOPC_SDWA"}


def build_operands(rec: dict, base: str) -> tuple[str, list[dict]]:
    fam = rec["family"]
    raw = operands_of(rec)
    mfma = base.startswith(("v_mfma", "v_smfmac")) and not is_scale_load(base)
    enc = _ENC_OF.get(fam)
    if fam == "VOP3":
        enc = "VOP3B" if any(o["name"] == "sdst" and o.get("file") == "s" for o in raw) else "VOP3A"
    elif fam == "VOP3P":
        enc = "VOP3P_MAI" if rec["opcode"] >= 64 else "VOP3P"
    ops: list[dict] = []
    slot = 0
    for o in raw:
        if fam == "VOPC_SDWA" and o.get("kind") == "special":
            # SDWA compares write vcc (sd=0, printed "vcc") or any SGPR pair in sdst (sd=1)
            ops.append({"name": "sdst", "kind": "sreg", "field": "sdst", "dwords": 2, "files": "s", "role": "def"})
            continue
        if o.get("kind") in ("special", "imm"):
            if o.get("kind") == "imm":
                slot += 1  # the K constant takes a source position in the name/print order
            ops.append({k: v for k, v in o.items() if k != "pos"})
            continue
        name, f, n = o["name"], o["file"], o["dwords"]
        d: dict = {"dwords": n} if n != 1 else {}
        d["pos"] = o["pos"]
        if name == "vdst" and f == "s":
            d.update(name="sdst", kind="sreg", field="vdst", files="s", role="def")
        elif name in ("vdst",):
            if mfma:
                d.update(name="vdst", kind="av", field="vdst", files="va", role="def")
            elif f == "a":
                d.update(name="vdst", kind="agpr", field="vdst", files="a", role="def")
            else:
                d.update(name="vdst", kind="vgpr", field="vdst", files="v", role="def")
            if base in SWAPS:
                d["role"] = "defuse"
            if base.startswith(("v_mac_", "v_fmac_", "v_pk_fmac_", "v_dot2c_", "v_dot4c_", "v_dot8c_")) or \
                    base.startswith("v_fma_mix") and base.endswith(("lo_f16", "hi_f16")):
                d["role"] = "defuse"
        elif name == "sdst_vdst":
            d.update(name="sdst", kind="sreg", field="vdst", files="s", role="def")
        elif name == "sdst":
            d.update(name="sdst", kind="sreg", field="sdst", files="s", role="def")
        else:
            idx = int(name[-1])
            fld = name
            if fam in ("VOP2", "VOPC", "VOP2_DPP", "VOPC_DPP", "VOP2_SDWA", "VOPC_SDWA") and name == "src1":
                fld = "vsrc1"
            d.update(name=fld if fld == "vsrc1" else name, field=fld, files=f)
            if fam.endswith("_DPP") and name == "src0":
                d["kind"] = "vgpr"
            elif fld == "vsrc1":
                d["kind"] = "vgpr"
            elif mfma and base.startswith("v_smfmac") and name == "src2":
                d["kind"] = "vgpr"  # the sparsity index register
            elif mfma:
                d["kind"] = "av"
                d["files"] = "va"
            elif f == "a":
                d["kind"] = "agpr"
            else:
                d["kind"] = "src"
            d["optype"] = src_optype(base, idx if idx < 3 else slot, n)
            if base in SWAPS:
                d["role"] = "defuse"
                d["kind"] = "vgpr"
            slot += 1
        ops.append(d)
    return enc, ops


def _src_positions(toks: list[str], ops: list[dict]) -> list[tuple[dict, int]]:
    out = []
    for o in ops:
        if o.get("kind") in ("src", "vgpr", "agpr", "av") and o.get("role", "use") == "use" and o["name"] != "vdst":
            p = [j for j, t in enumerate(toks) if _tok_is(t, o)]
            if p:
                out.append((o, p[0]))
    return out


def _sreg(n: int, first: int = 2) -> str:
    return f"s{first}" if n == 1 else f"s[{first}:{first + n - 1}]"


def _disjoint(toks: list[str]) -> list[str]:
    """The same operands re-numbered into non-overlapping ranges (MFMA D and C may not
    partially overlap)."""
    out = []
    nxt = {"v": 0, "a": 0, "s": 0}
    for t in toks:
        r = _parse_reg(t)
        if r is None:
            out.append(t)
            continue
        f, _, n = r
        lo = nxt[f]
        nxt[f] = lo + max(n, 2) + (max(n, 2) % 2)
        if f == "s":
            lo = (lo + 3) // 4 * 4 if n > 2 else lo
        out.append(f"{f}{lo}" if n == 1 else f"{f}[{lo}:{lo + n - 1}]")
    return out


def _tail(rec: dict) -> str:
    """DPP forms need their control word written out (LLVM has no default for it)."""
    if rec["family"].endswith("_DPP"):
        if any(r[2] == 2 for t in split_text(rec["text"])[1] if (r := _parse_reg(t))):
            return " row_newbcast:1"  # the DP ALU takes no other DPP control
        return " " + " ".join(split_text(rec["text"])[2])
    return ""


def valid_bases(recs: list[dict]) -> None:
    """Find, per form, operand text LLVM assembles: the decoded sentinel text, or that text
    with one source (or all sources) replaced by an SGPR (carry-ins, lane selects and
    v_writelane's data must be scalar). ``scalar_only`` lists the slots that had to be."""
    lines: list[tuple[int, list[str], tuple[int, ...]]] = []
    for i, r in enumerate(recs):
        mnem, toks, _ = split_text(r["text"])
        toks = ["0x1234" if t.startswith("0x") else t for t in toks]  # a K constant that fits f16 forms too
        lines.append((i, toks, ()))
        lines.append((i, _disjoint(toks), ()))
        pos = _src_positions(toks, r["ops"])
        for o, j in pos:
            t2 = list(toks)
            t2[j] = _sreg(o.get("dwords", 1))
            lines.append((i, t2, (j,)))
        if len(pos) > 1:
            t2 = list(toks)
            for o, j in pos:
                t2[j] = _sreg(o.get("dwords", 1))
            lines.append((i, t2, tuple(j for _, j in pos)))
    srcs = [recs[i]["mnemonic"] + (" " + ", ".join(t) if t else "") + _tail(recs[i]) for i, t, _ in lines]
    res = common.assemble_text(srcs)
    for (i, toks, alt), (_, _, err) in zip(lines, res):
        if "base_toks" not in recs[i] and err is None:
            recs[i]["base_toks"] = toks
            recs[i]["scalar_only"] = alt
    for r in recs:
        r.setdefault("base_toks", ["0x1234" if t.startswith("0x") else t for t in split_text(r["text"])[1]])
        r.setdefault("scalar_only", ())


def probe_forms(recs: list[dict]) -> None:
    """Assemble candidate operands/modifiers into each form; fills ``rec['accept']``."""
    valid_bases(recs)
    lines: list[tuple[int, str, str]] = []  # (rec index, probe key, source)
    for i, r in enumerate(recs):
        mnem = r["mnemonic"]
        toks = r["base_toks"]
        ops = r["ops"]
        fam = r["family"]
        base_line = mnem + (" " + ", ".join(toks) if toks else "")
        sent = split_text(r["text"])[1]
        lines.append((i, "base", base_line + _tail(r)))
        for o, j in _src_positions(sent, ops):
            n = o.get("dwords", 1)
            orig = toks[j]
            cands = {
                "s": _sreg(n),
                "a": "a2" if n == 1 else f"a[2:{1 + n}]",
                "inl": "1",
                "lit": "0x1234",
                "neg": "-" + orig,
                "abs": "|" + orig + "|",
                "sext": "sext(" + orig + ")",
            }
            for key, val in cands.items():
                t2 = list(toks)
                t2[j] = val
                lines.append((i, f"{o['name']}:{key}", mnem + " " + ", ".join(t2) + _tail(r)))
        nsrc = sum(1 for o in ops if o.get("name", "").startswith("src"))
        one = "[" + ",".join(["1"] + ["0"] * (nsrc - 1)) + "]"
        mod_probes = {}
        if fam == "VOP3":
            mod_probes = {"clamp": " clamp", "omod": " mul:2",
                          "op_sel": " op_sel:[" + ",".join(["1"] + ["0"] * nsrc) + "]"}
        if fam == "VOP3P":
            if _is_mai(r):
                mod_probes = {"cbsz": " cbsz:1", "abid": " abid:1", "blgp": " blgp:1", "neg": " neg:[1,0,0]"}
            else:
                mod_probes = {"clamp": " clamp", "op_sel": " op_sel:" + one, "op_sel_hi": " op_sel_hi:" + one,
                              "neg_lo": " neg_lo:" + one, "neg_hi": " neg_hi:" + one}
        if fam.endswith("_SDWA"):
            mod_probes = {"clamp": " clamp", "omod": " mul:2", "dst_sel": " dst_sel:WORD_1",
                          "dst_unused": " dst_unused:UNUSED_PAD"}
        for key, val in mod_probes.items():
            lines.append((i, "mod:" + key, base_line + _tail(r) + val))
    res = common.assemble_text([s for _, _, s in lines])
    for r in recs:
        r["accept"] = {}
    base_enc: dict[int, bytes | None] = {}
    for (i, key, src), (text, enc, err) in zip(lines, res):
        # LLVM 22 also "accepts" some forms it then prints as invalid (a constant for a gfx950
        # VReg_64_Align2 source: "0/*Invalid immediate*/"); those are refusals
        ok = err is None and text is not None and text.split(" ")[0] == recs[i]["mnemonic"] and "/*Invalid" not in text
        if key == "base":
            base_enc[i] = enc if ok else None
        elif key.startswith("mod:") or key.endswith((":neg", ":abs", ":sext")):
            # a modifier LLVM accepts but drops (v_pk_fmac_f16 op_sel, sext...) is not one
            ok = ok and enc != base_enc.get(i)
        recs[i]["accept"][key] = ok


def _tok_is(t: str, o: dict) -> bool:
    r = _parse_reg(t)
    if r is None:
        return False
    want = {"src0": 20, "src1": 30, "vsrc1": 30, "src2": 40}.get(o["name"])
    return r[1] == want


def _is_mai(r: dict) -> bool:
    return r["opcode"] >= 64 or (r["base"].startswith(("v_mfma", "v_smfmac")) and not is_scale_load(r["base"]))


def finalize(recs: list[dict]) -> list[dict]:
    out = []
    for r in recs:
        fam = r["family"]
        acc = r["accept"]
        mods: list[str] = []
        for o in r["ops"]:
            name = o.get("name", "")
            if o.get("kind") in ("src", "vgpr", "av", "agpr") and name.startswith(("src", "vsrc")) and \
                    o.get("role", "use") == "use" and r["base"] != "v_swap_b32":
                if o["kind"] == "src":
                    if o.get("pos") in r["scalar_only"]:
                        o["files"] = "s"  # LLVM refuses a VGPR here
                    o["inline_const"] = bool(acc.get(f"{name}:inl"))
                    o["literal"] = bool(acc.get(f"{name}:lit"))
                    if not acc.get(f"{name}:s") and not o["inline_const"] and not o["literal"]:
                        o["kind"] = "vgpr"
                        o.pop("optype", None)
                    elif o.get("files") != "s":
                        o["files"] = "sv"
                elif o["kind"] == "av":
                    o["inline_const"] = bool(acc.get(f"{name}:inl"))
                    o["literal"] = bool(acc.get(f"{name}:lit"))
                elif o["kind"] == "vgpr" and fam.endswith("_SDWA") and \
                        (acc.get(f"{name}:s") or acc.get(f"{name}:inl")):
                    # an SDWA source with its s bit takes SGPRs and inline constants; where an
                    # SGPR probe fails only on the constant bus (v_cndmask_b32/v_addc_co_u32 read
                    # vcc) the inline constant still shows the s bit (asm checks the bus)
                    o["kind"] = "src"
                    o["files"] = "sv"
                    o["optype"] = src_optype(r["base"], int(name[-1]) if name[-1].isdigit() else 1,
                                             o.get("dwords", 1))
        srcs = [o for o in r["ops"] if o.get("name", "").startswith(("src", "vsrc")) and o.get("role", "use") == "use"
                and o.get("kind") != "special"]
        for k, o in enumerate(srcs):
            nm = o["name"]
            idx = 1 if nm == "vsrc1" else int(nm[-1])
            if acc.get(f"{nm}:neg"):
                mods.append(f"neg{idx}")
            if acc.get(f"{nm}:abs"):
                mods.append(f"abs{idx}")
            if acc.get(f"{nm}:sext") and fam.endswith("_SDWA"):  # sext() is SDWA-only syntax
                mods.append(f"sext{idx}")
        order = []
        if fam == "VOP3":
            order = ["clamp", "omod", "op_sel"]
        elif fam == "VOP3P":
            order = ["op_sel", "op_sel_hi", "neg_lo", "neg_hi", "clamp"] if not _is_mai(r) else \
                ["cbsz", "abid", "blgp", "neg"]
        elif fam.endswith("_SDWA"):
            order = ["clamp", "omod"]
        for m in order:
            if acc.get("mod:" + m):
                mods.append(m)
        if fam.endswith("_DPP"):
            mods += ["dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl"]
        if fam.endswith("_SDWA"):
            if r["base"] == "v_pk_fmac_f16":
                # LLVM 22 accepts -x/|x|/sext(x) here but prints none of them back: not modifiers
                mods = [m for m in mods if not m.startswith(("neg", "abs", "sext"))]
            mods += [m for m in ("dst_sel", "dst_unused") if acc.get("mod:" + m)]
            if r["ops"]:  # (v_nop_sdwa has no operand and no select: every SDWA field 0)
                mods.append("src0_sel")
            if fam != "VOP1_SDWA":
                mods.append("src1_sel")
        ops = []
        for o in r["ops"]:
            o = dict(o)
            o.pop("pos", None)
            o.setdefault("role", "use")
            o.setdefault("field", None)
            ops.append(o)
        uses, defs = implicit(r["base"], r["mnemonic"], fam, ops)
        rec = {"mnemonic": r["mnemonic"], "base": r["base"], "encoding": r["encoding"], "opcode": r["opcode"],
               "llvm_name": r["llvm_name"], "operands": [_clean_op(o) for o in ops]}
        if mods:
            rec["modifiers"] = mods
        if uses:
            rec["implicit_uses"] = uses
        if defs:
            rec["implicit_defs"] = defs
        rec["sem"] = sem_class(r["base"], ops)
        notes = []
        if uses or defs:
            notes.append(f"implicit operands: {REF_ISA}, ch. 6 (VALU) / 6.4 (VOPC)")
        if rec["sem"] in ("trans", "mfma", "valu_dp"):
            notes.append(f"sem class: {REF_ISA}, ch. 6-7")
        if notes:
            rec["notes"] = notes
        out.append(rec)
    return out


def _clean_op(o: dict) -> dict:
    d = {"name": o["name"], "kind": o["kind"], "field": o.get("field")}
    if o.get("dwords", 1) != 1:
        d["dwords"] = o["dwords"]
    if o.get("role", "use") != "use":
        d["role"] = o["role"]
    for k in ("inline_const", "literal"):
        if o.get(k):
            d[k] = True
    for k in ("text", "files", "optype"):
        if o.get(k):
            d[k] = o[k]
    return d


def generate() -> dict:
    recs = discover()
    for r in recs:
        mnem = split_text(r["text"])[0]
        if mnem == "v_nop" and r["family"] == "VOP3":
            mnem = "v_nop_e64"  # LLVM assembles this name but prints the VOP3 form as plain v_nop
        if mnem == "v_nop" and r["family"] == "VOP1_SDWA":
            mnem = "v_nop_sdwa"  # likewise (V_NOP_sdwa_gfx9: f9 00 00 7e 00 00 00 00)
        r["mnemonic"] = mnem
        r["base"] = strip_suffix(mnem)
        r["encoding"], r["ops"] = build_operands(r, r["base"])
        # decode-only sentinel names are resolved; the MFMA probe decodes as the VGPR C/D
        # (_vcd) form; the AGPR form is the same opcode with acc_cd=1.
    probe_forms(recs)
    insts = finalize(recs)
    insts.sort(key=lambda d: (_ENC_ORDER.index(d["encoding"]), d["opcode"]))
    return {"generator": "tools/isa_gen/vector.py", "source": "LLVM 22 llvm-mc -mcpu=gfx942 + " + REF_ISA,
            "instructions": insts}


_ENC_ORDER = ["VOP1", "VOP2", "VOPC", "VOP3A", "VOP3B", "VOP3P", "VOP3P_MAI", "VOP1_DPP", "VOP2_DPP", "VOPC_DPP",
              "VOP1_SDWA", "VOP2_SDWA", "VOPC_SDWA"]


def rows():
    """The vector instructions as ``Instruction`` records (``python -m tools.isa_gen``)."""
    return [instruction_from_dict(d) for d in generate()["instructions"]]


def main() -> int:
    from tools.isa_gen.__main__ import main as gen_main

    return gen_main(["--only", "vector"])


if __name__ == "__main__":
    raise SystemExit(main())
