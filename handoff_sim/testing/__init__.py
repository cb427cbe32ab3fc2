"""Offline fake model clients for tests: strict, deterministic, no network."""

import typing as _typing

from handoff_sim._moved import moved_names as _moved_names
from handoff_sim._trajectory import (
    TrajectoryResult,
    TrajectorySpecError,
    check_trajectory,
)
from handoff_sim.testing._adversarial import (
    AdversarialModel,
    AdversarialModelError,
    AdversarialTimeoutError,
    Behaviour,
)
from handoff_sim.testing._fake_answers import NoFakeAnswerError, SimulatedRateLimitError
from handoff_sim.testing._fake_tools import FakeTool
from handoff_sim.testing._overrides import override_models
from handoff_sim.testing._schema_model import SchemaModel, SchemaModelError
from handoff_sim.testing._scripted import FunctionModel, ScriptedModel
from handoff_sim.testing._steps import SimulatedModelError
from handoff_sim.testing._stub import StubAgent, StubModel

__all__ = [
    "AdversarialModel",
    "AdversarialModelError",
    "AdversarialTimeoutError",
    "Behaviour",
    "FakeTool",
    "FunctionModel",
    "NoFakeAnswerError",
    "SchemaModel",
    "SchemaModelError",
    "ScriptedModel",
    "SimulatedModelError",
    "SimulatedRateLimitError",
    "StubAgent",
    "StubModel",
    "TrajectoryResult",
    "TrajectorySpecError",
    "check_trajectory",
    "override_models",
]


if not _typing.TYPE_CHECKING:
    __getattr__ = _moved_names(
        __name__,
        {
            "FunctionModelError": "handoff_sim.errors",
            "ScriptAssertionError": "handoff_sim.errors",
            "ScriptExhaustedError": "handoff_sim.errors",
            "UnconsumedStepsError": "handoff_sim.errors",
        },
    )
