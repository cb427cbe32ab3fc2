"""``AdversarialModel``: a seeded fake model that answers with hostile output.

Every behaviour is one way a real model (or a broken provider) can misbehave.
The model picks one enabled behaviour per turn from its own ``random.Random``,
so the same seed and the same runtime give the same answers. A call to an offered
tool carries arguments made from that tool's JSON Schema (as ``SchemaModel`` makes
them), so a framework's delegation tools (``{"input": ...}``, a user's own
parameters) are really run, sub-agents included. After
``max_turns`` turns of one run it answers with text, so a run ends by itself;
only :attr:`Behaviour.ENDLESS_LATENCY` never answers, on purpose: the
runtime's guards (per-attempt timeout, simulation deadline) must stop it.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Iterable
from enum import StrEnum

from handoff_sim._durations import shown
from handoff_sim._errors._families import ConfigurationError
from handoff_sim._limits import MAX_FAN_OUT, MAX_OVERSIZED_BYTES, MAX_TURNS
from handoff_sim.messages import ModelRequest, ModelResponse, ToolCall, ToolSpec
from handoff_sim.subagents._naming import normalize_tool_name
from handoff_sim.testing._steps import SimulatedModelError
from handoff_sim.testing._tool_arguments import ToolArguments

__all__ = [
    "ALL_BEHAVIOURS",
    "DEFAULT_BEHAVIOURS",
    "AdversarialModel",
    "AdversarialModelError",
    "AdversarialTimeoutError",
    "Behaviour",
]


class Behaviour(StrEnum):
    """The catalogue of hostile answers; scenario files name them by value."""

    UNKNOWN_TOOL = "unknown_tool"
    MALFORMED_JSON = "malformed_json"
    NON_OBJECT_ARGUMENTS = "non_object_arguments"
    MISSING_TASK = "missing_task"
    NON_STRING_TASK = "non_string_task"
    OVERSIZED_ARGUMENTS = "oversized_arguments"
    DUPLICATE_CALL_IDS = "duplicate_call_ids"
    SELF_DELEGATION = "self_delegation"
    DEEP_RECURSION = "deep_recursion"
    RESERVED_PREFIX = "reserved_prefix"
    FAN_OUT = "fan_out"
    REPEATED_CALLS = "repeated_calls"
    ENDLESS_LATENCY = "endless_latency"
    RAISING = "raising"
    EMPTY_RESPONSE = "empty_response"
    MIXED_TEXT_AND_CALLS = "mixed_text_and_calls"
    VALID_CALLS = "valid_calls"  # every offered tool once, arguments valid for its schema
    NEAR_VALID_ARGUMENTS = "near_valid_arguments"  # one field missing, mistyped or extra


ALL_BEHAVIOURS: tuple[Behaviour, ...] = tuple(Behaviour)
"""Every behaviour, the endless one included."""

DEFAULT_BEHAVIOURS: tuple[Behaviour, ...] = tuple(
    b for b in Behaviour if b is not Behaviour.ENDLESS_LATENCY
)
"""Every behaviour that lets a run end by itself: the default mix."""


class AdversarialModelError(SimulatedModelError):
    """What :attr:`Behaviour.RAISING` raises: a model provider failing."""


class AdversarialTimeoutError(AdversarialModelError, TimeoutError):
    """A provider timeout: a ``TimeoutError`` that is *not* the handoff's own timeout."""


_MALFORMED = ("{", '{"task": ', "{'task': 'single quotes'}", "not json at all", "{}}", "\x00")
_NON_OBJECTS = ("[]", '["task"]', "42", '"just a string"', "null", "true", "NaN", "", "   ")
_MISSING_TASK = ("{}", '{"context": "only context"}', '{"tusk": "typo"}', '{"task": "   "}')
_NON_STRING_TASKS = (123, 1.5, None, True, ["a", "b"], {"nested": {"task": "x"}})
_UNKNOWN_NAMES = ("no_such_tool", "", "   ", "tool with spaces", "數據", "a" * 300, "../etc")
_ERRORS: tuple[type[AdversarialModelError], ...] = (AdversarialModelError, AdversarialTimeoutError)

