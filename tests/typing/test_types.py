"""The event types hold up under mypy: precise ``Trace.of_type`` lists, typed event fields.

mypy runs (strict, as the project configures it) on two files beside this one: one
whose every ``assert_type`` must hold, and one whose every line marked ``# wrong``
must be an error, so the first check is known to be able to fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api", reason="mypy is in the test extra; the typing checks need it")

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
_ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: (?P<message>.*)$")


def _mypy_errors(*files: Path) -> dict[str, list[tuple[int, str]]]:
    """mypy's errors per file name: (line, message)."""
    out, err, _status = api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            "--show-error-codes",
            "--no-pretty",
            *map(str, files),
        ]
    )
    assert not err, err
    found: dict[str, list[tuple[int, str]]] = {}
    for line in out.splitlines():
        match = _ERROR.match(line)
        if match:
            name = Path(match["file"]).name
            found.setdefault(name, []).append((int(match["line"]), match["message"]))
    return found


def _marked_lines(path: Path) -> set[int]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {n for n, text in enumerate(lines, 1) if text.rstrip().endswith("# wrong")}


@pytest.fixture(scope="module")
def errors() -> dict[str, list[tuple[int, str]]]:
    return _mypy_errors(HERE / "check_trace_types.py", HERE / "wrong_event_types.py")


def test_of_type_event_construction_and_exhaustive_matches_have_the_precise_types(
    errors: dict[str, list[tuple[int, str]]],
) -> None:
    assert errors.get("check_trace_types.py", []) == []


def test_mypy_reports_every_wrong_event_field_and_trace_type(
    errors: dict[str, list[tuple[int, str]]],
) -> None:
    wrong = errors.get("wrong_event_types.py", [])
    assert {line for line, _ in wrong} == _marked_lines(HERE / "wrong_event_types.py")
    messages = "\n".join(message for _, message in wrong)
    assert 'Expression is of type "list[HandoffEndEvent]", not "list[Event]"' in messages
    assert 'Argument "status" to "ToolEndEvent" has incompatible type' in messages
    assert 'Missing named argument "call_id" for "ToolEndEvent"' in messages
    assert 'gets multiple values for keyword argument "seq"' in messages


def test_mypy_reports_a_wrong_field_name_type_or_count_in_an_emitted_handoff_end(
    errors: dict[str, list[tuple[int, str]]],
) -> None:
    messages = "\n".join(message for _, message in errors.get("wrong_event_types.py", []))
    assert 'Unexpected keyword argument "handof_id" for "HandoffEndEvent"' in messages
    assert 'Argument "attempts" to "HandoffEndEvent" has incompatible type "str"' in messages
    assert 'Missing named argument "attempts" for "HandoffEndEvent"' in messages
    assert 'Too many positional arguments for "HandoffEndEvent"' in messages
    assert 'Too many positional arguments for "ToolEndEvent"' in messages
    assert 'Missing positional arguments "t", "agent", "depth", "run_id"' in messages
    assert 'Argument 1 to "assert_never" has incompatible type' in messages
