"""The recording parts of the command: ``run --policy`` (what-if) and ``record --from-otlp``.

``handoff-sim run REC.yaml --policy manager.timeout=10s`` runs each scenario as written and
again under the changed policies, and prints which expectations that changed; the run
under the new policies is the one that passes or fails. ``handoff-sim record --from-otlp
TRACE.json -o REC.yaml`` converts an OTLP JSON export into a recording.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from handoff_sim.scenarios import LoadedScenario, ScenarioResult
    from handoff_sim.scenarios._schema import PolicySpec

__all__ = [
    "RECORD_HELP",
    "add_policy_option",
    "add_record_arguments",
    "read_policies",
    "run_record",
    "scenario_outcome",
]

RECORD_HELP = "make a recording (a replayable scenario file) from an OTLP JSON trace"
POLICY_HELP = (
    "what-if: run each scenario again with AGENT's handoff policy key KEY set to VALUE "
    "(the policy block's keys: timeout=10s, max_retries=1, on_error=fallback_to_primary, "
    "denied_tools=[a,b], ...); repeatable. The output says which expectations the new "
    "policy changed; the run under it decides pass or fail. A recording replays by tool "
    "names under it (a fallback's result changes what the caller is asked next)"
)
EXIT_OK, EXIT_USAGE = 0, 2


def add_policy_option(run: argparse.ArgumentParser) -> None:
    """``--policy AGENT.KEY=VALUE`` and ``--policy-file FILE`` on ``run``."""
    run.add_argument(
        "--policy",
        dest="policies",
        action="append",
        default=[],
        metavar="AGENT.KEY=VALUE",
        help=POLICY_HELP,
    )
    run.add_argument(
        "--policy-file",
        metavar="FILE",
        help="what-if: the policies of a YAML file ({manager: {timeout: 10s, max_retries: 1}}); "
        "--policy options set keys over it",
    )


def read_policies(args: argparse.Namespace, err: TextIO) -> dict[str, PolicySpec] | None:
    """``--policy`` and ``--policy-file`` as policy blocks, or ``None`` once the problem
    is printed."""
    if not args.policies and args.policy_file is None:
        return {}
    from handoff_sim.errors import PolicyError
    from handoff_sim.recording._what_if import policy_options

    try:
        return policy_options(args.policies, file=args.policy_file)
    except PolicyError as exc:
        print(f"handoff-sim run: {exc}", file=err)
        return None


def scenario_outcome(
    scenario: LoadedScenario,
    policies: Mapping[str, PolicySpec] | None,
    run: Callable[[LoadedScenario], ScenarioResult],
    plain: Callable[[LoadedScenario], ScenarioResult],
) -> tuple[ScenarioResult, str]:
    """The result to report (under ``policies`` when given) and the what-if text to print.

    ``run`` runs the scenario that is reported (observers and all), ``plain`` the scenario
    as written, for comparison. An agent the scenario lacks is a ``ScenarioError``.
    """
    if not policies:
        return run(scenario), ""
    from handoff_sim._errors._families import ConfigurationError
    from handoff_sim.recording import what_if
    from handoff_sim.scenarios._errors import ScenarioError

    try:
        report = what_if(scenario, policies, run=run, before_run=plain)
    except ConfigurationError as exc:
        raise ScenarioError(str(exc)) from None
    return report.after, report.render()


def add_record_arguments(record: argparse.ArgumentParser) -> None:
    """The options of ``handoff-sim record``."""
    record.add_argument(
        "--from-otlp",
        required=True,
        metavar="TRACE.json",
        help="the OTLP JSON export to convert (its spans must carry content: the GenAI "
        "content-capture attributes); what they do not say is listed in recorded.notes",
    )
    record.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="REC.yaml",
        help="the recording to write (atomically; never the input itself)",
    )
    record.add_argument(
        "--trace-id", metavar="ID", help="the trace (its id or name) when the file holds several"
    )
    record.add_argument("--scenario", metavar="NAME", help="the scenario's name in the recording")


def run_record(args: argparse.Namespace) -> int:
    """``handoff-sim record --from-otlp``: convert, print what is missing on stderr."""
    from handoff_sim._errors._families import ConfigurationError
    from handoff_sim.errors import OtlpError
    from handoff_sim.recording import recording_from_otlp

    try:
        converted = recording_from_otlp(
            args.from_otlp, args.output, trace_id=args.trace_id, scenario=args.scenario
        )
    except (OtlpError, ConfigurationError, OSError) as exc:
        print(f"handoff-sim record: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for note in converted.notes:
        print(f"handoff-sim record: not in the spans: {note}", file=sys.stderr)
    print(f"handoff-sim record: wrote {args.output}")
    return EXIT_OK
