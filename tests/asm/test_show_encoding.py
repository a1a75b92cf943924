"""``gcnforge as`` output equals ``llvm-mc -show-encoding`` line for line (canonical text and
bytes, whitespace-normalised) over the scalar and memory corpus, run live."""

from __future__ import annotations

from gcnforge.asm.listing import show_encoding
from gcnforge.testing import require_llvm
from tools.isa_gen import common, corpus

# llvm-mc prints "sc1" for these but encodes them without the bit (see test_llvm_corpus.KNOWN)
KNOWN = ("flat_atomic_add_f64 a", "flat_atomic_min_f64 a", "flat_atomic_max_f64 a",
         "global_atomic_add_f64 a", "global_atomic_min_f64 a", "global_atomic_max_f64 a")


def test_show_encoding_matches_llvm_mc():
    require_llvm("llvm-mc")
    lines = [line for _, line in corpus.forms(["scalar", "memory"]) if not line.startswith(KNOWN)]
    res = common.assemble_text(lines)
    ok = [(text, data) for text, data, _ in res if data is not None]
    src = "\n".join(line for line, (_, data, _) in zip(lines, res) if data is not None) + "\n"
    ours = show_encoding(src).splitlines()
    assert len(ours) == len(ok) > 5000
    bad = []
    for (text, data), got in zip(ok, ours):
        want = f"{text} ; encoding: [{','.join(f'0x{b:02x}' for b in data)}]"
        if want.split() != got.split():
            bad.append((want, got))
    assert not bad, f"{len(bad)} differences, e.g. {bad[:3]}"


LABELLED = """\t.text
\t.globl k
k:
  s_mov_b32 s0, 1
loop: s_add_u32 s0, s0, 1   // a label and an instruction on one line
  s_cbranch_scc0 loop
a: b:
.Lend:
  s_endpgm
"""


def _shape(text: str) -> list[str]:
    """Label lines and instruction texts in order (llvm-mc's own .amdgcn_target line, its fixup
    comments and branch bytes it leaves unresolved aside)."""
    out = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith((";", ".amdgcn_target")):
            continue
        out.append(" ".join(line.split(";")[0].split()) if line.startswith("\t") else "LABEL " + line.strip())
    return out


def test_label_lines_as_llvm_mc_prints_them(tmp_path):
    """Every label gets its own line at column 0, in source order, as in llvm-mc's listing."""
    import subprocess

    mc = require_llvm("llvm-mc")["llvm-mc"]
    f = tmp_path / "l.s"
    f.write_text(LABELLED)
    want = subprocess.run([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding", str(f)],
                          capture_output=True, text=True, check=True).stdout
    got = show_encoding(LABELLED)
    assert _shape(got) == _shape(want) and sum(s.startswith("LABEL ") for s in _shape(got)) == 5, (got, want)
