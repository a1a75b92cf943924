"""The ``--timing DEVICE`` option of run, stats and tune: a device profile by name, or
``auto`` for the input's target's default; the names come from ``gcnforge.perfmodel.profiles``."""

from __future__ import annotations


def add_option(p, what: str, auto: str) -> None:
    """``--timing DEVICE`` on parser ``p``: ``what`` the option does, ``auto`` whose target's default it picks."""
    from gcnforge.perfmodel import profiles

    defaults = ", ".join(f"{d} for {t}" for t, d in profiles.DEFAULT.items())
    p.add_argument("--timing", default=None, metavar="DEVICE",
                   help=f"{what}. Devices: {profiles.listing()}; auto: {auto}'s default ({defaults})")
