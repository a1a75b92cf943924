"""gfx950 (CDNA4) on the emulator: the target comes from the code object (its LDS size, its
instruction table), and the new instructions' semantics on hand-written kernels assembled by
llvm-mc -mcpu=gfx950 (tests/emulator/gfx950_kernels.s); expected values from NumPy, ml_dtypes
and the CDNA4 ISA guide."""

import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator import Device
from gcnforge.testing import require_llvm

L = np.arange(64)
SRC = Path(__file__).with_name("gfx950_kernels.s")


def _build(d, mcpu, text):
    t = require_llvm("llvm-mc", "ld.lld")
    (d / "k.s").write_text(text)
    subprocess.run([t["llvm-mc"], "-triple=amdgcn-amd-amdhsa", f"-mcpu={mcpu}", "-filetype=obj", str(d / "k.s"),
                    "-o", str(d / "k.o")], check=True)
    subprocess.run([t["ld.lld"], "-shared", str(d / "k.o"), "-o", str(d / "k.so")], check=True)
    return (d / "k.so").read_bytes()


@pytest.fixture(scope="module")
def code(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("g950"), "gfx950", SRC.read_text())


def run(code, name, nout, extra=b"", sanitize=True, block=64):
    dev = Device()
    out = dev.memory.alloc(4 * 64 * nout)
    dev.memory.write(out, b"\0" * (4 * 64 * nout))
    dev.run(code, name, struct.pack("<Q", out) + extra, (1, 1, 1), (block, 1, 1), sanitize=sanitize)
    return np.frombuffer(dev.memory.read(out, 4 * 64 * nout), np.uint32).reshape(nout, 64).copy()


def test_lds_is_160_kib_on_gfx950(code):
    o = run(code, "lds_big", 1)
    np.testing.assert_array_equal(o[0], 1000 + L)


def test_gfx942_object_keeps_64_kib_and_1024_work_items(code, tmp_path):
    co = _build(tmp_path, "gfx942", SRC.read_text().replace("gfx950", "gfx942"))
    with pytest.raises(Diagnostic, match="gfx942 has 65536 per workgroup"):
        run(co, "lds_big", 1)
    with pytest.raises(Diagnostic, match="exceeds gfx950's 1024"):
        run(code, "lds_big", 1, block=1025)
