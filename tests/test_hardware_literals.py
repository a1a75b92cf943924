"""Hardware facts live in ``isa`` (target facts) or a device profile (``perfmodel/profiles``);
every other module reads them there. This test reads the library's code (comments and
docstrings, where citing a figure is welcome, are left out) for the literals that used to
have second homes: the CU count, LDS sizes, the SGPR count, the wave size in the emulator,
module constants for cache lines, LDS banks and bytes per clock. It also checks that every
field of a device profile is read by the model (an unread field is a fact nobody uses)."""

from __future__ import annotations

import dataclasses
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "python" / "gcnforge"
HOMES = ("isa/", "perfmodel/profiles/")

# wave-size uses of 64 (lanes) in array shapes, lane indices and wave counts
_WAVE_64 = re.compile(r"(arange|reshape|zeros|ones|full|empty|repeat)\([^#]*(?<![\w.])64(?![\w.])|"
                      r"//\s*64\b|\+\s*63\)")
_LANE_INDEX = re.compile(r"(%\s*64|&\s*63|&\s*np\.uint32\(63\))\b")  # a lane number (on a line that says lane)
_FACT_NAMES = re.compile(r"^\s*(LINE|BANKS|LDS_BANKS|\w*BYTES_PER_CLK\w*|LDS_PER_CU|LDS_BYTES|CU_COUNT|NUM_CUS|WAVE_SIZE"
                         r"|ISSUE|TRANS_CYCLES|MAX_\w*PER_CU)\s*=\s*\d")
# issue 28: register budgets as option defaults, the SGPR occupancy steps, the accum_offset bound,
# pipeline latencies written into a table (isa.target: arch_vgprs, agprs, sgprs - extra_sgprs_flat_scratch,
# sgpr_wave_steps, max_barriers_per_cu, simd_lanes, trans_rate)
_REG_BUDGET = re.compile(r"^\s*max_[vas]gprs\s*:\s*int\s*=\s*\d")
_LATENCY_ROW = re.compile(r"\"(salu|valu|valu_dp|trans|branch)\"\s*:\s*\d")


def _code_lines(path: Path, strings: bool = False) -> dict[int, str]:
    """Line number -> the line's code with comments and (unless ``strings``) string literals blanked."""
    src = path.read_text()
    lines = src.splitlines()
    keep = {i + 1: list(line) for i, line in enumerate(lines)}
    blank = {tokenize.COMMENT} | (set() if strings else {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)})
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in blank:
            (r0, c0), (r1, c1) = tok.start, tok.end
            for r in range(r0, r1 + 1):
                row = keep[r]
                a = c0 if r == r0 else 0
                b = c1 if r == r1 else len(row)
                row[a:b] = " " * (b - a)
    return {n: "".join(row) for n, row in keep.items()}


def _numbers(code: str, hex_too: bool = False) -> set[int]:
    """The integers written in ``code`` (decimal; with ``hex_too`` also hex: hex spells
    encodings, such as DPP's wave_shl control 0x130 = 304, not counts)."""
    pat = r"(?<![\w.])(0[xX][0-9a-fA-F_]+|\d[\d_]*)(?![\w.])" if hex_too else r"(?<![\w.])(\d[\d_]*)(?![\w.xX])"
    return {int(m.group(1).replace("_", ""), 0 if hex_too else 10) for m in re.finditer(pat, code)}


