"""Discovery half of the vector-ALU table generator (``tools/isa_gen/vector.py``): sweep
every opcode of every vector encoding through ``llvm-mc --disassemble`` with sentinel
field values (vdst=10, src0=20, src1/vsrc1=30, src2=40, VOP3B sdst=0), and read the
operand list back from the printed text by where each sentinel appears."""

from __future__ import annotations

import re
import struct

from tools.isa_gen import common

V = 256


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
            # no destination (vdst must be 0): gfx950's v_mfma_ld_scale_b32
            _w(0xD3800000 | op << 16 | 1 << 14, (V + 20) | (V + 30) << 9 | hi),
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
        probes = [_w(base | 0xF9, sd)]
        if fam == "VOP1":  # an operand-less one (v_nop) decodes only with every SDWA field 0
            probes.append(_w(0x7E000000 | op << 9 | 0xF9, 0))
        out.append((fam + "_SDWA", op, probes))
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
