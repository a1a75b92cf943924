"""Shared pieces of the example kernels (issue 9): compiling a builder ``Module`` to a code
object, and kernel-side helpers (EXEC masking, buffer resource descriptors, DPP wave
reductions, LDS block reductions) written once as Python functions over the authoring API.

Import with ``examples/`` on ``sys.path``: ``from lib import compile_module, regs``.
"""

from lib.compile import Compiled, compile_module, devices

__all__ = ["Compiled", "compile_module", "devices"]
