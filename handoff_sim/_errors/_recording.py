"""Recording errors: a recording cannot be read, or a replay asks what it never recorded."""

from __future__ import annotations

from handoff_sim._errors._families import ScriptError

__all__ = [
    "RecordingError",
    "RecordingFormatError",
    "ReplayExhaustedError",
    "ReplayMismatchError",
    "ToolReplayMismatchError",
    "UnusedRecordingError",
]


class RecordingError(ScriptError):
    """A recording cannot be read, or the code replayed against it asks what it never recorded.

    A recording is the script of a replayed model, so its errors are script errors: the
    runtime never retries them and ends the run with them.
    """


class RecordingFormatError(RecordingError, ValueError):
    """A recording's content cannot be replayed: ``where`` says which part, ``problem`` why."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem


def _listed(lines: list[str]) -> str:
    """The differences on the message's one line (a report escapes line breaks)."""
    return " " + "; ".join(lines) if lines else " (in nothing a fingerprint names)"


class ReplayMismatchError(RecordingError, ScriptError):
    """A model request matches none of its agent's recorded steps left.

    ``step`` is the agent's model call (from 1); ``nearest`` the recorded step with the
    fewest ``differences`` from it (None when none is left to compare).
    """

    def __init__(
        self,
        agent: str,
        step: int,
        differences: list[str],
        nearest: int | None,
        match: str,
        *,
        at: str | None = None,
    ) -> None:
        if nearest is None:
            detail = "no recorded step left to compare it with"
        else:
            place = f" ({at})" if at else ""
            detail = f"the nearest, recorded step {nearest}{place}, differs:" + _listed(differences)
        super().__init__(
            f"replay of agent {agent!r}: model call {step} matches no recorded step left "
            f"(match: {match}); {detail}"
        )
        self.agent = agent
        self.step = step
        self.differences = differences
        self.nearest = nearest


class ReplayExhaustedError(RecordingError, ScriptError):
    """An agent made more model calls than its recording holds answers for."""

    def __init__(self, agent: str, step: int, steps: int, *, at: str | None = None) -> None:
        place = f" ({at})" if at else ""
        super().__init__(
            f"replay of agent {agent!r} exhausted: model call {step} requested, but the "
            f"recording holds {steps} step(s) for it{place} and none is left"
        )
        self.agent = agent
        self.step = step
        self.steps = steps


class ToolReplayMismatchError(RecordingError, ScriptError):
    """A call of a recorded tool has no recorded answer left with its arguments."""

    def __init__(self, tool: str, call: int, arguments: str, nearest: str | None) -> None:
        found = (
            f"the nearest recorded arguments left: {nearest}"
            if nearest is not None
            else "no recorded answer is left"
        )
        super().__init__(
            f"replay of tool {tool!r}: call {call} with arguments {arguments} has no recorded "
            f"answer left; {found}"
        )
        self.tool = tool
        self.call = call
        self.arguments = arguments
        self.nearest = nearest


class UnusedRecordingError(RecordingError, AssertionError):
    """Recorded steps of an agent that no request used: the code no longer makes those calls."""

    def __init__(
        self, agent: str, unused_steps: list[int], steps: int, *, at: str | None = None
    ) -> None:
        shown = ", ".join(map(str, unused_steps[:10])) + (", ..." if len(unused_steps) > 10 else "")
        place = f", the first at {at}" if at else ""
        super().__init__(
            f"recording of agent {agent!r} has {len(unused_steps)} unused step(s) of {steps}: "
            f"step(s) {shown}{place} (the run no longer makes these calls: re-record it, or "
            "remove the steps)"
        )
        self.agent = agent
        self.unused_steps = unused_steps
        self.steps = steps
