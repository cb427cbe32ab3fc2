"""``SubagentDispatcher``: SoPhi's single ``delegate_to_subagent`` tool as a mount.

It is a :class:`~handoff_sim.SubAgent` whose target is picked per call by
``subagent_type``, so every delegation gets the runtime's handoff events,
policy, attempts, timeouts and depth. Per call it builds the sub-agent from its
definition: only the allowed tools, a nested dispatcher (one level deeper) only
when the definition names ``delegate_to_subagent``, a confirmation gate with the
safe pre-grants, and a fresh session titled ``subagent:<name>``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from handoff_sim._context import current_frame
from handoff_sim._errors._families import ConfigurationError
from handoff_sim._models import ModelClient
from handoff_sim._safe import error_message
from handoff_sim._sessions import InMemorySessionStore, Session, SessionStore
from handoff_sim._tools import Tool, ToolSetExecutor, parse_arguments
from handoff_sim.messages import ToolCall, ToolSpec
from handoff_sim.styles.sophi._arguments import (
    DELEGATE_TOOL_NAME,
    DELEGATION_PARAMETERS,
    DelegationArgs,
    parse_delegation,
)
from handoff_sim.styles.sophi._confirmation import (
    ALLOW_ALL,
    ConfirmationGate,
    ConfirmationPolicy,
    GatedExecutor,
    denied_message,
)
from handoff_sim.styles.sophi._definitions import AgentDefinition
from handoff_sim.styles.sophi._registry import ToolRegistry
from handoff_sim.styles.sophi._risk import RiskLevel, risk_of
from handoff_sim.subagents._definition import Refusal, SubAgent
from handoff_sim.subagents._policy import HandoffPolicy, SessionMode

if TYPE_CHECKING:
    from handoff_sim._agent import Agent

__all__ = ["DEFAULT_MAX_DELEGATION_DEPTH", "DispatcherConfig", "SubagentDispatcher"]

DEFAULT_MAX_DELEGATION_DEPTH = 3
NO_OUTPUT = "Error: subagent produced no output"


@dataclass(frozen=True, slots=True, kw_only=True)
class DispatcherConfig:
    """What every dispatcher of one delegation tree shares."""

    definitions: Mapping[str, AgentDefinition]
    registry: ToolRegistry
    model: ModelClient | None
    models: Mapping[str, ModelClient]
    max_delegation_depth: int
    confirmation_policy: ConfirmationPolicy
    session_store: SessionStore
    handoff_policy: HandoffPolicy
    max_steps: int
    parallel_tool_calls: bool


class SubagentDispatcher(SubAgent):
    """The ``delegate_to_subagent(subagent_type, prompt, expected_tools?)`` tool.

    ``depth`` counts the delegations above this instance (the top agent's is 0);
    a call at ``depth >= max_delegation_depth`` is refused without a model call.
    ``model`` serves every agent type unless ``models`` names one for it.
    ``gate`` is the confirmation gate of the agent this tool is mounted on; without
    one, the tool confirms its own risky calls.
    """

    __slots__ = ("config", "depth", "gate", "parent_session_id")

    def __init__(
        self,
        definitions: Iterable[AgentDefinition],
        *,
        model: ModelClient | None = None,
        models: Mapping[str, ModelClient] | None = None,
        registry: ToolRegistry | Iterable[Tool] = (),
        max_delegation_depth: int = DEFAULT_MAX_DELEGATION_DEPTH,
        confirmation_policy: ConfirmationPolicy = ALLOW_ALL,
        session_store: SessionStore | None = None,
        handoff_policy: HandoffPolicy | None = None,
        max_steps: int = 20,
        parallel_tool_calls: bool = False,
        depth: int = 0,
        parent_session_id: str | None = None,
        gate: ConfirmationGate | None = None,
    ) -> None:
        config = DispatcherConfig(
            definitions=_by_name(definitions),
            registry=_registry(registry),
            model=model,
            models=dict(models or {}),
            max_delegation_depth=_non_negative("max_delegation_depth", max_delegation_depth),
            confirmation_policy=confirmation_policy,
            session_store=session_store or InMemorySessionStore(),
            handoff_policy=handoff_policy or HandoffPolicy(max_depth=0),
            max_steps=max_steps,
            parallel_tool_calls=parallel_tool_calls,
        )
        _check_models(config)
        self._mount(config, _non_negative("depth", depth), parent_session_id, gate)

    def _mount(
        self,
        config: DispatcherConfig,
        depth: int,
        parent_session_id: str | None,
        gate: ConfirmationGate | None,
    ) -> None:
        self.name = DELEGATE_TOOL_NAME
        self.tool_name = DELEGATE_TOOL_NAME
        self.description = describe(config.definitions.values())
        self.session_mode = SessionMode.NEW_SESSION
        self.session_scope = "agent"
        self.config = config
        self.depth = depth
        self.parent_session_id = parent_session_id
        self.gate = gate or ConfirmationGate(config.confirmation_policy, self.confirmation_risk)

    @classmethod
    def _nested(
        cls, config: DispatcherConfig, depth: int, lineage: str, gate: ConfirmationGate
    ) -> SubagentDispatcher:
        nested = cls.__new__(cls)
        nested._mount(config, depth, lineage, gate)
        return nested

    def __repr__(self) -> str:
        return f"SubagentDispatcher(depth={self.depth}, types={list(self.config.definitions)!r})"

    @property
    def spec(self) -> ToolSpec:
        """``delegate_to_subagent`` with the agent types in its description."""
        return ToolSpec(DELEGATE_TOOL_NAME, self.description, DELEGATION_PARAMETERS)

    # -- risk --------------------------------------------------------------------

    def risk_level(self, arguments: str) -> RiskLevel:
        """The call's tier: the worst probed tier among ``expected_tools`` (unknown ignored).

        Arguments that do not parse are DESTRUCTIVE (fail closed).
        """
        args = parse_delegation(arguments)
        if isinstance(args, str):
            return RiskLevel.DESTRUCTIVE
        return self.config.registry.worst_risk_among(args.expected_tools)

    def confirmation_risk(self, call: ToolCall) -> RiskLevel | None:
        """The tier a gate confirms this call at; None for calls that will be refused anyway."""
        if call.name != DELEGATE_TOOL_NAME:
            return None
        args = parse_delegation(call.arguments)
        if isinstance(args, str) or self._precheck(args) is not None:
            return None
        return self.config.registry.worst_risk_among(args.expected_tools)

    # -- the SubAgent seams --------------------------------------------------------

    async def refuse(self, call: ToolCall, depth: int) -> Refusal | None:
        """Bad arguments, unknown type, depth cap, then confirmation; None lets it run."""
        args = parse_delegation(call.arguments)
        if isinstance(args, str):
            return Refusal(f"Error: invalid {DELEGATE_TOOL_NAME} arguments: {args}", "error")
        refusal = self._precheck(args)
        if refusal is None and not await self.gate.allows(call):
            refusal = Refusal(denied_message(call.name), "not_allowed")
        return refusal

    def _precheck(self, args: DelegationArgs) -> Refusal | None:
        if args.subagent_type not in self.config.definitions:
            available = ", ".join(self.config.definitions)
            return Refusal(
                f"Error: unknown subagent type '{args.subagent_type}'. Available: {available}",
                "not_allowed",
            )
        if self.depth >= self.config.max_delegation_depth:
            return Refusal(
                f"Error: max delegation depth ({self.config.max_delegation_depth}) exceeded",
                "max_depth",
            )
        return None

    def subagent_for(self, call: ToolCall) -> str:
        """The requested agent type (``?`` when the arguments do not name one)."""
        args = parse_delegation(call.arguments)
        return "?" if isinstance(args, str) else args.subagent_type

    def new_session(self, call: ToolCall, parent: Session, session_id: str) -> Session:
        """``subagent:<name>``, linked to the session the delegation tree started from."""
        name = self.subagent_for(call)
        return Session(
            id=session_id,
            parent_session_id=self.parent_session_id or parent.id,
            root_session_id=parent.root_session_id or parent.id,
            agent=name,
            title=f"subagent:{name}",
        )

    def target(self, call: ToolCall) -> tuple[Agent, str]:
        """A fresh sub-agent for the requested type, scoped to its allowed tools."""
        args = parse_delegation(call.arguments)
        if isinstance(args, str):  # refuse() stopped it already; kept for direct callers
            raise ValueError(f"invalid {DELEGATE_TOOL_NAME} arguments: {args}")
        definition = self.config.definitions[args.subagent_type]
        return self._build(definition, args.expected_tools), args.prompt

    def result(self, call: ToolCall, output: str | None, steps: int) -> str:
        """The sub-agent's final answer as it is."""
        return NO_OUTPUT if output is None else output

    def denied(self, call: ToolCall, message: str) -> str:
        """A policy denial reported to the model, SoPhi style."""
        return f"Error: handoff denied for subagent tool {call.name}: {message}"

    def failure(self, call: ToolCall, error: BaseException) -> str:
        """``Error: <message>``, as SoPhi's loop reports a failing tool."""
        return f"Error: {error_message(error)}"

    # -- building the sub-agent ------------------------------------------------------

    def _build(self, definition: AgentDefinition, expected: tuple[str, ...] | None) -> Agent:
        from handoff_sim._agent import Agent

        config = self.config
        scoped = config.registry.subset(definition.allowed_tools)
        nested: list[SubagentDispatcher] = []
        gate = ConfirmationGate(
            config.confirmation_policy,
            lambda c: _classify(scoped, nested, c),
            pre_granted=scoped.safe_grants_from(expected),
        )
        if DELEGATE_TOOL_NAME in definition.allowed_tools:
            lineage = self.parent_session_id or _caller_session_id()
            nested.append(self._nested(config, self.depth + 1, lineage, gate))
        executor = GatedExecutor(ToolSetExecutor(scoped.tools()), gate)
        return Agent(
            definition.name,
            config.models.get(definition.name) or cast(ModelClient, config.model),
            tools=scoped.tools(),
            subagents=nested,
            handoff_policy=config.handoff_policy,
            parallel_tool_calls=config.parallel_tool_calls,
            max_steps=config.max_steps,
            system_prompt=definition.system_prompt,
            tool_executor=executor,
            session_store=config.session_store,
            model_name=definition.model,
        )


def describe(definitions: Iterable[AgentDefinition]) -> str:
    """The dispatcher's description: one ``- <name>: <description>`` line per type."""
    lines = [f"- {d.name}: {d.description}" for d in definitions]
    if not lines:
        return "Delegate a task to a subagent. No agent types are currently configured."
    return "Delegate a task to a subagent. Available agent types:\n" + "\n".join(lines)


def _classify(
    scoped: ToolRegistry, nested: list[SubagentDispatcher], call: ToolCall
) -> RiskLevel | None:
    if nested and call.name == DELEGATE_TOOL_NAME:
        return nested[0].confirmation_risk(call)
    found = scoped.get_or_none(call.name)
    if found is None:
        return None
    try:
        return risk_of(found, parse_arguments(call))
    except ValueError:
        return None  # the loop rejects arguments that are not an object


def _caller_session_id() -> str:
    frame = current_frame()
    if frame is None:
        raise ConfigurationError("a delegation can only be built inside an agent run")
    return frame.session.id


def _by_name(definitions: Iterable[AgentDefinition]) -> dict[str, AgentDefinition]:
    out: dict[str, AgentDefinition] = {}
    for definition in definitions:
        if not isinstance(definition, AgentDefinition):
            raise ConfigurationError(
                f"dispatcher definitions must be AgentDefinition, got {type(definition).__name__}"
            )
        if definition.name in out:
            raise ConfigurationError(f"duplicate agent definition name: {definition.name}")
        out[definition.name] = definition
    return out


def _registry(registry: ToolRegistry | Iterable[Tool]) -> ToolRegistry:
    if isinstance(registry, ToolRegistry):
        found = registry
    else:
        items = list(registry)
        bad = [type(t).__name__ for t in items if not isinstance(t, Tool)]
        if bad:
            raise ConfigurationError(f"dispatcher registry must hold Tool objects, got {bad[0]}")
        found = ToolRegistry(items)
    if DELEGATE_TOOL_NAME in found:
        raise ConfigurationError(
            f"a plain tool may not be called {DELEGATE_TOOL_NAME!r}: the dispatcher owns that name"
        )
    return found


def _non_negative(field: str, value: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigurationError(f"dispatcher {field} must be an int >= 0, got {value!r}")
    return value


def _check_models(config: DispatcherConfig) -> None:
    missing = [n for n in config.definitions if config.model is None and n not in config.models]
    if missing:
        raise ConfigurationError(
            f"no model client for agent type(s) {missing}: pass model= or models={{name: ...}}"
        )
