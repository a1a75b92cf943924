"""Scheduling by modular expressions (issue 8).

* ``gcnforge.dialect.loop_ops``  the ``amdgcn.loop`` / ``amdgcn.yield`` ops
* ``expr``      schedule attributes (delay, rate, stage), inheritance, delinearization
* ``expand``    unroll / interleave / software-pipeline expansion of one loop
* ``legality``  use-before-def, memory-order and wait-order checks with diagnostics
* ``passes``    the ``amdgcn-schedule`` module pass (``PASSES`` for the registry)
* ``gcnforge.builder.scheduled``  the authoring API (``sched_for``) over ``gcnforge.builder`` kernels
* ``dialect``   the dialect with the loop ops; ``opt`` a ``gcnforge-opt`` that loads them
"""
