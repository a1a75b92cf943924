"""Device profiles: one module per device, each defining ``PROFILE`` (a ``DeviceProfile``)
with every value cited where it is set. ``get(name)`` finds one by name (case-insensitive);
``for_target`` gives a target's default device and ``resolve`` the profile a launch of a code
object for that target uses (refusing one made for another target)."""

from __future__ import annotations

import importlib

from gcnforge.perfmodel.device import DeviceProfile

NAMES = ("mi300x", "mi308x", "mi325x", "mi350x", "mi355x")
DEFAULT = {"gfx942": "mi300x", "gfx950": "mi355x"}  # the device a target's timing defaults to


def get(name: str) -> DeviceProfile:
    key = str(name).lower().replace("-", "").replace("_", "")
    if key not in NAMES:
        from gcnforge.diagnostics import Diagnostic

        raise Diagnostic(f"unknown device profile '{name}' (known: {', '.join(NAMES)})")
    return importlib.import_module(f"gcnforge.perfmodel.profiles.{key}").PROFILE


def for_target(target: str) -> DeviceProfile:
    """The default device profile of an ISA target (gfx942: MI300X, gfx950: MI355X)."""
    if target not in DEFAULT:
        from gcnforge.diagnostics import Diagnostic

        raise Diagnostic(f"no device profile for target '{target}' (profiles exist for {', '.join(DEFAULT)})")
    return get(DEFAULT[target])


def resolve(timing: object, target: str) -> DeviceProfile:
    """The profile for ``timing`` (a name, a ``DeviceProfile``, or True / 'auto' for the target's
    default) that a code object for ``target`` runs under; a profile of another target's device
    is a Diagnostic (its MFMA facts, CU count and clock would describe other hardware)."""
    if timing is True or (isinstance(timing, str) and timing.lower() == "auto"):
        return for_target(target)
    prof = timing if isinstance(timing, DeviceProfile) else get(str(timing))
    if prof.target != target:
        from gcnforge.diagnostics import Diagnostic

        names = [n for n in NAMES if get(n).target == target]
        raise Diagnostic(f"device profile {prof.name} is a {prof.target} device, but the code object is for "
                         f"{target}: use {' or '.join(names) or 'a ' + target + ' profile'} (or timing=True / "
                         f"--timing auto for {DEFAULT.get(target, '?')})")
    return prof


def listing() -> str:
    """The profiles by target, as help texts show them: ``gfx942: mi300x, ...; gfx950: ...``."""
    by: dict[str, list[str]] = {}
    for n in NAMES:
        by.setdefault(get(n).target, []).append(n)
    return "; ".join(f"{t}: {', '.join(ns)}" for t, ns in by.items())


def match(arch: str, cu_count: int, product_name: str = "") -> tuple[DeviceProfile | None, str]:
    """The profile that describes a real GPU (``gcnforge devices``), and why: the processor of
    its target id and its CU count must equal the profile's; among those, the one whose name
    the product name contains (MI300X and MI325X share gfx942 and 304 CUs). None and the reason
    when no profile fits."""
    proc = str(arch).split(":")[0]
    same = [get(n) for n in NAMES if get(n).target == proc and get(n).cus == int(cu_count)]
    if not same:
        return None, f"no profile for a {proc} with {cu_count} CUs"
    named = [p for p in same if p.name.lower() in str(product_name).lower()]
    if named:
        return named[0], f"{proc}, {cu_count} CUs, product name"
    if len(same) == 1:
        return same[0], f"{proc}, {cu_count} CUs"
    return same[0], f"{proc}, {cu_count} CUs (product name '{product_name}' names none of " \
                    f"{', '.join(p.name for p in same)}: the first is assumed)"


__all__ = ["get", "for_target", "resolve", "match", "listing", "NAMES", "DEFAULT", "DeviceProfile"]
