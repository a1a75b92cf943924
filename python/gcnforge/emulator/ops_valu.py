"""All vector ALU handlers (VOP1/VOP2/VOP3/VOPC and DPP/SDWA forms): the driver lives in
``valu_core.py``, floating-point ops in ``ops_vfloat.py``, integer/compare/lane ops in
``ops_vint.py``; VOP3P packed math is ``ops_vop3p.py``."""

from __future__ import annotations

from gcnforge.emulator import ops_vfloat, ops_vint
from gcnforge.emulator.ops_vfloat import _sat_pk_u8_i16  # noqa: F401  (tests use them)
from gcnforge.emulator.ops_vint import _perm  # noqa: F401

HANDLERS: dict = {**ops_vfloat.HANDLERS, **ops_vint.HANDLERS}
