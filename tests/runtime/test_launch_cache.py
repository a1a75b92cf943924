"""benchmarks/trace_cache.py's LaunchCache: a repeated emulator launch is replayed (no emulation)
with the outputs the identical binary wrote on identical inputs and the timing model re-run on
the recording; anything the emulation depends on (an input's bytes, the profile's recorded
fields) makes it a new launch. Oracle: NumPy's copy of the input (the kernel is a streaming copy)
and the report of a fresh emulation."""

from __future__ import annotations

import math
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


def _record(kern, cache_dir, seed, fingerprint=None):
    """One untimed launch through a LaunchCache on ``cache_dir`` (recorded under ``fingerprint``
    when given): (its input, its entry's path, the cache's counts)."""
    inp = np.random.default_rng(seed).integers(0, 2**32, NWG * 1024, dtype=np.uint32)
    before = set(cache_dir.rglob("*.pkl"))
    with trace_cache.LaunchCache(cache_dir) as c:
        if fingerprint:
            c.fingerprint = fingerprint
        out, _ = _run(kern, inp)
    assert np.array_equal(out, inp)
    new = set(cache_dir.rglob("*.pkl")) - before
    return inp, (new.pop() if new else None), c.counts()


def test_prune_evicts_other_sources_first_then_least_recently_used(tmp_path, copy_kernel):
    """Four entries: s1, s2 recorded under another emulator source, c1, c2 under this one, in that
    order; then s1 and c1 replayed (their stamps renewed). The order of eviction is s2, s1 (other
    source, least recently used first), c2, c1; a bound that fits one entry keeps c1 alone. An
    evicted launch is emulated again (its output NumPy's copy), the kept one replayed."""
    s1, p_s1, _ = _record(copy_kernel, tmp_path, 11, "another emulator")
    s2, p_s2, _ = _record(copy_kernel, tmp_path, 12, "another emulator")
    c1, p_c1, _ = _record(copy_kernel, tmp_path, 13)
    c2, p_c2, _ = _record(copy_kernel, tmp_path, 14)
    assert all(p.with_suffix(".used").exists() for p in (p_s1, p_s2, p_c1, p_c2))
    for seed in (11, 13):  # replays: s1 (counted stale) and c1 become the most recent of their kinds
        _, new, counts = _record(copy_kernel, tmp_path, seed)
        assert new is None and counts["hits"] == 1
    fp = trace_cache._emulator_fingerprint()
    whole = trace_cache.prune(tmp_path, math.inf, fp, dry_run=True)
    assert not whole.evicted and len(whole.kept) == 4
    order = trace_cache.prune(tmp_path, 0, fp, dry_run=True).evicted
    names = {p_s1: "s1", p_s2: "s2", p_c1: "c1", p_c2: "c2"}
    assert [names[e.path] for e in order] == ["s2", "s1", "c2", "c1"], [(e.used_ns, e.emulator) for e in order]
    assert all(p.exists() for p in (p_s1, p_s2, p_c1, p_c2))  # a dry run removes nothing
    size_c1 = next(e.size for e in order if e.path == p_c1)
    done = trace_cache.prune(tmp_path, size_c1, fp)
    assert [e.path for e in done.evicted] == [p_s2, p_s1, p_c2] and [e.path for e in done.kept] == [p_c1]
    assert sorted(f.name for f in tmp_path.rglob("*") if f.is_file()) == sorted([p_c1.name, p_c1.stem + ".used"])
    _, new, counts = _record(copy_kernel, tmp_path, 14)  # c2: emulated again (and recorded again)
    assert new == p_c2 and counts == dict(hits=0, misses=1, stale=0, failed=0)
    _, new, counts = _record(copy_kernel, tmp_path, 13)  # c1: replayed
    assert new is None and counts["hits"] == 1


