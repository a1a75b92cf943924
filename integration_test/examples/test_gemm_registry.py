"""The GEMM tile table (examples/configs/gemm.csv) through the runtime's kernel registry:
the code objects are built for the test's K and N, the registry picks a tile per problem
by its heuristic, and the chosen kernel runs against NumPy (f32 accumulation bound as in
test_gemm_lds). The registry is told the device has 2 CUs so that the small test problems
exercise both choices (on 304 CUs every small problem prefers the small tile). N is 64 in
every problem: the kernels are compiled for fixed N and K."""

import numpy as np
import pytest

from conftest import EXAMPLES  # noqa: F401  (puts examples/ on sys.path)
import gemm_lds
from gcnforge.runtime.registry import Registry


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return gemm_lds.emit_configs(tmp_path_factory.mktemp("gemm_table"), 64, 64)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("m,n,tile", [(64, 64, 64), (32, 64, 32)])
def test_registry_dispatch(table, dtype, m, n, tile, device):
    reg = Registry.from_csv(table, cu_count=2)
    ch = reg.select("gfx942", dtype, m, n, 64)
    assert ch.how == "heuristic" and ch.entry.tile_m == tile, reg.explain("gfx942", dtype, m, n, 64)
    kern = ch.entry.load()
    rng = np.random.default_rng(m)
    a32, b32 = rng.standard_normal((m, 64)).astype(np.float32), rng.standard_normal((n, 64)).astype(np.float32)
    if dtype == "f16":
        a, bt = a32.astype(np.float16), b32.astype(np.float16)
        a64, b64 = a.astype(np.float64), bt.astype(np.float64)
    else:
        from test_gemm_lds import bf16_bits, bf16_value

        a, bt = bf16_bits(a32), bf16_bits(b32)
        a64, b64 = bf16_value(a).astype(np.float64), bf16_value(bt).astype(np.float64)
    c = np.zeros((m, n), np.float32)
    kern(a, bt, c, grid=ch.grid, block=(ch.entry.block, 1, 1), device=device)
    ref = a64 @ b64.T
    tol = 64 * np.finfo(np.float32).eps * np.abs(a64).max() * np.abs(b64).max()
    assert np.abs(c - ref).max() <= tol
