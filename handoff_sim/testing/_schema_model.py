"""``SchemaModel``: a fake that calls every tool it is offered once, then answers.

A smoke test of a whole agent tree needs no script: each agent's first model call asks
for every tool it is offered (sub-agent tools included), with arguments made from the
tool's JSON Schema; its next call answers with text. Like pydantic-ai's ``TestModel``.
"""

from __future__ import annotations

import asyncio
import json
import reprlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from handoff_sim._context import current_depth
from handoff_sim._durations import parse_duration
from handoff_sim._errors._families import ConfigurationError
from handoff_sim.messages import Message, ModelRequest, ModelResponse, ToolCall, ToolSpec
from handoff_sim.testing._schema_values import SchemaModelError, schema_arguments

__all__ = ["SchemaModel", "SchemaModelError", "SchemaModelSpec"]

NO_TOOL_CALLS = "success (no tool calls)"
RESULT_CHARS = 200
"""Each tool result quoted in the answer is cut to this many characters, so that an
answer quoting a sub-agent's answer quoting its own stays small at any depth."""


class SchemaModel:
    """Calls each offered tool once (arguments from its JSON Schema), then answers with text.

    * ``seed`` picks among alternatives and offsets numbers: the same seed, the same calls.
    * ``call_tools``: ``"all"`` or the names to call where offered (others are not called).
    * ``arguments``: fixed arguments per tool name, for schemas no value can be made for.
    * ``include_optional``: fill optional properties too (default: required ones only).
    * ``max_depth``: at this handoff depth or deeper, call no tools and answer at once.
    * ``text``: the answer; default the JSON of the tool results by tool name (each cut to
      200 characters), or ``success (no tool calls)``.
    * ``latency``: virtual time each model call takes (seconds or ``"250ms"``).

    A schema no value can be made for, or one whose arguments would pass the budget of one
    argument set (``MAX_SCHEMA_VALUES`` values, ``MAX_SCHEMA_CHARS`` characters: array and
    ``$ref`` fan-outs), is a :class:`SchemaModelError` naming the agent, the tool and the place.

    All calls of a turn go in one response, in the order the tools are offered; the agent's
    ``parallel_tool_calls`` decides whether they run one after another or together. The
    model keeps no state between requests, so one instance may serve a whole tree (its
    requests are kept in :attr:`requests`).
    """

    model_name = "schema"

    def __init__(
        self,
        *,
        seed: int = 0,
        call_tools: Literal["all"] | Iterable[str] = "all",
        arguments: Mapping[str, Mapping[str, Any]] | None = None,
        include_optional: bool = False,
        max_depth: int | None = None,
        text: str | None = None,
        latency: float | str = 0.0,
    ) -> None:
        self.seed = _int("seed", seed, low=0)
        self.call_tools = _tool_names(call_tools)
        self.arguments = _arguments(arguments)
        self.include_optional = _flag("include_optional", include_optional)
        self.max_depth = None if max_depth is None else _int("max_depth", max_depth, low=0)
        if text is not None and not isinstance(text, str):
            raise ConfigurationError(f"SchemaModel text must be a str or None, got {text!r}")
        self.text = text
        try:
            self.latency = parse_duration(latency)
        except ValueError as exc:
            raise ConfigurationError(f"SchemaModel latency: {exc}") from None
        self.requests: list[ModelRequest] = []

    def __repr__(self) -> str:
        return f"SchemaModel(seed={self.seed})"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """The tool calls of the turn's first request; a text answer after that."""
        self.requests.append(request)
        if self.latency:
            await asyncio.sleep(self.latency)
        turn = _this_turn(request.messages)
        if not any(m.role == "assistant" for m in turn):
            calls = self.tool_calls(request)
            if calls:
                return ModelResponse(tool_calls=calls)
        return ModelResponse(text=self.text if self.text is not None else _answer(turn))

    def tool_calls(self, request: ModelRequest) -> tuple[ToolCall, ...]:
        """One call per tool to call, in the order offered (none at ``max_depth``)."""
        if self.max_depth is not None and current_depth() >= self.max_depth:
            return ()
        return tuple(
            ToolCall(f"call_{spec.name}", spec.name, self.arguments_for(spec, request.agent))
            for spec in request.tools
            if self.call_tools is None or spec.name in self.call_tools
        )

    def arguments_for(self, spec: ToolSpec, agent: str | None = None) -> str:
        """The JSON arguments for one tool: the fixed ones, else made from its schema."""
        fixed = self.arguments.get(spec.name)
        if fixed is not None:
            return json.dumps(fixed)
        try:
            value = schema_arguments(
                spec.parameters or {},
                seed=self.seed,
                tool=spec.name,
                include_optional=self.include_optional,
            )
        except SchemaModelError as exc:
            if agent is None:
                raise
            raise SchemaModelError(f"agent {agent!r}: {exc}") from None
        return json.dumps(value)


