"""The values a run passes between agents, models and tools.

They are frozen, slotted dataclasses: they sit on the hot path of every model
turn, so they skip validation; the boundaries (scenario files, policies) validate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Message",
    "ModelRequest",
    "ModelResponse",
    "Role",
    "ToolCall",
    "ToolSpec",
]

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call from a model: ``arguments`` is the raw JSON text, as on the wire (R1)."""

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
    """Everything a model client receives for one completion (R1)."""

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
    """A model's answer: optional text and any number of tool calls (R1)."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
