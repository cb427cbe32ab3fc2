"""Phase 2: find scenario files, parse YAML with line marks, validate, and report problems.

A file becomes :class:`LoadedScenario` values, or a ``ScenarioFileError`` whose lines
read ``path:line:col: field.path: message``.
"""

from handoff_sim.scenarios._load._agent_types import (
    AgentTypes,
    LoadFailure,
    load_agent_types,
)
from handoff_sim.scenarios._load._discovery import SUFFIXES, Discovery, discover
from handoff_sim.scenarios._load._input_types import resolve_input_type, search_path
from handoff_sim.scenarios._load._loader import (
    LoadedScenario,
    load_dict,
    load_file,
    load_path,
    load_text,
)
from handoff_sim.scenarios._load._names import ScenarioName, scenario_names
from handoff_sim.scenarios._load._outputs import output_problems
from handoff_sim.scenarios._load._yaml import FieldPath, ParsedYaml, SourceMap, dotted, parse_yaml

__all__ = [
    "SUFFIXES",
    "AgentTypes",
    "Discovery",
    "FieldPath",
    "LoadFailure",
    "LoadedScenario",
    "ParsedYaml",
    "ScenarioName",
    "SourceMap",
    "discover",
    "dotted",
    "load_agent_types",
    "load_dict",
    "load_file",
    "load_path",
    "load_text",
    "output_problems",
    "parse_yaml",
    "resolve_input_type",
    "scenario_names",
    "search_path",
]
