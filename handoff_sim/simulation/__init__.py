"""Virtual-time simulation: ``Simulation`` and the ``VirtualTimeLoop``.

``simulate`` imports from ``handoff_sim``.
"""

from handoff_sim.simulation._simulation import Simulation
from handoff_sim.simulation._virtual_loop import VirtualTimeLoop

__all__ = [
    "Simulation",
    "VirtualTimeLoop",
]
