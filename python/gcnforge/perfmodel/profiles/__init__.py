"""Device profiles: one module per device, each defining ``PROFILE`` (a ``DeviceProfile``)
with every value cited where it is set. ``get(name)`` finds one by name (case-insensitive)."""

from __future__ import annotations

import importlib

from gcnforge.perfmodel.device import DeviceProfile

NAMES = ("mi300x", "mi308x", "mi325x")


def get(name: str) -> DeviceProfile:
    key = str(name).lower().replace("-", "").replace("_", "")
    if key not in NAMES:
        from gcnforge.diagnostics import Diagnostic

        raise Diagnostic(f"unknown device profile '{name}' (known: {', '.join(NAMES)})")
    return importlib.import_module(f"gcnforge.perfmodel.profiles.{key}").PROFILE


__all__ = ["get", "NAMES", "DeviceProfile"]
