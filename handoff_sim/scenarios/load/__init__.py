"""Phase 2: find scenario files, parse YAML with line marks, validate, and report problems.

A file becomes :class:`LoadedScenario` values, or a ``ScenarioFileError`` whose lines
read ``path:line:col: field.path: message``.
"""
