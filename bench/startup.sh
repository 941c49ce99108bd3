#!/usr/bin/env bash
# Start-up of the short CLI commands as a user meets it through bin/nvmf4j: `nvmf4j --version` and
# `nvmf4j discover` against an `nvmf4j serve` on 127.0.0.1 (a free port), medians of RUNS (7) whole-process wall
# times, for
#   first   a short command that finds no archive (the jar was built by mvn, not by bin/nvmf4j, which writes the
#           archive right after its own builds): it runs without one while the training run writes it in the
#           background; measured with the archive removed before each run
#   later   every later run of any short command: the archive is mapped
#   no-cds  NVMF4J_CDS=0, for comparison
# Prints a table, the archive's size, the load average before and after, the raw times. Output: bench/out/startup-*.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
out="$root/bench/out"
mkdir -p "$out"
nvmf4j="$root/bin/nvmf4j"
runs=${RUNS:-7}
log() { echo "startup: $*" >&2; }

"$nvmf4j" --version >/dev/null   # builds the jar (and so the archive) when stale
jar="$root/cli/target/nvmf4j.jar"
cds="$root/cli/target/cds"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$nvmf4j" serve --ram 16M --nqn nqn.2026-12.io.nvmf4j:startup --listen "127.0.0.1:$port" --no-rpc \
  >"$out/startup-serve.log" 2>&1 &
serve=$!
trap 'kill $serve 2>/dev/null; wait $serve 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q "listening on" "$out/startup-serve.log" && break
  sleep 0.1
done
grep -q "listening on" "$out/startup-serve.log" || { log "serve did not start"; cat "$out/startup-serve.log" >&2; exit 1; }

# The variants alternate round by round (as bench/ab.sh does) so that a busy machine weighs on all of them alike;
# hyperfine times one command at a time, so the loop does the timing here.
wait_training() {  # a background training run of the previous round must not compete with the next timing
  for _ in $(seq 600); do
    pgrep -f io.nvmf4j.cli.StartupTraining >/dev/null || return 0
    sleep 0.2
  done
  log "a training run still runs after 120 s"; return 1
}
ms() {  # ms CMD...: whole-process wall time in ms
  local s e
  s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
  echo $(( (e - s) / 1000000 ))
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
version=("$nvmf4j" --version)
discover=("$nvmf4j" discover -a 127.0.0.1 -s "$port")
first_v=""; first_d=""; later_v=""; later_d=""; none_v=""; none_d=""
for round in $(seq "$runs"); do
  log "round $round of $runs"
  export NVMF4J_CDS=1
  wait_training; rm -rf "$cds"; first_v+=" $(ms "${version[@]}")"
  wait_training; rm -rf "$cds"; first_d+=" $(ms "${discover[@]}")"
  wait_training
  later_v+=" $(ms "${version[@]}")"
  later_d+=" $(ms "${discover[@]}")"
  export NVMF4J_CDS=0
  none_v+=" $(ms "${version[@]}")"
  none_d+=" $(ms "${discover[@]}")"
done
size=$(du -sh "$cds" | cut -f1)
files=$(find "$cds" -name '*.jsa' | wc -l)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
echo "raw ms: first_v$first_v / first_d$first_d / later_v$later_v / later_d$later_d / none_v$none_v / none_d$none_d" \
  > "$out/startup-raw.txt"
first_v=$(echo "$first_v" | median); first_d=$(echo "$first_d" | median)
later_v=$(echo "$later_v" | median); later_d=$(echo "$later_d" | median)
none_v=$(echo "$none_v" | median); none_d=$(echo "$none_d" | median)

fmt() { awk -v ms="$1" 'BEGIN {printf "%.2f s", ms / 1000}'; }
{
  echo "| command (medians of $runs) | first run after a build | later runs | no archive (NVMF4J_CDS=0) |"
  echo "|---|---|---|---|"
  echo "| \`nvmf4j --version\` | $(fmt "$first_v") | $(fmt "$later_v") | $(fmt "$none_v") |"
  echo "| \`nvmf4j discover -a 127.0.0.1 -s PORT\` | $(fmt "$first_d") | $(fmt "$later_d") | $(fmt "$none_d") |"
  echo
  echo "archive: $files file(s), $size in cli/target/cds; $(nproc) cores; load average $load_before before, $load_after after"
  cat "$out/startup-raw.txt"
} | tee "$out/startup-$(date +%Y%m%d-%H%M%S).txt"
