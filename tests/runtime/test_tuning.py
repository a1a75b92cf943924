"""The tuning engine: build variants (clang), check against NumPy, time, write winners,
dispatch from the written CSV. The first tests run on the recording test double (which
plays GEMM in Python from the packed kernarg bytes); the last runs on the emulator."""

import math
import struct

import numpy as np
import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.registry import Registry
from gcnforge.runtime.tuning import KernelFamily, Variant, results_table, tune
from gcnforge.testing import require_llvm

from .helpers import RecordingBackend, require_emulator


def gemm_effect(broken_grid=None):
    def effect(mem, kernarg, grid, block):
        c, a, b, m, n, k = struct.unpack_from("<QQQIII", kernarg)
        A = np.frombuffer(mem[a], np.float32)[: m * k].reshape(m, k)
        B = np.frombuffer(mem[b], np.float32)[: k * n].reshape(k, n)
        C = (A @ B).astype(np.float32)
        if grid == broken_grid:
            C += 1
        mem[c][: C.nbytes] = C.tobytes()
    return effect


class CyclesBackend(RecordingBackend):
    """Test double whose modeled time is waves x per-workgroup work, so winners are known."""

    def launch(self, code_object, kernel_name, kernarg, grid, block, dynamic_lds=0, sanitize=False):
        m, n, k = struct.unpack_from("<III", kernarg, 24)
        wgs = grid[0] * grid[1] * grid[2]
        self.cycles = math.ceil(wgs / 304) * math.ceil(m * n / wgs) * k
        return super().launch(code_object, kernel_name, kernarg, grid, block, dynamic_lds, sanitize)


@pytest.fixture(scope="module")
def llvm_tools():
    return require_llvm("clang", "ld.lld")


def test_tune_writes_winners_and_registry_dispatches(tmp_path, llvm_tools):
    from .gemm_family import GemmFamily

    fam = GemmFamily()
    dev = CyclesBackend(effect=gemm_effect(broken_grid=(2, 2, 1)))
    out = tmp_path / "tuned.csv"
    rep = tune(fam, [(32, 32, 16), (64, 48, 8)], out, device=dev, progress=lambda s: None)
    assert fam.builds == 3  # each variant built once, not once per shape
    by = {(t.shape, t.variant.name): t for t in rep.trials}
    # 16x16 tiles on 32x32 -> grid (2,2): the double corrupts it, the check must reject it
    assert by[((32, 32, 16), "gemm_16x16_u1")].status == "mismatch"
    assert by[((32, 32, 16), "gemm_8x8_u1")].status == "ok"
    assert rep.winners[(32, 32, 16)].variant.name == "gemm_8x8_u1"  # most workgroups, fewest cycles
    assert rep.time_kind == "modeled"  # the double reports modeled cycles
    # the CSV is a registry table: exact hits by shape
    reg = Registry.from_csv(out)
    ch = reg.select("gfx942", "f32", 32, 32, 16)
    assert ch.how == "tuned" and ch.entry.extra["variant"] == "gemm_8x8_u1" and ch.entry.tile_m == 8
    assert ch.entry.code_object.exists()
    # ...and the chosen entry launches
    k = ch.entry.load()
    A = np.ones((32, 16), np.float32)
    B = np.full((16, 32), 2, np.float32)
    C = np.zeros((32, 32), np.float32)
    k(C, A, B, 32, 32, 16, grid=ch.entry.grid(32, 32), block=(ch.entry.block, 1, 1), device=dev)
    assert np.all(C == 32)
    text = reg.explain("gfx942", "f32", 64, 48, 8)
    assert "exact tuned hit" in text


