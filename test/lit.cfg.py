# lit configuration for gcnforge's IR and assembly-text tests.
# Tests use: // RUN: gcnforge-opt %s ... | filecheck %s   (filecheck is the PyPI package)
import os
import shutil

import lit.formats

config.name = "gcnforge"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".s", ".py"]
config.excludes = ["lit.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.environment["PATH"] = os.environ.get("PATH", "")
config.environment["PYTHONHASHSEED"] = "0"
for var in ("HOME", "CI", "ROCM_PATH", "PYTHONPATH"):  # PYTHONPATH: a git worktree tests its own sources
    if var in os.environ:
        config.environment[var] = os.environ[var]

# LLVM tools for tests that compare against the oracle: `REQUIRES: llvm`.
llvm_bin = "/usr/lib/llvm-22/bin"
if os.path.isdir(llvm_bin):
    # first, so LLVM 22 wins over an older LLVM in /usr/bin (LLVM 14's tools cannot read gfx942)
    config.environment["PATH"] = llvm_bin + os.pathsep + config.environment["PATH"]
if shutil.which("llvm-mc", path=config.environment["PATH"]):
    config.available_features.add("llvm")
elif os.environ.get("CI", "").lower() in ("1", "true", "yes"):
    lit_config.fatal("LLVM 22 tools are required in CI (apt-get install llvm-22 lld-22 clang-22 mlir-22-tools)")