def test_prune_orders_unstamped_entries_by_their_file_time(tmp_path, copy_kernel):
    """An entry recorded before stamps (none beside it) counts as used when its file was written
    and under the source its pickle names; leftovers (a stamp without an entry, an interrupted
    write older than an hour) are removed, a fresh temporary file is not."""
    import os

    _, old, _ = _record(copy_kernel, tmp_path, 21)
    _, new, _ = _record(copy_kernel, tmp_path, 22)
    for p, t in ((old, 1_000_000_000), (new, 2_000_000_000)):
        p.with_suffix(".used").unlink()
        os.utime(p, ns=(t, t))
    orphan = old.parent / ("0" * 40 + ".used")
    orphan.write_text("1 x\n")
    stale_tmp, fresh_tmp = old.parent / "tmpa.tmp", old.parent / "tmpb.tmp"
    stale_tmp.write_bytes(b"x")
    fresh_tmp.write_bytes(b"x")
    os.utime(stale_tmp, (0, 0))
    fp = trace_cache._emulator_fingerprint()
    done = trace_cache.prune(tmp_path, new.stat().st_size, fp)
    assert [e.path for e in done.evicted] == [old] and not done.evicted[0].stamped
    assert done.kept[0].emulator == fp
    assert sorted(done.leftovers) == sorted([orphan, stale_tmp])
    assert not orphan.exists() and not stale_tmp.exists() and fresh_tmp.exists() and new.exists()


def _cli(*args):
    import os
    import subprocess

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "trace_cache.py"), *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=300)


def test_cli_stats_prune_and_bad_input(tmp_path, copy_kernel):
    """``--stats`` and ``--prune`` on a directory; a missing directory, a file and bad sizes are an
    error message and exit 2, never a traceback."""
    _record(copy_kernel, tmp_path, 31, "another emulator")
    _, cur, _ = _record(copy_kernel, tmp_path, 32)
    r = _cli("--stats", tmp_path)
    assert r.returncode == 0, r.stderr
    assert f"{tmp_path}: 2 entries" in r.stdout
    assert "current emulator source: 1 entries" in r.stdout and "other emulator sources: 1 entries" in r.stdout
    r = _cli("--prune", tmp_path, "--max-gb", "1e-9", "--dry-run")  # 1 KB: smaller than either entry
    assert r.returncode == 0 and "would evict 2 entries" in r.stdout and len(list(tmp_path.rglob("*.pkl"))) == 2
    r = _cli("--prune", tmp_path, "--max-gb", f"{cur.stat().st_size * 1.5 / 1e9}")
    assert r.returncode == 0 and "evicted 1 entries" in r.stdout and "other source" in r.stdout
    assert list(tmp_path.rglob("*.pkl")) == [cur]
    for args, msg in (((("--stats", tmp_path / "nope")), "no such directory"),
                      (("--prune", cur), "not a directory"),
                      (("--prune", tmp_path, "--max-gb", "-1"), "expected a size in GB"),
                      (("--prune", tmp_path, "--max-gb", "lots"), "expected a size in GB"),
                      (("--prune", tmp_path, "--max-gb", "nan"), "expected a size in GB"),
                      ((), "one of the arguments --stats --prune is required")):
        r = _cli(*args)
        assert r.returncode == 2 and msg in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
    assert list(tmp_path.rglob("*.pkl")) == [cur]


def test_enforce_cap_after_a_run(tmp_path, copy_kernel):
    """bench_kernels' end of run: nothing to say under the bound or with 'inf'; over it, the line
    says how many evicted entries the run itself used (they will be emulated again)."""
    import time

    _record(copy_kernel, tmp_path, 41)
    since = time.time_ns()
    _, own, _ = _record(copy_kernel, tmp_path, 42)
    assert trace_cache.enforce_cap(tmp_path, math.inf, since) is None
    assert trace_cache.enforce_cap(tmp_path, 1.0, since) is None
    msg = trace_cache.enforce_cap(tmp_path, 0.0, since)
    assert "2 least recently used entries evicted" in msg and "1 of them used by this run" in msg
    assert not own.exists() and not list(tmp_path.rglob("*.pkl"))
