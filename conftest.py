"""Root pytest configuration: fixtures every suite (tests/, integration_test/) shares."""

import os

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


def pytest_addoption(parser):
    g = parser.getgroup("gcnforge")
    g.addoption("--device", default=None, metavar="hip|hip:N",
                help="run the integration tests' kernels on this AMD GPU too (fails, never skips, when it is "
                     "absent) and write each launch's measured time beside the timing model's prediction")
    g.addoption("--run-slow", action="store_true",
                help="also run tests marked slow (CI runs them: CI=true)")
    g.addoption("--measured-csv", default="gcnforge-measured.csv", metavar="FILE",
                help="with --device: where the measured-vs-predicted rows go (default %(default)s)")


def pytest_configure(config):
    dev = config.getoption("--device")
    if not dev or dev == "emulator":
        return
    from gcnforge.runtime.devices import _make, gpu_index
    from gcnforge.runtime.measured import record_measured

    if gpu_index(dev) is None:
        raise pytest.UsageError(f"--device {dev}: expected hip or hip:N")
    b = _make(dev)
    if not b.available():
        raise pytest.UsageError(f"--device {dev}: {b.unavailable_reason}")
    os.environ["GCNFORGE_DEVICE"] = dev  # launches without device= go to this GPU
    os.environ["GCNFORGE_TEST_DEVICE"] = dev  # integration_test/emulator's harness runs there
    config._gcnforge_measured = record_measured(config.getoption("--measured-csv"))
    config._gcnforge_measured.__enter__()


def pytest_unconfigure(config):
    cm = getattr(config, "_gcnforge_measured", None)
    if cm is not None:
        cm.__exit__(None, None, None)


def pytest_terminal_summary(terminalreporter, config):
    cm = getattr(config, "_gcnforge_measured", None)
    if cm is not None:
        from gcnforge.runtime.measured import active

        m = active()
        if m is not None:
            terminalreporter.write_line(f"gcnforge: {m.rows} GPU launches, measured vs predicted, in {m.path}")


def pytest_collection_modifyitems(config, items):
    """Tests marked ``slow`` run in CI's full pass (``CI=true``) and with ``--run-slow``; the
    README's local test command skips them, saying so."""
    if IN_CI or config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: runs in CI (CI=true) or with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
