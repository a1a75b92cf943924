"""benchmarks/trace_cache.py's LaunchCache: a repeated emulator launch is replayed (no emulation)
with the outputs the identical binary wrote on identical inputs and the timing model re-run on
the recording; anything the emulation depends on (an input's bytes, the profile's recorded
fields) makes it a new launch. Oracle: NumPy's copy of the input (the kernel is a streaming copy)
and the report of a fresh emulation."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import trace_cache  # noqa: E402

NWG = 40  # work-groups of 256 work-items, 16 bytes each: more than the timing mode samples


@pytest.fixture
def copy_kernel():
    import gcnforge.runtime as rt
    from gcnforge.binary import assemble
    from gcnforge.runtime.kernargs import ArgLayout

    src = (ROOT / "benchmarks" / "kernels" / "copy.s").read_text()
    return rt.load(assemble(src)).kernel("copy", layout=ArgLayout.slots16(["out:u32*", "inp:u32*"]))


def _run(kern, inp, **kw):
    out = np.full(inp.size, 0xFFFFFFFF, np.uint32)
    res = kern(out, inp, grid=(NWG,), block=(256,), device="emulator", **kw)
    return out, res


@pytest.fixture
def no_emulation(monkeypatch):
    """Makes any emulation fail: a replayed launch must not run the emulator."""
    from gcnforge.emulator import Device

    def refuse(*a, **k):
        raise AssertionError("emulated")

    return lambda: monkeypatch.setattr(Device, "run", refuse)


def test_timed_launch_replayed(tmp_path, copy_kernel, no_emulation):
    inp = np.random.default_rng(1).integers(0, 2**32, NWG * 1024, dtype=np.uint32)
    fresh_out, fresh = _run(copy_kernel, inp, timing="mi300x")
    assert fresh.partial  # a sample ran: the other outputs stay unwritten
    with trace_cache.LaunchCache(tmp_path) as c:
        out1, r1 = _run(copy_kernel, inp, timing="mi300x")
        no_emulation()
        out2, r2 = _run(copy_kernel, inp, timing="mi300x")
    assert (c.misses, c.hits) == (1, 1)
    ran = out2 != 0xFFFFFFFF
    assert ran.any() and not ran.all()
    assert np.array_equal(out2[ran], inp[ran])  # NumPy's copy where the sampled work-groups wrote
    assert np.array_equal(out2, out1) and np.array_equal(out2, fresh_out)
    assert r2.timing.us == pytest.approx(fresh.timing.us, rel=1e-12) and r2.partial
    assert r2.timing.sampled_ids == fresh.timing.sampled_ids
    assert r2.timing.notes == fresh.timing.notes


def test_profile_fields_and_inputs_key(tmp_path, copy_kernel):
    """mi325x has mi300x's recorded fields (gfx942, 304 CUs, 128-byte lines): replayed, and
    predicted as a fresh mi325x emulation is; mi308x (80 CUs) samples other work-groups and a
    changed input byte is another launch: both emulated."""
    from gcnforge.emulator import timing_mode
    from gcnforge.perfmodel import profiles

    a, b = profiles.get("mi300x"), profiles.get("mi325x")
    assert all(getattr(a, f) == getattr(b, f) for f in timing_mode.RECORDED_PROFILE_FIELDS)
    inp = np.arange(NWG * 1024, dtype=np.uint32)
    _, fresh = _run(copy_kernel, inp, timing="mi325x")
    with trace_cache.LaunchCache(tmp_path) as c:
        _run(copy_kernel, inp, timing="mi300x")
        _, r = _run(copy_kernel, inp, timing="mi325x")
        assert (c.misses, c.hits) == (1, 1)
        assert r.timing.us == pytest.approx(fresh.timing.us, rel=1e-12)
        _run(copy_kernel, inp, timing="mi308x")
        inp2 = inp.copy()
        inp2[7] ^= 1
        out, _ = _run(copy_kernel, inp2)  # untimed: every work-group
        assert (c.misses, c.hits) == (3, 1)
        assert np.array_equal(out, inp2)


def test_untimed_resumes_in_a_new_cache_object(tmp_path, copy_kernel, no_emulation):
    """Entries are files: another LaunchCache on the directory (a resumed run) replays them."""
    inp = np.random.default_rng(2).integers(0, 2**32, NWG * 1024, dtype=np.uint32)
    with trace_cache.LaunchCache(tmp_path):
        _run(copy_kernel, inp)
    no_emulation()
    with trace_cache.LaunchCache(tmp_path) as c:
        out, res = _run(copy_kernel, inp)
    assert c.hits == 1 and np.array_equal(out, inp) and res.seconds is None


def test_stale_strict_and_damaged_entries(tmp_path, copy_kernel):
    """An entry recorded under another emulator source is replayed and counted, or emulated again
    with ``strict``; an entry that cannot be read is emulated again (and rewritten)."""
    inp = np.arange(NWG * 1024, dtype=np.uint32)
    with trace_cache.LaunchCache(tmp_path) as c:
        c.fingerprint = "another emulator"
        _run(copy_kernel, inp, timing="mi300x")
    with trace_cache.LaunchCache(tmp_path) as c:
        out, _ = _run(copy_kernel, inp, timing="mi300x")
    assert c.counts() == dict(hits=1, misses=0, stale=1, failed=0)
    with trace_cache.LaunchCache(tmp_path, strict=True) as c:
        _run(copy_kernel, inp, timing="mi300x")
    assert c.counts() == dict(hits=0, misses=1, stale=0, failed=0)
    (entry,) = tmp_path.rglob("*.pkl")
    entry.write_bytes(b"not a pickle")
    with pytest.warns(UserWarning, match="not replayed"), trace_cache.LaunchCache(tmp_path) as c:
        out2, _ = _run(copy_kernel, inp, timing="mi300x")
    assert c.counts() == dict(hits=0, misses=1, stale=0, failed=1)
    assert np.array_equal(out2, out)


def test_key_ignores_the_source_directory(tmp_path):
    """The same builder kernel compiled from two checkouts differs only in its debug line table's
    directory: one launch key (``code_key``); another kernel has another key."""
    import hashlib
    import importlib.util
    import shutil

    sys.path.insert(0, str(ROOT / "examples"))
    from lib.compile import compile_module

    from gcnforge.binary import read_code_object

    blobs = []
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        shutil.copy(ROOT / "examples" / "topk_softmax.py", tmp_path / d / "topk_softmax.py")
        spec = importlib.util.spec_from_file_location(f"topk_{d}", tmp_path / d / "topk_softmax.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        blobs.append(compile_module(mod.build(128, 4, False)).blob)
    other = compile_module(mod.build(128, 6, False)).blob
    assert hashlib.sha1(blobs[0]).digest() != hashlib.sha1(blobs[1]).digest()  # the directories differ
    a, b, c = (trace_cache.code_key(read_code_object(x)) for x in (*blobs, other))
    assert a == b and a != c


def test_entry_of_the_first_key_format_replayed(tmp_path, copy_kernel, no_emulation):
    """An entry filed under the first format's key (the whole code object hashed) is found, and
    filed under the current key from then on."""
    inp = np.arange(NWG * 1024, dtype=np.uint32)
    with trace_cache.LaunchCache(tmp_path) as c:
        out, _ = _run(copy_kernel, inp, timing="mi300x")
    (entry,) = tmp_path.rglob("*.pkl")
    backend = copy_kernel.resolve_device("emulator", [])
    kw = dict(grid=(NWG,), block=(256,), device="emulator", timing="mi300x")
    old = c.key(copy_kernel, backend, (np.full(inp.size, 0xFFFFFFFF, np.uint32), inp), kw, legacy=True)
    assert old != entry.stem
    (tmp_path / old[:2]).mkdir(exist_ok=True)
    entry.rename(tmp_path / old[:2] / f"{old}.pkl")
    no_emulation()
    with trace_cache.LaunchCache(tmp_path) as c:
        out2, _ = _run(copy_kernel, inp, timing="mi300x")
    assert c.counts()["hits"] == 1 and np.array_equal(out2, out) and entry.exists()
