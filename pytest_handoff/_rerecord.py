"""new_episodes: tell a replay that no longer matches the code from any other failure."""

from __future__ import annotations

__all__ = ["diverged", "divergence_types"]

_MAX_LINKS = 64


def divergence_types() -> tuple[type[BaseException], ...]:
    """The replay's divergence errors and the blocked real model call."""
    from handoff_sim.errors import (
        ReplayExhaustedError,
        ReplayMismatchError,
        ToolReplayMismatchError,
        UnusedRecordingError,
    )
    from pytest_handoff._recording_errors import RealModelBlockedError

    return (
        ReplayMismatchError,
        ReplayExhaustedError,
        ToolReplayMismatchError,
        UnusedRecordingError,
        RealModelBlockedError,
    )


def diverged(exc: BaseException) -> bool:
    """``exc`` is (or was caused by, or groups) a replay divergence.

    Frameworks and task groups wrap what a model raised: the causes, contexts and
    exception groups are searched (a bounded walk, each exception once).
    """
    types = divergence_types()
    pending: list[BaseException] = [exc]
    seen: set[int] = set()
    while pending and len(seen) < _MAX_LINKS:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, types):
            return True
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return False
