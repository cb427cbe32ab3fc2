"""Offline fake model clients for tests: strict, deterministic, no network."""

from handoff_sim._trajectory import (
    Call as TrajectoryCall,
)
from handoff_sim._trajectory import (
    TrajectoryResult,
    TrajectorySpecError,
    check_trajectory,
)
from handoff_sim.errors import (
    FunctionModelError,
    ScriptAssertionError,
    ScriptExhaustedError,
    UnconsumedStepsError,
)
from handoff_sim.testing._adversarial import (
    ALL_BEHAVIOURS,
    DEFAULT_BEHAVIOURS,
    AdversarialModel,
    AdversarialModelError,
    AdversarialTimeoutError,
    Behaviour,
)
from handoff_sim.testing._fake_answers import (
    AnswerTable,
    NoFakeAnswerError,
    SimulatedRateLimitError,
)
from handoff_sim.testing._fake_tools import FakeTool
from handoff_sim.testing._fingerprint import Fingerprint, differences, fingerprint, normalise
from handoff_sim.testing._overrides import AgentTree, override_models
from handoff_sim.testing._replay import ReplayModel
from handoff_sim.testing._replay_lane import ReplayLane, ReplayLedger
from handoff_sim.testing._schema_model import SchemaModel, SchemaModelError, SchemaModelSpec
from handoff_sim.testing._scripted import FunctionModel, ScriptedModel
from handoff_sim.testing._steps import SimulatedModelError
from handoff_sim.testing._stub import StubAgent, StubModel, StubModelSpec

__all__ = [
    "ALL_BEHAVIOURS",
    "DEFAULT_BEHAVIOURS",
    "AdversarialModel",
    "AdversarialModelError",
    "AdversarialTimeoutError",
    "AgentTree",
    "AnswerTable",
    "Behaviour",
    "FakeTool",
    "Fingerprint",
    "FunctionModel",
    "FunctionModelError",
    "NoFakeAnswerError",
    "ReplayLane",
    "ReplayLedger",
    "ReplayModel",
    "SchemaModel",
    "SchemaModelError",
    "SchemaModelSpec",
    "ScriptAssertionError",
    "ScriptExhaustedError",
    "ScriptedModel",
    "SimulatedModelError",
    "SimulatedRateLimitError",
    "StubAgent",
    "StubModel",
    "StubModelSpec",
    "TrajectoryCall",
    "TrajectoryResult",
    "TrajectorySpecError",
    "UnconsumedStepsError",
    "check_trajectory",
    "differences",
    "fingerprint",
    "normalise",
    "override_models",
]
