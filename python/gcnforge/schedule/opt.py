"""``python -m gcnforge.schedule.opt``: ``gcnforge-opt`` with the loop ops and the
scheduling pass registered (same options and behaviour), for lit tests and users until
``gcnforge-opt`` itself loads them (see ``gcnforge.schedule.dialect``)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from gcnforge.cli import opt as base


class ScheduleOptMain(base.GcnforgeOptMain):
    def register_all_dialects(self):
        super().register_all_dialects()
        from gcnforge.schedule.dialect import amdgcn

        self.ctx._registered_dialects.pop("amdgcn", None)  # replace E's entry with the extended one
        self.ctx.register_dialect("amdgcn", amdgcn)

    def register_all_passes(self):
        super().register_all_passes()
        from gcnforge.schedule.passes import PASSES

        for name, factory in PASSES.items():
            if name not in self.available_passes:
                self.register_pass(name, factory)


def main(argv: Sequence[str] | None = None) -> int:
    base.GcnforgeOptMain = ScheduleOptMain  # main() builds the tool by this name
    return base.main(argv)


if __name__ == "__main__":
    sys.exit(main())
