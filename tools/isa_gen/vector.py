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

import re
import struct
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gcnforge.isa.table import instruction_from_dict  # noqa: E402
from tools.isa_gen import common  # noqa: E402

V = 256
REF_ISA = "AMD Instinct MI300 ISA Reference Guide (CDNA3)"


def _w(*ds: int) -> bytes:
    return b"".join(struct.pack("<I", d & 0xFFFFFFFF) for d in ds)


# ---------------------------------------------------------------------------------------
# 1. discovery
# ---------------------------------------------------------------------------------------
def _templates() -> list[tuple[str, int, list[bytes]]]:
    """(encoding family, opcode, candidate probe words in preference order)."""
    out = []
    for op in range(256):
        if op == 0x3F:
            pass
        out.append(("VOP1", op, [_w(0x7E000000 | 10 << 17 | op << 9 | (V + 20)),
                                 _w(0x7E000000 | 10 << 17 | op << 9 | 20),
                                 _w(0x7E000000 | op << 9)]))
    for op in range(62):  # 62/63 are the VOPC/VOP1 prefixes
        out.append(("VOP2", op, [_w(op << 25 | 10 << 17 | 30 << 9 | (V + 20))]))
    for op in range(256):
        out.append(("VOPC", op, [_w(0x7C000000 | op << 17 | 30 << 9 | (V + 20))]))
    for op in range(896):  # 896+ is the VOP3P prefix
        d0 = 0xD0000000 | op << 16 | 10
        out.append(("VOP3", op, [
            _w(d0, (V + 20) | (V + 30) << 9 | (V + 40) << 18),
            _w(d0, (V + 20) | (V + 30) << 9),
            _w(d0, (V + 20) | 30 << 9),
            _w(d0, (V + 20)),
            _w(d0, 20 | 30 << 9),
            _w(d0, 20 | (V + 30) << 9 | (V + 40) << 18),
            _w(0xD0000000 | op << 16, 0),
        ]))
    for op in range(128):
        d0 = 0xD3800000 | op << 16 | 1 << 14 | 10
        hi = 3 << 27
        out.append(("VOP3P", op, [
            _w(d0, (V + 20) | (V + 30) << 9 | (V + 40) << 18 | hi),
            _w(d0, (V + 20) | (V + 30) << 9 | hi),
            _w(d0, (V + 20) | hi),
            _w(0xD3800000 | op << 16 | 10, (V + 20) | (V + 30) << 9 | (V + 40) << 18),
        ]))
    return out


def _dpp_sdwa_templates(found_e32: dict[tuple[str, int], str]) -> list[tuple[str, int, list[bytes]]]:
    out = []
    dpp = 20 | 0xE4 << 8 | 0xF << 24 | 0xF << 28  # quad_perm identity, masks 0xf
    sdwa = 20 | 6 << 8 | 6 << 16 | 6 << 24  # DWORD selects, VGPR sources
    sdwa_c = 20 | 6 << 16 | 6 << 24  # VOPC: sdst=vcc (sd=0)
    for (fam, op) in found_e32:
        if fam == "VOP1":
            base = 0x7E000000 | 10 << 17 | op << 9
        elif fam == "VOP2":
            base = op << 25 | 10 << 17 | 30 << 9
        else:
            base = 0x7C000000 | op << 17 | 30 << 9
        out.append((fam + "_DPP", op, [_w(base | 0xFA, dpp)]))
        sd = sdwa_c if fam == "VOPC" else (sdwa & ~(7 << 24) if fam == "VOP1" else sdwa)
        out.append((fam + "_SDWA", op, [_w(base | 0xF9, sd)]))
    return out


def discover() -> list[dict]:
    """Decode sweep: one record per (family, opcode) that LLVM decodes."""
    recs: list[dict] = []

    def sweep(tmpls):
        flat = [(fam, op, p) for fam, op, ps in tmpls for p in ps]
        res = common.disassemble([p for _, _, p in flat])
        done: set[tuple[str, int]] = set()
        for (fam, op, p), d in zip(flat, res):
            if (fam, op) in done or d is None or d.encoding[: len(p)] != p:
                continue
            if "/*Invalid" in d.text or "<unknown>" in d.text:
                continue
            done.add((fam, op))
            recs.append({"family": fam, "opcode": op, "text": d.text, "llvm_name": d.llvm_name,
                         "probe": p.hex(), "size": len(d.encoding)})
        return done

    done = sweep(_templates())
    e32 = {k: "" for k in done if k[0] in ("VOP1", "VOP2", "VOPC")}
    sweep(_dpp_sdwa_templates(e32))
    return recs


