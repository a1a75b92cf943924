import subprocess
import sys

from gcnforge.diagnostics import Diagnostic, SourceLoc


def test_diagnostic_format_has_location_and_notes():
    d = Diagnostic("unknown mnemonic 'v_foo'", SourceLoc("k.s", 3, 5), notes=("did you mean v_fma_f32?",))
    assert str(d) == "k.s:3:5: error: unknown mnemonic 'v_foo'\nnote: did you mean v_fma_f32?"


def test_cli_without_command_prints_help_and_fails():
    r = subprocess.run([sys.executable, "-m", "gcnforge.cli.main"], capture_output=True, text=True)
    assert r.returncode == 2 and "usage: gcnforge" in r.stdout


def test_test_file_basenames_are_unique():
    """pytest's default import mode needs unique basenames across the test folders; a clash
    only shows as a collection error in a full run, so catch it here with a clear message."""
    from collections import Counter
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    names = Counter(p.name for d in ("tests", "integration_test") for p in (root / d).rglob("test_*.py"))
    assert not [n for n, c in names.items() if c > 1]
