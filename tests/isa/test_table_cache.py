"""The on-disk compact form of the ISA table: same records as the JSON, never stale."""

from __future__ import annotations

import json
import shutil

import pytest

import gcnforge
from gcnforge.isa import table


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A private cache directory and a private copy of the JSON data."""
    data = tmp_path / "data"
    shutil.copytree(table.DATA_DIR, data)
    monkeypatch.setenv("GCNFORGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(table, "DATA_DIR", data)
    table.reload()
    yield data
    table.reload()


def _from_json(data_dir) -> list:
    """The oracle: the JSON files parsed directly, without the cache."""
    return [table.instruction_from_dict(d) for p in sorted(data_dir.glob("gfx942_*.json"))
            for d in json.loads(p.read_text())["instructions"]]


def test_cached_table_equals_the_json(fresh):
    direct = _from_json(fresh)
    first = table.instructions()  # builds and writes the cache
    assert list((fresh.parent / "cache").glob("isa-gfx942-*.marshal"))
    table.reload()
    again = table.instructions()  # loads the cache
    assert list(first) == direct and list(again) == direct
    # lookups keep the JSON order's first-wins rule and return the same objects
    want = {}
    for i in direct:
        want.setdefault(i.mnemonic, i)
    assert all(table.by_mnemonic(m) == i for m, i in want.items())
    assert table.by_mnemonic("v_add_f32_e32") is table.by_mnemonic("v_add_f32_e32")
    i = table.by_mnemonic("s_load_dwordx4")
    assert table.by_opcode(i.encoding, i.opcode) is i and i in table.variants(i.base)


def test_edited_json_is_never_served_stale(fresh):
    assert table.by_mnemonic("s_endpgm").sem != "edited"
    path = fresh / "gfx942_scalar.json"
    doc = json.loads(path.read_text())
    for d in doc["instructions"]:
        if d["mnemonic"] == "s_endpgm":
            d["sem"] = "edited"
    path.write_text(json.dumps(doc))
    table.reload()
    assert table.by_mnemonic("s_endpgm").sem == "edited"


def test_new_version_uses_a_new_cache(fresh, monkeypatch):
    table.by_mnemonic("s_endpgm")
    before = set((fresh.parent / "cache").iterdir())
    monkeypatch.setattr(gcnforge, "__version__", gcnforge.__version__ + ".post1")
    table.reload()
    table.by_mnemonic("s_endpgm")
    assert len(set((fresh.parent / "cache").iterdir()) - before) == 1


def test_damaged_cache_is_rebuilt(fresh):
    table.by_mnemonic("s_endpgm")
    (cached,) = (fresh.parent / "cache").glob("*.marshal")
    cached.write_bytes(cached.read_bytes()[:1000])
    table.reload()
    assert list(table.instructions()) == _from_json(fresh)


def test_unwritable_cache_still_loads(fresh, monkeypatch, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setenv("GCNFORGE_CACHE_DIR", str(blocker / "cache"))  # a directory under a file
    table.reload()
    assert list(table.instructions()) == _from_json(fresh)


def test_relative_cache_dir_is_not_used(fresh, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GCNFORGE_CACHE_DIR", "relative/cache")  # e.g. an unexpanded '~'
    table.reload()
    assert list(table.instructions()) == _from_json(fresh)
    assert not (tmp_path / "relative").exists()
