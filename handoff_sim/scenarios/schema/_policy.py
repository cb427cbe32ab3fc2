"""The policy block of a scenario file, derived from ``HandoffPolicy`` itself.

``HandoffPolicy`` is the one source of truth: the block has exactly its fields, in its
order, with its defaults and bounds. Only a type a file cannot write is swapped for
its file form: a set of tool names is a list, an action is its name, a number of
seconds is a duration (``250ms``), the input filter callable is an
:class:`InputFilterBlock`, the retry classification a :class:`RetryOnBlock` (an import
path, imported only when the policy is built, never by validation). A new policy field of
any other type fails here, at import, until it is given a file form.
"""

from __future__ import annotations

import types
import typing
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal

from annotated_types import Gt
from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo

from handoff_sim.scenarios.schema._types import Duration, PositiveDuration
from handoff_sim.subagents.policy import (
    HandoffPolicy,
    InputFilter,
    InputFilterBlock,
    RetryClassifier,
    RetryOnBlock,
)

__all__ = ["PolicyBlock", "PolicySpec"]

_PLAIN = (bool, int, str)


class PolicyBlock(BaseModel):
    """What every policy block is: strict, frozen, no unknown keys; see :data:`PolicySpec`."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    def written(self) -> dict[str, Any]:
        """The fields the file writes, with their values (defaults are the policy's own)."""
        return {key: getattr(self, key) for key in self.model_fields_set}


def _optional(annotation: Any) -> tuple[Any, bool]:
    """``(T, True)`` for ``T | None``; ``(annotation, False)`` otherwise."""
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return annotation, False
    members = [a for a in typing.get_args(annotation) if a is not type(None)]
    if len(members) != 1:
        return annotation, False
    return members[0], True


def _file_type(name: str, annotation: Any, metadata: list[Any]) -> Any:
    """How a file writes a value of ``annotation``, the field's bounds kept."""
    if annotation is float:  # a policy's numbers with a fraction are seconds
        positive = any(isinstance(m, Gt) and m.gt == 0 for m in metadata)
        return PositiveDuration if positive else Duration
    if typing.get_origin(annotation) is frozenset and typing.get_args(annotation) == (str,):
        written: Any = list[str]
    elif isinstance(annotation, type) and issubclass(annotation, StrEnum):
        written = Literal[tuple(member.value for member in annotation)]
    elif annotation == InputFilter:
        written = InputFilterBlock
    elif annotation == RetryClassifier:
        written = RetryOnBlock
    elif annotation in _PLAIN:
        written = annotation
    else:
        raise TypeError(
            f"HandoffPolicy.{name}: no scenario-file form for {annotation!r}; "
            "give it one in handoff_sim/scenarios/schema/_policy.py"
        )
    return Annotated[written, *metadata] if metadata else written


def _file_default(value: Any) -> Any:
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, frozenset):
        return sorted(value)
    return value


def _file_field(name: str, info: FieldInfo) -> tuple[Any, Any]:
    annotation, optional = _optional(info.annotation)
    written = _file_type(name, annotation, list(info.metadata))
    default = _file_default(info.get_default(call_default_factory=True))
    return (written | None if optional else written), Field(default, description=info.description)


def _policy_spec() -> type[PolicyBlock]:
    fields: dict[str, Any] = {
        name: _file_field(name, info) for name, info in HandoffPolicy.model_fields.items()
    }
    return create_model(
        "PolicySpec",
        __base__=PolicyBlock,
        __module__=__name__,
        __doc__='Every HandoffPolicy field; ``timeout`` per attempt, as seconds or ``"250ms"``.',
        **fields,
    )


if TYPE_CHECKING:
    PolicySpec = PolicyBlock
else:
    PolicySpec = _policy_spec()
    """A policy block: :class:`PolicyBlock` with every field of ``HandoffPolicy``."""
