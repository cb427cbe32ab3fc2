"""The public API: ``__all__`` lists exactly the public names, and SPEC §2a works as written."""

from __future__ import annotations

import asyncio
import dataclasses
from types import ModuleType

import pytest

import handoff_sim
import handoff_sim.testing
from handoff_sim import Agent, HandoffPolicy, RunResult, SubAgent, simulate
from handoff_sim.testing import ScriptedModel


def _public_names(module: ModuleType) -> list[str]:
    """Names a user can see on ``module``: not private, not a submodule."""
    return sorted(
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    )


@pytest.mark.parametrize("module", [handoff_sim, handoff_sim.testing], ids=lambda m: m.__name__)
def test_all_lists_exactly_the_public_names(module: ModuleType) -> None:
    assert module.__all__ == _public_names(module)


@pytest.mark.parametrize("module", [handoff_sim, handoff_sim.testing], ids=lambda m: m.__name__)
def test_every_name_in_all_is_importable(module: ModuleType) -> None:
    for name in module.__all__:
        assert getattr(module, name) is not None, name


def test_spec_2a_names_import_from_handoff_sim() -> None:
    from handoff_sim import (  # noqa: F401
        Agent,
        ConfigurationError,
        DuplicateToolNameError,
        FailureAction,
        HandoffDeniedError,
        HandoffPolicy,
        MaxStepsExceededError,
        ReservedPrefixError,
        RunResult,
        SessionMode,
        SubAgent,
        Tool,
        ToolCall,
        Trace,
        UnknownToolError,
        normalize_tool_name,
        simulate,
        tool,
    )

    assert issubclass(UnknownToolError, LookupError)
    for error in (DuplicateToolNameError, ReservedPrefixError):
        assert issubclass(error, ConfigurationError)


def test_spec_2a_fake_models_import_from_handoff_sim_testing() -> None:
    from handoff_sim.testing import AdversarialModel, FunctionModel, ScriptedModel

    for model in (AdversarialModel, FunctionModel, ScriptedModel):
        assert model.__name__ in handoff_sim.testing.__all__


def _spec_example() -> Agent:
    """The manager/reviewer example of SPEC §2a, with fresh scripts."""
    reviewer = Agent(name="reviewer", model=ScriptedModel([{"text": "LGTM"}]))
    return Agent(
        name="manager",
        model=ScriptedModel(
            [
                {
                    "tool_calls": [
                        {
                            "id": "c1",
                            "name": "delegate_code_review",
                            "arguments": {"task": "review auth"},
                        }
                    ]
                },
                {"text": "done"},
            ]
        ),
        subagents=[
            SubAgent(
                name="code-reviewer",
                description="Review code",
                agent=reviewer,
                tool_name="delegate_code_review",
            )
        ],
        handoff_policy=HandoffPolicy(max_retries=1, timeout=5.0),
        parallel_tool_calls=True,
    )


def _check_example_result(result: RunResult) -> None:
    assert result.output == "done"
    assert result.steps == 2
    [record] = result.trace.handoffs(tool="delegate_code_review")
    assert (record.tool, record.status, record.attempts, record.depth) == (
        "delegate_code_review",
        "completed",
        1,
        1,
    )
    assert record.output == "LGTM"


def test_spec_2a_example_runs_under_simulate() -> None:
    result = simulate(_spec_example(), "analyze")
    _check_example_result(result)
    assert result.elapsed_ms == 0.0


def test_spec_2a_example_runs_with_sync_run() -> None:
    _check_example_result(_spec_example().run("analyze"))


def test_spec_2a_example_runs_with_async_arun() -> None:
    _check_example_result(asyncio.run(_spec_example().arun("analyze")))


def test_run_result_has_the_fields_spec_2a_names() -> None:
    names = [f.name for f in dataclasses.fields(RunResult)]
    assert names == ["output", "steps", "session_id", "messages", "trace", "elapsed_ms"]


def test_handoff_record_exposes_handoff_end_fields_of_e2() -> None:
    [record] = simulate(_spec_example(), "analyze").trace.handoffs()
    for name in ("tool", "status", "reason", "attempts", "depth", "output", "error", "duration_ms"):
        assert hasattr(record, name), name
