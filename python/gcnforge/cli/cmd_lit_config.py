"""``gcnforge lit-config``: print a ``lit.cfg.py`` for a folder of your own lit tests (one line:
``gcnforge.lit_config.configure``), so ``// RUN: %gcnforge-opt %s | %FileCheck %s`` works there.

    gcnforge lit-config > my_tests/lit.cfg.py && lit -sv my_tests
"""

from __future__ import annotations


def register(subparsers) -> None:
    p = subparsers.add_parser("lit-config", help="print a lit.cfg.py for your own lit tests of gcnforge kernels",
                              description=__doc__.split("\n\n")[0])
    p.set_defaults(func=run)


def run(args) -> int:
    from gcnforge.lit_config import CFG_TEXT

    print(CFG_TEXT, end="")
    return 0
