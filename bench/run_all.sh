#!/usr/bin/env bash
# Runs every benchmark, writes raw JSON lines to bench/out/ and regenerates docs/benchmarks.md
# and docs/benchmarks.svg. About 15 minutes on 2 cores, most of it the peers and the
# 10,000-file suite. Run it on a quiet machine: wall figures (import time) need one.
#   bench/run_all.sh                 # the peers too, if .handoff-venvs/peers exists
#   SETUP_PEERS=1 bench/run_all.sh   # create the peer virtualenv first (pinned versions)
#   PEERS=0 bench/run_all.sh         # ours only
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python}
OUT=bench/out
mkdir -p "$OUT"

if [[ "${SETUP_PEERS:-0}" == 1 ]]; then
  $PY bench/delegation.py --setup-peers
fi
peers=()
if [[ "${PEERS:-1}" == 1 && -x .handoff-venvs/peers/bin/python ]]; then
  peers=(--peers)
fi

$PY - > "$OUT/machine.json" <<'PYEOF'
import datetime, json, subprocess, sys
sys.path.insert(0, "bench")
from _common import machine
info = machine()
info["date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
try:
    out = subprocess.run([".handoff-venvs/peers/bin/python", "-m", "pip", "list", "--format=freeze"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    info["peers"] = ", ".join(l.replace("==", " ") for l in out
                              if l.split("==")[0] in ("openai-agents", "pydantic-ai"))
except (OSError, subprocess.CalledProcessError):
    info["peers"] = "not installed"
print(json.dumps(info))
PYEOF

echo "+ delegation ${peers[*]:-}" >&2
$PY bench/delegation.py "${peers[@]}" --parallel-check --flatness > "$OUT/delegation.jsonl"
echo "+ virtual time" >&2
$PY bench/virtual_time.py > "$OUT/virtual_time.jsonl"
echo "+ wall clock" >&2
$PY bench/wall_clock.py > "$OUT/wall_clock.jsonl"
echo "+ plugin start-up" >&2
$PY bench/plugin_startup.py > "$OUT/plugin_startup.jsonl"
echo "+ fuzz throughput" >&2
$PY bench/fuzz_throughput.py > "$OUT/fuzz_throughput.jsonl"
echo "+ scenario suite" >&2
$PY bench/scenario_suite.py > "$OUT/scenario_suite.jsonl"
echo "+ suite scale (10,000 files; FILES=N for fewer)" >&2
$PY bench/suite_scale.py --files "${FILES:-10000}" > "$OUT/suite_scale.jsonl"
if [[ -f bench/memory.py ]]; then
  echo "+ memory" >&2
  $PY bench/memory.py > "$OUT/memory.jsonl"
else
  rm -f "$OUT/memory.jsonl"
fi
echo "+ framework adapters (skipped per framework when its extra is missing)" >&2
$PY bench/adapters.py > "$OUT/adapters.jsonl"
$PY bench/report.py
