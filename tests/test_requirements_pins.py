"""requirements.txt lists exactly the pinned runtime and test dependencies of pyproject.toml,
so `pip install -r requirements.txt` and `pip install -e '.[test]'` install the same things."""

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _pins(lines):
    out = {}
    for line in lines:
        text = line.split("#", 1)[0].strip()
        if text and not text.startswith("-"):  # `-e .`: gcnforge itself
            r = Requirement(text)
            specs = list(r.specifier)
            assert len(specs) == 1 and specs[0].operator == "==", f"'{text}' is not pinned with =="
            out[canonicalize_name(r.name)] = specs[0].version
    return out


def test_requirements_txt_equals_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    want = _pins(project["dependencies"] + project["optional-dependencies"]["test"])
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    assert _pins(lines) == want
    assert "-e ." in [x.strip() for x in lines]  # and gcnforge itself, as `pip install -e .`


def test_every_pyproject_dependency_is_pinned():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for group in [project["dependencies"], *project["optional-dependencies"].values()]:
        _pins(group)  # asserts '==' on each
