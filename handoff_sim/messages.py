"""The values a run passes between agents, models and tools.

They are frozen, slotted dataclasses: they sit on the hot path of every model
turn, so they skip validation; the boundaries (scenario files, policies) validate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from handoff_sim.errors import ModelResponseError

__all__ = [
    "Message",
    "ModelRequest",
    "ModelResponse",
    "Role",
    "ToolCall",
    "ToolSpec",
    "check_response",
]

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call from a model: ``arguments`` is the raw JSON text, as on the wire."""

    id: str
    name: str
    arguments: str = "{}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """One entry of a conversation. ``tool_calls`` only on assistant messages."""

    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict that leaves out empty fields."""
        data: dict[str, Any] = {"role": self.role}
        if self.content is not None:
            data["content"] = self.content
        if self.tool_calls:
            data["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls
            ]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            data["name"] = self.name
        if self.is_error:
            data["is_error"] = True
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Message:
        """Inverse of :meth:`to_dict`."""
        calls = tuple(
            ToolCall(c["id"], c["name"], c.get("arguments", "{}"))
            for c in data.get("tool_calls", ())
        )
        return cls(
            role=data["role"],
            content=data.get("content"),
            tool_calls=calls,
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            is_error=bool(data.get("is_error", False)),
        )


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What a model is told about one tool: its name, description and JSON schema."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRequest:
    """Everything a model client receives for one completion."""

    agent: str
    model: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    parallel_tool_calls: bool = False

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Names of the tools offered, in order."""
        return tuple(t.name for t in self.tools)

    def last_tool_results(self) -> tuple[Message, ...]:
        """The tool results that follow the last assistant message."""
        out: list[Message] = []
        for message in reversed(self.messages):
            if message.role != "tool":
                break
            out.append(message)
        return tuple(reversed(out))


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelResponse:
    """A model's answer: optional text and any number of tool calls."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()


def check_response(response: object, *, agent: str, step: int) -> ModelResponse:
    """``response`` if a model client may return it, else :class:`ModelResponseError`.

    The values on the wire skip validation, so the loop checks what a model client
    returned once, where it enters the run: ``text`` is a ``str`` or ``None``;
    ``tool_calls`` a list or tuple (a list becomes a tuple) of ``ToolCall`` whose
    ``id`` is a ``str`` or ``None`` (blank ids are renamed later), ``name`` a ``str``
    and ``arguments`` the raw JSON text, a ``str``.
    """
    problem = _response_problem(response)
    if problem is not None:
        raise ModelResponseError(agent, step, problem)
    assert isinstance(response, ModelResponse)
    if isinstance(response.tool_calls, tuple):
        return response
    return ModelResponse(text=response.text, tool_calls=tuple(response.tool_calls))


def _response_problem(response: object) -> str | None:
    if not isinstance(response, ModelResponse):
        return f"complete() returned {type(response).__name__}, expected a ModelResponse"
    if response.text is not None and not isinstance(response.text, str):
        return f"text must be a str or None, got {type(response.text).__name__}"
    calls = response.tool_calls
    if not isinstance(calls, tuple | list):
        return f"tool_calls must be a list or tuple of ToolCall, got {type(calls).__name__}"
    for index, call in enumerate(calls):
        problem = _call_problem(call)
        if problem is not None:
            return f"tool_calls[{index}]{problem}"
    return None


def _call_problem(call: object) -> str | None:
    if not isinstance(call, ToolCall):
        return f" must be a ToolCall, got {type(call).__name__}"
    if call.id is not None and not isinstance(call.id, str):
        return f".id must be a str or None, got {type(call.id).__name__}"
    if not isinstance(call.name, str):
        return f".name must be a str, got {type(call.name).__name__}"
    if not isinstance(call.arguments, str):
        return (
            f".arguments must be the raw JSON text (a str), got {type(call.arguments).__name__}; "
            "pass json.dumps(...) of the arguments"
        )
    return None
