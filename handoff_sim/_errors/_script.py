"""Script errors: a fake model was driven past or against its script, or a client broke it."""

from __future__ import annotations

from handoff_sim._errors._families import ScriptError

__all__ = [
    "FunctionModelError",
    "ModelResponseError",
    "ScriptAssertionError",
    "ScriptExhaustedError",
    "UnconsumedStepsError",
]


class ScriptExhaustedError(ScriptError):
    """The model was called more times than its script has steps."""

    def __init__(self, agent: str, step: int, length: int) -> None:
        super().__init__(
            f"script of agent {agent!r} exhausted: model call {step} requested, "
            f"but the script has {length} step(s)"
        )
        self.agent = agent
        self.step = step
        self.length = length


class ScriptAssertionError(ScriptError, AssertionError):
    """A script step's expectation about the request it received did not hold."""


class FunctionModelError(ScriptError):
    """A FunctionModel's function returned something that is not a model answer."""


class UnconsumedStepsError(ScriptError, AssertionError):
    """``assert_complete()`` found script steps that no model call consumed."""


class ModelResponseError(ScriptError, TypeError):
    """A model client's ``complete()`` returned something that is not a well-formed ModelResponse.

    Like every script error it is never retried and never shown to a parent model:
    the model client is wrong, so the test is.
    """

    def __init__(self, agent: str, step: int, problem: str) -> None:
        super().__init__(f"agent {agent!r}, model call {step}: malformed model response: {problem}")
        self.agent = agent
        self.step = step
        self.problem = problem
