"""Progress bars (issue 26): a launch reports each finished batch of work-groups; on a
terminal a rich bar with ETA appears once the work has taken a moment; piped output stays plain."""

from __future__ import annotations

import io

import numpy as np

import gcnforge
from gcnforge.cli import _progress
from gcnforge.runtime.kernargs import ArgLayout

from tests.emulator.test_sanitizer_sites import SRC


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_launch_reports_every_batch_to_the_end():
    k = gcnforge.load(gcnforge.assemble(SRC)).kernel("k", layout=ArgLayout.slots16(["out:u32*"]))
    seen = []
    k(out=np.zeros(512 * 128, np.uint32), grid=512, block=128, device="emulator",
      progress=lambda done, total: seen.append((done, total)))
    assert len(seen) > 1 and seen[-1] == (512, 512)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_bar_on_a_terminal_only(monkeypatch):
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    tty = _Tty()
    with _progress.progress("gemm", stream=tty) as update:
        for i in range(1, 5):
            update(i, 4)
    assert "gemm" in tty.getvalue()  # rich drew the bar (removed at the end: transient)
    piped = io.StringIO()
    with _progress.progress("gemm", stream=piped) as update:
        update(1, 4)
    assert piped.getvalue() == ""


def test_raise_reports_each_kernel(tmp_path):
    from gcnforge.raising import raise_file

    co = tmp_path / "k.co"
    co.write_bytes(gcnforge.assemble(SRC))
    seen = []
    raise_file(co, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 1)]


def test_timed_launch_reports_its_batches():
    k = gcnforge.load(gcnforge.assemble(SRC)).kernel("k", layout=ArgLayout.slots16(["out:u32*"]))
    seen = []
    k(out=np.zeros(64 * 128, np.uint32), grid=64, block=128, device="emulator", timing="mi300x",
      progress=lambda done, total: seen.append((done, total)))
    assert seen and all(0 < d <= t for d, t in seen)