def _this_turn(messages: Sequence[Message]) -> Sequence[Message]:
    """The messages after the last user message: this run's turn of the conversation."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return messages[index + 1 :]
    return messages


def _answer(turn: Sequence[Message]) -> str:
    """The tool results of the turn as JSON by tool name, or the no-tools answer."""
    names = {c.id: c.name for m in turn for c in m.tool_calls}
    results: dict[str, str] = {}
    for message in turn:
        if message.role == "tool":
            name = names.get(message.tool_call_id or "", message.name or "?")
            content = message.content or ""
            if len(content) > RESULT_CHARS:
                content = content[: RESULT_CHARS - 1] + "…"
            results[name] = content
    return json.dumps(results, ensure_ascii=False) if results else NO_TOOL_CALLS


def _int(field: str, value: object, *, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ConfigurationError(f"SchemaModel {field} must be an int >= {low}, got {value!r}")
    return value


def _flag(field: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ConfigurationError(f"SchemaModel {field} must be True or False, got {value!r}")
    return value


def _tool_names(value: object) -> frozenset[str] | None:
    if value == "all":
        return None
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise ConfigurationError(
            f"SchemaModel call_tools must be 'all' or a list of tool names, got "
            f"{reprlib.repr(value)}"
        )
    names = list(value)
    bad = [n for n in names if not isinstance(n, str) or not n]
    if bad:
        raise ConfigurationError(f"SchemaModel call_tools: {bad[0]!r} is not a tool name")
    return frozenset(names)


def _arguments(value: object) -> dict[str, Mapping[str, Any]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigurationError(
            f"SchemaModel arguments must map tool names to argument objects, got "
            f"{reprlib.repr(value)}"
        )
    out: dict[str, Mapping[str, Any]] = {}
    for name, args in value.items():
        if not isinstance(name, str) or not isinstance(args, Mapping):
            raise ConfigurationError(
                f"SchemaModel arguments[{name!r}] must be an object of arguments, got "
                f"{reprlib.repr(args)}"
            )
        try:
            json.dumps(args)
        except (TypeError, ValueError) as exc:
            raise ConfigurationError(f"SchemaModel arguments[{name!r}]: {exc}") from None
        out[name] = args
    return out


class SchemaModelSpec(BaseModel):
    """A SchemaModel as a scenario file writes it: ``model: {kind: schema, seed: 1, ...}``."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    KIND: ClassVar[str] = "schema"
    """The ``kind`` that names this model in a scenario file (a plugin cannot take it)."""

    kind: Literal["schema"] = "schema"
    seed: int = Field(default=0, ge=0, description="picks among alternatives, offsets numbers")
    call_tools: Literal["all"] | list[str] = Field(
        default="all", description="'all' or the tool names to call where offered"
    )
    arguments: dict[str, dict[str, JsonValue]] | None = Field(
        default=None, description="fixed arguments by tool name"
    )
    include_optional: bool = Field(default=False, description="fill optional properties too")
    max_depth: int | None = Field(
        default=None, ge=0, description="from this handoff depth on, call no tools"
    )
    text: str | None = Field(default=None, description="the answer after the tool calls")
    latency: float | str = Field(default=0.0, description="each model call (e.g. 250ms)")

    def build(self) -> SchemaModel:
        """The model these options describe."""
        return SchemaModel(**self.model_dump(exclude={"kind"}))
