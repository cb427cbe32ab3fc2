"""The options of the ``handoff-sim`` command, its subcommands and its exit codes."""

from __future__ import annotations

import argparse
from typing import Any

from handoff_sim._version import __version__
from handoff_sim.adapters._registry import DEFAULT_RUNTIME, RUNTIME_NAMES
from handoff_sim.cli._otel import CHECK_HELP, OTEL_HELP, add_check_arguments
from handoff_sim.cli._recording import RECORD_HELP, add_policy_option, add_record_arguments
from handoff_sim.cli._report import HTML_HELP

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_NOTHING",
    "EXIT_OK",
    "EXIT_OUTPUT_CLOSED",
    "EXIT_USAGE",
    "build_parser",
]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOTHING, EXIT_INTERRUPTED = 0, 1, 2, 5, 130
EXIT_OUTPUT_CLOSED = 141  # 128 + SIGPIPE, what a shell reports for `cat ... | head`
RENDER_FORMATS = ("text", "jsonl", "mermaid", "tree")

EXIT_CODES = """\
exit codes:
  0    every file is valid and every scenario run passed
  1    a scenario failed its expectations
  2    a file, a plugin or the command line is wrong; each problem is a line on
       stderr: path:line:col: field: message
  5    nothing to do: no scenario file found, or -k matched no scenario
  130  interrupted (Ctrl-C)
  141  the output was closed before the end (handoff-sim run ... | head)
handoff-sim check: 1 when a trace breaks an invariant or its expect block or fails
a gate (--gate, --gates), 5 when the file holds no span.
handoff-sim fuzz has its own exit codes: see handoff-sim fuzz --help.
"""

PATHS_HELP = "scenario files, or directories searched for *.yaml/*.yml files below them"
PLUGIN_HELP = (
    "import MODULE and use its pytest_handoff_* hooks (model kinds, runtime, observers), "
    "as `pytest -p MODULE` would; repeatable. Modules registered under the "
    "handoff_sim.plugins entry point group are always loaded"
)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``handoff-sim``: every subcommand but the fuzzer's own options."""
    parser = argparse.ArgumentParser(
        prog="handoff-sim",
        description="Run and check handoff scenario files in virtual time.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"handoff-sim {__version__}",
        help="print the version and exit",
    )
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, help="what to do (COMMAND -h for more)"
    )
    _run_parser(_command(commands, "run", "run scenarios and check their expectations"))
    validate = _command(commands, "validate", "check scenario files without running them")
    validate.add_argument("paths", nargs="+", metavar="PATH", help=PATHS_HELP)
    _plugin_option(validate)
    schema = _command(commands, "schema", "print the JSON Schema of scenario files")
    schema.add_argument("-o", "--output", metavar="FILE", help="write it to FILE instead")
    _render_parser(_command(commands, "render", "run one scenario and print its trace"))
    add_check_arguments(_command(commands, "check", CHECK_HELP))
    add_record_arguments(_command(commands, "record", RECORD_HELP))
    fuzz = _command(commands, "fuzz", "fuzz policy configurations (if installed)")
    fuzz.add_argument(
        "args",
        nargs=argparse.REMAINDER,
        metavar="ARG",
        help="options of the fuzzer: see handoff-sim fuzz --help",
    )
    return parser


def _command(commands: Any, name: str, text: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        help=text,
        description=text[:1].upper() + text[1:] + ".",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def _plugin_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p",
        "--plugin",
        dest="plugins",
        action="append",
        default=[],
        metavar="MODULE",
        help=PLUGIN_HELP,
    )


def _run_parser(run: argparse.ArgumentParser) -> None:
    run.add_argument("paths", nargs="+", metavar="PATH", help=PATHS_HELP)
    run.add_argument(
        "-k", dest="keyword", metavar="TEXT", help="only scenarios whose id contains TEXT"
    )
    loudness = run.add_mutually_exclusive_group()
    loudness.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="shorter lines; each failure's report where it happens",
    )
    loudness.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print the handoff tree and the events of each passing scenario, "
        "under a legend of their columns",
    )
    run.add_argument("--otel", metavar="FILE", help=OTEL_HELP)
    run.add_argument("--html", metavar="FILE", help=HTML_HELP)
    run.add_argument(
        "--runtime",
        choices=RUNTIME_NAMES,
        default=DEFAULT_RUNTIME,
        help="run the agents on this framework (default: handoff-sim's own runtime); "
        "openai-agents and pydantic-ai need their optional extra. A scenario the framework "
        "cannot express is reported as N/A with the reason",
    )
    _plugin_option(run)
    add_policy_option(run)


def _render_parser(render: argparse.ArgumentParser) -> None:
    render.add_argument("path", metavar="PATH", help="the scenario file")
    render.add_argument(
        "-s",
        "--scenario",
        metavar="ID",
        help="the scenario (its name, or name[variant]) when the file holds several",
    )
    render.add_argument(
        "--format",
        choices=RENDER_FORMATS,
        default="text",
        help="text: the event listing (default); jsonl: one JSON event per line; "
        "mermaid: a sequence diagram; tree: the handoff tree",
    )
    _plugin_option(render)
