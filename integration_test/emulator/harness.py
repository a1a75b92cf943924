"""Compile OpenCL C kernels with clang 22 at test time and run them on the emulator.

Kernels are built exactly as DESIGN.md says (``clang -cl-std=CL2.0 -target
amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -O2 -c`` then ``ld.lld -shared``), so the emulator
runs real compiler-generated gfx942 code. Kernel arguments are packed from the code
object's own metadata (``.args``: offset, size, value kind).
"""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from gcnforge.binary import read_code_object
from gcnforge.emulator import Device, EmulationError

KERNELS = Path(__file__).parent / "kernels"
SANITIZE = False  # test_sanitizer_clean.py runs the whole suite again with the sanitizer on
_BUILT: dict[str, bytes] = {}
_OUT = Path(tempfile.gettempdir()) / "gcnforge_emu_tests"


def build_cl(source: str | Path, tools: dict[str, str], extra: tuple[str, ...] = (), mcpu: str = "gfx942") -> bytes:
    """Compile OpenCL C (a file under kernels/ or source text) to a code object for ``mcpu`` (cached)."""
    if isinstance(source, Path) or (isinstance(source, str) and source.endswith(".cl") and "\n" not in source):
        path = KERNELS / source if not Path(source).is_absolute() else Path(source)
        text = path.read_text() + (KERNELS / "common.h").read_text()
    else:
        path, text = None, str(source)
    key = hashlib.sha1((text + " ".join(extra) + mcpu).encode()).hexdigest()[:16]
    if key in _BUILT:
        return _BUILT[key]
    _OUT.mkdir(exist_ok=True)
    tag = f"{key}.{os.getpid()}"  # per process: pytest-xdist workers build the same kernels side by side
    src = path if path is not None else _OUT / f"{tag}.cl"
    if path is None:
        src.write_text(text)
    obj, so = _OUT / f"{tag}.o", _OUT / f"{tag}.so"
    subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={mcpu}", "-nogpulib",
                    "-O2", "-I", str(KERNELS), *extra, "-c", str(src), "-o", str(obj)], check=True,
                   capture_output=True)
    subprocess.run([tools["ld.lld"], "-shared", str(obj), "-o", str(so)], check=True, capture_output=True)
    _BUILT[key] = so.read_bytes()
    return _BUILT[key]


class Buf:
    """A device buffer argument: ``Buf(array)`` copies in and reads back after the run."""

    def __init__(self, array: np.ndarray):
        self.array = np.ascontiguousarray(array)
        self.addr = 0


def pack_kernargs(co, kernel: str, args, grid, block) -> bytes:
    md = co.kernels[kernel].metadata
    size = md.get(".kernarg_segment_size", 0)
    buf = bytearray(size)
    explicit = [a for a in md[".args"] if not a[".value_kind"].startswith("hidden_")]
    if len(explicit) != len(args):
        raise ValueError(f"{kernel}: {len(explicit)} arguments expected, {len(args)} given")
    for a, v in zip(explicit, args):
        off, sz = a[".offset"], a[".size"]
        if isinstance(v, Buf):
            struct.pack_into("<Q", buf, off, v.addr)
        else:
            b = np.asarray(v).tobytes()
            if len(b) != sz:
                raise ValueError(f"{kernel}: argument at offset {off} is {sz} bytes, got {len(b)}")
            buf[off : off + sz] = b
    for a in md[".args"]:
        k, off = a[".value_kind"], a[".offset"]
        dims = "xyz"
        if k.startswith("hidden_block_count_"):
            struct.pack_into("<I", buf, off, grid[dims.index(k[-1])])
        elif k.startswith("hidden_group_size_"):
            struct.pack_into("<H", buf, off, block[dims.index(k[-1])])
        elif k.startswith("hidden_remainder_"):
            struct.pack_into("<H", buf, off, 0)
        elif k == "hidden_grid_dims":
            struct.pack_into("<H", buf, off, 3 if grid[2] * block[2] > 1 else 2 if grid[1] * block[1] > 1 else 1)
    return bytes(buf)


def run(code: bytes, kernel: str, args, grid, block, device: Device | None = None, **kw):
    """Run ``kernel``; returns (RunStats, device). ``Buf`` arguments are updated in place.
    Under ``pytest --device hip[:N]`` the kernel runs on that GPU through gcnforge's runtime
    instead (same arguments, same NumPy checks by the caller); it returns (LaunchResult,
    None), and a test that inspects the emulator's own state skips there."""
    import pytest

    gpu = os.environ.get("GCNFORGE_TEST_DEVICE")
    if gpu and device is None:
        return _run_on_gpu(gpu, code, kernel, args, grid, block, kw), None
    dev = device or Device()
    co = read_code_object(code)
    for a in args:
        if isinstance(a, Buf):
            a.addr = dev.memory.alloc(max(a.array.nbytes, 1))
            dev.memory.write(a.addr, a.array.tobytes())
    grid = tuple(grid) + (1,) * (3 - len(grid))
    block = tuple(block) + (1,) * (3 - len(block))
    ka = pack_kernargs(co, kernel, args, grid, block)
    if SANITIZE:
        kw.setdefault("sanitize", True)
    try:
        stats = dev.run(co, kernel, ka, grid, block, **kw)
    except EmulationError as e:
        if "undecodable" in e.message:  # gcnforge.asm does not decode this instruction yet
            pytest.xfail(f"decoder gap: {e}")
        raise
    for a in args:
        if isinstance(a, Buf):
            a.array[...] = np.frombuffer(dev.memory.read(a.addr, a.array.nbytes), a.array.dtype).reshape(a.array.shape)
    return stats, dev


def _run_on_gpu(gpu: str, code: bytes, kernel: str, args, grid, block, kw):
    import pytest

    import gcnforge.runtime as rt

    if kw:
        pytest.skip(f"emulator-only launch options {sorted(kw)}")
    values = [a.array if isinstance(a, Buf) else a for a in args]
    grid = tuple(grid) + (1,) * (3 - len(grid))
    block = tuple(block) + (1,) * (3 - len(block))
    return rt.load(code)[kernel](*values, grid=grid, block=block, device=gpu)
