"""Driver support of the example kernels: compiling a builder ``Module`` to a code object
the way the main job does, and the devices an integration test runs on. (The kernel-side
building blocks they use are installed: ``gcnforge.lib``.)

Import with ``examples/`` on ``sys.path``: ``from lib import compile_module``.
"""

from lib.compile import Compiled, compile_module, devices

__all__ = ["Compiled", "compile_module", "devices"]
