"""Which failed attempts are retried: the policy's ``retry_on``, else the mount's ``retryable``.

A classification is a plain function of the attempt's error returning a bool (True: retry).
One given by import path (``retry_on: {python: package.module:function}`` in a scenario
file) is imported when the policy is built, as input filters are. A classification that
raises or returns something other than a bool ends the handoff with a
:class:`RetryClassifierError` naming it and the error it was asked about.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from handoff_sim._references import REFERENCE_PATTERN, resolve_reference
from handoff_sim._safe import describe_error
from handoff_sim.errors import RetryClassifierError

__all__ = [
    "PythonRetryClassifier",
    "RetryClassifier",
    "check_classifier",
    "classifier_problem",
    "python_classifier",
    "retry_error",
]

RetryClassifier = Callable[[BaseException], bool]
"""Given a failed attempt's error, whether the handoff makes its next attempt."""


class PythonRetryClassifier:
    """A classification imported from ``package.module:function``; equal when the reference is."""

    __slots__ = ("function", "reference")

    def __init__(self, reference: str, function: Callable[[BaseException], object]) -> None:
        self.reference = reference
        self.function = function

    def __repr__(self) -> str:
        return f"PythonRetryClassifier({self.reference!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PythonRetryClassifier):
            return NotImplemented
        return (self.reference, self.function) == (other.reference, other.function)

    def __hash__(self) -> int:
        return hash((self.reference, self.function))

    def __call__(self, error: BaseException) -> bool:
        return self.function(error)  # type: ignore[return-value]  # checked by retry_error


def classifier_problem(classifier: object) -> str | None:
    """Why ``classifier`` cannot classify errors (not callable, or async), or None."""
    if not callable(classifier):
        return "must be a function of the error returning a bool"
    if inspect.iscoroutinefunction(classifier) or inspect.isasyncgenfunction(classifier):
        return (
            "is an async function; it is called as a plain function of the error and returns a bool"
        )
    return None


def check_classifier(owner: str, classifier: object) -> None:
    """Refuse what cannot classify errors, naming ``owner`` and what ``classifier`` is."""
    problem = classifier_problem(classifier)
    if problem is not None:
        raise RetryClassifierError(f"{owner} {problem}, got {type(classifier).__name__}")


def python_classifier(reference: str, search: Sequence[Path] = ()) -> PythonRetryClassifier:
    """The classification ``reference`` names, imported with ``search`` in front of ``sys.path``."""
    if re.match(REFERENCE_PATTERN, reference) is None:
        raise RetryClassifierError(
            f"{reference!r} is not an import path of the form package.module:function"
        )
    found = resolve_reference(reference, search, RetryClassifierError)
    check_classifier(f"retry_on {reference}", found)
    try:
        signature = inspect.signature(found)  # type: ignore[arg-type]  # callable, checked
    except (TypeError, ValueError):  # a builtin without a signature: tried when called
        return PythonRetryClassifier(reference, found)  # type: ignore[arg-type]
    try:
        signature.bind(Exception())
    except TypeError:
        raise RetryClassifierError(
            f"retry_on {reference} cannot be called with one argument (the error): "
            f"its signature is {signature}"
        ) from None
    return PythonRetryClassifier(reference, found)  # type: ignore[arg-type]


def retry_error(
    policy_rule: RetryClassifier | None, mount_rule: RetryClassifier | None, error: Exception
) -> Exception | None:
    """None when ``error`` is retried; else the error the handoff ends with.

    The policy's rule alone decides when there is one, else the mount's; with neither,
    every error is retried. A rule that fails gives a RetryClassifierError naming it.
    """
    rule, owner = (
        (policy_rule, "retry_on") if policy_rule is not None else (mount_rule, "retryable")
    )
    if rule is None:
        return None
    name = f"{owner} {_name(rule)}"
    try:
        verdict = rule(error)
    except Exception as exc:
        problem = RetryClassifierError(
            f"{name} raised on {describe_error(error)}: {describe_error(exc)}"
        )
        problem.__cause__ = exc
        return problem
    if verdict is True:
        return None
    if verdict is False:
        return error
    got = type(verdict).__name__
    if inspect.iscoroutine(verdict):  # never awaited: closed, so nothing warns about it later
        verdict.close()
        got = "a coroutine (a retry classification is not awaited)"
    return RetryClassifierError(
        f"{name} returned {got} on {describe_error(error)}; it must return True or False"
    )


def _name(rule: RetryClassifier) -> str:
    if isinstance(rule, PythonRetryClassifier):
        return rule.reference
    qualified = getattr(rule, "__qualname__", None) or type(rule).__qualname__
    module = getattr(rule, "__module__", None)
    return f"{module}:{qualified}" if isinstance(module, str) else str(qualified)
