"""Vector add and copy (global loads with EXEC masking, buffer loads with num_records bounds)
on the emulator (and HIP) against NumPy. f32 add of two values rounds once, exactly as NumPy
does, so results must be bit-identical; elements past n must be left untouched."""

import numpy as np
import pytest
from conftest import compiled

import vector_ops


@pytest.mark.parametrize("mode", ["global", "buffer"])
@pytest.mark.parametrize("op", ["add", "copy"])
@pytest.mark.parametrize("n", [1000, 256, 1])  # tail, exact multiple of the block, one element
def test_vector(op, mode, n, device):
    c = compiled(("vec", op, mode), lambda: vector_ops.build(op, mode))
    kern = c.load(device)[f"vector_{op}_{mode}"]
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    out = np.full(n + 64, -7.0, np.float32)  # guard zone past n
    blocks = -(-n // 256) + 1  # one extra all-out-of-range work-group too
    srcs = (a, b) if op == "add" else (a,)
    kern(*srcs, out, np.uint32(n), grid=(blocks, 1, 1), block=(256, 1, 1))
    np.testing.assert_array_equal(out[:n], a + b if op == "add" else a)
    assert (out[n:] == -7.0).all()
