"""Where a test's recording lives: the default path, the marker's file, the dir fixture.

pytest-recording's layout: ``<test module dir>/recordings/<module stem>/<test name>.yaml``,
one file per test; the marker names another file relative to that folder, and a
``handoff_recording_dir`` fixture moves the folder.
"""

from __future__ import annotations

import pytest

from pytest_handoff._recording_paths import MAX_STEM, safe_file_name


def _paths_of(result: pytest.RunResult) -> dict[str, str]:
    """``test id -> recording path`` from the lines the inner tests print."""
    found = {}
    for line in _path_lines(result):
        test, _, path = line[5:].partition(" ")
        found[test] = path
    return found


def _path_lines(result: pytest.RunResult) -> list[str]:
    """The ``PATH <test> <path>`` lines (progress dots may precede them on a line)."""
    return [line[line.index("PATH ") :] for line in result.outlines if "PATH " in line]


PRINT_PATH = """
import os

import pytest


@pytest.fixture
def show(request):
    def show(handoff_recording):
        rel = os.path.relpath(handoff_recording.path, request.config.rootpath)
        print("PATH", request.node.name, rel.replace(os.sep, "/"))

    return show
"""


def test_r5_default_path_is_beside_the_module_one_file_per_test(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PRINT_PATH)
    pytester.makepyfile(
        **{
            "tests/api/test_billing": """

            def test_refund(show, handoff_recording):
                show(handoff_recording)
                assert handoff_recording.mode == "none"
                assert not handoff_recording.exists

            class TestDesk:
                def test_refund(self, show, handoff_recording):
                    show(handoff_recording)
            """
        }
    )
    result = pytester.runpytest_inprocess("-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert _path_lines(result) == [
        "PATH test_refund tests/api/recordings/test_billing/test_refund.yaml",
        "PATH test_refund tests/api/recordings/test_billing/TestDesk.test_refund.yaml",
    ]


def test_r5_parametrized_ids_become_distinct_safe_file_names(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PRINT_PATH)
    pytester.makepyfile(
        test_ids="""
        import pytest

        @pytest.mark.parametrize("model", ["gpt-4o", "a/b", "a:b", "../../etc", "x" * 300])
        def test_run(show, handoff_recording, model):
            show(handoff_recording)
            assert handoff_recording.path.parent.name == "test_ids"
        """
    )
    result = pytester.runpytest_inprocess("-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)
    names = [line.rpartition("/")[2] for line in _path_lines(result)]
    assert names[0] == "test_run[gpt-4o].yaml"  # an id that is already safe stays as it is
    assert len(set(names)) == 5, names  # a/b and a:b do not share a file
    for name in names:
        assert "/" not in name, name
        assert "\\" not in name, name
        assert ".." not in name, name
        assert len(name) <= MAX_STEM + len(".yaml"), name


@pytest.mark.parametrize(
    "name",
    ["../up", "a/../../b", "..", ".hidden", "a\\b", "nul\x00byte", "é" * 200, "-rf", "a" * 500],
)
def test_r5_safe_file_name_never_leaves_its_folder(name: str) -> None:
    safe = safe_file_name(name)
    assert "/" not in safe
    assert "\\" not in safe
    assert "\x00" not in safe
    assert ".." not in safe
    assert not safe.startswith((".", "-"))
    assert safe.endswith(".yaml")
    assert len(safe) <= MAX_STEM + len(".yaml")
    assert safe == safe_file_name(name)  # deterministic: the same test finds its file again


def test_r5_marker_names_a_file_relative_to_the_recordings_folder(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(PRINT_PATH)
    pytester.makepyfile(
        test_marked="""
        import pytest

        @pytest.mark.handoff_recording("shared/refund")
        def test_named(show, handoff_recording):
            show(handoff_recording)

        @pytest.mark.handoff_recording("triage.yml", match="tools")
        def test_strictness(show, handoff_recording):
            show(handoff_recording)
            assert handoff_recording.match == "tools"

        @pytest.mark.handoff_recording(match="order")
        def test_only_strictness(show, handoff_recording):
            show(handoff_recording)
            assert handoff_recording.match == "order"
        """
    )
    result = pytester.runpytest_inprocess("-s", "-p", "no:cacheprovider", "--strict-markers")
    result.assert_outcomes(passed=3)
    assert _paths_of(result) == {
        "test_named": "recordings/test_marked/shared/refund.yaml",
        "test_strictness": "recordings/test_marked/triage.yml",
        "test_only_strictness": "recordings/test_marked/test_only_strictness.yaml",
    }


def test_r5_closest_marker_wins_and_module_marker_applies(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_levels="""
        import pytest

        pytestmark = pytest.mark.handoff_recording(match="order")

        def test_module_level(handoff_recording):
            assert handoff_recording.match == "order"
            assert handoff_recording.path.name == "test_module_level.yaml"

        @pytest.mark.handoff_recording(match="fingerprint")
        def test_own_marker(handoff_recording):
            assert handoff_recording.match == "fingerprint"
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ('"/etc/passwd.yaml"', "*'/etc/passwd.yaml' is absolute*handoff_recording_dir*"),
        ('"../other/x.yaml"', "*leaves the recordings folder ('..')*"),
        ('"a.yaml", "b.yaml"', "*takes one file argument, got 2*"),
        ("42", "*the file argument must be a file name or a relative path, got int*"),
        ('match="fuzzy"', "*match='fuzzy' is not a strictness; choose one of fingerprint*"),
        ('"a.yaml", strict=True', "*unknown keyword strict*"),
    ],
)
def test_r5_marker_misuse_is_an_error_naming_the_test(
    pytester: pytest.Pytester, marker: str, message: str
) -> None:
    pytester.makepyfile(
        test_bad=f"""
        import pytest

        @pytest.mark.handoff_recording({marker})
        def test_it(handoff_recording):
            pass
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.no_fnmatch_line("*During handling of the above exception*")
    result.stdout.fnmatch_lines(
        [f"test_bad.py::test_it: @pytest.mark.handoff_recording: {message}"]
    )


def test_r5_dir_fixture_moves_the_recordings(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        PRINT_PATH
        + """
@pytest.fixture(scope="module")
def handoff_recording_dir(request):
    return request.config.rootpath / "cassettes" / "agents"
"""
    )
    pytester.makepyfile(
        test_moved="""
        import pytest

        def test_default(show, handoff_recording):
            show(handoff_recording)

        @pytest.mark.handoff_recording("named.yaml")
        def test_marked(show, handoff_recording):
            show(handoff_recording)
        """
    )
    result = pytester.runpytest_inprocess("-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert _paths_of(result) == {
        "test_default": "cassettes/agents/test_default.yaml",
        "test_marked": "cassettes/agents/named.yaml",
    }


def test_r5_relative_dir_fixture_is_relative_to_the_test_module(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PRINT_PATH)
    pytester.makepyfile(
        **{
            "sub/test_rel": """
            import pytest

            @pytest.fixture
            def handoff_recording_dir():
                return "fixtures"

            def test_here(show, handoff_recording):
                show(handoff_recording)
            """
        }
    )
    result = pytester.runpytest_inprocess("-s", "-p", "no:cacheprovider", "--rootdir", ".")
    result.assert_outcomes(passed=1)
    assert _paths_of(result) == {"test_here": "sub/fixtures/test_here.yaml"}


def test_r5_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.handoff_recording(file=None, *, match=None)*"])
