"""Encoding families: each module registers its ``Codec`` with ``register_codec`` at
import time. ``gcnforge.asm`` imports every module in this package (and any ``asm/vop*.py``
module) once, so adding a family is adding a file."""
