"""pyproject.toml gives compatible ranges (gcnforge installs beside PyTorch and ROCm's Python
packages); requirements.txt gives the exact, tested pins that CI installs. Every dependency of
pyproject's runtime and test groups has exactly one ``==`` pin in requirements.txt, and that
pin lies inside pyproject's range."""

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _reqs(lines):
    out = {}
    for line in lines:
        text = line.split("#", 1)[0].strip()
        if text and not text.startswith("-"):  # `-e .`: gcnforge itself
            r = Requirement(text)
            out[canonicalize_name(r.name)] = r
    return out


def test_requirements_txt_pins_every_dependency_inside_its_range():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    ranges = _reqs(project["dependencies"] + project["optional-dependencies"]["test"])
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    pins = _reqs(lines)
    assert set(pins) == set(ranges)
    for name, r in pins.items():
        specs = list(r.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"'{r}' is not pinned with =="
        assert ranges[name].specifier.contains(specs[0].version, prereleases=True), \
            f"{name}=={specs[0].version} is outside pyproject's range '{ranges[name].specifier}'"
    assert "-e ." in [x.strip() for x in lines]  # and gcnforge itself, as `pip install -e .`


def test_pyproject_gives_ranges_not_pins():
    """An exact pin in pyproject would clash with the versions a PyTorch environment holds."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for group in [project["dependencies"], *project["optional-dependencies"].values()]:
        for r in _reqs(group).values():
            assert all(s.operator != "==" for s in r.specifier), f"'{r}' pins an exact version"
