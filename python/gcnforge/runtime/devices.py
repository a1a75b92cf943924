"""Choosing a backend.

``device=None`` means: the HIP backend when hip-python finds an AMD GPU whose target
matches the code object, otherwise the emulator. The environment variable
``GCNFORGE_DEVICE`` (``hip`` or ``emulator``) overrides that choice. The decision is logged
on the ``gcnforge.runtime`` logger and shown in ``repr`` of modules and kernels.
"""

from __future__ import annotations

import logging
import os

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.backend import Backend
from gcnforge.binary.target_id import compatible

log = logging.getLogger("gcnforge.runtime")

_instances: dict[str, Backend] = {}


def _make(name: str) -> Backend:
    if name not in _instances:
        if name == "hip":
            from gcnforge.runtime.hip_backend import HipBackend

            _instances[name] = HipBackend()
        elif name == "emulator":
            from gcnforge.runtime.emulator_backend import EmulatorBackend

            _instances[name] = EmulatorBackend()
        else:
            raise Diagnostic(f"unknown device '{name}' (choose 'hip' or 'emulator')")
    return _instances[name]


def _why_not(b: Backend) -> str:
    return getattr(b, "unavailable_reason", None) or "not available"


def get_device(device: Backend | str | None = None, target: str | None = None) -> Backend:
    """The backend for ``device`` (a Backend, ``'hip'``, ``'emulator'`` or None = choose)."""
    if device is not None and not isinstance(device, str):
        return device
    if device is None:
        device = os.environ.get("GCNFORGE_DEVICE") or None
    if device is None:
        return default_device(target)
    b = _make(device)
    if not b.available():
        raise Diagnostic(f"{device} device is not available: {_why_not(b)}")
    return b


def default_device(target: str | None = None) -> Backend:
    hip = _make("hip")
    if hip.available():
        if target is None or compatible(target, hip.arch):
            log.info("gcnforge: using HIP device %s", hip.arch)
            return hip
        reason = f"the GPU is {hip.arch}, the code object is for {target}"
    else:
        reason = _why_not(hip)
    emu = _make("emulator")
    if not emu.available():
        raise Diagnostic(f"no device to run on: HIP: {reason}; emulator: {_why_not(emu)}")
    log.info("gcnforge: using the emulator (HIP: %s)", reason)
    return emu


def reset() -> None:
    """Forget backend instances (tests; after installing hip-python)."""
    _instances.clear()
