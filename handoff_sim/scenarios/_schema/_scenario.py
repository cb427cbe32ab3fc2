"""The scenario file format as pydantic models: agents, models, tools, policies, runs.

Every model forbids unknown keys and is strict about types, so a typo or a
wrong type is reported at load time with its line. Expectations live in
``_expect``; the policy block, in step with ``HandoffPolicy``, in ``_policy``.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, JsonValue, Tag, model_validator
from pydantic.config import JsonDict

from handoff_sim._limits import (
    MAX_FAN_OUT,
    MAX_OVERSIZED_BYTES,
    MAX_STEPS,
    MAX_TURNS,
)
from handoff_sim.scenarios._schema._expect import (
    ExpectSpec,
    SessionChoice,
    TextExpect,
    TurnExpectSpec,
)
from handoff_sim.scenarios._schema._policy import PolicySpec
from handoff_sim.scenarios._schema._raises import RaisesSpec
from handoff_sim.scenarios._schema._recorded import (
    RecordedSpec,
    RequestSpec,
    ToolAnswerSpec,
    UsageSpec,
)
from handoff_sim.scenarios._schema._styles import (
    AgentTypesDirSpec,
    DispatcherMountSpec,
    DispatcherSpec,
)
from handoff_sim.scenarios._schema._tools import FakeToolSpec, ToolExecutorSpec
from handoff_sim.scenarios._schema._types import Duration, json_given, json_set
from handoff_sim.scenarios._schema._types import Tag as TagName

__all__ = [
    "IMPORT_PATTERN",
    "NAME_PATTERN",
    "AdversarialSpec",
    "AgentSpec",
    "AgentTypeSpec",
    "CustomModelSpec",
    "Duration",
    "FakeToolSpec",
    "ModelSpec",
    "RaisesSpec",
    "RecordedSpec",
    "RequestSpec",
    "ScenarioListSpec",
    "ScenarioSpec",
    "ScriptModelSpec",
    "StepExpectSpec",
    "StepSpec",
    "SubAgentEntry",
    "SubAgentSpec",
    "ToolAnswerSpec",
    "ToolCallSpec",
    "ToolExecutorSpec",
    "TurnSpec",
    "UsageSpec",
    "VariantSpec",
]

NAME_PATTERN = r"^[A-Za-z0-9_.-]+$"
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
IMPORT_PATTERN = rf"^{_IDENTIFIER}(\.{_IDENTIFIER})*:{_IDENTIFIER}(\.{_IDENTIFIER})*$"
"""``package.module:Name`` (the name may be dotted: ``module:Outer.Inner``)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# What the model validators below refuse, said again for the JSON Schema.
_ONE_STEP_KIND: JsonDict = {
    "if": {"required": ["cancelled"], "properties": {"cancelled": {"const": True}}},
    "then": {"not": {"anyOf": json_given("text", "tool_calls", "error")}},
    "else": {
        "anyOf": json_given("text", "tool_calls", "error"),
        "not": {"required": ["error"], "anyOf": json_given("text", "tool_calls")},
    },
}
_ONE_MODEL_KIND: JsonDict = {"oneOf": [json_set("script"), json_set("adversarial")]}
_STYLE_KEYS: JsonDict = {
    "if": {"required": ["style"], "properties": {"style": {"const": "flink"}}},
    "then": {"not": {"anyOf": json_given("tool_name", "session_scope")}},
    "else": {"not": {"anyOf": json_given("input_schema", "input_type")}},
}
_DISPATCHER_ALONE: JsonDict = {
    "if": json_set("dispatcher"),
    "then": {
        "properties": {"subagents": {"maxItems": 0}},
        "not": json_set("tool_executor"),
    },
}


# -- model scripts -------------------------------------------------------------


class ToolCallSpec(_Strict):
    """One tool call a scripted model makes; ``arguments`` as a mapping or raw JSON text."""

    id: str | None = None
    name: str = Field(min_length=1)
    arguments: dict[str, Any] | str = Field(default_factory=dict)


