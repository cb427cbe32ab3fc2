"""T1 and the cost bar: the plugin loads from its entry point, imports nothing heavy,
and a session without scenario options never imports the scenario package."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_t1_plugin_is_registered_by_its_entry_point(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfig()
    plugin = config.pluginmanager.get_plugin("handoff")
    assert plugin is not None
    assert plugin.__name__ == "pytest_handoff.plugin"
    assert config.pluginmanager.get_plugin("pytest_handoff._fixtures") is not None


@pytest.mark.slow
def test_plugin_module_imports_only_pytest_and_the_standard_library() -> None:
    code = (
        "import sys, pytest_handoff.plugin, pytest_handoff._fixtures, pytest_handoff.hookspecs\n"
        "heavy = ['pydantic', 'yaml', 'syrupy', 'hypothesis', 'freezegun', 'msgspec']\n"
        "light = {'handoff_sim', 'handoff_sim._version', 'handoff_sim._plugin_contract'}\n"
        "ours = {m for m in sys.modules if m.split('.')[0] == 'handoff_sim'} - light\n"
        "print(','.join([m for m in heavy if m in sys.modules] + sorted(ours)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == ""


@pytest.mark.slow
def test_session_without_scenarios_does_not_import_the_scenario_package(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import sys

        def test_nothing_loaded():
            assert "handoff_sim.scenarios" not in sys.modules
            assert "pytest_handoff._collection" not in sys.modules
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:hypothesispytest", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_plugin_can_be_disabled(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("-p", "no:handoff", "--handoff-scenarios", "x")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments: --handoff-scenarios*"])


def test_public_names_resolve_lazily() -> None:
    import pytest_handoff

    for name in pytest_handoff.__all__:
        assert getattr(pytest_handoff, name) is not None, name
    assert set(pytest_handoff.__all__) <= set(dir(pytest_handoff))
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = pytest_handoff.nope  # type: ignore[attr-defined]
