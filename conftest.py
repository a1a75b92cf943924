"""Root pytest configuration: fixtures every suite (tests/, integration_test/) shares."""

import pytest
from hypothesis import settings

from gcnforge.testing import IN_CI, require_llvm

# CI replays the same examples on every run (a red CI does not land, so it must not depend on
# luck); local runs keep exploring new ones, and what they find becomes a fixed test.
settings.register_profile("ci", derandomize=True, print_blob=True)
if IN_CI:
    settings.load_profile("ci")


@pytest.fixture
def llvm() -> dict[str, str]:
    """Paths of the LLVM 22 oracle tools; skips (fails in CI) when absent."""
    return require_llvm("llvm-mc", "llvm-objdump", "ld.lld", "clang", "llvm-readelf")
