"""``load`` a code object, get a ``Kernel``, call it.

    mod = gcnforge.runtime.load("saxpy.co")
    k = mod["saxpy"]                       # layout from the code object's metadata
    k(out, x, np.uint32(n), 2.0, grid=(n // 256, 1, 1), block=(256, 1, 1))

    raw = mod.kernel("gemm", layout=ArgLayout.slots16(["c:f32*[m*n]", "a:f32*", "b:f32*",
                                                        "m:u32", "n:u32", "k:u32"]))
    raw(c=c, a=a, b=b, m=64, n=64, k=32, grid=(1, 1, 1), block=(256, 1, 1))

``grid`` counts workgroups per dimension, as ``hipModuleLaunchKernel`` does. Pointer
arguments take NumPy arrays (copied in, and back unless the argument is const/read-only),
device buffers (``to_device``/``empty``), ``None`` (null) or a raw device address; scalars
take numbers converted by the declared type; an OpenCL ``__local`` pointer argument takes
its size in bytes (the kernel receives its LDS offset, and the launch's dynamic LDS grows).

Before anything is copied, the launch is checked against what the metadata says
(``binding``): ``grid``/``block`` are an int or a sequence (tuple, list, 1-D array) of 1 to 3
positive ints, missing dimensions 1; ``block`` equals
``.reqd_workgroup_size`` and stays within ``.max_flat_workgroup_size``; an array's dtype
matches the pointee type its ``.type_name`` spells (``float*`` takes float32; ``half4*``
or a typedef'd ``short4v*`` takes float16/int16 arrays holding whole vectors, or records as
wide as the vector); a read-only array is refused where the kernel may write. Each refusal
is a Diagnostic naming the argument.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.isa.target import MAX_KERNARG_BYTES
from gcnforge.runtime.backend import Backend, LaunchResult, hidden_pointer
from gcnforge.runtime.binding import bind, check_dims, may_write, name_args, normalize_dims
from gcnforge.runtime.buffers import DeviceBuffer
from gcnforge.runtime.devices import get_device
from gcnforge.runtime.kernargs import HIDDEN_POINTERS, ArgLayout, LaunchDims, meta_dims, meta_int
from gcnforge.binary.target_id import check_compatible

log = logging.getLogger("gcnforge.runtime")



def load(source: str | Path | bytes | Any, device: Backend | str | None = None) -> Module:
    """A Module from a code-object path, its bytes, or an already-read CodeObject."""
    if isinstance(source, (str, Path, bytes, bytearray, memoryview)):
        from gcnforge.binary import read_code_object

        name = str(source) if isinstance(source, (str, Path)) else "<bytes>"
        co = read_code_object(source if isinstance(source, (str, Path)) else bytes(source))
        return Module(co, name, device)
    return Module(source, getattr(source, "path", "<code object>"), device)


class NoSuchAttribute(Diagnostic, AttributeError):
    """A Module attribute that neither the Module nor its CodeObject has: a Diagnostic that
    lists the kernels, and an AttributeError so that ``hasattr`` and ``getattr(m, x, d)``
    keep working."""


class Module:
    """A loaded code object: its kernels by name (``module[name]``), and the CodeObject's own
    attributes (``module.kernels``, ``module.metadata``...)."""

    def __init__(self, code_object: Any, name: str = "<code object>", device: Backend | str | None = None):
        self.code_object = code_object
        self.name = name
        self.device = device  # default device for this module's kernels
        self._kernels: dict[str, Kernel] = {}

    @property
    def target(self) -> str:
        return str(self.code_object.target)

    def target_facts(self) -> Any:
        """The ``gcnforge.isa`` facts of the code object's processor (work-items per
        workgroup, LDS bytes); gfx942's when the target is not one gcnforge describes (the
        device check refuses such a launch anyway)."""
        from gcnforge.isa.target import TARGETS

        return TARGETS.get(self.target.split(":")[0].split("--")[-1], TARGETS["gfx942"])

    @property
    def kernel_names(self) -> list[str]:
        return list(self.code_object.kernels)

    def kernel(self, name: str, layout: ArgLayout | None = None) -> Kernel:
        if name not in self.code_object.kernels:
            known = ", ".join(self.kernel_names) or "none"
            raise Diagnostic(f"no kernel '{name}' in {self.name}", notes=(f"kernels: {known}",))
        if layout is not None:
            k = Kernel(self, name, layout)
            if k.metadata.get(".args"):
                try:
                    meta = ArgLayout.from_metadata(k.metadata, f"kernel '{name}' metadata")
                except Diagnostic:
                    meta = None  # metadata a layout stands in for
                if meta is not None:
                    layout.check_against(meta, f"kernel '{name}' layout")
            return k
        if name not in self._kernels:
            self._kernels[name] = Kernel(self, name, None)
        return self._kernels[name]

    def __getitem__(self, name: str) -> Kernel:
        return self.kernel(name)

    def __getattr__(self, name: str) -> Any:
        """Everything else is the CodeObject's (``kernels``, ``metadata``, ``text``, ``data``...),
        so ``gcnforge.load`` gives the code object plus the ability to launch it."""
        if name == "code_object" or name.startswith("__"):  # (copy/pickle probes: the plain error)
            raise AttributeError(name)
        try:
            return getattr(self.code_object, name)
        except AttributeError:
            known = ", ".join(self.kernel_names) or "none"
            raise NoSuchAttribute(f"{self.name} has no attribute '{name}' (a kernel is launched as "
                                  f"module['name'] or module.kernel('name'))", notes=(f"kernels: {known}",)) from None

    def __contains__(self, name: str) -> bool:
        return name in self.code_object.kernels

    def device_name(self) -> str:
        """Which backend a launch without ``device=`` would use (and why not the other)."""
        try:
            return get_device(self.device, self.target).name
        except Diagnostic as d:
            return f"none ({d.message})"

    def __repr__(self) -> str:
        return (f"Module({self.name}, target={self.target}, kernels={self.kernel_names}, "
                f"device={self.device_name()})")


_PKG_DIR = str(Path(__file__).resolve().parents[1])


def _caller_place() -> SourceLoc | None:
    """``file:line:col`` of the call of the kernel (two frames up: ``__call__``'s caller),
    when that is the author's code, not gcnforge's (``gcnforge run`` has its own messages)."""
    import sys

    f = sys._getframe(2)
    if str(Path(f.f_code.co_filename).resolve()).startswith(_PKG_DIR):
        return None
    pos = next(iter(list(f.f_code.co_positions())[f.f_lasti // 2:]), None) if f.f_lasti >= 0 else None
    return SourceLoc(f.f_code.co_filename, f.f_lineno, pos[2] + 1 if pos and pos[2] is not None else 1)


def _timing_options(complete: bool, sample: int | None, restore: bool, layout: ArgLayout, bound) -> dict:
    """The emulator backend's options for a timing-mode launch (``Kernel.__call__``)."""
    out: dict[str, Any] = {"timing_complete": True} if complete else {}
    if sample is not None:
        if isinstance(sample, bool) or not isinstance(sample, (int, np.integer)) or sample < 1:
            raise Diagnostic(f"timing_sample={sample!r}: the number of work-groups to emulate must be a positive int")
        out["timing_sample"] = int(sample)
    if restore:
        if complete:
            raise Diagnostic("timing_restore=True and timing_complete=True contradict each other: restore the "
                             "buffers or complete them")
        # every buffer the kernel may write through a pointer argument (the metadata says which)
        out["timing_restore"] = tuple(int(bound.values[f.name]) for f in layout.explicit
                                      if f.kind == "ptr" and may_write(f) and bound.values.get(f.name))
    return out


class Kernel:
    """One kernel of a module plus the argument layout used to call it."""

    def __init__(self, module: Module, name: str, layout: ArgLayout | None):
        self.module = module
        self.name = name
        self.info = module.code_object.kernels[name]
        self.metadata: dict = dict(getattr(self.info, "metadata", None) or {})
        self._explicit_layout = layout
        self._layout: ArgLayout | None = layout
        self.last_device: Backend | None = None

    @property
    def layout(self) -> ArgLayout:
        if self._layout is None:
            self._layout = ArgLayout.from_metadata(self.metadata, f"kernel '{self.name}' metadata")
        return self._layout

    def with_layout(self, layout: ArgLayout) -> Kernel:
        return Kernel(self.module, self.name, layout)

    @property
    def arg_names(self) -> list[str]:
        return [f.name for f in self.layout.explicit]

    def _segment_size(self) -> int:
        """Bytes to pass: the layout's, or more if the code object asks for more."""
        sizes = [self.layout.size]
        if self._explicit_layout is not None:
            sizes.append(meta_int(self.metadata, ".kernarg_segment_size", 0, f"kernel '{self.name}' metadata") or 0)
            desc = getattr(self.info, "descriptor", None)
            sizes.append(int(getattr(desc, "kernarg_size", 0) or 0))
        size = max(sizes)
        if size > MAX_KERNARG_BYTES:  # a damaged descriptor or metadata: no gigabytes of padding
            raise Diagnostic(f"kernel '{self.name}': kernarg segment of {size} bytes exceeds gcnforge's bound of "
                             f"{MAX_KERNARG_BYTES}", f"{self.name}.kd+0x8 (kernarg_size)")
        return size

    def resolve_device(self, device: Backend | str | None, values: list[object]) -> Backend:
        if device is None:
            owners = {id(v.backend): v.backend for v in values if isinstance(v, DeviceBuffer)}
            if len(owners) > 1:
                raise Diagnostic(f"kernel '{self.name}': arguments live on different devices "
                                 f"({', '.join(b.name for b in owners.values())})")
            if owners:
                device = next(iter(owners.values()))
        if device is None:
            device = self.module.device
        return get_device(device, self.module.target)

    def pack(self, args: tuple, kwargs: dict, backend: Backend, grid: object, block: object,
             dynamic_lds: int = 0):
        """Validate and pack (without launching): returns (kernarg bytes, Bound, grid, block,
        total dynamic LDS)."""
        facts = self.module.target_facts()
        grid3 = normalize_dims(grid, "grid")
        block3 = normalize_dims(block, "block", facts.max_flat_workgroup_size)
        check_dims(self.name, grid3, block3, self.metadata)
        lds_bytes = facts.lds_bytes
        if isinstance(dynamic_lds, bool) or not isinstance(dynamic_lds, (int, np.integer)) or not 0 <= dynamic_lds <= lds_bytes:
            raise Diagnostic(f"dynamic_lds={dynamic_lds!r} must be an int between 0 and {lds_bytes} bytes")
        if self._explicit_layout is None and ".args" not in self.metadata and (args or kwargs):
            raise Diagnostic(
                f"kernel '{self.name}': its metadata does not describe its arguments (no .args)",
                notes=("declare them: module.kernel(name, layout=ArgLayout.slots16(['out:ptr', 'n:u32', ...]))",))
        named = name_args(self.layout, args, kwargs, self.name)
        static_lds = meta_int(self.metadata, ".group_segment_fixed_size", 0, f"kernel '{self.name}' metadata") or 0
        bound = bind(self.layout, named, backend, static_lds)
        try:
            lds = int(dynamic_lds) + bound.dynamic_lds
            ptrs = {k: hidden_pointer(backend, k) for k in HIDDEN_POINTERS}
            data = self.layout.pack(bound.values, LaunchDims(grid3, block3, lds, ptrs))
            data = data.ljust(self._segment_size(), b"\0")
        except BaseException:
            bound.finish(ok=False)
            raise
        return data, bound, grid3, block3, lds

    def __call__(self, *args: object, grid: object, block: object = None, device: Backend | str | None = None,
                 stream: Any = None, sanitize: bool = False, dynamic_lds: int = 0, trace: Any = None,
                 sanitize_mode: str = "stop", timing: Any = None, flops: float | None = None,
                 trace_out: Any = None, timing_complete: bool = False, sanitize_suppress: Any = None,
                 progress: Any = None, timing_sample: int | None = None, timing_restore: bool = False,
                 **kwargs: object) -> LaunchResult:
        """Launch. ``trace`` and ``sanitize_mode`` are emulator options (``Device.run``):
        ``trace(event)`` before each executed instruction; ``sanitize_mode='continue'`` collects
        sanitizer reports in ``result.stats.reports`` (each site once; occurrences per site in
        ``result.stats.report_counts``) instead of raising the first one;
        ``sanitize_suppress=`` a suppression file (``gcnforge.emulator.suppressions``).
        ``timing='mi300x'`` (a ``perfmodel.profiles`` name or a DeviceProfile) runs the
        emulator's timing mode: ``result.timing`` is the predicted ``TimingReport`` (``flops``:
        the caller's FLOP count for TFLOP/s; ``trace_out``: write a Perfetto trace there). A large
        grid is predicted from a sample of work-groups (``timing_sample``: at most that many of
        the CU-0 round, default ``emulator.timing_mode.MAX_SAMPLE``; a grid of at most that many
        runs whole), and only those run: ``result.partial`` is then True and the buffers hold
        only the sampled work-groups' results (a launch run again whole would add its atomics on
        top of them), unless ``timing_complete=True`` runs the others afterwards, untimed, or
        ``timing_restore=True`` puts every buffer the kernel may write back as it was before
        the launch (``result.partial`` False, a note says so)."""
        if block is None:
            block = meta_dims(self.metadata, ".reqd_workgroup_size", f"kernel '{self.name}' metadata")
            if block is None:
                raise Diagnostic(f"kernel '{self.name}': pass block=(x, y, z) (work-items per workgroup)")
        backend = self.resolve_device(device, [*args, *kwargs.values()])
        # a device that emulates several targets (the emulator) names the one it runs this for
        arch_for = getattr(backend, "arch_for", None)
        check_compatible(self.module.target, arch_for(self.module.target) if arch_for else backend.arch, backend.name)
        self.last_device = backend
        from gcnforge.runtime.measured import active

        measured = active() if backend.name != "emulator" else None
        snap = measured.snapshot(args, kwargs) if measured else None
        try:
            data, bound, grid3, block3, lds = self.pack(args, kwargs, backend, grid, block, dynamic_lds)
        except Diagnostic as d:  # a wrong argument (dtype, size, kind) is the calling line's
            if d.loc is None:
                d.loc = _caller_place()
            raise
        ok = False
        try:
            log.info("launch %s grid=%s block=%s on %s", self.name, grid3, block3, backend.name)
            extra: dict[str, Any] = {"stream": stream} if stream is not None else {}
            if getattr(backend, "accepts_layout", False):
                extra["layout"] = self.layout
            if trace is not None:
                extra["trace"] = trace
            if sanitize_mode != "stop":
                extra["sanitize_mode"] = sanitize_mode
            if sanitize_suppress is not None:
                extra["sanitize_suppress"] = sanitize_suppress
            if progress is not None and backend.name == "emulator":
                extra["progress"] = progress  # progress(done, total) after each batch of work-groups
            if timing is not None:
                if backend.name != "emulator":
                    raise Diagnostic(f"timing={timing!r} is the emulator's timing mode; this launch runs on "
                                     f"{backend.name} (pass device='emulator')")
                extra.update(timing=timing, flops=flops, trace_out=trace_out)
                extra.update(_timing_options(timing_complete, timing_sample, timing_restore, self.layout, bound))
            elif timing_complete or timing_sample is not None or timing_restore:
                raise Diagnostic("timing_complete, timing_sample and timing_restore shape a timing-mode launch: "
                                 "pass timing= too")
            result = backend.launch(self.module.code_object, self.name, data, grid3, block3,
                                    dynamic_lds=lds, sanitize=sanitize, **extra)
            ok = True
        finally:
            bound.finish(ok)
        if measured is not None and result.seconds is not None and not result.modeled:
            measured.add(self, snap, grid3, block3, dynamic_lds, result, backend)
        return result

    def __repr__(self) -> str:
        where = f", last ran on {self.last_device.name}" if self.last_device else ""
        try:
            sig = ", ".join(self.arg_names)
        except Diagnostic:
            sig = "?"
        return f"Kernel({self.name}({sig}), target={self.module.target}{where})"
