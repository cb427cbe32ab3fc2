"""Load-time checks of the value patterns a fake tool's table and ``expect.tool_runs`` hold."""

from __future__ import annotations

from collections.abc import Iterator

from handoff_sim.scenarios._expect._places import Finding, RelPath
from handoff_sim.scenarios._schema import ExpectSpec, ScenarioSpec, pattern_problems

__all__ = ["fake_findings"]


def _arguments(value: object, at: RelPath) -> Iterator[Finding]:
    if value is None or isinstance(value, str):
        return
    for path, message in pattern_problems(value, "any"):
        yield (*at, *path), message


def _tool_runs(expect: ExpectSpec, at: RelPath) -> Iterator[Finding]:
    for name, wanted in (expect.tool_runs or {}).items():
        if not isinstance(wanted, int) and "arguments" in wanted.model_fields_set:
            yield from _arguments(wanted.arguments, (*at, "tool_runs", name, "arguments"))


def fake_findings(spec: ScenarioSpec) -> Iterator[Finding]:
    """Problems of the ``arguments`` patterns of tools' answers and of ``tool_runs`` bounds."""
    for name, tool in spec.tools.items():
        for index, answer in enumerate(tool.answers or ()):
            yield from _arguments(answer.arguments, ("tools", name, "answers", index, "arguments"))
    yield from _tool_runs(spec.expect, ("expect",))
    for index, variant in enumerate(spec.matrix or ()):
        if variant.expect is not None:
            yield from _tool_runs(variant.expect, ("matrix", index, "expect"))