_Make = Callable[["_Turn"], ModelResponse]


class _Turn:
    """What one answer is built from: the request, the rng and the model's knobs."""

    def __init__(self, model: AdversarialModel, request: ModelRequest, number: int) -> None:
        self.model = model
        self.request = request
        self.number = number
        self.rng = model.rng
        tools = {t.name: t for t in reversed(request.tools)}  # the first of a name wins
        self.arguments = ToolArguments(tools, model.seed + number)

    def call_id(self, index: int) -> str:
        return f"adv_{self.number}_{index}"

    def any_tool(self) -> str:
        names = self.request.tool_names
        return self.rng.choice(names) if names else "no_tools_offered"

    def delegation_tools(self) -> list[str]:
        return [t.name for t in self.request.tools if _is_delegation(t)]

    def target(self) -> str:
        """A sub-agent tool if one is offered, else any tool."""
        tools = self.delegation_tools()
        return self.rng.choice(tools) if tools else self.any_tool()

    def valid(self, name: str, text: str = "adversarial task") -> str:
        """JSON arguments for ``name`` valid under its schema (``task`` says ``text``)."""
        return json.dumps(self.arguments.valid(name, f"{text} {self.number}"))

    def calls(self, name: str, arguments: Iterable[str]) -> ModelResponse:
        return ModelResponse(
            tool_calls=tuple(ToolCall(self.call_id(i), name, a) for i, a in enumerate(arguments))
        )


def _is_delegation(spec: ToolSpec) -> bool:
    """A ``subagent_*`` tool, a ``task``-shaped one, or the SDK's agent tool (``{input}``)."""
    properties = spec.parameters.get("properties") if spec.parameters else None
    return spec.name.startswith("subagent_") or (
        isinstance(properties, dict) and ("task" in properties or set(properties) == {"input"})
    )


def _task(turn: _Turn, text: str = "adversarial task") -> str:
    return json.dumps({"task": f"{text} {turn.number}"})


def _unknown_tool(turn: _Turn) -> ModelResponse:
    name = turn.rng.choice(_UNKNOWN_NAMES)
    return turn.calls(name, [_task(turn)])


def _malformed_json(turn: _Turn) -> ModelResponse:
    return turn.calls(turn.target(), [turn.rng.choice(_MALFORMED)])


def _non_object(turn: _Turn) -> ModelResponse:
    return turn.calls(turn.target(), [turn.rng.choice(_NON_OBJECTS)])


def _missing_task(turn: _Turn) -> ModelResponse:
    return turn.calls(turn.target(), [turn.rng.choice(_MISSING_TASK)])


def _non_string_task(turn: _Turn) -> ModelResponse:
    value = turn.rng.choice(_NON_STRING_TASKS)
    return turn.calls(turn.target(), [json.dumps({"task": value, "context": value})])