# ---------------------------------------------------------------------------------------
# 2. operands from the sentinel text
# ---------------------------------------------------------------------------------------
_REG_RE = re.compile(r"^(-?)(\|?)(sext\()?([vsa])(?:(\d+)|\[(\d+):(\d+)\])\)?\|?$")
_TYPE_TOKENS = ("bf16", "f16", "f32", "f64", "i16", "u16", "b16", "i32", "u32", "b32", "i64", "u64", "b64",
                "i8", "u8", "i4", "u4", "fp8", "bf8", "xf32")


def split_text(text: str) -> tuple[str, list[str], list[str]]:
    """(mnemonic, operand tokens, modifier words) of a printed instruction."""
    mnem, _, rest = text.partition(" ")
    if not rest:
        return mnem, [], []
    parts = [p.strip() for p in rest.split(", ")]
    last = parts[-1].split(" ")
    # modifiers follow the last operand, separated by spaces; op_sel:[a,b] contains no spaces
    parts[-1] = last[0]
    return mnem, parts, last[1:]


def strip_suffix(m: str) -> str:
    for s in ("_e32", "_e64", "_dpp", "_sdwa"):
        if m.endswith(s):
            return m[: -len(s)]
    return m


def _parse_reg(tok: str):
    m = _REG_RE.match(tok)
    if not m:
        return None
    f = m.group(4)
    if m.group(5) is not None:
        lo = hi = int(m.group(5))
    else:
        lo, hi = int(m.group(6)), int(m.group(7))
    return f, lo, hi - lo + 1


_SENT = {10: "vdst", 20: "src0", 30: "src1", 40: "src2"}


def operands_of(rec: dict) -> list[dict]:
    fam = rec["family"]
    mnem, toks, _ = split_text(rec["text"])
    ops: list[dict] = []
    for pos, t in enumerate(toks):
        if t == "vcc":
            name = "sdst" if pos <= 1 else "src2"
            if fam.startswith("VOPC") and pos == 0:
                name = "sdst"
            ops.append({"name": name, "kind": "special", "field": None, "text": "vcc",
                        "role": "def" if pos <= 1 and not (fam.startswith("VOP2") and pos > 1) else "use"})
            continue
        if t.startswith("0x"):
            ops.append({"name": "imm", "kind": "imm", "field": "literal", "optype": "x32", "literal": True})
            continue
        r = _parse_reg(t)
        if r is None:
            raise ValueError(f"unparsed operand {t!r} in {rec['text']!r}")
        f, lo, n = r
        if fam in ("VOP3", "VOP3P") and pos == 1 and f == "s" and lo == 0:
            name = "sdst"
        elif fam == "VOP3" and pos == 0 and f == "s":
            name = "sdst_vdst"  # VOPC e64 / readlane: scalar dst in the vdst field
        else:
            name = _SENT.get(lo)
            if name is None:
                raise ValueError(f"unknown sentinel {t!r} in {rec['text']!r}")
        ops.append({"name": name, "file": f, "dwords": n, "pos": pos})
    return ops


# ---------------------------------------------------------------------------------------
# types, classes, implicit operands
# ---------------------------------------------------------------------------------------
_TYPE_RE = re.compile(r"(?<![a-z0-9])(" + "|".join(_TYPE_TOKENS) + r")(?![a-z0-9])")


def _norm(t: str, dwords: int) -> str:
    if t in ("bf16",):
        return "bf16"
    if t in ("i16", "u16", "b16"):
        return "i16"
    if t in ("f16",):
        return "f16"
    if t in ("f64",):
        return "f64"
    if t in ("i64", "u64", "b64"):
        return "i64"
    if t in ("f32", "xf32"):
        return "f32" if dwords == 1 else "f64"
    return "i32" if dwords == 1 else "i64"


