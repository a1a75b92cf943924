"""``gcnforge run --timing D --roofline out.png``: the kernel on its device's roofline."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gcnforge.cli.main import main
from gcnforge.diagnostics import Diagnostic

DATA = Path(__file__).resolve().parents[1] / "runtime" / "data"


def _co(tmp_path):
    from gcnforge.binary import assemble

    co = tmp_path / "vadd.co"
    co.write_bytes(assemble((DATA / "vadd_slots16.s").read_text()))
    return co


def _run(co, tmp_path, *extra):
    return main(["run", str(co), "vadd", "--grid", "64", "--block", "64", "--layout",
                 "out:f32*;a:f32*;b:f32*;n:u32;scale:f32", "-a", "out=zeros:4096:f32", "-a", "a=rand:4096:f32",
                 "-a", "b=rand:4096:f32", "-a", "n=4096", "-a", "scale=2.0", "--timing", "mi300x", "-q", *extra])


def test_roofline_png(tmp_path, capsys):
    pytest.importorskip("matplotlib") if not __import__("gcnforge.testing").testing.IN_CI else None
    import matplotlib.image

    co = _co(tmp_path)
    out = tmp_path / "roof.png"
    assert _run(co, tmp_path, "--flops", str(2 * 4096), "--roofline", str(out)) == 0, capsys.readouterr().err
    img = matplotlib.image.imread(out)
    assert img.shape[0] > 300 and img.shape[1] > 600  # a drawn figure, not an empty file


def test_roofline_needs_flops_and_says_so(tmp_path, capsys):
    co = _co(tmp_path)
    assert _run(co, tmp_path, "--roofline", str(tmp_path / "r.png")) == 1
    assert "no FLOP count to place on a roofline" in capsys.readouterr().err


def test_without_matplotlib_a_diagnostic(monkeypatch):
    from gcnforge.perfmodel import profiles, roofline

    monkeypatch.setitem(sys.modules, "matplotlib", None)

    class R:
        kernel, flops, mfma_flops, seconds, bytes_hbm, bytes_written = "k", 1e9, 0, 1e-6, 1e6, 0
    with pytest.raises(Diagnostic, match=r"pip install 'gcnforge\[plot\]'"):
        roofline.draw(R(), profiles.get("mi300x"), "x.png")