def findings(pkg: Path = PKG) -> list[str]:
    bad = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg).as_posix()
        if rel.startswith(HOMES):
            continue
        text = path.read_text().splitlines()
        for n, code in _code_lines(path).items():
            line = text[n - 1].lower()
            nums = _numbers(code)
            where = f"{rel}:{n}"
            if 304 in nums:
                bad.append(f"{where}: CU count 304 (isa.target cu_count / a profile's cus)")
            if {65536, 163840} & _numbers(code, hex_too=True) and "lds" in line:
                bad.append(f"{where}: an LDS size (isa.target lds_bytes)")
            if 102 in nums and "flat_scratch" not in line:
                bad.append(f"{where}: 102 SGPRs (isa.target sgprs)")
            if rel.startswith("emulator/") and (_WAVE_64.search(code) or "lane" in line and _LANE_INDEX.search(code)):
                bad.append(f"{where}: the wave size as a literal (emulator.core.WAVE, from isa.target wave_size)")
            if _REG_BUDGET.match(code):
                bad.append(f"{where}: a register file size as an option default (isa.target)")
            if "sgpr" in line and {80, 88, 100} <= nums:
                bad.append(f"{where}: the SGPR occupancy steps (isa.target sgpr_wave_steps)")
            if "accum_offset" in line + (text[n].lower() if n < len(text) else "") and 256 in nums:
                bad.append(f"{where}: the accum_offset bound 256 (isa.target arch_vgprs)")
            if _LATENCY_ROW.search(text[n - 1]) and rel.startswith("perfmodel/"):
                bad.append(f"{where}: a pipeline latency as a literal (isa.target simd_lanes / trans_rate)")
            if _FACT_NAMES.match(code):
                bad.append(f"{where}: a hardware constant outside isa / the profiles: {code.strip()}")
    return bad


def test_no_hardware_literals_outside_their_homes():
    assert findings() == []


def test_the_check_finds_planted_literals(tmp_path):
    pkg = tmp_path / "gcnforge"
    (pkg / "emulator").mkdir(parents=True)
    (pkg / "isa").mkdir()
    (pkg / "runtime").mkdir()
    (pkg / "emulator" / "a.py").write_text("import numpy as np\n\n# 64 lanes, 304 CUs (a comment may cite them)\n"
                                           "x = np.zeros((4, 64), np.uint32)\nLINE = 128\nDPP = 0x130\n")
    (pkg / "runtime" / "b.py").write_text('"""304 CUs in a docstring are fine."""\ncus = 304\nlds = 65536\n'
                                          "n = 102\n")
    (pkg / "isa" / "target.py").write_text("cus = 304\nsgprs = 102\n")  # the home
    got = findings(pkg)
    assert [g.split(":")[0] + ":" + g.split(":")[1] for g in got] == [
        "emulator/a.py:4", "emulator/a.py:5", "runtime/b.py:2", "runtime/b.py:3", "runtime/b.py:4"]


def test_every_profile_field_is_read():
    """A profile field no code reads is a fact with no consumer (``lat_mall`` and ``lds_banks``
    once were): each one is read outside the profiles (as an attribute or by name)."""
    from gcnforge.perfmodel.device import DeviceProfile

    code = []
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).as_posix()
        if rel.startswith("perfmodel/profiles/"):
            continue
        for n, line in _code_lines(path, strings=True).items():
            if rel == "perfmodel/device.py" and re.match(r"^\s+\w+\s*:", line):
                continue  # the field's declaration
            code.append(line)
    text = "\n".join(code)
    unread = [f.name for f in dataclasses.fields(DeviceProfile) if f.type in ("int", "float")  # the figures
              and not re.search(rf"\.{f.name}\b|[\"']{f.name}[\"']", text)]
    assert unread == []


@pytest.mark.parametrize("name", ["gfx942", "gfx950"])
def test_target_facts_are_the_cited_ones(name):
    """The homes themselves against the cited figures (AMD MI300/CDNA4 ISA guides ch. 3, the
    MI300X / MI355X data sheets; isa/target.py cites each)."""
    from gcnforge.isa.target import target

    t = target(name)
    assert (t.sgprs, t.wave_size, t.arch_vgprs, t.agprs) == (102, 64, 256, 256)
    assert (t.lds_bytes, t.cu_count) == {"gfx942": (64 << 10, 304), "gfx950": (160 << 10, 256)}[name]
