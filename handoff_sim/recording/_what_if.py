"""What-if replay: run a recording (or any scenario) again under other handoff policies.

``what_if(path, policies={"manager": {"timeout": "10s", "max_retries": 1}})`` runs the
scenario as written, then again with each named agent's policy changed, and reports which
of its expectations the new policies changed: passed before and fail now, or the other way.
A mapping of file-form keys is merged over the agent's own policy, as a matrix variant's
``policies:`` are; a :class:`HandoffPolicy` replaces it whole.

The command line's ``--policy AGENT.KEY=VALUE`` options and ``--policy-file`` are read by
:func:`policy_options`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ValidationError

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._files import UnreadableFile, read_regular
from handoff_sim._limits import MAX_SCENARIO_FILE_BYTES
from handoff_sim._terminal import escape_value
from handoff_sim.errors import PolicyError
from handoff_sim.scenarios import (
    LoadedScenario,
    ScenarioResult,
    ScenarioRuntime,
    load_path,
    run_scenario,
)
from handoff_sim.scenarios._errors import ScenarioError
from handoff_sim.scenarios._expect import Mismatch
from handoff_sim.scenarios._schema import MatchMode, PolicySpec, VariantSpec
from handoff_sim.subagents._policy import HandoffPolicy

__all__ = [
    "DEFAULT_WHAT_IF_MATCH",
    "ExpectationChange",
    "PolicyOverrides",
    "WhatIfReport",
    "policy_options",
    "what_if",
    "what_if_scenario",
]

Runner = Callable[[LoadedScenario], ScenarioResult]
"""Runs one scenario and checks it (``run_scenario`` with the caller's runtime and options)."""

PolicyOverrides = Mapping[str, "HandoffPolicy | PolicySpec | Mapping[str, Any]"]
"""Agent name -> the policy it runs under: file-form keys (merged) or a whole policy."""

DEFAULT_WHAT_IF_MATCH: MatchMode = "tools"
"""How a what-if replay matches requests: by offered tool names only. Another policy
changes what a parent's later requests hold (a fallback's result instead of the
delegate's answer), so their fingerprints cannot match the recording's."""

_HINTS = {
    "fallback": "on_error=fallback_to_primary",
    "retries": "max_retries",
    "deny": "denied_tools",
    "allow": "allowed_tools",
}


@dataclass(frozen=True)
class ExpectationChange:
    """One expectation whose outcome the new policies changed."""

    expectation: str
    line: int | None
    before: Literal["passed", "failed"]
    now: Literal["passed", "failed"]
    mismatches: tuple[Mismatch, ...]
    """The mismatches of the run where it fails (now, or before when it now passes)."""

    def format(self, path: str) -> str:
        """``path:line: expectation: passed before, fails now: message`` and the values."""
        where = f"{path}:{self.line}" if self.line else path
        verdict = (
            "passed before, fails now" if self.now == "failed" else "failed before, passes now"
        )
        lines = [f"{where}: {escape_value(self.expectation)}: {verdict}"]
        for mismatch in self.mismatches:
            for line in mismatch.format().splitlines():
                lines.append(f"    {escape_value(line)}")
        return "\n".join(lines)


@dataclass(frozen=True)
class WhatIfReport:
    """The scenario run as written (``before``) and under the new policies (``after``)."""

    scenario: LoadedScenario
    policies: Mapping[str, Mapping[str, Any]]
    """Agent -> the policy keys the what-if set, as a file writes them."""
    before: ScenarioResult
    after: ScenarioResult
    changes: tuple[ExpectationChange, ...]

    @property
    def passed(self) -> bool:
        """Whether the scenario passes its expectations under the new policies."""
        return self.after.passed

    @property
    def broken(self) -> tuple[ExpectationChange, ...]:
        """Expectations that passed as recorded and fail under the new policies."""
        return tuple(c for c in self.changes if c.now == "failed")

    @property
    def fixed(self) -> tuple[ExpectationChange, ...]:
        """Expectations that failed as recorded and pass under the new policies."""
        return tuple(c for c in self.changes if c.now == "passed")

    def summary(self) -> str:
        """One line: what was changed, and how many expectations that changed."""
        changed = "; ".join(
            f"{agent}: " + ", ".join(f"{k}={_shown(v)}" for k, v in keys.items())
            for agent, keys in self.policies.items()
        )
        count = len(self.changes)
        what = "no expectation changed" if not count else f"{count} expectation(s) changed"
        return f"what-if {escape_value(changed)}: {what}"

    def render(self) -> str:
        """The summary line, then each changed expectation with ``path:line``."""
        path = escape_value(str(self.scenario.path))
        lines = [self.summary()]
        lines += [f"  {change.format(path)}" for change in self.changes]
        return "\n".join(lines) + "\n"


def what_if(
    source: str | Path | LoadedScenario,
    policies: PolicyOverrides,
    *,
    match: MatchMode | None = DEFAULT_WHAT_IF_MATCH,
    runtime: ScenarioRuntime | None = None,
    run: Runner | None = None,
    before_run: Runner | None = None,
) -> WhatIfReport:
    """Replay one recording (or run one scenario) as written and under ``policies``.

    ``match`` is how the what-if replay matches requests to recorded steps (``None``: as
    the file says); ``run`` and ``before_run`` run the scenario under the new policies and
    as written (``run_scenario`` on ``runtime`` by default). Raises :class:`PolicyError`
    for a policy key or value that is not one, :class:`ConfigurationError` for an agent
    the scenario does not have.
    """
    loaded = _one(source)
    return what_if_scenario(
        loaded, policies, match=match, runtime=runtime, run=run, before_run=before_run
    )


def what_if_scenario(
    loaded: LoadedScenario,
    policies: PolicyOverrides,
    *,
    match: MatchMode | None = DEFAULT_WHAT_IF_MATCH,
    runtime: ScenarioRuntime | None = None,
    run: Runner | None = None,
    before_run: Runner | None = None,
) -> WhatIfReport:
    """:func:`what_if` for a loaded scenario. ``run`` runs it under the new policies and
    ``before_run`` as written (both ``run_scenario`` on ``runtime`` by default)."""
    blocks = {agent: _block(agent, policy) for agent, policy in policies.items()}
    changed = with_policies(loaded, blocks, match=match)

    def default(scenario: LoadedScenario) -> ScenarioResult:
        return run_scenario(scenario, runtime=runtime)

    first = (before_run or default)(loaded)
    after = (run or default)(changed)
    shown = {agent: _written(block) for agent, block in blocks.items()}
    return WhatIfReport(loaded, shown, first, after, _changes(first, after))


def with_policies(
    loaded: LoadedScenario,
    blocks: Mapping[str, PolicySpec],
    *,
    match: MatchMode | None = DEFAULT_WHAT_IF_MATCH,
) -> LoadedScenario:
    """``loaded`` with each named agent's policy block merged with ``blocks``."""
    spec = loaded.spec
    agents = dict(spec.agents)
    for name, block in blocks.items():
        agent = agents.get(name)
        if agent is None:
            raise ConfigurationError(
                f"{loaded.path}: scenario {loaded.id}: no agent {name!r} to set a policy on"
                f"{_did_you_mean(name, agents)} (agents: {', '.join(sorted(agents))})"
            )
        base = agent.policy
        update = {key: getattr(block, key) for key in block.model_fields_set}
        policy = base.model_copy(update=update) if base is not None else block
        agents[name] = agent.model_copy(update={"policy": policy})
    updates: dict[str, Any] = {"agents": agents}
    if spec.recorded is not None and match is not None:
        updates["recorded"] = spec.recorded.model_copy(update={"match": match})
    return replace(
        loaded, spec=spec.model_copy(update=updates), variant_spec=_variant(loaded, blocks)
    )


def _variant(loaded: LoadedScenario, blocks: Mapping[str, PolicySpec]) -> VariantSpec:
    """The what-if as a policy variant, so the run knows it is one: a lane the new policy
    no longer reaches keeps its recorded steps unused without failing, as in a matrix."""
    if loaded.variant_spec is not None:
        merged = {**loaded.variant_spec.policies, **blocks}
        return loaded.variant_spec.model_copy(update={"policies": merged})
    return VariantSpec(id="what-if", policies=dict(blocks))


def policy_options(
    options: Sequence[str], *, file: str | Path | None = None
) -> dict[str, PolicySpec]:
    """``AGENT.KEY=VALUE`` options (values read as YAML: ``10s``, ``1``, ``[a, b]``), over
    the policies of a ``--policy-file`` (YAML: ``{agent: {key: value}}``), as one policy
    block per agent. A malformed option or file, an unknown key or a bad value is a
    :class:`PolicyError` naming the option or the file's entry (and the key it may have
    meant)."""
    found: dict[str, dict[str, Any]] = _policy_file(Path(file)) if file is not None else {}
    given: dict[str, str] = {}
    for option in options:
        agent, key, value = _split(option)
        found.setdefault(agent, {})[key] = value
        given[f"{agent}.{key}"] = f"--policy {option!r}"
    where = f"--policy-file {file}" if file is not None else "--policy"
    return {agent: _validated(agent, keys, given, where) for agent, keys in found.items()}


def _policy_file(path: Path) -> dict[str, dict[str, Any]]:
    """The agent -> policy keys mapping a policy file holds, its keys checked."""
    try:
        text = read_regular(path, MAX_SCENARIO_FILE_BYTES).decode("utf-8")
        data = yaml.safe_load(text)
    except UnreadableFile as exc:
        raise PolicyError(f"--policy-file {path}: {exc.reason}") from None
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise PolicyError(f"--policy-file {path}: not a YAML file ({exc})") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise PolicyError(
            f"--policy-file {path}: expected a mapping of agent names to policy blocks, "
            "like {manager: {timeout: 10s}}"
        )
    for agent, keys in data.items():
        for key in keys:
            if key not in PolicySpec.model_fields:
                raise PolicyError(
                    f"--policy-file {path}: {agent}.{key}: not a policy key"
                    f"{_did_you_mean(str(key), PolicySpec.model_fields)}"
                )
    return {str(agent): dict(keys) for agent, keys in data.items()}


# -- helpers ---------------------------------------------------------------------------------


def _one(source: str | Path | LoadedScenario) -> LoadedScenario:
    if isinstance(source, LoadedScenario):
        return source
    loaded = load_path(source)
    if len(loaded) != 1:
        ids = ", ".join(s.id for s in loaded)
        raise ScenarioError(
            f"what_if replays one scenario, but {source} holds {len(loaded)} ({ids}); "
            "load them with load_path and pass each"
        )
    return loaded[0]


def _split(option: str) -> tuple[str, str, Any]:
    target, equals, text = option.partition("=")
    agent, dot, key = target.rpartition(".")
    if not equals or not dot or not agent or not key:
        raise PolicyError(
            f"--policy {option!r}: expected AGENT.KEY=VALUE, like manager.timeout=10s"
        )
    key = key.strip()
    if key not in PolicySpec.model_fields:
        raise PolicyError(
            f"--policy {option!r}: {key!r} is not a policy key"
            f"{_did_you_mean(key, PolicySpec.model_fields)}"
            f" (keys: {', '.join(PolicySpec.model_fields)})"
        )
    try:
        value = yaml.safe_load(text) if text.strip() else None
    except yaml.YAMLError:
        value = text
    return agent.strip(), key, value


def _validated(
    agent: str, keys: dict[str, Any], given: Mapping[str, str], where: str
) -> PolicySpec:
    try:
        return PolicySpec.model_validate(keys)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = str(error["loc"][0]) if error["loc"] else ""
        source = given.get(f"{agent}.{key}", f"{where}: {agent}")
        raise PolicyError(f"{source}: {key}: {error['msg']}") from None


def _block(agent: str, policy: HandoffPolicy | PolicySpec | Mapping[str, Any]) -> PolicySpec:
    if isinstance(policy, PolicySpec):
        return policy
    if isinstance(policy, HandoffPolicy):
        return _from_policy(agent, policy)
    unknown = [key for key in policy if key not in PolicySpec.model_fields]
    if unknown:
        key = str(unknown[0])
        raise PolicyError(
            f"policies[{agent!r}]: {key!r} is not a policy key"
            f"{_did_you_mean(key, PolicySpec.model_fields)}"
        )
    try:
        return PolicySpec.model_validate(_plain(dict(policy)))
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        raise PolicyError(f"policies[{agent!r}].{key}: {error['msg']}") from None


def _written(block: PolicySpec) -> dict[str, Any]:
    """The keys a block sets, in the policy's field order (a stable report)."""
    return {k: getattr(block, k) for k in PolicySpec.model_fields if k in block.model_fields_set}


def _plain(keys: dict[str, Any]) -> dict[str, Any]:
    """Python values as a file writes them: sets and tuples as lists, actions by name."""
    plain: dict[str, Any] = {}
    for key, value in keys.items():
        if isinstance(value, set | frozenset):
            value = sorted(value)
        elif isinstance(value, tuple):
            value = list(value)
        plain[key] = getattr(value, "value", value) if key.startswith("on_") else value
    return plain


def _from_policy(agent: str, policy: HandoffPolicy) -> PolicySpec:
    """A whole HandoffPolicy as a policy block: every field set, so it replaces the agent's."""
    for key in ("input_filter", "retry_on"):
        if getattr(policy, key) is not None:
            raise PolicyError(
                f"policies[{agent!r}].{key}: a what-if replay takes this field in its file "
                "form (an import path: {python: 'module:function'}); pass a mapping of "
                "policy keys instead of a HandoffPolicy"
            )
    keys = {key: getattr(policy, key) for key in PolicySpec.model_fields}
    keys = {k: v for k, v in _plain(keys).items() if k not in ("input_filter", "retry_on")}
    return PolicySpec.model_validate(keys)


def _did_you_mean(name: str, known: Mapping[str, Any] | Sequence[str]) -> str:
    hint = _HINTS.get(name.lower())
    close = difflib.get_close_matches(name, list(known), n=1)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f" (did you mean {hint}?)" if hint else ""


def _shown(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return f"{int(value)}s"
    if isinstance(value, float):
        return f"{value}s"
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def expectation_of(mismatch: Mismatch) -> str:
    """The expectation a mismatch belongs to: ``expect.output``, ``expect.handoffs.0``,
    ``expect.trace`` (any of its events), ``run.1.expect.output``, or ``run``."""
    parts = mismatch.field.split(".")
    if parts[:1] == ["scenarios"] and len(parts) > 2:
        parts = parts[2:]
    if "expect" not in parts:
        return ".".join(parts[:1])
    at = parts.index("expect")
    key = parts[: at + 2]
    rest = parts[at + 2 :]
    if key[-1] in ("handoffs", "tool_runs", "sessions") and rest[:1] and rest[0].isdigit():
        key.append(rest[0])
    return ".".join(key)


def _changes(before: ScenarioResult, after: ScenarioResult) -> tuple[ExpectationChange, ...]:
    def grouped(result: ScenarioResult) -> dict[str, list[Mismatch]]:
        groups: dict[str, list[Mismatch]] = {}
        for mismatch in result.mismatches:
            groups.setdefault(expectation_of(mismatch), []).append(mismatch)
        return groups

    old, new = grouped(before), grouped(after)
    changes = [
        ExpectationChange(key, found[0].line, "passed", "failed", tuple(found))
        for key, found in new.items()
        if key not in old
    ]
    changes += [
        ExpectationChange(key, found[0].line, "failed", "passed", tuple(found))
        for key, found in old.items()
        if key not in new
    ]
    return tuple(sorted(changes, key=lambda c: (c.line or 0, c.expectation)))
