"""Virtual-time simulation: ``Simulation`` and the ``VirtualTimeLoop``.

``simulate`` imports from ``handoff_sim``.
"""

import typing as _typing

from handoff_sim._moved import moved_names as _moved_names
from handoff_sim.simulation._simulation import Simulation
from handoff_sim.simulation._virtual_loop import VirtualTimeLoop

__all__ = [
    "Simulation",
    "VirtualTimeLoop",
]


if not _typing.TYPE_CHECKING:
    __getattr__ = _moved_names(
        __name__,
        {
            "simulate": "handoff_sim",
        },
    )