def src_optype(base: str, slot: int, dwords: int) -> str:
    """Value type of source ``slot`` (0..2) for inline constants and literals, from the
    mnemonic's type suffixes (LLVM's operand types follow the same naming)."""
    name = base[2:] if base.startswith("v_") else base
    types = _TYPE_RE.findall(name.replace("_", " ").replace(" ", "_"))
    types = re.findall(r"(?:^|_)(" + "|".join(_TYPE_TOKENS) + r")(?=_|$)", name)
    if base.startswith(("v_mfma", "v_smfmac")):
        return "f64" if "_f64" in base else ("i32" if "_i32_" in base else "f32")
    if base.startswith("v_pk_"):
        if "f32" in base or base == "v_pk_mov_b32":
            return "f32"
        return "v2f16" if "f16" in base else "v2i16"
    if base in ("v_ldexp_f32", "v_ldexp_f64", "v_ldexp_f16", "v_trig_preop_f64") and slot == 1:
        return "i32"
    if base in ("v_sad_u16", "v_sat_pk_u8_i16"):
        return "i32"  # 32-bit operands in LLVM (packed halves)
    if base.startswith("v_cmp") and "class" in base and slot == 1:
        return "i32"
    if base.startswith(("v_lshlrev_b64", "v_lshrrev_b64", "v_ashrrev_i64")) and slot == 0:
        return "i32"
    if base in ("v_lshl_add_u64",) and slot == 1:
        return "i32"
    if base.startswith(("v_dot2_", "v_dot2c_")):
        if slot == 2:
            return "f32" if "_f32_" in base else "i32"
        return "v2f16" if "f16" in base else ("v2bf16" if "bf16" in base else "v2i16")
    if base.startswith(("v_dot4", "v_dot8")):
        return "i32"
    if base.startswith("v_fma_mix"):
        return "f32"
    if base in ("v_mad_u64_u32", "v_mad_i64_i32"):
        return "i64" if slot == 2 else "i32"
    if base.startswith(("v_qsad", "v_mqsad")):
        return "i64" if dwords == 2 else "i32"
    if base in ("v_cvt_pk_u8_f32",):
        return "f32" if slot == 0 else "i32"
    if base.startswith(("v_cvt_pk_fp8", "v_cvt_pk_bf8", "v_cvt_sr_fp8", "v_cvt_sr_bf8")):
        return "f32" if (slot == 0 or (slot == 1 and "_pk_" in base)) else "i32"
    if base.startswith(("v_mad_u32_u16", "v_mad_i32_i16")):
        return "i32" if slot == 2 else "i16"
    if base in ("v_pack_b32_f16",):
        return "f16"
    if base.startswith("v_cvt_") or base.startswith("v_frexp_"):
        # v_cvt_<dst>_<src>: the last type names the source
        if types:
            return _norm(types[-1], dwords)
        return "i32"
    if base.startswith(("v_sat_pk_u8_i16",)):
        return "i16"
    if types:
        return _norm(types[-1], dwords)
    return "i32" if dwords == 1 else "i64"


_TRANS = ("v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_", "v_exp_legacy", "v_log_legacy",
          "v_rcp_iflag")


def sem_class(base: str, ops: list[dict]) -> str:
    # ISA guide ch. 7 (matrix core) for MFMA/SMFMAC; 6.x transcendental unit; f64 VALU ops
    # issue to the double-precision path (ch. 6, "VALU instruction issue").
    if base.startswith(("v_mfma", "v_smfmac")):
        return "mfma"
    if base.startswith(_TRANS):
        return "trans"
    if "f64" in base:
        return "valu_dp"
    return "valu"


def implicit(base: str, mnemonic: str, fam: str, ops: list[dict]) -> tuple[list[str], list[str]]:
    """(uses, defs) beyond explicit operands (ISA guide ch. 6: every VALU op reads EXEC
    except V_READLANE/V_WRITELANE/V_READFIRSTLANE's lane select; VOPC V_CMPX writes EXEC;
    e32 forms name VCC implicitly)."""
    uses = ["exec"] if base not in ("v_readlane_b32", "v_writelane_b32", "v_nop") else []
    defs: list[str] = []
    for o in ops:
        if o.get("kind") == "special" and o.get("text") == "vcc":
            (defs if o.get("role") == "def" else uses).append("vcc")
    if base.startswith("v_cmpx_"):
        defs.append("exec")
    if base in ("v_div_fmas_f32", "v_div_fmas_f64"):
        uses.append("vcc")  # ISA guide: V_DIV_FMAS uses VCC as the scale condition
    return sorted(set(uses)), sorted(set(defs))


# ---------------------------------------------------------------------------------------
# 3. build records
# ---------------------------------------------------------------------------------------
_ENC_OF = {"VOP1": "VOP1", "VOP2": "VOP2", "VOPC": "VOPC", "VOP1_DPP": "VOP1_DPP", "VOP2_DPP": "VOP2_DPP",
           "VOPC_DPP": "VOPC_DPP", "VOP1_SDWA": "VOP1_SDWA", "VOP2_SDWA": "VOP2_SDWA", "VOPC_SDWA": "VOPC_SDWA"}


def build_operands(rec: dict, base: str) -> tuple[str, list[dict]]:
    fam = rec["family"]
    raw = operands_of(rec)
    mfma = base.startswith(("v_mfma", "v_smfmac"))
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
            if base in ("v_swap_b32",):
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
            if base == "v_swap_b32":
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
        ok = err is None and text is not None and text.split(" ")[0] == recs[i]["mnemonic"]
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
    return r["opcode"] >= 64 or r["base"].startswith(("v_mfma", "v_smfmac"))


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
                elif o["kind"] == "vgpr" and fam.endswith("_SDWA") and acc.get(f"{name}:s"):
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
