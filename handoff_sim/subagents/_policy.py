"""The handoff policy: admission, retries, per-attempt timeout, fallback.

:class:`HandoffPolicy` is the one definition of a policy's fields, defaults and bounds;
the scenario file's policy block (``handoff_sim.scenarios._schema``) writes the same fields
out in a file's terms, a test keeping the two in step, and :meth:`HandoffPolicy.from_block`
reads such a block (with its declarative :class:`InputFilterBlock` and :class:`RetryOnBlock`)
back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.config import JsonDict

from handoff_sim._durations import checked_seconds, parse_duration, shown
from handoff_sim._limits import MAX_RETRIES
from handoff_sim.errors import PolicyError
from handoff_sim.events import HandoffReason
from handoff_sim.messages import ToolCall
from handoff_sim.subagents._filters import PYTHON_REFERENCE, python_filter
from handoff_sim.subagents._retry import RetryClassifier, classifier_problem, python_classifier

__all__ = [
    "FailureAction",
    "HandoffPolicy",
    "InputFilter",
    "InputFilterBlock",
    "RetryClassifier",
    "RetryOnBlock",
    "SessionMode",
]

InputFilter = Callable[[ToolCall], ToolCall | None]


class FailureAction(StrEnum):
    """What happens when a handoff is denied or fails."""

    FAIL = "fail"
    FALLBACK_TO_PRIMARY = "fallback_to_primary"
    REPORT_TO_MODEL = "report_to_model"


class SessionMode(StrEnum):
    """Whether each handoff gets a fresh session or reuses one per tool."""

    NEW_SESSION = "new_session"
    REUSE_SESSION = "reuse_session"


_FILTER_ACTIONS = ("arguments", "keep", "raises", "python")
_ONE_FILTER_ACTION: JsonDict = {"oneOf": [{"required": [key]} for key in _FILTER_ACTIONS]}


class InputFilterBlock(BaseModel):
    """An input filter written as data: rewrite the arguments, keep the call, fail, or call
    a Python function given by its import path."""

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, json_schema_extra=_ONE_FILTER_ACTION
    )

    arguments: dict[str, Any] | str | None = None
    keep: bool = False
    raises: str | None = None
    python: str | None = Field(
        default=None,
        description="package.module:function, called with the ToolCall; "
        "returns a ToolCall or None (keep the call)",
        json_schema_extra={"pattern": PYTHON_REFERENCE},
    )

    @field_validator("python")
    @classmethod
    def _reference(cls, value: str | None) -> str | None:
        if value is not None and re.match(PYTHON_REFERENCE, value) is None:
            raise ValueError("must be an import path 'package.module:function'")
        return value

    @model_validator(mode="after")
    def _one_action(self) -> InputFilterBlock:
        given = [k for k in _FILTER_ACTIONS if k in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(
                "an input_filter needs exactly one of 'arguments', 'keep', 'raises' or 'python'"
            )
        return self

    def as_filter(self, search: Sequence[Path] = ()) -> InputFilter:
        """The callable input filter this block describes.

        ``arguments`` (a mapping, or raw JSON text) replaces the call's arguments,
        ``keep: true`` keeps the call unchanged, ``raises`` makes the filter raise
        ``ValueError`` with that message, ``python`` imports the function it names with
        ``search`` in front of ``sys.path`` (InputFilterError when it cannot).
        """
        if self.keep:
            return _keep
        if self.raises is not None:
            return _refuse(self.raises)
        if self.python is not None:
            return python_filter(self.python, search)
        arguments = self.arguments
        text = (
            arguments
            if isinstance(arguments, str)
            else json.dumps(arguments, separators=(",", ":"))
        )
        return _rewrite(text)


class RetryOnBlock(BaseModel):
    """A retry classification written as data: the import path of a Python function."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    python: str = Field(
        description="package.module:function, called with a failed attempt's error; "
        "returns True to retry it, False to end the handoff",
        json_schema_extra={"pattern": PYTHON_REFERENCE},
    )

    @field_validator("python")
    @classmethod
    def _reference(cls, value: str) -> str:
        if re.match(PYTHON_REFERENCE, value) is None:
            raise ValueError("must be an import path 'package.module:function'")
        return value

    def as_classifier(self, search: Sequence[Path] = ()) -> RetryClassifier:
        """The function ``python`` names, imported with ``search`` in front of ``sys.path``."""
        return python_classifier(self.python, search)


def _keep(call: ToolCall) -> ToolCall | None:
    return None


def _refuse(reason: str) -> InputFilter:
    def fail(call: ToolCall) -> ToolCall | None:
        raise ValueError(reason)

    return fail


def _rewrite(arguments: str) -> InputFilter:
    def rewrite(call: ToolCall) -> ToolCall | None:
        return ToolCall(call.id, call.name, arguments)

    return rewrite