class StepExpectSpec(_Strict):
    """Checks on the request a script step answers; a failed check ends the run."""

    last_tool_result_contains: str | None = None
    tools_include: list[str] | None = None
    input_contains: str | None = None
    tools: list[str] | None = Field(default=None, description="exactly the tools offered, in order")
    tool_descriptions: dict[str, TextExpect] | None = Field(
        default=None, description="tool name -> its description (text or {match: regex})"
    )
    tool_parameters: dict[str, dict[str, Any]] | None = Field(
        default=None,
        description="tool name -> its JSON-schema parameters, compared exactly "
        "(or a matcher: {subset: {...}} pins part of them)",
    )
    message_roles: list[Literal["system", "user", "assistant", "tool"]] | None = Field(
        default=None, description="the roles of the messages sent, in order"
    )
    system_prompt: TextExpect | None = None
    input: TextExpect | None = Field(default=None, description="the last user message")
    model: str | None = Field(default=None, description="the model name in the request")

    NATIVE: ClassVar[frozenset[str]] = frozenset(
        {"last_tool_result_contains", "tools_include", "input_contains"}
    )


class StepSpec(_Strict):
    """One model turn: ``text``, ``tool_calls`` (optionally with text) or ``error``.

    A recording adds the ``request`` the step answered, its ``usage``, the time to its
    ``first_chunk`` when streamed, and ``cancelled: true`` for a call cut off before it
    answered (such a step never answers).
    """

    model_config = ConfigDict(json_schema_extra=_ONE_STEP_KIND)

    text: str | None = None
    tool_calls: list[ToolCallSpec] | None = None
    error: str | RaisesSpec | None = Field(
        default=None,
        description="the model call fails: a provider error's message, or {type, message} "
        "for an exception of that type (a recording's non-provider errors)",
    )
    latency: Duration = 0.0
    expect: StepExpectSpec | None = None
    request: RequestSpec | None = Field(
        default=None, description="the fingerprint of the request it answered (recordings)"
    )
    usage: UsageSpec | None = None
    first_chunk: Duration | None = Field(
        default=None, description="streamed calls: the time to the first chunk"
    )
    cancelled: bool = Field(
        default=False,
        description="the recorded call was cut off before it answered: it never answers",
    )

    @model_validator(mode="after")
    def _one_kind(self) -> StepSpec:
        given = self.model_fields_set
        answers = {"text", "tool_calls", "error"} & given
        if self.cancelled:
            if answers:
                raise ValueError(
                    "a step with 'cancelled: true' never answers: it cannot have "
                    + ", ".join(f"'{key}'" for key in sorted(answers))
                )
            return self
        if "error" in given and ({"text", "tool_calls"} & given):
            raise ValueError("a step with 'error' cannot also have 'text' or 'tool_calls'")
        if not answers:
            raise ValueError("a step needs 'text', 'tool_calls' or 'error' (or 'cancelled: true')")
        return self

    def as_step(self) -> dict[str, Any]:
        """The plain-dict step ``ScriptedModel`` takes."""
        step = self.model_dump(exclude_unset=True, exclude_none=False)
        if self.tool_calls is not None:
            step["tool_calls"] = [c.model_dump(exclude_none=True) for c in self.tool_calls]
        step.pop("expect", None)
        if self.expect is not None:
            native = self.expect.model_dump(include=set(StepExpectSpec.NATIVE), exclude_none=True)
            if native:
                step["expect"] = native
        return step


class ScriptModelSpec(_Strict):
    """A built-in fake model: a ``script`` of steps, or an ``adversarial`` model."""

    model_config = ConfigDict(json_schema_extra=_ONE_MODEL_KIND)

    script: list[str | StepSpec] | None = None
    adversarial: AdversarialSpec | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ScriptModelSpec:
        if (self.script is None) == (self.adversarial is None):
            raise ValueError(
                "a model needs exactly one of 'script' or 'adversarial' "
                "(or 'kind' for a model added by a plugin)"
            )
        return self


