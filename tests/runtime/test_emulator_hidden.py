"""A gcnforge-assembled kernel (built-in toolchain and LLVM's) whose metadata declares
explicit and hidden arguments, run on the emulator: it copies the first 32 bytes of its
hidden block and its scalar argument to memory, so the test sees exactly what the kernel
received. Uses only SMEM, VOP1 and global stores."""

import struct
from pathlib import Path

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.runtime import devices
from gcnforge.testing import require_llvm

SRC = (Path(__file__).parent / "data" / "hidden_copy.s").read_text()


@pytest.mark.parametrize("toolchain", ["builtin", "llvm"])
def test_hidden_arguments_as_the_kernel_sees_them(toolchain):
    emu = devices._make("emulator")
    assert emu.available(), emu.unavailable_reason  # the project\'s own emulator: never a skip
    if toolchain == "llvm":
        require_llvm("llvm-mc", "ld.lld")
    from gcnforge.binary import assemble

    k = rt.load(assemble(SRC, toolchain=toolchain, filename="hidden_copy.s"))["hid"]
    assert k.arg_names == ["out", "tag"]
    out = np.zeros(9, np.uint32)
    r = k(out, 0xABC, grid=(3, 2, 5), block=(16, 4, 2), device="emulator")
    raw = out.tobytes()
    assert struct.unpack_from("<III", raw, 0) == (3, 2, 5)  # hidden_block_count_x/y/z = grid
    assert struct.unpack_from("<HHH", raw, 12) == (16, 4, 2)  # hidden_group_size_x/y/z = block
    assert struct.unpack_from("<HHH", raw, 18) == (0, 0, 0)  # no partial workgroups
    assert out[8] == 0xABC
    assert r.modeled and r.cycles > 0 and r.stats.waves == 3 * 2 * 5 * 2


def test_module_is_the_code_object_plus_launch():
    from gcnforge.binary import assemble, read_code_object

    data = assemble(SRC, filename="hidden_copy.s")
    mod, co = rt.load(data), read_code_object(data)
    assert mod.target == co.target and list(mod.kernels) == list(co.kernels) == ["hid"]
    assert mod.metadata == co.metadata and mod.text == co.text
    assert mod.kernels["hid"].descriptor.kernarg_size == 272
    with pytest.raises(AttributeError):
        mod.no_such_attribute
