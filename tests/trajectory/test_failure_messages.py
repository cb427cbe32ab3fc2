"""Each trajectory mode, argument mode, bound and scope, failing in a pytest run of the
scenario plugin: the report names the call missing, extra or out of order, the scope and
the nearest candidate, at the expectation's line."""

from __future__ import annotations

import re

import pytest

import handoff_sim._trajectory  # noqa: F401  (imported once: pytester drops modules a run imports)
import pytest_handoff._collection  # noqa: F401
from tests.trajectory._failing import VARIANTS, failing_file


def _sections(output: str) -> dict[str, str]:
    """Each failed item's report, by item name (pytest's ``____ name ____`` headers)."""
    parts = re.split(r"^_{3,} (\S+) _{3,}$", output, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _trajectory_lines(text: str) -> dict[int, int]:
    """Scenario index -> the line of its ``trajectory:`` key, in the dumped file."""
    found: dict[int, int] = {}
    index = -1
    for number, row in enumerate(text.splitlines(), start=1):
        if row.startswith("- scenario:"):
            index += 1
        elif row == "    trajectory:":
            found[index] = number
    return found


def test_every_mode_argument_mode_bound_and_scope_reports_what_broke_it(
    pytester: pytest.Pytester,
) -> None:
    """One inner run for the 21 variants (about 2 s): a run each would take ten times that."""
    text = failing_file()
    pytester.makefile(".yaml", **{"scenarios/failing": text})
    result = pytester.runpytest("--handoff-scenarios", "scenarios", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=len(VARIANTS))
    sections = _sections(result.stdout.str())
    missing = [
        f"{ident}: {line}"
        for ident, _, _, _, lines in VARIANTS
        for line in lines
        if line not in sections.get(ident, "")
    ]
    assert missing == []
    lines = _trajectory_lines(text)
    assert len(lines) == len(VARIANTS) - 1  # every variant but the tool_runs one
    for index, line in lines.items():
        ident = VARIANTS[index][0]
        head = f"scenarios/failing.yaml:{line}: scenarios.{index}.expect.trajectory: "
        assert head + "trajectory does not hold" in sections[ident], ident