def test_results_table_and_failures(tmp_path, llvm_tools):
    from rich.console import Console

    class Broken(KernelFamily):
        name = "broken"

        def variants(self):
            return [Variant("bad_asm", "k", {"tile_m": 1, "tile_n": 1, "tile_k": 1}),
                    Variant("not_bytes", "k", {})]

        def build(self, v):
            return b"not an elf" if v.name == "bad_asm" else 42

        def make_inputs(self, shape, rng):
            return {}

        def reference(self, shape, inputs):
            return np.zeros(1)

    rep = tune(Broken(), [(1, 1, 1)], tmp_path / "b.csv", device=RecordingBackend(), progress=lambda s: None)
    assert [t.status for t in rep.trials] == ["build-failed", "build-failed"]
    assert "must return code-object bytes" in rep.trials[1].message
    assert rep.winners == {}
    con = Console(record=True, width=160)
    con.print(results_table(rep))
    assert "build-failed" in con.export_text()
    with pytest.raises(Diagnostic, match="no variants"):
        tune(type("E", (KernelFamily,), {"variants": lambda self: []})(), [(1, 1, 1)], device=RecordingBackend())


def test_e2e_mode_times_the_whole_operation(tmp_path, llvm_tools):
    from .gemm_family import GemmFamily

    dev = CyclesBackend(effect=gemm_effect())
    rep = tune(GemmFamily(tiles=((8, 8),)), [(16, 16, 4)], tmp_path / "e.csv", device=dev, e2e=True,
               progress=lambda s: None)
    t = rep.winners[(16, 16, 4)]
    # modeled kernel time (1 workgroup-wave x 4*4*... cycles at 1 GHz) plus measured host time
    kernel_only = math.ceil(4 / 304) * math.ceil(16 * 16 / 4) * 4 / 1e9
    assert rep.time_kind == "e2e-modeled" and t.seconds > kernel_only
    assert "e2e-modeled" in (tmp_path / "e.csv").read_text()


def test_e2e_of_several_kernels_without_host_time(tmp_path, llvm_tools):
    """An operation of several launches (``kernel.track``) with ``host_time = False``: its e2e
    time is exactly the sum of the launches' modeled times, whatever the host does between."""
    import time

    from .gemm_family import GemmFamily

    class TwoLaunches(GemmFamily):
        host_time = False

        def e2e(self, kernel, v, shape, inputs, device):
            self.call(kernel, v, shape, dict(inputs), device)
            time.sleep(0.01)  # host work a modeled e2e time must not see
            return self.call(kernel.track(kernel.module[v.kernel]), v, shape, inputs, device)

    dev = CyclesBackend(effect=gemm_effect())
    rep = tune(TwoLaunches(tiles=((8, 8),)), [(16, 16, 4)], tmp_path / "t.csv", device=dev, e2e=True,
               progress=lambda s: None)
    one = math.ceil(4 / 304) * math.ceil(16 * 16 / 4) * 4 / 1e9  # as in the test above
    assert rep.winners[(16, 16, 4)].seconds == pytest.approx(2 * one, rel=1e-12)


def test_tune_gemm_family_on_the_emulator(tmp_path, llvm_tools):
    require_emulator()
    from .gemm_family import GemmFamily

    fam = GemmFamily(tiles=((8, 8), (16, 16)), with_bug=True)
    out = tmp_path / "tuned.csv"
    rep = tune(fam, [(16, 16, 8)], out, device="emulator", progress=lambda s: None)
    status = {t.variant.name: t.status for t in rep.trials}
    assert status == {"gemm_8x8_u1": "ok", "gemm_16x16_u1": "ok", "gemm_bug": "mismatch"}, rep.trials
    assert rep.time_kind == "modeled"
    reg = Registry.from_csv(out)
    ch = reg.select("gfx942", "f32", 16, 16, 8)
    assert ch.how == "tuned" and ch.entry.time_kind == "modeled"
    k = ch.entry.load()
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((16, 8)).astype(np.float32), rng.standard_normal((8, 16)).astype(np.float32)
    C = np.zeros((16, 16), np.float32)
    k(C, A, B, 16, 16, 8, grid=ch.entry.grid(16, 16), block=(64, 1, 1), device="emulator")
    np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-5)


