"""No function or method of python/gcnforge runs over 100 lines (def line to last line,
docstring included): a longer one does several things and is split into named steps."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "python" / "gcnforge"
LIMIT = 100


def long_functions(pkg: Path = PKG, limit: int = LIMIT) -> list[str]:
    out = []
    for path in sorted(pkg.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.lineno + 1
                if n > limit:
                    out.append(f"{path.relative_to(pkg)}:{node.lineno} {node.name}: {n} lines")
    return out


def test_no_function_over_100_lines():
    assert long_functions() == []


def test_the_check_counts_lines(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(100))
    (tmp_path / "m.py").write_text(f"def ok():\n{body[: body.rindex(chr(10))]}\n\n\nclass C:\n"
                                   f"    async def long(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n")
    assert long_functions(tmp_path) == ["m.py:104 long: 101 lines"]  # ok() has exactly 100
