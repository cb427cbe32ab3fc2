"""``TraceSnapshotExtension``: one readable text trace per test, for syrupy.

A snapshot file holds ``Trace.render()``: one event a line, virtual times in ms,
indented by depth — a pull-request diff shows exactly which event changed.
Files live in ``__snapshots__/<test file stem>/<test name>.trace.txt``.
"""

from __future__ import annotations

from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

__all__ = ["TraceSnapshotExtension", "render_for_snapshot"]


def render_for_snapshot(data: Any) -> str:
    """The text stored for ``data``: a Trace, anything with ``.trace``, or a string."""
    if isinstance(data, str):
        return data if data.endswith("\n") or not data else data + "\n"
    trace = getattr(data, "trace", data)
    render = getattr(trace, "render", None)
    if not callable(render):
        raise TypeError(
            f"handoff_snapshot compares a Trace, a RunResult, a ScenarioResult or a str; "
            f"got {type(data).__name__}"
        )
    text = render()
    if not isinstance(text, str):
        raise TypeError(f"{type(trace).__name__}.render() returned {type(text).__name__}, not str")
    return text


class TraceSnapshotExtension(SingleFileSnapshotExtension):
    """Stores ``trace.render()`` as UTF-8 text in a ``.trace.txt`` file."""

    _write_mode = WriteMode.TEXT
    file_extension = "trace.txt"

    def serialize(self, data: Any, **kwargs: Any) -> str:
        """Render ``data`` (see :func:`render_for_snapshot`); filters do not apply to traces."""
        return render_for_snapshot(data)