def test_tune_a_family_compiled_by_gcnforge(tmp_path):
    """Variants from the gcnforge compiler (authoring API -> passes -> .s), assembled by the
    built-in assembler, checked and timed on the emulator; the tuned CSV then dispatches."""
    require_emulator()
    from .builder_family import SaxpyFamily

    out = tmp_path / "saxpy.csv"
    rep = tune(SaxpyFamily(), [(256, 1, 1), (512, 1, 1)], out, device="emulator", progress=lambda s: None)
    status = {(t.shape[0], t.variant.name): t.status for t in rep.trials}
    assert status == {(256, "saxpy_u1"): "ok", (256, "saxpy_u2"): "ok", (256, "saxpy_u4"): "ok",
                      (512, "saxpy_u1"): "ok", (512, "saxpy_u2"): "ok", (512, "saxpy_u4"): "ok"}, rep.trials
    times = {(t.shape[0], t.variant.name): t.seconds for t in rep.trials}
    for n in (256, 512):
        best = min(("saxpy_u1", "saxpy_u2", "saxpy_u4"), key=lambda v: times[(n, v)])
        assert rep.winners[(n, 1, 1)].variant.name == best
    ch = Registry.from_csv(out).select("gfx942", "f32", 512, 1, 1)
    assert ch.how == "tuned" and ch.entry.time_kind == "modeled"
    u = int(ch.entry.extra["unroll"])
    x, y = np.arange(512, dtype=np.float32), np.ones(512, np.float32)
    ch.entry.load()(x, y, np.float32(2.0), grid=(512 // (64 * u), 1, 1), block=(64, 1, 1), device="emulator")
    np.testing.assert_array_equal(y, 2 * np.arange(512, dtype=np.float32) + 1)


def test_timing_mode_checks_the_whole_grid(tmp_path):
    """tune(timing=...) on a grid larger than the timing mode's sample: the sampled launch
    leaves the other work-groups' y untouched, so the check must come from a whole-grid
    launch (NumPy's a*x + y over all 8192 elements), while the time stays the model's."""
    require_emulator()
    from gcnforge.emulator.timing_mode import MAX_SAMPLE

    from .builder_family import SaxpyFamily

    n = 64 * 8 * MAX_SAMPLE  # u=1: 8x more work-groups than the sample
    rep = tune(SaxpyFamily(unrolls=(1,)), [(n, 1, 1)], tmp_path / "s.csv", device="emulator", timing="mi300x",
               progress=lambda s: None)
    (t,) = rep.trials
    assert (t.status, t.time_kind, t.message) == ("ok", "modeled", ""), t
    assert t.max_error == 0.0

    class Broken(SaxpyFamily):  # launches half the grid: the second half of y keeps its input
        def call(self, kernel, v, shape, inputs, device):
            kernel(inputs["x"], inputs["y"], np.float32(2.0), grid=(shape[0] // 128, 1, 1), block=(64, 1, 1),
                   device=device)
            return inputs["y"]

    (t,) = tune(Broken(unrolls=(1,)), [(n, 1, 1)], tmp_path / "b.csv", device="emulator", timing="mi300x",
                progress=lambda s: None).trials
    assert t.status == "mismatch", t

    class Sampled(SaxpyFamily):  # opts out: checks what the sampled work-group 0 wrote
        timing_check = "sampled"

        def reference(self, shape, inputs):
            return super().reference(shape, inputs)[:64]

        def call(self, kernel, v, shape, inputs, device):
            return super().call(kernel, v, shape, inputs, device)[:64]

    (t,) = tune(Sampled(unrolls=(1,)), [(n, 1, 1)], tmp_path / "c.csv", device="emulator", timing="mi300x",
                progress=lambda s: None).trials
    assert (t.status, t.message) == ("ok", "checked the sampled work-groups only"), t
