"""AMD Instinct MI350X (CDNA4, gfx950): the MI355X's silicon, 256 CUs, 288 GB HBM3E at
8 TB/s, at a 2200 MHz peak engine clock (1000 W instead of 1400 W) -- AMD MI350X data sheet.
Everything else, with its sources and assumptions, is ``mi355x.profile``."""

from gcnforge.perfmodel.profiles.mi355x import profile

PROFILE = profile("MI350X", 2.2e9)
