"""Choosing a backend.

``device=None`` means: the HIP backend when hip-python finds an AMD GPU whose target
matches the code object, otherwise the emulator. ``'hip'`` is GPU 0, ``'hip:N'`` GPU N of
those HIP shows (``HIP_VISIBLE_DEVICES`` filters and renumbers them before gcnforge sees
them, as for any HIP program). The environment variable ``GCNFORGE_DEVICE`` (``hip``,
``hip:N`` or ``emulator``) overrides that choice. The decision is logged
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


def gpu_index(name: str) -> int | None:
    """N for ``'hip'`` (0) or ``'hip:N'``; None for any other name."""
    if name == "hip":
        return 0
    head, sep, num = name.partition(":")
    if head == "hip" and sep and num.isdigit() and len(num) <= 4:
        return int(num)
    return None


def _make(name: str) -> Backend:
    index = gpu_index(name)
    env = os.environ.get("GCNFORGE_DEVICE") or ""
    if name == "hip" and gpu_index(env):  # 'hip' is the GPU GCNFORGE_DEVICE selects, else GPU 0
        name, index = env, gpu_index(env)
    key = "hip" if index == 0 else name
    if key not in _instances:
        if index is not None:
            from gcnforge.runtime.hip_backend import HipBackend

            _instances[key] = HipBackend(index)
        elif name == "emulator":
            from gcnforge.runtime.emulator_backend import EmulatorBackend

            _instances[key] = EmulatorBackend()
        else:
            raise Diagnostic(f"unknown device '{name}' (choose 'emulator', 'hip' or 'hip:N' for GPU N)")
    return _instances[key]


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
