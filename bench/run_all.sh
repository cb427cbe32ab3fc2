#!/usr/bin/env bash
# Runs every benchmark, writes raw JSON lines to bench/out/ and regenerates docs/benchmarks.md
# and docs/benchmarks.svg; each step's duration goes to bench/out/durations.json and the page.
# On a quiet 2-core machine: about 25 minutes with everything on, most of it the
# 10,000-file suites; SUITES=0 CALLGRIND=0 leaves about 10. A skipped step's bars read n/a.
#   bench/run_all.sh                  # everything; the peers too where they are installed
#   SETUP_PEERS=1 bench/run_all.sh    # create the pinned peer virtualenv first
#   PEERS=0 bench/run_all.sh          # ours only
#   CALLGRIND=0 bench/run_all.sh      # no instruction counts
#   CALLGRIND_PEER_N=200 ...          # count the peers at N=200 (default 50; slow)
#   CALLGRIND_ALONGSIDE=1 ...         # count while the timed steps run (shorter, noisier CPU)
#   SUITES=0 / FILES="1000" ...       # no generated suites / only these sizes ("1000 10000")
#   SUITE_REPEATS=1 ...               # rounds of the suite commands (default 3, median)
#   ADAPTERS=0 / OTHERS=0 ...         # no framework adapters / no virtual time, start-up, fuzz
#   SEQUENTIAL=200 PARALLEL=50 ...    # the delegation sizes (N=200 carries the peer bars)
#   FLATNESS=0 ...                    # no small-against-large sizes in one process
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python}
OUT=bench/out
mkdir -p "$OUT"
rm -f "$OUT"/*.jsonl "$OUT/durations.json" "$OUT/instructions.seconds"
declare -A took=()
order=()

step() {  # step NAME COMMAND... : run, time it, remember it
  local name=$1; shift
  echo "+ $name" >&2
  local t0=$SECONDS
  "$@"
  took[$name]=$((SECONDS - t0))
  order+=("$name")
}

skip() {  # skip NAME : a step that did not run (its bars read n/a)
  echo "- $1 skipped" >&2
  took[$1]=null
  order+=("$1")
}

if [[ "${SETUP_PEERS:-0}" == 1 ]]; then
  $PY bench/delegation.py --setup-peers
fi
peers=()
[[ "${PEERS:-1}" == 1 ]] && peers=(--peers --peer-pairs)

$PY - > "$OUT/machine.json" <<'PYEOF'
import datetime, json, sys
sys.path.insert(0, "bench")
from _common import machine
from _peers import PEER_VENV, peer_interpreter
import subprocess
info = machine()
info["date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
found = []
for name, dist in (("openai-agents", "openai-agents"), ("pydantic-ai", "pydantic-ai-slim")):
    python = peer_interpreter(name)
    if python is None:
        found.append(f"{name} not installed")
        continue
    code = f"from importlib.metadata import version; print(version({dist!r}))"
    v = subprocess.run([str(python), "-c", code], capture_output=True, text=True).stdout.strip()
    where = "their own virtualenv (.handoff-venvs/peers)" if python.is_relative_to(PEER_VENV) \
        else "the project's interpreter"
    found.append(f"{name} {v} on {where}")
info["peers"] = "; ".join(found)
print(json.dumps(info))
PYEOF

callgrind=0
if [[ "${CALLGRIND:-1}" == 1 ]] && command -v valgrind > /dev/null; then
  callgrind=1
  ipeers=()
  [[ "${PEERS:-1}" == 1 ]] || ipeers=(--no-peers)
  count_instructions() {
    $PY bench/instructions.py --peer-n "${CALLGRIND_PEER_N:-50}" ${ipeers[@]+"${ipeers[@]}"} \
      > "$OUT/instructions.jsonl"
  }
fi
if [[ $callgrind == 1 && "${CALLGRIND_ALONGSIDE:-0}" == 1 ]]; then
  # instruction counts do not depend on load: count them while the timed steps run
  echo "+ instructions (alongside the other steps)" >&2
  (
    t0=$SECONDS
    count_instructions
    echo $((SECONDS - t0)) > "$OUT/instructions.seconds"
  ) &
  ins_pid=$!
fi

sizes="--sequential ${SEQUENTIAL:-25,50,100,200,400} --parallel ${PARALLEL:-10,50,200,1000}"
flat=--flatness
[[ "${FLATNESS:-1}" == 1 ]] || flat=""
step delegation bash -c "$PY bench/delegation.py ${peers[*]:-} $sizes --parallel-check $flat \
  > $OUT/delegation.jsonl"
if [[ $callgrind == 0 ]]; then
  skip instructions
elif [[ "${CALLGRIND_ALONGSIDE:-0}" != 1 ]]; then
  step instructions count_instructions
fi
if [[ "${ADAPTERS:-1}" == 1 ]]; then
  step adapters bash -c "$PY bench/adapters.py > $OUT/adapters.jsonl"
else
  skip adapters
fi
if [[ "${OTHERS:-1}" == 1 ]]; then
  step virtual_time bash -c "$PY bench/virtual_time.py > $OUT/virtual_time.jsonl"
  step plugin_startup bash -c "$PY bench/plugin_startup.py > $OUT/plugin_startup.jsonl"
  step fuzz_throughput bash -c "$PY bench/fuzz_throughput.py > $OUT/fuzz_throughput.jsonl"
  step scenario_suite bash -c "$PY bench/scenario_suite.py > $OUT/scenario_suite.jsonl"
else
  skip others
fi
if [[ "${SUITES:-1}" == 1 ]]; then
  step suite_scale bash -c "$PY bench/suite_scale.py --files ${FILES:-1000 10000} \
    --repeats ${SUITE_REPEATS:-3} > $OUT/suite_scale.jsonl"
else
  skip suite_scale
fi
if [[ -n "${ins_pid:-}" ]]; then
  wait "$ins_pid"
  took[instructions_alongside]=$(cat "$OUT/instructions.seconds")
  order+=(instructions_alongside)
fi

{
  echo "{"
  sep=""
  for name in "${order[@]}"; do
    printf '%s  "%s": %s' "$sep" "$name" "${took[$name]}"
    sep=$',\n'
  done
  printf '%s  "total": %s\n}\n' "$sep" "$SECONDS"
} > "$OUT/durations.json"
$PY bench/report.py
