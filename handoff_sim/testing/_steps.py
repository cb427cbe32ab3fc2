"""Script steps: the plain-dict form (as YAML writes it) turned into typed steps."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from handoff_sim._durations import parse_duration
from handoff_sim._errors._families import ConfigurationError
from handoff_sim._safe import JsonProblem, dump_json, error_message
from handoff_sim.errors import PatternTimeoutError, ScriptAssertionError
from handoff_sim.messages import ModelRequest, ModelResponse, ToolCall, Usage

__all__ = [
    "RAISABLE",
    "ExceptionName",
    "ScriptStep",
    "SimulatedModelError",
    "check_request",
    "parse_step",
    "parse_steps",
]

_STEP_KEYS = {
    "text",
    "tool_calls",
    "error",
    "latency",
    "expect",
    "check",
    "usage",
    "request",
    "first_chunk",
    "cancelled",
}
_USAGE_KEYS = ("input_tokens", "output_tokens")
_EXPECT_KEYS = {"last_tool_result_contains", "tools_include", "input_contains"}


class SimulatedModelError(RuntimeError):
    """What a script's ``{"error": ...}`` step raises: a model provider failing."""


@dataclass(frozen=True, slots=True)
class ScriptStep:
    """One scripted model turn: a response, or an error to raise, after ``latency`` seconds.

    A recording's steps also carry the ``request`` they answered (its fingerprint, as
    written), the time to the ``first_chunk`` of a streamed answer, and ``cancelled`` for
    a call cut off before it answered: such a step never answers.
    """

    response: ModelResponse | None
    error: str | None = None
    latency: float = 0.0
    expect: Mapping[str, Any] | None = None
    check: Callable[[ModelRequest], object] | None = None
    exception: BaseException | None = None
    request: Mapping[str, Any] | None = None
    first_chunk: float | None = None
    cancelled: bool = False


def _tool_call(raw: Any, where: str) -> ToolCall:
    if isinstance(raw, ToolCall):
        return raw
    if not isinstance(raw, Mapping) or "name" not in raw:
        raise ConfigurationError(f"{where}: a tool call needs a 'name'")
    arguments = raw.get("arguments", {})
    if not isinstance(arguments, str):
        try:
            arguments = dump_json(arguments, separators=(",", ":"), ensure_ascii=False)
        except JsonProblem as exc:
            raise ConfigurationError(
                f"{where}: tool call {raw['name']!r}: arguments {exc}; "
                "give them as a JSON object or as the raw JSON text"
            ) from None
    return ToolCall(str(raw.get("id") or ""), str(raw["name"]), arguments)


def _non_dict_step(raw: Any, where: str) -> ScriptStep | None:
    if isinstance(raw, ScriptStep):
        return raw
    if isinstance(raw, ModelResponse):
        return ScriptStep(raw)
    if isinstance(raw, str):
        return ScriptStep(ModelResponse(text=raw))
    if isinstance(raw, BaseException):
        return ScriptStep(None, error_message(raw), exception=raw)
    if isinstance(raw, list | tuple):
        return ScriptStep(ModelResponse(tool_calls=tuple(_tool_call(c, where) for c in raw)))
    if not isinstance(raw, Mapping):
        raise ConfigurationError(f"{where}: expected a dict, got {type(raw).__name__}")
    return None


def parse_step(raw: Any, index: int, *, where: str | None = None) -> ScriptStep:
    """A step as a ScriptStep; ``where`` starts error messages (default ``script step <index>``).

    Accepted: a dict (``text`` / ``tool_calls`` / ``error``, optional ``latency``, ``expect``,
    ``check``, and a recording's ``usage``, ``request``, ``first_chunk``, ``cancelled``), a
    string (text), a list of tool calls, an exception (raised), a ModelResponse.
    """
    where = where or f"script step {index}"
    simple = _non_dict_step(raw, where)
    if simple is not None:
        return simple
    unknown = set(raw) - _STEP_KEYS
    if unknown:
        raise ConfigurationError(f"{where}: unknown key(s) {sorted(unknown)}")
    expect = raw.get("expect")
    if expect is not None and (not isinstance(expect, Mapping) or set(expect) - _EXPECT_KEYS):
        raise ConfigurationError(f"{where}: 'expect' takes only {sorted(_EXPECT_KEYS)}")
    try:
        latency = parse_duration(raw.get("latency", 0))
    except ValueError as exc:
        raise ConfigurationError(f"{where}: latency: {exc}") from None
    extra = _recorded_fields(raw, where)
    if extra["cancelled"]:
        return ScriptStep(None, None, latency, expect, raw.get("check"), **extra)
    if "error" in raw:
        error, exception = _error(raw["error"], where)
        check = raw.get("check")
        return ScriptStep(None, error, latency, expect, check, exception=exception, **extra)
    calls = tuple(_tool_call(c, where) for c in raw.get("tool_calls") or ())
    text = raw.get("text")
    if text is None and not calls and "text" not in raw:
        raise ConfigurationError(f"{where}: needs 'text', 'tool_calls' or 'error'")
    response = ModelResponse(text=text, tool_calls=calls, usage=_usage(raw.get("usage"), where))
    return ScriptStep(response, None, latency, expect, raw.get("check"), **extra)


