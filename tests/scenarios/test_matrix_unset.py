"""Issue 14, item 2: a matrix variant removes keys of the scenario's expect it would
otherwise inherit (``unset: [expect.output]``), so a variant whose run raises does not
inherit the base ``output``."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from handoff_sim.scenarios import ScenarioFileError, load_dict, run_scenario, scenario_json_schema

from ._util import BUNDLED, delegation


def _denial(**variant: Any) -> dict[str, Any]:
    """The delegation scenario expecting output 'done', with a variant that is denied."""
    raising = {"id": "fail", "policies": {"manager": {"allowed_tools": ["x"], "on_denied": "fail"}}}
    return delegation(
        expect={"output": "done", "elapsed": "1s"},
        matrix=[{"id": "base"}, {**raising, **variant}],
    )


def test_a_variant_that_unsets_the_output_does_not_inherit_it() -> None:
    base, fail = load_dict(
        _denial(unset=["expect.output", "expect.elapsed"], expect={"error": {"type": "RunError"}})
    )
    assert "output" not in fail.spec.expect.model_fields_set
    assert fail.spec.expect.elapsed is None
    assert run_scenario(fail).passed, run_scenario(fail).render_failure()
    assert base.spec.expect.output == "done"
    assert run_scenario(base).passed


def test_without_unset_the_raising_variant_inherits_the_output_and_fails() -> None:
    _, fail = load_dict(_denial(expect={"error": {"type": "RunError"}, "elapsed": "0s"}))
    result = run_scenario(fail)
    assert [m.field for m in result.mismatches] == ["expect.output"]


def test_unset_differs_from_null_which_expects_no_text() -> None:
    _, fail = load_dict(_denial(expect={"output": None, "error": {"type": "RunError"}}))
    assert "output" in fail.spec.expect.model_fields_set
    assert not run_scenario(fail).passed  # null still asks for an output: there is none


def test_a_kept_expectation_still_points_at_its_line_in_the_base() -> None:
    data = _denial(unset=["expect.output"], expect={"error": {"type": "ValueError"}})
    _, fail = load_dict(data)
    assert fail.field_name("expect.elapsed") == "expect.elapsed"
    assert fail.field_name("expect.error") == "matrix.1.expect.error"
    mismatches = run_scenario(fail).mismatches
    assert [m.field for m in mismatches] == ["matrix.1.expect.error.type", "expect.elapsed"]


@pytest.mark.parametrize(
    ("unset", "message"),
    [
        (["output"], "cannot unset 'output' (did you mean 'expect.output'?)"),
        (["agents.manager"], "cannot unset 'agents.manager'; allowed: expect.output"),
        (["expect.trace"], "the scenario's expect has no 'trace': nothing to unset"),
    ],
)
def test_misused_unset_is_refused_at_its_item(unset: list[str], message: str) -> None:
    with pytest.raises(ScenarioFileError) as caught:
        load_dict(_denial(unset=unset))
    [problem] = caught.value.problems
    assert problem.field == "matrix.1.unset.0"
    assert problem.message.startswith(message)


@pytest.mark.parametrize(
    ("unset", "accepted"),
    [
        (["expect.output"], True),
        (["expect.output", "expect.elapsed"], True),
        ([], True),
        (["expect.output", "expect.output"], False),
        (["expect.outptu"], False),
        ("expect.output", False),
        ([None], False),
    ],
)
def test_the_json_schema_accepts_unset_exactly_when_the_loader_does(
    unset: object, accepted: bool
) -> None:
    data = _denial(unset=unset)
    validator = jsonschema.Draft202012Validator(scenario_json_schema())
    assert validator.is_valid(data) is accepted
    try:
        load_dict(data)
    except ScenarioFileError:
        assert not accepted
    else:
        assert accepted


def test_the_bundled_scenario_unsets_the_output_of_its_raising_variant() -> None:
    from handoff_sim.scenarios import load_file

    report, fail = load_file(BUNDLED / "ai4j" / "matrix_unset.yaml")
    assert report.spec.expect.output == "manager-went-on"
    assert "output" not in fail.spec.expect.model_fields_set
    assert run_scenario(report).passed
    assert run_scenario(fail).passed
