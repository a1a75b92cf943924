"""lit configuration for tests of gcnforge kernels, IR and assembly, installed with gcnforge so a
user's own test folder needs one line in its ``lit.cfg.py``::

    import gcnforge.lit_config; gcnforge.lit_config.configure(config, lit_config)

(``gcnforge lit-config`` prints that file.) Tests then use ``// RUN:`` lines with these
substitutions: ``%gcnforge-opt``, ``%gcnforge`` (the commands of this installation, run by
this Python), ``%FileCheck`` / ``%filecheck`` (the PyPI FileCheck), ``%python``; and
``REQUIRES: llvm`` for tests that call LLVM 22's tools (found on PATH, ``$ROCM_PATH/llvm/bin``
or ``/usr/lib/llvm-22/bin``; in CI, ``CI=true``, their absence is fatal rather than a skip).
The plain names ``gcnforge-opt`` and ``filecheck`` work too when they are on PATH.
"""

from __future__ import annotations

import os
import shlex
import sys

from gcnforge.llvm_tools import find_tool

SUFFIXES = [".mlir", ".s", ".py"]
PASSED_ENV = ("HOME", "CI", "ROCM_PATH", "PYTHONPATH", "GCNFORGE_DEVICE")


def substitutions() -> list[tuple[str, str]]:
    """``(%name, command)`` pairs; the longer names first (lit substitutes in order)."""
    py = shlex.quote(sys.executable)
    return [
        ("%gcnforge-opt", f"{py} -m gcnforge.cli.opt"),
        ("%gcnforge", f"{py} -m gcnforge.cli.main"),
        ("%FileCheck", f"{py} -m filecheck"),
        ("%filecheck", f"{py} -m filecheck"),
        ("%python", py),
    ]


def configure(config, lit_config=None, name: str = "gcnforge-user") -> None:
    """Set ``config`` (lit's TestingConfig of the calling lit.cfg.py) up for gcnforge tests:
    ShTest format, the suffixes above, the substitutions, the environment, the ``llvm`` feature."""
    import lit.formats

    config.name = getattr(config, "name", None) or name
    config.test_format = lit.formats.ShTest(execute_external=False)
    config.suffixes = list(SUFFIXES)
    config.excludes = list(getattr(config, "excludes", None) or []) + ["lit.cfg.py", "Inputs"]
    config.environment["PATH"] = os.environ.get("PATH", "")
    config.environment["PYTHONHASHSEED"] = "0"
    for var in PASSED_ENV:
        if var in os.environ:
            config.environment[var] = os.environ[var]
    config.substitutions.extend(substitutions())
    mc = find_tool("llvm-mc")
    if mc is not None:
        # LLVM's directory first, so its llvm-mc / llvm-objdump win over an older LLVM on PATH
        config.environment["PATH"] = os.path.dirname(mc) + os.pathsep + config.environment["PATH"]
        config.available_features.add("llvm")
    elif os.environ.get("CI", "").lower() in ("1", "true", "yes") and lit_config is not None:
        lit_config.fatal("LLVM 22 tools are required in CI (apt-get install llvm-22 lld-22 clang-22 mlir-22-tools)")


CFG_TEXT = """# lit configuration: gcnforge's substitutions (%gcnforge-opt, %gcnforge, %FileCheck), suffixes
# and the `llvm` feature (see gcnforge.lit_config)
import gcnforge.lit_config; gcnforge.lit_config.configure(config, lit_config)
"""
