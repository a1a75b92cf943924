"""Emulator options through the runtime: ``trace=`` and ``sanitize_mode=`` on a kernel call
(and ``EmulatorBackend.launch``), and ``gcnforge run --trace / --sanitize-continue``.

The kernel is ``data/hidden_copy.s`` (built-in assembler): 9 dword stores to out[0..8],
each at its own pc. Given a 4-dword ``out``, the stores at offsets 16..32 are out of
bounds: 'stop' raises the first, 'continue' reports all five and the in-bounds ones land."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.cli.main import main
from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime import devices

SRC = (Path(__file__).parent / "data" / "hidden_copy.s").read_text()


@pytest.fixture(scope="module")
def co_bytes():
    emu = devices._make("emulator")
    assert emu.available(), emu.unavailable_reason  # the project\'s own emulator: never a skip
    from gcnforge.binary import assemble

    return assemble(SRC)


def _stores() -> list[str]:
    return [ln.strip() for ln in SRC.split("\nhid:\n")[1].split("s_endpgm")[0].splitlines() if ln.strip()]


def test_trace_sees_every_instruction_in_order(co_bytes):
    events = []
    k = rt.load(co_bytes, device="emulator")["hid"]
    out = np.zeros(9, np.uint32)
    k(out, np.uint32(5), grid=(1, 1, 1), block=(64, 1, 1), trace=events.append)
    texts = [e.text for e in events]
    assert len(texts) == len(_stores()) + 1 and texts[-1].startswith("s_endpgm")
    assert [t.split()[0] for t in texts[:-1]] == [s.split()[0] for s in _stores()]
    pcs = [e.pc for e in events]
    assert pcs == sorted(pcs) and len(set(pcs)) == len(pcs)
    assert out[8] == 5


def test_sanitize_modes(co_bytes):
    k = rt.load(co_bytes, device="emulator")["hid"]
    with pytest.raises(Diagnostic, match="sanitizer"):
        k(np.zeros(4, np.uint32), np.uint32(5), grid=(1, 1, 1), block=(64, 1, 1), sanitize=True)
    out = np.zeros(4, np.uint32)
    res = k(out, np.uint32(5), grid=(1, 1, 1), block=(64, 1, 1), sanitize=True, sanitize_mode="continue")
    reports = res.stats.reports
    assert len(reports) == 5 and len({r.loc.pc for r in reports}) == 5  # offsets 16..32
    assert list(out) == [1, 1, 1, 64 | 1 << 16]  # block counts, group size x|y landed
    with pytest.raises(Diagnostic, match="sanitize_mode"):
        k(out, np.uint32(5), grid=(1, 1, 1), block=(64, 1, 1), sanitize=True, sanitize_mode="later")


def test_cli_trace_and_sanitize_continue(co_bytes, tmp_path, capsys):
    co = tmp_path / "hid.co"
    co.write_bytes(co_bytes)
    base = ["run", str(co), "hid", "--grid", "1", "--block", "64", "--device", "emulator"]
    assert main([*base, "-a", "out=zeros:9:u32", "-a", "tag=7", "--trace"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("0x")]
    assert len(lines) == len(_stores()) + 1
    assert lines[0].split(": ", 1)[1].startswith("s_load_dwordx2") and lines[-1].endswith("s_endpgm")
    assert main([*base, "-a", "out=zeros:4:u32", "-a", "tag=7", "--sanitize-continue"]) == 1
    err = capsys.readouterr().err
    assert "sanitizer summary: 5 site(s)" in err and "Traceback" not in err
    assert main([*base, "-a", "out=zeros:4:u32", "-a", "tag=7", "--sanitize"]) == 1
    assert "sanitizer" in capsys.readouterr().err