def _oversized(turn: _Turn) -> ModelResponse:
    size = turn.model.oversized_bytes
    payload = json.dumps({"task": "x" * size, "context": "y" * (size // 4)})
    return turn.calls(turn.target(), [payload])


def _duplicate_ids(turn: _Turn) -> ModelResponse:
    ids = ("dup", "dup", "", "dup", " ")
    calls = tuple(ToolCall(i, name, turn.valid(name)) for i, name in _targets(turn, ids))
    return ModelResponse(tool_calls=calls)


def _targets(turn: _Turn, ids: Iterable[str]) -> list[tuple[str, str]]:
    """Each call id with a target of its own, drawn in order."""
    return [(i, turn.target()) for i in ids]


def _self_delegation(turn: _Turn) -> ModelResponse:
    own = turn.request.agent
    names = (normalize_tool_name(own), own)
    calls = tuple(
        ToolCall(turn.call_id(i), n, _task(turn, "do it yourself")) for i, n in enumerate(names)
    )
    return ModelResponse(tool_calls=calls)


def _deep_recursion(turn: _Turn) -> ModelResponse:
    """Every sub-agent tool; if none is known as one, every tool (a framework's delegation
    tools have the user's own names and parameters); with no tool, the agent's own name."""
    tools = (
        turn.delegation_tools()
        or list(dict.fromkeys(turn.request.tool_names))
        or [normalize_tool_name(turn.request.agent)]
    )
    calls = tuple(
        ToolCall(turn.call_id(i), name, turn.valid(name, "delegate this further"))
        for i, name in enumerate(tools)
    )
    return ModelResponse(tool_calls=calls)


def _reserved_prefix(turn: _Turn) -> ModelResponse:
    names = ("subagent_", "subagent_ghost", "SUBAGENT_ghost", "subagent_" + "z" * 80)
    return turn.calls(turn.rng.choice(names), [_task(turn)])


def _fan_out(turn: _Turn) -> ModelResponse:
    names = turn.request.tool_names or ("no_tools_offered",)
    calls = tuple(
        ToolCall(
            turn.call_id(i), names[i % len(names)], turn.valid(names[i % len(names)], f"part {i}")
        )
        for i in range(turn.model.fan_out)
    )
    return ModelResponse(tool_calls=calls)


def _repeated(turn: _Turn) -> ModelResponse:
    name = turn.target()
    call = ToolCall("same", name, turn.valid(name, "again"))
    return ModelResponse(tool_calls=(call,) * turn.rng.randint(2, 8))


def _raising(turn: _Turn) -> ModelResponse:
    error = turn.rng.choice(_ERRORS)
    raise error(f"adversarial model failure (seed {turn.model.seed}, turn {turn.number})")


def _empty(turn: _Turn) -> ModelResponse:
    return turn.rng.choice((ModelResponse(), ModelResponse(text=""), ModelResponse(text=" \n")))


def _mixed(turn: _Turn) -> ModelResponse:
    name = turn.target()
    call = ToolCall(turn.call_id(0), name, turn.valid(name))
    return ModelResponse(text="let me think… and also call a tool", tool_calls=(call,))


def _valid_calls(turn: _Turn) -> ModelResponse:
    names = list(dict.fromkeys(turn.request.tool_names))
    if not names:
        return ModelResponse(text="adversarial model: no tool offered to call")
    return ModelResponse(
        tool_calls=tuple(ToolCall(turn.call_id(i), n, turn.valid(n)) for i, n in enumerate(names))
    )


def _near_valid(turn: _Turn) -> ModelResponse:
    name = turn.target()
    text = f"adversarial task {turn.number}"
    return turn.calls(name, [turn.arguments.near_valid(name, text, turn.rng)])


def _never(turn: _Turn) -> ModelResponse:  # pragma: no cover - handled before dispatch
    raise AssertionError("endless latency never answers")


_MAKERS: dict[Behaviour, _Make] = {
    Behaviour.UNKNOWN_TOOL: _unknown_tool,
    Behaviour.MALFORMED_JSON: _malformed_json,
    Behaviour.NON_OBJECT_ARGUMENTS: _non_object,
    Behaviour.MISSING_TASK: _missing_task,
    Behaviour.NON_STRING_TASK: _non_string_task,
    Behaviour.OVERSIZED_ARGUMENTS: _oversized,
    Behaviour.DUPLICATE_CALL_IDS: _duplicate_ids,
    Behaviour.SELF_DELEGATION: _self_delegation,
    Behaviour.DEEP_RECURSION: _deep_recursion,
    Behaviour.RESERVED_PREFIX: _reserved_prefix,
    Behaviour.FAN_OUT: _fan_out,
    Behaviour.REPEATED_CALLS: _repeated,
    Behaviour.ENDLESS_LATENCY: _never,
    Behaviour.RAISING: _raising,
    Behaviour.EMPTY_RESPONSE: _empty,
    Behaviour.MIXED_TEXT_AND_CALLS: _mixed,
    Behaviour.VALID_CALLS: _valid_calls,
    Behaviour.NEAR_VALID_ARGUMENTS: _near_valid,
}


def parse_behaviours(behaviours: Iterable[Behaviour | str] | None) -> tuple[Behaviour, ...]:
    """Behaviour names as enum members; ConfigurationError names any unknown one."""
    if behaviours is None:
        return DEFAULT_BEHAVIOURS
    if isinstance(behaviours, str):
        behaviours = [behaviours]
    parsed: list[Behaviour] = []
    for item in behaviours:
        try:
            parsed.append(Behaviour(item))
        except ValueError:
            known = ", ".join(b.value for b in Behaviour)
            raise ConfigurationError(
                f"unknown adversarial behaviour {item!r}; known behaviours: {known}"
            ) from None
    if not parsed:
        raise ConfigurationError("adversarial behaviours must name at least one behaviour")
    return tuple(dict.fromkeys(parsed))


def _bounded(name: str, value: object, minimum: int, maximum: int) -> int:
    """An int knob within its bounds: a typo like ``fan_out=100000000`` would eat the machine."""
    if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= maximum:
        raise ConfigurationError(
            f"AdversarialModel {name} must be an int >= {minimum} and <= {maximum}, "
            f"got {shown(value)}"
        )
    return value


class AdversarialModel:
    """Hostile but reproducible: ``AdversarialModel(seed=7, behaviours=["fan_out", "raising"])``.

    Each model call of a run picks one of ``behaviours`` (default: every behaviour
    but ``endless_latency``) with a ``random.Random(seed)`` of its own. From turn
    ``max_turns + 1`` of a run on, it answers with text, so the run can end.
    ``fan_out`` is the number of calls of a fan-out turn; ``oversized_bytes``
    the size of an oversized ``task``. Calls to offered tools carry arguments made
    from each tool's JSON Schema (valid, or near-valid for ``near_valid_arguments``),
    the same for the same seed. Each knob has an upper bound (10,000 turns,
    10,000 calls, 10 MB) so that a typo cannot eat the machine. Every request is
    kept in :attr:`requests`.
    """

    model_name = "adversarial"

    def __init__(
        self,
        seed: int = 0,
        behaviours: Iterable[Behaviour | str] | None = None,
        *,
        max_turns: int = 3,
        fan_out: int = 200,
        oversized_bytes: int = 256 * 1024,
        name: str | None = None,
    ) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ConfigurationError(f"AdversarialModel seed must be an int, got {seed!r}")
        self.seed = seed
        self.behaviours = parse_behaviours(behaviours)
        self.max_turns = _bounded("max_turns", max_turns, 0, MAX_TURNS)
        self.fan_out = _bounded("fan_out", fan_out, 1, MAX_FAN_OUT)
        self.oversized_bytes = _bounded("oversized_bytes", oversized_bytes, 1, MAX_OVERSIZED_BYTES)
        self.name = name
        self.rng = random.Random(seed)
        self.requests: list[ModelRequest] = []
        self.chosen: list[Behaviour] = []

    def __repr__(self) -> str:
        names = ", ".join(b.value for b in self.behaviours)
        return f"AdversarialModel(seed={self.seed}, behaviours=[{names}])"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One hostile answer, or a plain text answer once the run had ``max_turns`` turns."""
        self.requests.append(request)
        number = _turn_number(request)
        if number > self.max_turns:
            return ModelResponse(text=f"adversarial model done after {number - 1} turn(s)")
        behaviour = self.rng.choice(self.behaviours)
        self.chosen.append(behaviour)
        if behaviour is Behaviour.ENDLESS_LATENCY:
            await asyncio.sleep(float("inf"))
        return _MAKERS[behaviour](_Turn(self, request, number))


def _turn_number(request: ModelRequest) -> int:
    """1-based turn of the current run: assistant messages since the last user message, + 1."""
    count = 0
    for message in reversed(request.messages):
        if message.role == "user":
            break
        if message.role == "assistant":
            count += 1
    return count + 1
