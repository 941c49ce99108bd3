#!/usr/bin/env bash
# The "Done when" proof of issue 13: a legitimate host's verified QD32 I/O with and without attackers on the same
# target. Starts `nvmf4j serve --ram 1G` (softiwarp, 127.0.0.1, a free port), runs
#   nvmf4j perf -q 32 -o 4k -w randrw --verify -t SECONDS
# once alone, then again while io.nvmf4j.hostile.Attacker (the hostile-peer suite's attacks as a process, from the
# cli module's test classes) holds 30 hostile connections open and loops over the suite's attacks; samples the
# target's VmRSS and thread count every 2 s during the attacked run and prints
#   IOPS without / with attackers, ratio (goal >= 0.8), perf verify errors (goal 0), RSS and threads min/max.
#
#   bench/under-attack.sh                 60 s per perf run
#   SECONDS=15 bench/under-attack.sh      a smoke run (DURATION=15 works too)
# Env: HELD (hostile connections held open, 30), ATTACK_INTERVAL_MS (pause between attacks, 50),
#      SAMPLE_SECONDS (2), NVMF4J_JAVA_OPTS (extra JVM flags for serve and perf).
# Output: the table on stdout; logs in bench/out/under-attack-*.
duration=${DURATION:-$SECONDS}   # bash counts SECONDS up from the value it inherited: read it first
[ "${duration:-0}" -ge 5 ] 2>/dev/null || duration=60
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
out="$root/bench/out"
mkdir -p "$out"
nvmf4j="$root/bin/nvmf4j"
nqn="nqn.2026-12.io.nvmf4j:under-attack"
held=${HELD:-30}
interval=${ATTACK_INTERVAL_MS:-50}
sample=${SAMPLE_SECONDS:-2}
log() { echo "under-attack: $*" >&2; }

# ---- build: the CLI jar (bin/nvmf4j rebuilds it when stale) and the cli module's test classes (the attacker)
log "building the CLI jar if needed and the cli test classes"
"$nvmf4j" modules >/dev/null
export JAVA_HOME=${JAVA_HOME:-$(ls -d /usr/lib/jvm/temurin-25* 2>/dev/null | head -1)}
(cd "$root" && mvn -B -q -o -pl cli -am test-compile >"$out/under-attack-build.log" 2>&1) \
  || (cd "$root" && mvn -B -q -pl cli -am test-compile >"$out/under-attack-build.log" 2>&1) \
  || { log "test classes did not build; see $out/under-attack-build.log"; exit 1; }
