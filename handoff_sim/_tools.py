"""Plain tools, the ``@tool`` decorator and the default (primary) tool executor."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, overload, runtime_checkable

from pydantic import BaseModel, ValidationError, create_model

from handoff_sim._errors._run import UnknownToolError
from handoff_sim._safe import JsonProblem, describe_error, dump_json, error_text, parse_json
from handoff_sim.messages import ToolCall, ToolSpec

__all__ = [
    "Tool",
    "ToolExecutor",
    "ToolOutput",
    "ToolSetExecutor",
    "call_executor",
    "format_tool_error",
    "parse_arguments",
    "tool",
]

ToolFunction = Callable[..., Any]

_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "object": dict,
    "array": list,
    "null": type(None),
}


class Tool:
    """A named function a model can call, with a JSON schema for its arguments.

    Build one with :func:`tool` (schema from type hints) or directly with an
    explicit ``parameters`` schema. ``fn`` may be sync or async; what it returns
    becomes the tool result (strings as they are, anything else as JSON).
    """

    __slots__ = ("_arguments_model", "description", "fn", "metadata", "name", "parameters")

    def __init__(
        self,
        name: str,
        fn: ToolFunction,
        *,
        description: str = "",
        parameters: Mapping[str, Any] | None = None,
        arguments_model: type[BaseModel] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.fn = fn
        self.description = description
        self._arguments_model = arguments_model
        if parameters is None:
            parameters = _schema_of(arguments_model) if arguments_model else _EMPTY_SCHEMA
        self.parameters: Mapping[str, Any] = parameters
        self.metadata: dict[str, Any] = dict(metadata or {})

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r})"

    @property
    def spec(self) -> ToolSpec:
        """What the model is told about this tool."""
        return ToolSpec(self.name, self.description, self.parameters)

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Check ``arguments`` against the schema; raise ValueError naming the problem."""
        if self._arguments_model is not None:
            try:
                parsed = self._arguments_model.model_validate(arguments)
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
                    for err in exc.errors()
                )
                raise ValueError(f"invalid arguments for tool '{self.name}': {problems}") from None
            return {k: getattr(parsed, k) for k in type(parsed).model_fields}
        problem = _schema_problem(self.parameters, arguments)
        if problem:
            raise ValueError(f"invalid arguments for tool '{self.name}': {problem}")
        return arguments

    async def invoke(self, arguments: dict[str, Any]) -> str:
        """Validate, call the function, and turn its return value into result text."""
        result = self.fn(**self.validate(arguments))
        if inspect.isawaitable(result):
            result = await result
        if isinstance(result, str):
            return result
        try:
            return dump_json(result, default=str)
        except JsonProblem as exc:
            raise ValueError(f"the result of tool '{self.name}' {exc}") from None


_EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}


def _schema_of(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    return schema


def _schema_problem(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """A shallow JSON-schema check: required keys and the JSON type of each property."""
    for key in schema.get("required", ()):
        if key not in arguments:
            return f"missing required argument '{key}'"
    properties = schema.get("properties", {})
    for key, value in arguments.items():
        declared = properties.get(key, {}).get("type") if isinstance(properties, Mapping) else None
        if isinstance(declared, str) and declared in _JSON_TYPES:
            expected = _JSON_TYPES[declared]
            wrong_bool = isinstance(value, bool) and declared in ("integer", "number")
            if wrong_bool or not isinstance(value, expected):
                return f"argument '{key}' must be of type {declared}"
    if schema.get("additionalProperties") is False:
        extra = sorted(set(arguments) - set(properties))
        if extra:
            return f"unexpected argument '{extra[0]}'"
    return None


def _model_from_signature(fn: ToolFunction) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    hints = inspect.get_annotations(fn, eval_str=True)
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, default)
    model: type[BaseModel] = create_model(f"{fn.__name__}_arguments", **fields)
    return model


@overload
def tool(fn: ToolFunction, /) -> Tool: ...


@overload
def tool(
    *, name: str | None = None, description: str | None = None
) -> Callable[[ToolFunction], Tool]: ...


def tool(
    fn: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
) -> Tool | Callable[[ToolFunction], Tool]:
    """Make a :class:`Tool` from a function; its JSON schema comes from the type hints.

    The description defaults to the first paragraph of the docstring.
    """

    def build(func: ToolFunction) -> Tool:
        doc = inspect.getdoc(func) or ""
        return Tool(
            name or func.__name__,
            func,
            description=description if description is not None else doc.split("\n\n")[0],
            arguments_model=_model_from_signature(func),
        )

    return build(fn) if fn is not None else build


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """A tool result with its error flag; an executor may return one instead of a string."""

    content: str
    is_error: bool = False


ToolResult = str | ToolOutput


@runtime_checkable
class ToolExecutor(Protocol):
    """Runs tool calls. Raise :class:`UnknownToolError` for a name you do not serve."""

    def execute(self, call: ToolCall) -> ToolResult | Awaitable[ToolResult]:
        """Run ``call``; return the result text (or a ToolOutput), sync or async."""
        ...


class ToolSetExecutor:
    """The default primary executor: serves exactly the given tools, by name."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self.tools: dict[str, Tool] = {t.name: t for t in tools}

    async def execute(self, call: ToolCall) -> str:
        """Run the tool named by ``call``; raise UnknownToolError for any other name."""
        found = self.tools.get(call.name)
        if found is None:
            raise UnknownToolError(call.name, f"Tool '{call.name}' not found")
        return await found.invoke(parse_arguments(call))


async def call_executor(executor: ToolExecutor, call: ToolCall) -> ToolResult:
    """Run ``executor.execute(call)``, awaiting it when it is async."""
    result = executor.execute(call)
    if inspect.isawaitable(result):
        result = await result
    return result if isinstance(result, str | ToolOutput) else str(result)


def parse_arguments(call: ToolCall) -> dict[str, Any]:
    """The call's arguments as a dict; ValueError if they are not a JSON object.

    Blank (or missing) arguments are an empty object. Text that is not JSON, not an
    object, or nested too deeply to read is a ValueError, never anything else.
    """
    text = call.arguments
    if text is None or (isinstance(text, str) and not text.strip()):
        return {}
    try:
        value = parse_json(text)
    except JsonProblem as exc:
        why = " (these are nested too deeply)" if exc.too_deep else ""
        raise ValueError(f"{call.name} arguments must be a JSON object{why}") from None
    if not isinstance(value, dict):
        raise ValueError(f"{call.name} arguments must be a JSON object")
    return value


def format_tool_error(exc: BaseException) -> str:
    """The text a model sees for a failing tool: ``Error: <type>: <message>``.

    It never raises: an exception whose ``__str__`` fails is shown by its type name
    and a note that its message was unavailable.
    """
    if isinstance(exc, UnknownToolError):
        return f"Error: {error_text(exc) or f'unknown tool: {exc.name}'}"
    return f"Error: {describe_error(exc)}"
