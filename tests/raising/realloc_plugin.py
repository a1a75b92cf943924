"""pytest plugin: every clang code object the emulator suite builds (integration_test/emulator,
``harness.build_cl``) is replaced by its raised, SSA-lifted, re-allocated and re-emitted
version, so the whole suite checks re-allocated code against NumPy.

    python -m pytest -p tests.raising.realloc_plugin integration_test/emulator/test_kernels.py
"""

from __future__ import annotations

import sys
from pathlib import Path

EMU = Path(__file__).resolve().parents[2] / "integration_test" / "emulator"


def pytest_configure(config) -> None:
    sys.path.insert(0, str(EMU))
    import harness

    from gcnforge.binary import read_code_object
    from gcnforge.raising import module_code_object, raise_code_object
    from gcnforge.raising.ssa import reallocate

    original = harness.build_cl
    done: dict[bytes, bytes] = {}

    def build_cl(source, tools, extra=()):
        blob = original(source, tools, extra)
        if blob not in done:
            m = raise_code_object(read_code_object(blob))
            reallocate(m)
            done[blob] = module_code_object(m)
        return done[blob]

    harness.build_cl = build_cl
    config._lift_done = done  # noqa: SLF001


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    done = getattr(config, "_lift_done", {})
    terminalreporter.write_line(f"lift: {len(done)} code object(s) re-allocated")