attacker_cp="$root/cli/target/nvmf4j.jar:$root/cli/target/test-classes"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
serve_pid=""; attacker_pid=""; sampler_pid=""
cleanup() {
  for p in $sampler_pid $attacker_pid; do kill "$p" 2>/dev/null || true; done
  if [ -n "$serve_pid" ]; then kill -TERM "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

log "nvmf4j serve --ram 1G on 127.0.0.1:$port (softiwarp)"
"$nvmf4j" serve --ram 1G --nqn "$nqn" --provider softiwarp --listen "127.0.0.1:$port" \
  >"$out/under-attack-serve.log" 2>&1 &
serve_pid=$!   # bin/nvmf4j execs java: this is the target JVM
for _ in $(seq 1 180); do
  grep -q "listening on" "$out/under-attack-serve.log" 2>/dev/null && break
  kill -0 "$serve_pid" 2>/dev/null || { log "serve exited; see $out/under-attack-serve.log"; exit 1; }
  sleep 0.5
done
grep -q "listening on" "$out/under-attack-serve.log" || { log "serve did not listen"; exit 1; }

perf() {  # $1 label; prints perf's JSON to bench/out/under-attack-$1.json, exit code to .rc
  log "perf ($1): -q 32 -o 4k -w randrw --verify -t $duration"
  set +e
  "$nvmf4j" perf --traddr 127.0.0.1 --trsvcid "$port" --nqn "$nqn" --provider softiwarp -q 32 -o 4k -w randrw --verify \
    -t "$duration" --ramp 2 --json >"$out/under-attack-$1.json" 2>"$out/under-attack-$1.err"
  echo $? >"$out/under-attack-$1.rc"
  set -e
}

sample_target() {  # every $sample s: seconds VmRSS(kB) Threads
  local t0=$SECONDS
  while kill -0 "$serve_pid" 2>/dev/null; do
    awk -v t=$((SECONDS - t0)) '/^VmRSS:/{r=$2} /^Threads:/{th=$2} END{print t, r, th}' "/proc/$serve_pid/status"
    sleep "$sample"
  done
}

perf alone
sample_target >"$out/under-attack-baseline-samples.txt" & sampler_pid=$!
sleep "$sample"; kill "$sampler_pid" 2>/dev/null || true; wait "$sampler_pid" 2>/dev/null || true

log "attacker: $held held connections, an attack every $interval ms"
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$attacker_cp" io.nvmf4j.hostile.Attacker \
  127.0.0.1 "$port" "$nqn" $((duration + 20)) "$held" "$interval" >"$out/under-attack-attacker.log" 2>&1 &
attacker_pid=$!
for _ in $(seq 1 120); do
  grep -q "attacker: holding" "$out/under-attack-attacker.log" 2>/dev/null && break
  kill -0 "$attacker_pid" 2>/dev/null || { log "attacker exited; see $out/under-attack-attacker.log"; exit 1; }
  sleep 0.5
done
log "$(grep "attacker: holding" "$out/under-attack-attacker.log" || echo "attacker: not holding yet")"
sample_target >"$out/under-attack-samples.txt" & sampler_pid=$!
perf attacked
kill "$sampler_pid" 2>/dev/null || true; wait "$sampler_pid" 2>/dev/null || true; sampler_pid=""
kill "$attacker_pid" 2>/dev/null || true; wait "$attacker_pid" 2>/dev/null || true; attacker_pid=""
target_alive=yes; kill -0 "$serve_pid" 2>/dev/null || target_alive=NO

python3 - "$out" "$target_alive" <<'PY'
import json, re, sys
out, alive = sys.argv[1], sys.argv[2]
def run(label):
    rc = int(open("%s/under-attack-%s.rc" % (out, label)).read().strip() or 1)
    text = open("%s/under-attack-%s.json" % (out, label)).read()
    m = re.search(r"^\{", text, re.M)
    j = json.JSONDecoder().raw_decode(text, m.start())[0] if m else {}
    err = open("%s/under-attack-%s.err" % (out, label)).read().strip().splitlines()
    errors = 0 if rc == 0 else 1
    return j.get("total", {}).get("iops"), j.get("verified_blocks"), rc, errors, (err[-1] if err and rc else "")
def samples(name):
    rows = [l.split() for l in open("%s/%s" % (out, name)) if len(l.split()) == 3]
    return [int(r[1]) for r in rows], [int(r[2]) for r in rows]
a, b = run("alone"), run("attacked")
rss0, th0 = samples("under-attack-baseline-samples.txt")
rss, th = samples("under-attack-samples.txt")
fmt = lambda v: "-" if v is None else "%.0f" % v
ratio = (b[0] / a[0]) if a[0] and b[0] else None
print("%-40s %14s %14s %8s %6s" % ("figure", "alone", "attacked", "goal", "met?"))
print("%-40s %14s %14s %8s %6s" % ("perf IOPS (4k randrw QD32, verify)", fmt(a[0]), fmt(b[0]), "", ""))
print("%-40s %14s %14s %8s %6s" % ("IOPS ratio attacked / alone", "", "-" if ratio is None else "%.2f" % ratio,
                                   ">= 0.8", "-" if ratio is None else ("yes" if ratio >= 0.8 else "NO")))
print("%-40s %14s %14s %8s %6s" % ("perf verify/I-O errors (exit code)", "%d (%d)" % (a[3], a[2]),
                                   "%d (%d)" % (b[3], b[2]), "0", "yes" if a[3] == b[3] == 0 else "NO"))
print("%-40s %14s %14s" % ("blocks verified", fmt(a[1]), fmt(b[1])))
if rss:
    print("%-40s %14s %14s" % ("target RSS MiB min / max", "%d" % (max(rss0 or [0]) // 1024),
                               "%d / %d" % (min(rss) // 1024, max(rss) // 1024)))
    print("%-40s %14s %14s" % ("target threads min / max", "%d" % max(th0 or [0]), "%d / %d" % (min(th), max(th))))
print("%-40s %14s %14s" % ("target alive after the attacks", "", alive))
for label, r in (("alone", a), ("attacked", b)):
    if r[4]:
        print("perf %s failed: %s" % (label, r[4]))
att = open("%s/under-attack-attacker.log" % out).read().strip().splitlines()
print("\n".join(l for l in att if l.startswith("attacker:")))
PY
