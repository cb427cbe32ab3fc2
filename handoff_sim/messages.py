"""The values a run passes between agents, models and tools.

They are frozen ``msgspec`` structs: they sit on the hot path of every model turn,
so they are built in C and skip validation (the boundaries, scenario files and
policies, validate); mypy checks every constructor call.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping, Sequence
from itertools import islice
from typing import Any, Literal, TypeGuard, overload

import msgspec

from handoff_sim.errors import ModelResponseError

__all__ = [
    "Message",
    "MessageHistory",
    "ToolSpec",
    "Usage",
]

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(msgspec.Struct, frozen=True):
    """One tool call from a model: ``arguments`` is the raw JSON text, as on the wire."""

    id: str
    name: str
    arguments: str = "{}"


class Message(msgspec.Struct, frozen=True, kw_only=True):
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


class MessageHistory(Sequence[Message]):
    """The first ``length`` messages of a conversation log: what one model request saw.

    Requests share their run's append-only log instead of each copying the history,
    so keeping every request (as the fake models do) costs memory linear in the
    conversation. It never changes once made, and it reads, compares, hashes and
    prints like the tuple of its messages; a slice is a tuple.
    """

    __slots__ = ("_len", "_log")

    def __init__(self, log: Sequence[Message], length: int | None = None) -> None:
        self._log = log
        self._len = len(log) if length is None else length

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Message, ...]: ...
    def __getitem__(self, index: int | slice) -> Message | tuple[Message, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._len)
            if step == 1:
                return tuple(self._log[start:stop]) if start < stop else ()
            return tuple(self._log[i] for i in range(start, stop, step))
        position = operator.index(index)
        if position < 0:
            position += self._len
        if not 0 <= position < self._len:
            raise IndexError("tuple index out of range")
        return self._log[position]

    def __iter__(self) -> Iterator[Message]:
        return islice(self._log, self._len)

    def __reversed__(self) -> Iterator[Message]:
        log = self._log
        return (log[i] for i in range(self._len - 1, -1, -1))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MessageHistory):
            if other._len != self._len:
                return False
            return other._log is self._log or tuple(self) == tuple(other)
        if isinstance(other, tuple):
            return len(other) == self._len and tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))

    def __add__(self, other: object) -> tuple[Message, ...]:
        if isinstance(other, tuple | MessageHistory):
            return (*self, *other)
        return NotImplemented

    def __radd__(self, other: object) -> tuple[Message, ...]:
        if isinstance(other, tuple):
            return (*other, *self)
        return NotImplemented

    def __reduce__(self) -> tuple[type[tuple[Message, ...]], tuple[tuple[Message, ...]]]:
        return (tuple, (tuple(self),))


class ToolSpec(msgspec.Struct, frozen=True):
    """What a model is told about one tool: its name, description and JSON schema."""

    name: str
    description: str
    parameters: Mapping[str, Any] = msgspec.field(default_factory=dict)


class ModelRequest(msgspec.Struct, frozen=True, kw_only=True):
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


class Usage(msgspec.Struct, frozen=True, kw_only=True):
    """The tokens one model call used, as its provider counted them."""

    input_tokens: int = 0
    output_tokens: int = 0


class ModelResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A model's answer: optional text, any number of tool calls, and what it used."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None


def check_response(response: object, *, agent: str, step: int) -> ModelResponse:
    """``response`` if a model client may return it, else :class:`ModelResponseError`.

    The values on the wire skip validation, so the loop checks what a model client
    returned once, where it enters the run: ``text`` is a ``str`` or ``None``;
    ``tool_calls`` a list or tuple (a list becomes a tuple) of ``ToolCall`` whose
    ``id`` is a ``str`` or ``None`` (blank ids are renamed later), ``name`` a ``str``
    and ``arguments`` the raw JSON text, a ``str``.
    """
    if plain_response(response):
        return response  # checked: exactly what it should be
    problem = _response_problem(response)
    if problem is not None:
        raise ModelResponseError(agent, step, problem)
    assert isinstance(response, ModelResponse)
    if isinstance(response.tool_calls, tuple):
        return response
    return ModelResponse(
        text=response.text, tool_calls=tuple(response.tool_calls), usage=response.usage
    )


def plain_response(response: object) -> TypeGuard[ModelResponse]:
    """A ModelResponse of the exact types, as the fake models return: nothing to check."""
    if type(response) is not ModelResponse:
        return False
    text, calls = response.text, response.tool_calls
    if type(calls) is not tuple or not (text is None or type(text) is str):
        return False
    if response.usage is not None and type(response.usage) is not Usage:
        return False
    for call in calls:
        if type(call) is not ToolCall or type(call.name) is not str:
            return False
        if type(call.arguments) is not str or not (call.id is None or type(call.id) is str):
            return False
    return True


def _response_problem(response: object) -> str | None:
    if not isinstance(response, ModelResponse):
        return f"complete() returned {type(response).__name__}, expected a ModelResponse"
    if response.text is not None and not isinstance(response.text, str):
        return f"text must be a str or None, got {type(response.text).__name__}"
    if response.usage is not None and not isinstance(response.usage, Usage):
        return f"usage must be a Usage or None, got {type(response.usage).__name__}"
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
