"""Test doubles and helpers for the runtime tests (never shipped as backends).

``RecordingBackend`` keeps device memory in a dict of bytearrays and records every launch;
an optional Python ``effect(mem, kernarg, grid, block)`` plays the kernel, so copy-in /
copy-back plumbing is checked end to end without a GPU or the emulator.
``FakeCodeObject`` carries just what the runtime reads from a CodeObject.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from gcnforge.runtime.backend import LaunchResult


class RecordingBackend:
    name = "recording"

    def __init__(self, arch: str = "gfx942", effect=None, cycles: int = 1000):
        self._arch = arch
        self.effect = effect
        self.cycles = cycles
        self.mem: dict[int, bytearray] = {}
        self.launches: list[dict] = []
        self.freed: list[int] = []
        self._next = 0x1000

    def available(self) -> bool:
        return True

    @property
    def arch(self) -> str:
        return self._arch

    def alloc(self, nbytes: int) -> int:
        addr = self._next
        self._next += (nbytes + 255) // 256 * 256 + 256
        self.mem[addr] = bytearray(nbytes)
        return addr

    def free(self, addr: int) -> None:
        self.freed.append(addr)
        self.mem.pop(addr)

    def copy_to(self, addr: int, data: bytes) -> None:
        self.mem[addr][: len(data)] = data

    def copy_from(self, addr: int, n: int) -> bytes:
        return bytes(self.mem[addr][:n])

    def launch(self, code_object, kernel_name, kernarg, grid, block, dynamic_lds=0, sanitize=False):
        self.launches.append(dict(kernel=kernel_name, kernarg=bytes(kernarg), grid=grid, block=block,
                                  dynamic_lds=dynamic_lds, sanitize=sanitize))
        if self.effect:
            self.effect(self.mem, bytes(kernarg), grid, block)
        return LaunchResult(self.name, seconds=self.cycles / 1e9, cycles=self.cycles, clock_hz=1e9, modeled=True)


@dataclass
class FakeKernelInfo:
    name: str
    metadata: dict
    descriptor: object = None


@dataclass
class FakeCodeObject:
    target: str
    kernels: dict
    data: bytes = b""
    metadata: dict = field(default_factory=dict)


def fake_co(target: str, kernels: dict[str, dict]) -> FakeCodeObject:
    return FakeCodeObject(target, {n: FakeKernelInfo(n, dict(m, **{".name": n})) for n, m in kernels.items()})


def compile_cl(tmp_path: Path, source: str, tools: dict, name: str = "k", extra: tuple = ()) -> Path:
    """OpenCL C -> gfx942 code object with clang 22 + ld.lld (the LLVM oracle)."""
    src = tmp_path / f"{name}.cl"
    src.write_text(source)
    obj, co = tmp_path / f"{name}.o", tmp_path / f"{name}.co"
    subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942",
                    "-nogpulib", "-O2", *extra, "-c", str(src), "-o", str(obj)], check=True, capture_output=True)
    subprocess.run([tools["ld.lld"], "-shared", str(obj), "-o", str(co)], check=True, capture_output=True)
    return co


def read_metadata(path: Path) -> dict:
    """The AMDGPU metadata note, decoded independently of gcnforge.binary (pyelftools +
    msgpack), so kernarg tests do not depend on the code-object reader."""
    import msgpack
    from elftools.elf.elffile import ELFFile

    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        for sec in elf.iter_sections():
            if sec.header.sh_type == "SHT_NOTE":
                for note in sec.iter_notes():
                    if note["n_name"] == "AMDGPU" and note["n_type"] == 32:  # NT_AMDGPU_METADATA
                        desc = note["n_desc"]
                        return msgpack.unpackb(desc if isinstance(desc, bytes) else desc.encode("latin-1"))
    raise AssertionError("no AMDGPU metadata note")


def kernel_meta(path: Path, name: str) -> dict:
    for k in read_metadata(path)["amdhsa.kernels"]:
        if k[".name"] == name:
            return k
    raise KeyError(name)


def require_emulator() -> str:
    """'emulator': the project's own emulator, which every host has. Its being unavailable,
    or unable to decode or run ordinary compiled code, is a failure of the test that asks
    for it (not a skip: a regression there must show as one)."""
    from gcnforge.runtime import devices

    emu = devices._make("emulator")
    assert emu.available(), f"the emulator reports itself unavailable: {emu.unavailable_reason}"
    return "emulator"
