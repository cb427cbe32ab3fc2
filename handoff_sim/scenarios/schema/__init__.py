"""Phase 1 of a scenario file: its typed form (pydantic models) and the JSON Schema editors read.

Nothing here touches files or runs anything; the other phases import these types.
"""
