"""Phase 1 of a scenario file: its typed form (pydantic models) and the JSON Schema editors read.

Nothing here touches files or runs anything; the other phases import these types.
"""

from handoff_sim.scenarios.schema._expect import (
    EnumField,
    ErrorExpect,
    ExpectSpec,
    HandoffExpect,
    MessageExpect,
    Regex,
    SessionChoice,
    SessionExpect,
    SessionRef,
    TurnExpectSpec,
    event_enums,
)
from handoff_sim.scenarios.schema._jsonschema import scenario_json_schema
from handoff_sim.scenarios.schema._patterns import (
    MATCHERS,
    Place,
    is_matcher,
    matcher_nodes,
    pattern_problems,
)
from handoff_sim.scenarios.schema._policy import PolicyBlock, PolicySpec
from handoff_sim.scenarios.schema._scenario import (
    AdversarialSpec,
    AgentSpec,
    AgentTypeSpec,
    CustomModelSpec,
    FakeToolSpec,
    RaisesSpec,
    ScenarioListSpec,
    ScenarioSpec,
    ScriptModelSpec,
    StepExpectSpec,
    StepSpec,
    SubAgentSpec,
    ToolExecutorSpec,
    TurnSpec,
    VariantSpec,
)
from handoff_sim.scenarios.schema._styles import (
    AgentTypesDirSpec,
    ApproveSpec,
    ConfirmSpec,
    DispatcherMountSpec,
    DispatcherSpec,
)
from handoff_sim.scenarios.schema._types import (
    RESERVED_TAGS,
    milliseconds_problem,
    regex_problem,
    tag_problem,
)

__all__ = [
    "MATCHERS",
    "RESERVED_TAGS",
    "AdversarialSpec",
    "AgentSpec",
    "AgentTypeSpec",
    "AgentTypesDirSpec",
    "ApproveSpec",
    "ConfirmSpec",
    "CustomModelSpec",
    "DispatcherMountSpec",
    "DispatcherSpec",
    "EnumField",
    "ErrorExpect",
    "ExpectSpec",
    "FakeToolSpec",
    "HandoffExpect",
    "MessageExpect",
    "Place",
    "PolicyBlock",
    "PolicySpec",
    "RaisesSpec",
    "Regex",
    "ScenarioListSpec",
    "ScenarioSpec",
    "ScriptModelSpec",
    "SessionChoice",
    "SessionExpect",
    "SessionRef",
    "StepExpectSpec",
    "StepSpec",
    "SubAgentSpec",
    "ToolExecutorSpec",
    "TurnExpectSpec",
    "TurnSpec",
    "VariantSpec",
    "event_enums",
    "is_matcher",
    "matcher_nodes",
    "milliseconds_problem",
    "pattern_problems",
    "regex_problem",
    "scenario_json_schema",
    "tag_problem",
]
