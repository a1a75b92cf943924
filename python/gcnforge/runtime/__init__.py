"""The runtime: load code objects, pack kernel arguments, launch on a GPU (HIP) or on the
emulator, time, and dispatch from tuned kernel tables.

Public names: ``load``, ``Module``, ``Kernel``, ``ArgLayout``, ``to_device``, ``empty``,
``DeviceBuffer``, ``bench``, ``get_device``, ``Registry``.
"""

from gcnforge.runtime.api import Kernel, Module, load
from gcnforge.runtime.backend import Backend, LaunchResult
from gcnforge.runtime.buffers import DeviceBuffer, empty, to_device
from gcnforge.runtime.devices import get_device
from gcnforge.runtime.kernargs import ArgLayout, LaunchDims
from gcnforge.runtime.timing import BenchResult, bench

__all__ = [
    "ArgLayout", "Backend", "BenchResult", "DeviceBuffer", "Kernel", "LaunchDims", "LaunchResult",
    "Module", "Registry", "bench", "empty", "get_device", "load", "to_device",
]


def __getattr__(name: str):  # the registry pulls in csv/heuristics only when used
    if name == "Registry":
        from gcnforge.runtime.registry import Registry

        return Registry
    raise AttributeError(name)
