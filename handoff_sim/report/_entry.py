"""One scenario as the report shows it: where it is, how it went, what failed, its trace.

A ``ReportEntry`` holds plain values only, so the pytest plugin can send it from an
xdist worker to the controller (``to_dict`` / ``from_dict``) and the page is laid out
in one place.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._safe import ascii_json_lines
from handoff_sim.report._text import clean
from handoff_sim.trace import Trace

if TYPE_CHECKING:
    from handoff_sim.scenarios import ScenarioResult
    from handoff_sim.scenarios._expect import Mismatch

__all__ = ["STATUSES", "MismatchView", "ReportEntry", "entry_from_error", "entry_from_result"]

STATUSES: tuple[str, ...] = ("failed", "error", "skipped", "passed")
"""Every status of an entry, in the order the report lists them (failures first)."""

_TEXT = 4000


@dataclass(frozen=True, slots=True)
class MismatchView:
    """An expectation that did not hold: ``where`` is ``path:line`` of the expectation."""

    where: str
    field: str
    message: str
    details: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ReportEntry:
    """A scenario's line in the report: identity, status, failures and trace."""

    id: str
    path: str
    line: int
    status: str
    tags: tuple[str, ...] = ()
    description: str | None = None
    elapsed_ms: float = 0.0
    mismatches: tuple[MismatchView, ...] = ()
    error: str | None = None
    notes: tuple[str, ...] = ()
    outputs: tuple[str | None, ...] = ()
    trace: Trace | None = None

    @property
    def where(self) -> str:
        """``path:line`` of the scenario."""
        return f"{self.path}:{self.line}" if self.line else self.path

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (the trace as ASCII JSON lines), for :meth:`from_dict`."""
        return {
            "id": self.id,
            "path": self.path,
            "line": self.line,
            "status": self.status,
            "tags": list(self.tags),
            "description": self.description,
            "elapsed_ms": self.elapsed_ms,
            "mismatches": [[m.where, m.field, m.message, list(m.details)] for m in self.mismatches],
            "error": self.error,
            "notes": list(self.notes),
            "outputs": list(self.outputs),
            "trace": _portable(self.trace) if self.trace is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReportEntry:
        """Read back :meth:`to_dict` output; ``ConfigurationError`` when it is not one."""
        try:
            trace = data["trace"]
            return cls(
                id=str(data["id"]),
                path=str(data["path"]),
                line=int(data["line"]),
                status=str(data["status"]),
                tags=tuple(str(t) for t in data["tags"]),
                description=data["description"],
                elapsed_ms=float(data["elapsed_ms"]),
                mismatches=tuple(
                    MismatchView(str(w), str(f), str(m), tuple(str(d) for d in details))
                    for w, f, m, details in data["mismatches"]
                ),
                error=data["error"],
                notes=tuple(str(n) for n in data["notes"]),
                outputs=tuple(data["outputs"]),
                trace=Trace.from_jsonl(trace) if trace is not None else None,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigurationError(f"not a report entry: {type(exc).__name__}: {exc}") from None

    def with_failure(self, note: str) -> ReportEntry:
        """This entry marked failed, with ``note`` saying what else failed (a snapshot)."""
        from dataclasses import replace

        return replace(self, status="failed", notes=(*self.notes, clean(note, _TEXT)))


def _portable(trace: Trace) -> str:
    """The trace as JSON lines any process boundary carries (ASCII: a lone surrogate too)."""
    return ascii_json_lines(event.to_dict() for event in trace)


def display_path(path: Path | str, base: Path | None) -> str:
    """``path`` relative to ``base`` when it lies inside, with forward slashes."""
    target = Path(path)
    if base is not None and target.is_absolute():
        with contextlib.suppress(ValueError):  # outside base: keep it whole
            target = target.relative_to(base)
    return target.as_posix()


def _mismatch(mismatch: Mismatch, path: str) -> MismatchView:
    from handoff_sim.scenarios._expect import show
    from handoff_sim.scenarios._run import expected_events

    where = f"{path}:{mismatch.line}" if mismatch.line else path
    if mismatch.kind == "trace" and isinstance(mismatch.expected, dict):
        details = [line.strip() for line in expected_events(mismatch.expected)]
    else:
        details = [f"expected: {show(mismatch.expected)}", f"actual:   {show(mismatch.actual)}"]
    return MismatchView(
        where=clean(where, 500),
        field=clean(mismatch.field, 500),
        message=clean(mismatch.message, _TEXT),
        details=tuple(clean(d, _TEXT) for d in details),
    )


def entry_from_result(result: ScenarioResult, *, base: Path | None = None) -> ReportEntry:
    """The entry of a scenario run; ``base`` shortens absolute paths to relative ones."""
    from handoff_sim.scenarios._expect import describe_error

    scenario = result.scenario
    path = display_path(scenario.path, base)
    description = getattr(scenario.spec, "description", None)
    return ReportEntry(
        id=clean(scenario.id, 500),
        path=clean(path, 1000),
        line=scenario.line,
        status="passed" if result.passed else "failed",
        tags=tuple(clean(t, 100) for t in scenario.tags),
        description=clean(description, _TEXT) if description else None,
        elapsed_ms=result.elapsed_ms,
        mismatches=tuple(_mismatch(m, path) for m in result.mismatches),
        error=clean(describe_error(result.error), _TEXT) if result.error is not None else None,
        outputs=tuple(clean(o, _TEXT) if o is not None else None for o in result.outputs),
        trace=result.trace,
    )


def entry_from_error(
    path: Path | str,
    message: str,
    *,
    id: str = "<file>",
    line: int = 0,
    status: str = "error",
    base: Path | None = None,
) -> ReportEntry:
    """An entry for a file or scenario that could not run (no trace): ``message`` says why."""
    if status not in STATUSES:
        raise ConfigurationError(f"status must be one of {', '.join(STATUSES)}, not {status!r}")
    return ReportEntry(
        id=clean(id, 500),
        path=clean(display_path(path, base), 1000),
        line=line,
        status=status,
        error=clean(message, _TEXT),
    )
