"""The import graph of python/gcnforge against the layer table of docs/DESIGN.md.

Every import of a gcnforge module (module level or inside a function, absolute or relative,
and ``importlib.import_module`` of a constant name) must point into the importing package
itself or into a package its row lists. The table is the document a maintainer reads, so it
is parsed here rather than restated: changing a dependency means changing the design."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "python" / "gcnforge"
DESIGN = ROOT / "docs" / "DESIGN.md"
BASE = ("record", "diagnostics", "llvm_tools")  # "base" in the table; every layer may import them


def layer_table() -> dict[str, set[str] | None]:
    """package -> the packages it may import (None: any), from the rows of the table."""
    rows: dict[str, set[str] | None] = {}
    for line in DESIGN.read_text().splitlines():
        m = re.match(r"\|\s*`(\w+)`\s*\|[^|]*\|([^|]*)\|\s*$", line)
        if not m:
            continue
        name, deps = m.group(1), m.group(2)
        if deps.strip() == "all":
            rows[name] = None
            continue
        allowed = set(re.findall(r"`(\w+)`", deps))
        if re.search(r"\bbase\b", deps):
            allowed |= set(BASE)
        if name not in BASE:
            allowed |= set(BASE)
        rows[name] = allowed
    return rows


def _component(dotted: str) -> str | None:
    """The top-level package of a gcnforge module name ('gcnforge.asm.core' -> 'asm')."""
    parts = dotted.split(".")
    if parts[0] != "gcnforge":
        return None
    return parts[1] if len(parts) > 1 else ""


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, imported gcnforge module) for every import in the file."""
    mod = _module_name(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from gcnforge import raising` names a package, not an attribute of the root
            out += [(node.lineno, f"{target}.{a.name}" if target == "gcnforge" else target) for a in node.names]
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
              == "import_module" and node.args):
            arg = node.args[0]
            if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
                arg = arg.values[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.append((node.lineno, arg.value.rstrip(".")))
    return out


def violations() -> list[str]:
    rows = layer_table()
    components = {p.name if p.is_dir() else p.stem for p in PKG.iterdir()
                  if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__")}
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        own = _component(_module_name(path))
        if not own:
            continue  # gcnforge/__init__.py: the lazy top-level conveniences
        allowed = rows.get(own)
        if allowed is None:
            continue
        for line, target in imports_of(path):
            dep = _component(target)
            if dep is None or dep == own or target == "gcnforge.__version__":
                continue
            if dep not in components or dep not in allowed:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {own} imports {target}")
    return bad


def test_every_package_has_a_row():
    rows = layer_table()
    present = {p.name if p.is_dir() else p.stem for p in PKG.iterdir()
               if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__")}
    # a row may name a package still being written (its imports are checked once it exists)
    assert present - set(rows) == set()
    assert set(BASE) <= set(rows) and rows["cli"] is None


def test_imports_follow_the_layer_table():
    assert violations() == []


def test_the_checker_sees_violations(tmp_path, monkeypatch):
    """The checker itself: a function-level import of the dialect from the emulator, and a
    relative one from perfmodel into the runtime, are both reported."""
    pkg = tmp_path / "python" / "gcnforge"
    for name, text in {"emulator/x.py": "def f():\n    from gcnforge.dialect import ops\n",
                       "perfmodel/y.py": "from ..runtime import load\n",
                       "isa/z.py": "from . import table\n"}.items():
        f = pkg / name
        f.parent.mkdir(parents=True, exist_ok=True)
        (f.parent / "__init__.py").touch()
        f.write_text(text)
    for name in ("dialect", "runtime"):
        (pkg / name).mkdir()
        (pkg / name / "__init__.py").touch()
    monkeypatch.setitem(globals(), "PKG", pkg)
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    got = violations()
    assert got == ["python/gcnforge/emulator/x.py:2: emulator imports gcnforge.dialect",
                   "python/gcnforge/perfmodel/y.py:1: perfmodel imports gcnforge.runtime"]


@pytest.mark.parametrize("row,dep", [("emulator", "dialect"), ("runtime", "passes"), ("perfmodel", "emulator")])
def test_table_forbids_what_design_says(row, dep):
    """The prose rules of the design ('the emulator never imports the dialect', 'the runtime
    never imports the compiler', 'the performance model depends on isa alone') hold in the table."""
    assert dep not in layer_table()[row]
