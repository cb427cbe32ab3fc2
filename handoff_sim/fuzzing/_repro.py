"""Reproducers for fuzz failures: a Python file and a scenario file that fail the same way."""

from __future__ import annotations

import pprint
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from handoff_sim._invariants import Violation
from handoff_sim.errors import CheckFailedError
from handoff_sim.fuzzing._case import CaseResult, check_case
from handoff_sim.fuzzing._faults import FAULTS

__all__ = ["FuzzFailure", "python_reproducer", "replay", "scenario_yaml", "write_reproducer"]


def scenario_yaml(case: Mapping[str, Any], *, fault: str | None = None) -> str:
    """The case as a scenario file (YAML); a fault it needs is named in a comment."""
    header = "# handoff-sim fuzz reproducer\n"
    if fault is not None:
        header += (
            f"# This failure needs the test-only fault {fault!r}, which a scenario file\n"
            "# cannot express: run the Python reproducer instead.\n"
        )
    body = yaml.safe_dump(dict(case), sort_keys=False, allow_unicode=True, width=100)
    return header + body


def python_reproducer(case: Mapping[str, Any], *, fault: str | None = None) -> str:
    """A standalone script that replays the case and raises while the violation is there."""
    return (
        '"""handoff-sim fuzz reproducer: `python this_file.py` fails while the bug is there."""\n\n'
        "from handoff_sim.fuzzing import replay\n\n"
        f"CASE = {pprint.pformat(dict(case), width=96, sort_dicts=False)}\n\n"
        'if __name__ == "__main__":\n'
        f"    replay(CASE, fault={fault!r})\n"
        '    print("no invariant violation: the case passes")\n'
    )


class FuzzFailure(CheckFailedError, AssertionError):
    """A generated case broke an invariant; the message holds both reproducers."""

    def __init__(
        self, case: Mapping[str, Any], violations: Sequence[Violation], fault: str | None = None
    ) -> None:
        self.case = case
        self.violations = tuple(violations)
        self.fault = fault
        lines = [
            f"fuzz case {case.get('scenario')!r} (seed {case.get('seed')}) broke "
            f"{len(self.violations)} invariant(s):",
            *(f"  - {v}" for v in self.violations),
            "Reproduce with this Python file:",
            python_reproducer(case, fault=fault),
            "or this scenario file:",
            scenario_yaml(case, fault=fault),
        ]
        super().__init__("\n".join(lines))


def replay(case: Mapping[str, Any], *, fault: str | None = None) -> CaseResult:
    """Run ``case`` again (with the named test-only ``fault``); raise FuzzFailure on a violation."""
    if fault is not None and fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
    result = check_case(case, fault=FAULTS[fault] if fault else None)
    if result.violations:
        raise FuzzFailure(case, result.violations, fault)
    return result


def write_reproducer(
    case: Mapping[str, Any], directory: str | Path, *, fault: str | None = None
) -> tuple[Path, Path]:
    """Write ``<scenario>.py`` and ``<scenario>.yaml`` into ``directory``; return both paths."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    stem = str(case.get("scenario", "fuzz-case"))
    python_path = folder / f"{stem.replace('-', '_')}.py"
    yaml_path = folder / f"{stem}.yaml"
    python_path.write_text(python_reproducer(case, fault=fault), encoding="utf-8")
    yaml_path.write_text(scenario_yaml(case, fault=fault), encoding="utf-8")
    return python_path, yaml_path