ExceptionName = Literal[
    "RuntimeError",
    "ValueError",
    "TypeError",
    "KeyError",
    "LookupError",
    "PermissionError",
    "TimeoutError",
    "ConnectionError",
    "OSError",
]
"""A builtin error type a file may name (the scenario schema's ``type`` of ``raises``)."""

RAISABLE: tuple[str, ...] = get_args(ExceptionName)
"""The builtin error types a step's ``error`` and a fake tool's ``raises`` may name."""
_ERROR_TYPES: dict[str, type[Exception]] = {name: getattr(builtins, name) for name in RAISABLE}
"""The built-in exceptions a step's ``error: {type, message}`` may raise (a fake tool's too)."""


def _error(raw: object, where: str) -> tuple[str, BaseException | None]:
    """A step's ``error``: a provider failure's message, or ``{type, message}`` to raise."""
    if not isinstance(raw, Mapping):
        return str(raw), None
    if set(raw) - {"type", "message"} or raw.get("type", "RuntimeError") not in _ERROR_TYPES:
        raise ConfigurationError(
            f"{where}: error takes a message or {{type, message}} with a type among "
            f"{sorted(_ERROR_TYPES)}"
        )
    exception = _ERROR_TYPES[raw.get("type", "RuntimeError")](str(raw.get("message", "")))
    return error_message(exception), exception


def _duration(raw: Mapping[str, Any], key: str, where: str) -> float | None:
    if raw.get(key) is None:
        return None
    try:
        return parse_duration(raw[key])
    except ValueError as exc:
        raise ConfigurationError(f"{where}: {key}: {exc}") from None


def _recorded_fields(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    """What a recording adds to a step: the request it answered, first chunk, cancelled."""
    cancelled = raw.get("cancelled", False)
    if not isinstance(cancelled, bool):
        raise ConfigurationError(f"{where}: cancelled must be true or false")
    answers = sorted({"text", "tool_calls", "error"} & set(raw))
    if cancelled and answers:
        raise ConfigurationError(
            f"{where}: a step with 'cancelled: true' never answers: it cannot have {answers}"
        )
    request = raw.get("request")
    if request is not None and not isinstance(request, Mapping):
        raise ConfigurationError(f"{where}: request must be a mapping (a request fingerprint)")
    return {
        "request": request,
        "first_chunk": _duration(raw, "first_chunk", where),
        "cancelled": cancelled,
    }


def _usage(raw: object, where: str) -> Usage | None:
    """``{input_tokens, output_tokens}`` (or a Usage) as a Usage; counts are whole and >= 0."""
    if raw is None or isinstance(raw, Usage):
        return raw
    if not isinstance(raw, Mapping) or set(raw) - set(_USAGE_KEYS):
        raise ConfigurationError(f"{where}: usage takes only {list(_USAGE_KEYS)}")
    counts = {key: raw.get(key, 0) for key in _USAGE_KEYS}
    for key, count in counts.items():
        if type(count) is not int or count < 0:
            raise ConfigurationError(f"{where}: usage.{key} must be a whole number >= 0")
    return Usage(**counts)


def check_request(step: ScriptStep, request: ModelRequest, agent: str, index: int) -> None:
    """Apply the step's ``expect``/``check`` to the request it answers.

    A failed expectation raises ``ScriptAssertionError``; so does a pattern of the check
    that took too long (``PatternTimeoutError``): either way the step's expectation
    could not be shown to hold.
    """
    where = f"agent {agent!r}, script step {index}"
    try:
        _check_expect(step.expect or {}, request, where)
        if step.check is not None and step.check(request) is False:
            raise ScriptAssertionError(f"{where}: check {step.check!r} returned False")
    except PatternTimeoutError as exc:
        raise ScriptAssertionError(f"{where}: {exc}") from None


def _check_expect(expect: Mapping[str, Any], request: ModelRequest, where: str) -> None:
    if "last_tool_result_contains" in expect:
        wanted = str(expect["last_tool_result_contains"])
        results = request.last_tool_results()
        last = results[-1].content if results else None
        if last is None or wanted not in last:
            raise ScriptAssertionError(
                f"{where}: expected the last tool result to contain {wanted!r}, got {last!r}"
            )
    if "tools_include" in expect:
        missing = [t for t in expect["tools_include"] if t not in request.tool_names]
        if missing:
            raise ScriptAssertionError(
                f"{where}: tools {missing} not offered; offered {list(request.tool_names)}"
            )
    if "input_contains" in expect:
        wanted = str(expect["input_contains"])
        users = [m.content or "" for m in request.messages if m.role == "user"]
        if not users or wanted not in users[-1]:
            raise ScriptAssertionError(
                f"{where}: expected the user input to contain {wanted!r}, got "
                f"{users[-1] if users else None!r}"
            )


def parse_steps(steps: Sequence[Any]) -> tuple[ScriptStep, ...]:
    """Every step, numbered from 1 in messages."""
    return tuple(parse_step(s, i) for i, s in enumerate(steps, 1))
