"""Phase 4: run a built scenario's turns (on the default runtime or a plugin's) and check it."""
