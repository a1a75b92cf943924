"""A helper's misuse (a width, a reduction or a layout it cannot do) as a ``Diagnostic`` at the
kernel author's ``file:line:col`` (the innermost frame outside gcnforge and the standard
library), like the builder's own errors."""

from __future__ import annotations

from gcnforge.builder import user_location
from gcnforge.diagnostics import Diagnostic


def fail(message: str) -> Diagnostic:
    return Diagnostic(message, user_location())