class HandoffPolicy(BaseModel):
    """How an agent governs its handoffs. Frozen and validated at construction.

    ``max_depth=0`` means unlimited; ``timeout`` is per attempt, in seconds (or a
    string like ``"250ms"``), at most a (virtual) year; ``max_retries`` extra attempts
    (at most 100) follow a failure. Invalid values raise :class:`PolicyError` naming
    the field and the value.

    ``retry_on`` decides which failed attempts are retried (a function of the error,
    True: retry); without it the mount's own ``SubAgent.retryable`` decides, and without
    that every error is. A timeout is always retried; a nested denial never is.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    enabled: bool = True
    max_depth: int = Field(default=1, ge=0)
    max_retries: int = Field(default=0, ge=0, le=MAX_RETRIES)
    timeout: float | None = Field(default=None, gt=0)
    allowed_tools: frozenset[str] | None = None
    denied_tools: frozenset[str] | None = None
    on_denied: FailureAction = FailureAction.FAIL
    on_error: FailureAction = FailureAction.FAIL
    input_filter: InputFilter | None = None
    retry_on: RetryClassifier | None = None

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise PolicyError(_describe(exc, data)) from None

    @field_validator("timeout", mode="before")
    @classmethod
    def _parse_timeout(cls, value: Any) -> Any:
        """A string (``"250ms"``) is read here; seconds, as a scenario file's policy block
        hands them on once read, are only checked against the bounds."""
        if value is None:
            return None
        return parse_duration(value) if isinstance(value, str) else checked_seconds(value)

    @field_validator("retry_on", mode="before")
    @classmethod
    def _classifier(cls, value: Any) -> Any:
        problem = None if value is None else classifier_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("allowed_tools", "denied_tools", mode="before")
    @classmethod
    def _tool_set(cls, value: Any) -> Any:
        if isinstance(value, str):
            raise ValueError("must be a collection of tool names, not a single string")
        return value

    @classmethod
    def from_block(cls, block: Mapping[str, Any], *, search: Sequence[Path] = ()) -> HandoffPolicy:
        """The policy a policy block of a scenario file describes.

        Values as a file writes them: lists of tool names, action names, durations like
        ``"250ms"``, ``input_filter`` as an :class:`InputFilterBlock` and ``retry_on`` as a
        :class:`RetryOnBlock` (or their mappings); a ``python`` function is imported with
        ``search`` in front of ``sys.path``.
        """
        data = dict(block)
        written = _block(data, "input_filter", InputFilterBlock)
        if isinstance(written, InputFilterBlock):
            data["input_filter"] = written.as_filter(search)
        retry_on = _block(data, "retry_on", RetryOnBlock)
        if isinstance(retry_on, RetryOnBlock):
            data["retry_on"] = retry_on.as_classifier(search)
        return cls(**data)

    @property
    def attempts(self) -> int:
        """How many attempts a handoff gets: ``max(1, max_retries + 1)``."""
        return max(1, self.max_retries + 1)

    def defaults_behind(self, reason: HandoffReason) -> tuple[str, ...]:
        """The fields left at their default that make a ``reason`` denial raise, in order.

        ``max_depth`` when a depth denial comes from the default limit, ``on_denied`` when
        raising (FAIL) is the default action: what a user did not ask for is said so.
        """
        unset = [
            field
            for field, code in (("max_depth", "max_depth"), ("on_denied", None))
            if field not in self.model_fields_set and (code is None or code == reason)
        ]
        return tuple(unset)

    def deny_reason(self, tool: str, depth: int) -> tuple[HandoffReason, str] | None:
        """``(reason code, message)`` if admission refuses ``tool`` at ``depth``."""
        if self.allowed_tools and tool not in self.allowed_tools:
            return "not_allowed", "tool is not in allowed_tools"
        if self.denied_tools and tool in self.denied_tools:
            return "denied_tool", "tool is in denied_tools"
        if self.max_depth > 0 and depth > self.max_depth:
            return "max_depth", f"handoff depth {depth} exceeds max_depth {self.max_depth}"
        return None


def _block(data: Mapping[str, Any], key: str, model: type[BaseModel]) -> Any:
    """``data[key]`` read as ``model`` when a file wrote it as a mapping; else as it is."""
    written = data.get(key)
    if not isinstance(written, Mapping):
        return written
    try:
        return model.model_validate(written)
    except ValidationError as exc:
        raise PolicyError(_describe(exc, dict(written), key)) from None


_BOUNDS = {
    "greater_than_equal": ">=",
    "greater_than": ">",
    "less_than_equal": "<=",
    "less_than": "<",
}


def _describe(exc: ValidationError, data: dict[str, Any], within: str = "") -> str:
    """``HandoffPolicy.max_retries: must be >= 0 (got -1)``: field, rule and value.

    ``within`` names the field ``data`` is the value of (``input_filter``), if any.
    """
    parts = []
    for err in exc.errors(include_url=False):
        path = [within, *(str(p) for p in err["loc"])]
        field = ".".join(p for p in path if p) or "policy"
        value = data.get(str(err["loc"][0])) if err["loc"] else (data if within else None)
        bound = _BOUNDS.get(err["type"])
        context = err.get("ctx") or {}
        if bound is not None and context:
            limit = next(iter(context.values()))
            if isinstance(limit, float) and limit.is_integer():
                limit = int(limit)
            message = f"must be {bound} {limit}"
        else:
            message = err["msg"].removeprefix("Value error, ")
        parts.append(f"HandoffPolicy.{field}: {message} (got {shown(value)})")
    return "; ".join(parts)
