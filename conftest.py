"""Root pytest configuration: fixtures every suite (tests/, integration_test/) shares."""

import pytest

from gcnforge.testing import require_llvm


@pytest.fixture
def llvm() -> dict[str, str]:
    """Paths of the LLVM 22 oracle tools; skips (fails in CI) when absent."""
    return require_llvm("llvm-mc", "llvm-objdump", "ld.lld", "clang", "llvm-readelf")
