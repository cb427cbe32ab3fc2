"""``FlinkSubAgent``: a sub-agent offered as the callable ``subagent_<name>``.

It is an ordinary :class:`~handoff_sim.SubAgent` mount with four seams
overridden: the spec (marker description, declared input schema), the input
(the model's arguments, unchanged), the result (normalised JSON) and the
failure text (``Sub-agent <callable> execute failed: <reason>``). Policy,
attempts, timeouts, sessions and handoff events are the runtime's own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from handoff_sim._safe import error_text
from handoff_sim.messages import ToolCall, ToolSpec
from handoff_sim.styles.flink._normalize import decode_output, normalize_result, render_result
from handoff_sim.styles.flink._schema import derive_input_schema
from handoff_sim.subagents._definition import SubAgent
from handoff_sim.subagents._naming import SUBAGENT_PREFIX, check_explicit_tool_name
from handoff_sim.subagents._policy import SessionMode

if TYPE_CHECKING:
    from handoff_sim._agent import Agent

__all__ = ["SUBAGENT_MARKER", "FlinkSubAgent", "ResultParser"]

SUBAGENT_MARKER = " This is subagent."

ResultParser = Callable[[str | None], object]


class FlinkSubAgent(SubAgent):
    """An agent offered to its parent's model as ``subagent_<name>``, Flink style.

    ``input_schema`` (a JSON-Schema mapping or JSON text) wins over
    ``input_type`` (anything pydantic renders, usually a ``BaseModel``); one of
    them is required. ``result_type`` narrows results; ``result_parser`` turns
    the sub-agent's final text into the raw result (default: its JSON value,
    else the text itself).
    """

    __slots__ = ("input_schema", "input_type", "result_parser", "result_type")

    def __init__(
        self,
        name: str,
        description: str = "",
        agent: Agent | None = None,
        *,
        input_schema: Mapping[str, Any] | str | None = None,
        input_type: Any = None,
        result_type: Any = None,
        result_parser: ResultParser | None = None,
        session_mode: SessionMode | str = SessionMode.NEW_SESSION,
    ) -> None:
        trimmed = name.strip() if isinstance(name, str) else ""
        callable_name = check_explicit_tool_name(SUBAGENT_PREFIX + trimmed) if trimmed else None
        super().__init__(name, description, agent, callable_name, session_mode)
        self.description = (description or "").strip() or (
            f"Delegate a standalone task to sub-agent {self.name}"
        )
        self.input_type = input_type
        self.result_type = result_type
        self.result_parser: ResultParser = result_parser or decode_output
        self.input_schema = derive_input_schema(self.name, input_schema, input_type)

    def __repr__(self) -> str:
        return f"FlinkSubAgent(name={self.name!r}, tool_name={self.tool_name!r})"

    @property
    def offered(self) -> bool:
        """Only a sub-agent with an object-shaped input schema is offered."""
        return self.input_schema is not None

    @property
    def spec(self) -> ToolSpec:
        """``subagent_<name>``, the description with the marker, the input schema."""
        return ToolSpec(self.tool_name, self.description + SUBAGENT_MARKER, self.input_schema or {})

    def target(self, call: ToolCall) -> tuple[Agent, str]:
        """The model's arguments reach the sub-agent unchanged."""
        return self.agent, call.arguments

    def result(self, call: ToolCall, output: str | None, steps: int) -> str:
        """The normalised result as JSON text; a refusal raises and becomes a failure."""
        return render_result(normalize_result(self.result_parser(output), self.result_type))

    def denied(self, call: ToolCall, message: str) -> str:
        """A denial reported to the model reads like any other failed delegation."""
        return f"Sub-agent {call.name} execute failed: handoff denied: {message}"

    def failure(self, call: ToolCall, error: BaseException) -> str:
        """``Sub-agent <callable> execute failed: <reason>``."""
        reason = error_text(error)
        if not reason:
            return f"Sub-agent {call.name} execute failed."
        return f"Sub-agent {call.name} execute failed: {reason}"