class AdversarialSpec(_Strict):
    """Reproducible hostile model output."""

    seed: int = 0
    behaviours: list[str] | None = None
    max_turns: int | None = Field(default=None, ge=0, le=MAX_TURNS)
    fan_out: int | None = Field(default=None, ge=1, le=MAX_FAN_OUT)
    oversized_bytes: int | None = Field(default=None, ge=1, le=MAX_OVERSIZED_BYTES)


class CustomModelSpec(BaseModel):
    """A model kind added by a plugin: ``kind`` names it, other keys are its own."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)

    kind: str = Field(min_length=1)


def _model_kind(value: Any) -> str:
    if isinstance(value, dict) and "kind" in value:
        return "custom-model"
    if isinstance(value, CustomModelSpec):
        return "custom-model"
    return "builtin-model"


ModelSpec = Annotated[
    Annotated[ScriptModelSpec, Tag("builtin-model")]
    | Annotated[CustomModelSpec, Tag("custom-model")],
    Discriminator(_model_kind),
]


# -- policy and wiring -----------------------------------------------------------


class SubAgentSpec(_Strict):
    """Mount another agent of the scenario as one tool (the Flink style with ``style: flink``)."""

    model_config = ConfigDict(json_schema_extra=_STYLE_KEYS)

    agent: str = Field(min_length=1)
    name: str | None = None
    description: str = ""
    style: Literal["ai4j", "flink"] = Field(
        default="ai4j", description="flink: offered as subagent_<name>, arguments passed unchanged"
    )
    tool_name: str | None = None
    input_schema: dict[str, Any] | str | None = Field(
        default=None,
        description="style flink: the callable's JSON-schema parameters (or JSON text)",
    )
    input_type: str | None = Field(
        default=None,
        pattern=IMPORT_PATTERN,
        description="style flink: package.module:Name, a type whose JSON Schema gives the "
        "parameters (imported when the scenario runs, never by validate; an explicit "
        "input_schema wins)",
    )
    session_mode: Literal["new_session", "reuse_session"] = "new_session"
    session_scope: Literal["agent", "parent_session"] = "agent"


def _mount_kind(value: Any) -> str:
    # tags are never keys of the document, so error locations skip them
    if isinstance(value, str):
        return "subagent-shorthand"
    if isinstance(value, DispatcherMountSpec) or (
        isinstance(value, dict) and "dispatcher" in value
    ):
        return "dispatcher-mount"
    return "subagent-mount"


SubAgentEntry = Annotated[
    Annotated[str, Tag("subagent-shorthand")]
    | Annotated[SubAgentSpec, Tag("subagent-mount")]
    | Annotated[DispatcherMountSpec, Tag("dispatcher-mount")],
    Discriminator(_mount_kind),
]


class AgentSpec(_Strict):
    """One agent: its model, tools, sub-agents and policy."""

    model_config = ConfigDict(json_schema_extra=_DISPATCHER_ALONE)

    model: ModelSpec
    tools: list[str] = Field(default_factory=list)
    subagents: list[SubAgentEntry] = Field(default_factory=list)
    dispatcher: DispatcherSpec | None = Field(
        default=None,
        description="SoPhi style: the agent gets delegate_to_subagent; its tools are the registry",
    )
    policy: PolicySpec | None = None
    parallel_tool_calls: bool = False
    max_steps: int = Field(default=20, ge=1, le=MAX_STEPS)
    system_prompt: str | None = None
    tool_executor: ToolExecutorSpec | None = None

    def entries(self) -> list[tuple[int, SubAgentSpec | DispatcherMountSpec]]:
        """Every ``subagents`` entry with its index, the shorthand ``- reviewer`` expanded."""
        return [
            (i, SubAgentSpec(agent=s) if isinstance(s, str) else s)
            for i, s in enumerate(self.subagents)
        ]

    def mounts(self) -> list[SubAgentSpec]:
        """The agents mounted as sub-agents (dispatcher mounts left out)."""
        return [m for _, m in self.entries() if isinstance(m, SubAgentSpec)]


class AgentTypeSpec(_Strict):
    """An agent type a dispatcher delegates to (an ``AgentDefinition``) and its model.

    A type defined by a file of ``agent_types_dir`` is listed here only to give
    its ``model``; every other type needs a ``description``.
    """

    description: str | None = None
    system_prompt: str | None = Field(
        default=None, description="the sub-agent's system prompt (default: the description)"
    )
    allowed_tools: list[str] | None = Field(
        default=None, description="the only tools it gets (unknown names ignored; default none)"
    )
    model_name: str | None = Field(
        default=None, description="the definition's model name, sent in its model requests"
    )
    model: ModelSpec | None = Field(
        default=None, description="its fake model; default: the dispatching agent's model"
    )


# -- the scenario ---------------------------------------------------------------


class TurnSpec(_Strict):
    """One user turn; turns share one simulation and, unless ``session`` says otherwise,
    the top agent's session."""

    input: str
    session: SessionChoice = Field(
        default="continue",
        description="continue (the previous turn's session), new, or {ref: name} "
        "(a session an earlier turn captured with expect.session_id)",
    )
    expect: TurnExpectSpec | None = None


