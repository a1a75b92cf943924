"""Build shim: refuse an unsupported Python with a plain sentence before pip resolves any
dependency (pip 23 and older resolve the dependencies of a local project before checking its
``requires-python``, and then report a numpy or xDSL version error instead). Everything else
is in pyproject.toml."""

import sys

if sys.version_info < (3, 11):
    sys.exit("gcnforge requires Python 3.11 or newer; this is Python %d.%d" % sys.version_info[:2])

from setuptools import setup  # noqa: E402

setup()
