"""docs/conformance.md is what bench/conformance.py writes now, and its prose matches the run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from handoff_sim.adapters._conformance import (
    ConformanceDrift,
    Difference,
    Row,
    Verdict,
    check_differences,
    generate,
    versions,
)

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "conformance.md"


def row(scenario: str, **verdicts: Verdict) -> Row:
    by_runtime = {"handoff-sim": Verdict("passed"), "openai-agents": Verdict("passed")}
    by_runtime.update({k.replace("_", "-"): v for k, v in verdicts.items()})
    return Row("scenarios/x.yaml", scenario, by_runtime)


EXPLAINED = Difference("d", "text", {"openai-agents": ("b",)})


def test_a_failure_that_a_difference_explains_is_accepted() -> None:
    rows = [row("a"), row("b", openai_agents=Verdict("failed", "line 3: expect.output"))]
    check_differences(rows, [EXPLAINED])


def test_a_failure_no_difference_explains_stops_the_generation() -> None:
    rows = [
        row("a", openai_agents=Verdict("failed", "x")),
        row("b", openai_agents=Verdict("failed", "y")),
    ]
    with pytest.raises(
        ConformanceDrift, match=r"^a fails on openai-agents but no difference explains it$"
    ):
        check_differences(rows, [EXPLAINED])


def test_a_listed_scenario_that_passes_stops_the_generation() -> None:
    with pytest.raises(
        ConformanceDrift, match=r"^b is listed as failing on openai-agents but did not fail$"
    ):
        check_differences([row("a"), row("b")], [EXPLAINED])


def test_not_applicable_is_neither_a_failure_nor_a_pass() -> None:
    rows = [row("a", openai_agents=Verdict("not applicable", "agent_types: no")), row("b")]
    with pytest.raises(ConformanceDrift, match="b is listed as failing"):
        check_differences(rows, [EXPLAINED])
    check_differences(rows, [])


@pytest.mark.slow
def test_docs_conformance_md_is_what_bench_conformance_py_writes_now() -> None:
    """Slow on purpose (about 20 s): every bundled scenario on all four runtimes."""
    pytest.importorskip(
        "agents", reason="needs the 'openai-agents' extra: pip install 'handoff-sim[openai-agents]'"
    )
    pytest.importorskip(
        "pydantic_ai",
        reason="needs the 'pydantic-ai' extra: pip install 'handoff-sim[pydantic-ai]'",
    )
    pytest.importorskip(
        "langgraph", reason="needs the 'langgraph' extra: pip install 'handoff-sim[langgraph]'"
    )
    page = DOC.read_text(encoding="utf-8")
    found = re.search(r"with openai-agents (\S+), pydantic-ai-slim (\S+), langgraph (\S+)\.", page)
    installed = versions()
    recorded = (
        {"openai-agents": found[1], "pydantic-ai": found[2], "langgraph": found[3]} if found else {}
    )
    if recorded != installed:
        pytest.skip(
            f"docs/conformance.md was generated with {recorded or 'unknown versions'}, "
            f"installed: {installed}; regenerate it with python bench/conformance.py"
        )
    assert generate(ROOT / "scenarios", ROOT) == page, (
        "docs/conformance.md is out of date: run python bench/conformance.py"
    )