def _unset_keys() -> list[str]:
    return [f"expect.{key}" for key in ExpectSpec.model_fields]


class VariantSpec(_Strict):
    """One policy variant of a ``matrix``: policy overrides, expectation overrides, and
    expectation keys it removes (``unset: [expect.output]``)."""

    id: str = Field(pattern=NAME_PATTERN)
    description: str = ""
    policies: dict[str, PolicySpec] = Field(default_factory=dict)
    expect: ExpectSpec | None = None
    unset: list[str] = Field(
        default_factory=list,
        description="keys of the scenario's expect this variant does not inherit",
        json_schema_extra={"items": {"enum": list[JsonValue](_unset_keys())}, "uniqueItems": True},
    )

    @staticmethod
    def unset_keys() -> list[str]:
        """What ``unset`` may name: each key of the scenario's ``expect``, as ``expect.<key>``."""
        return _unset_keys()


class ScenarioSpec(_Strict):
    """One scenario. The top agent is ``entry``, or the first agent listed."""

    scenario: str = Field(pattern=NAME_PATTERN)
    description: str = ""
    tags: list[TagName] = Field(default_factory=list)
    seed: int = Field(default=0, ge=0)
    clock: Literal["virtual", "real"] = Field(
        default="virtual",
        description="real: the turns run Agent.arun on a real event loop (latencies and "
        "timeouts at most 1s, the whole run at most 10s); virtual: in virtual time",
    )
    session_store: Literal["memory", "jsonl"] = Field(
        default="memory",
        description="jsonl: sessions are saved as files by a JsonlSessionStore (in a temporary "
        "directory) and expect.sessions checks what it reads back",
    )
    entry: str | None = None
    agents: dict[str, AgentSpec] = Field(min_length=1)
    tools: dict[str, FakeToolSpec] = Field(default_factory=dict)
    agent_types: dict[str, AgentTypeSpec] = Field(default_factory=dict)
    agent_types_dir: str | AgentTypesDirSpec | None = None
    run: list[str | TurnSpec] = Field(min_length=1, max_length=MAX_TURNS)
    expect: ExpectSpec = Field(default_factory=lambda: ExpectSpec())
    matrix: list[VariantSpec] | None = Field(default=None, min_length=1)
    recorded: RecordedSpec | None = Field(
        default=None,
        description="a recording's provenance; its presence makes each scripted model a "
        "replay of its script",
    )

    @property
    def entry_agent(self) -> str:
        """The agent the turns run: ``entry`` if given, else the first agent."""
        return self.entry if self.entry is not None else next(iter(self.agents))

    def types_dir(self) -> AgentTypesDirSpec | None:
        """``agent_types_dir``, the plain-path shorthand expanded."""
        found = self.agent_types_dir
        return AgentTypesDirSpec(path=found) if isinstance(found, str) else found

    def turns(self) -> list[TurnSpec]:
        """The turns, the shorthand ``- "hello"`` expanded."""
        return [TurnSpec(input=t) if isinstance(t, str) else t for t in self.run]


class ScenarioListSpec(_Strict):
    """A file holding several scenarios."""

    scenarios: list[dict[str, Any]] = Field(min_length=1)


ScriptModelSpec.model_rebuild()
