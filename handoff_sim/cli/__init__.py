"""The ``handoff-sim`` command line: run, validate, schema, render, check, record and fuzz.

The console script ``handoff-sim`` and ``python -m handoff_sim`` call :func:`main`.
Every module here is private: the command's options and exit codes are its interface
(``handoff-sim --help``). Nothing below this package imports it.
"""

from handoff_sim.cli._main import main

__all__ = ["main"]
