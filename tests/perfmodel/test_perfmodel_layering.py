"""DESIGN.md's layer table: ``perfmodel`` depends on ``isa`` only (plus the shared
diagnostics and LLVM-tool lookup every layer uses). Every import in the package, lazy ones
inside functions included, is checked from the source."""

import ast
from pathlib import Path

import gcnforge.perfmodel

ALLOWED = ("gcnforge.isa", "gcnforge.perfmodel", "gcnforge.diagnostics", "gcnforge.llvm_tools")


def test_perfmodel_imports_only_isa():
    root = Path(gcnforge.perfmodel.__file__).parent
    bad = []
    for f in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            bad += [f"{f.relative_to(root)}:{node.lineno} {n}" for n in names
                    if n.startswith("gcnforge") and not n.startswith(ALLOWED)]
    assert not bad, bad
