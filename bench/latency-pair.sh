#!/usr/bin/env bash
# Whose is the QD1 read tail beside a second host's large writes (issue 26's latency pair)? One `nvmf4j serve`
# pinned to core 0; a QD1 4 KiB randread `perf` reader pinned to core 1, measured alone and beside each load:
#   busy19          a nice-19 busy loop on core 1 (no I/O at all: what sharing the reader's core costs by itself)
#   writer19        a nice-19 `perf` writing 1 MiB at QD4, on core 1 (the pair of bench/disk.sh --load-nice 19)
#   writer19-core0  the same writer on core 0, beside the target instead of the reader
#   writer0-core0   the writer at nice 0 on core 0
# For each: the reader's p50/p99 as the host sees them, the target's own read latency (capsule arrival to response
# posted, the p50/p99 bucket bounds from the deltas of its nvmf4j_io_latency histogram over the reader's run), and
# the writer's MiB/s. Medians of the rounds, scenarios alternating within a round.
# Beside each, the floor (bench/tcppair.c): the same placement with no NVMe-oF, no RDMA emulation and no Java, a C
# server polling both connections on core 0, a busy-polling C reader of 4 KiB round trips on core 1 and a C writer
# of 1 MiB messages where the scenario puts nvmf4j's; its reader's p99 and the writer's MB/s (10^6 bytes).
#
#   bench/latency-pair.sh [--rounds 3] [--seconds 8] [--serve-args '--ram 1G'] [--reader-args ARGS]
#                         [--writer-args ARGS] [--only REGEX]
#
# --reader-args and --writer-args add perf options to the reader or the writer (e.g. '--spin-us 1000000': it never
# sleeps, as the floor's reader).
# About 25 s per scenario and round (5 scenarios x 3 rounds: ~6 min). Needs curl, gcc and python3; 2+ cores.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
cd "$root"
rounds=3 seconds=8 serve_args='--ram 1G' reader_args='' writer_args='' only=.
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --serve-args) serve_args=$2; shift ;;
    --reader-args) reader_args=$2; shift ;;
    --writer-args) writer_args=$2; shift ;;
    --only) only=$2; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "bench/latency-pair.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
command -v curl >/dev/null || { echo "bench/latency-pair.sh: needs curl" >&2; exit 2; }
command -v gcc >/dev/null || { echo "bench/latency-pair.sh: needs gcc (for bench/tcppair.c)" >&2; exit 2; }
tmp=$(mktemp -d)
srv=
cleanup() { [ -n "$srv" ] && kill "$srv" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
gcc -O2 -o "$tmp/tcppair" bench/tcppair.c

port=$((20000 + RANDOM % 20000)); mport=$((port + 1))
nqn=nqn.2026-12.io.nvmf4j:latency-pair
# shellcheck disable=SC2086 # serve_args is a list of arguments
taskset -c 0 bin/nvmf4j serve $serve_args --nqn $nqn --listen 127.0.0.1:$port --provider softiwarp --no-rpc \
    --metrics-port $mport > "$tmp/serve.log" 2>&1 &
srv=$!
for _ in $(seq 300); do grep -q 'listening' "$tmp/serve.log" && break; sleep 0.2; done
grep -q 'listening' "$tmp/serve.log" || { echo "serve did not start:" >&2; cat "$tmp/serve.log" >&2; exit 1; }
perf=(bin/nvmf4j perf --traddr 127.0.0.1 --trsvcid $port --nqn $nqn --provider softiwarp)
writer_seconds=$((seconds + 5))

scrape() { curl -s "http://127.0.0.1:$mport/metrics" | grep 'nvmf4j_io_latency_seconds_bucket{.*op="read"' > "$1" || true; }

# one reader run beside the load named $1; appends "scenario round host_p50 host_p99 target_p50 target_p99 writer"
# shellcheck disable=SC2086 # reader_args and writer_args are lists of arguments
measure() {
  local name=$1 round=$2 bg=
  case $name in
    alone) ;;
    busy19) nice -n 19 taskset -c 1 timeout $writer_seconds sh -c 'while :; do :; done' & bg=$! ;;
    writer19) nice -n 19 taskset -c 1 "${perf[@]}" -q 4 -o 1m -w write -t $writer_seconds -a 0 $writer_args > "$tmp/w.log" 2>&1 & bg=$! ;;
    writer19-core0) nice -n 19 taskset -c 0 "${perf[@]}" -q 4 -o 1m -w write -t $writer_seconds -a 0 $writer_args > "$tmp/w.log" 2>&1 & bg=$! ;;
    writer0-core0) taskset -c 0 "${perf[@]}" -q 4 -o 1m -w write -t $writer_seconds -a 0 $writer_args > "$tmp/w.log" 2>&1 & bg=$! ;;
  esac
  [ -n "$bg" ] && sleep 3
  scrape "$tmp/m1"
  taskset -c 1 "${perf[@]}" -q 1 -o 4k -w randread -t "$seconds" -a 2 $reader_args > "$tmp/r.log" 2>&1
  scrape "$tmp/m2"
  [ -n "$bg" ] && wait $bg || true
  # the floor of the same placement (the target's poll thread sleeps meanwhile: nothing reaches it)
  local fw= fbg=
  case $name in
    busy19) nice -n 19 taskset -c 1 timeout $((seconds + 2)) sh -c 'while :; do :; done' & fbg=$! ;;
    writer19) fw=1:19 ;;
    writer19-core0) fw=0:19 ;;
    writer0-core0) fw=0:0 ;;
  esac
  # shellcheck disable=SC2086 # fw is empty or one argument
  timeout $((seconds + 30)) "$tmp/tcppair" "$seconds" $fw > "$tmp/f.log" 2>&1 || true
  [ -n "$fbg" ] && wait $fbg || true
  python3 - "$name" "$round" "$tmp" >> "$tmp/results" <<'PY'
import re, sys, os
name, rnd, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
def row(path, op):
    # perf's table: "op IOPS MiB/s avg p50 p90 p99 ..." after the "latency in us" header
    if not os.path.exists(path):
        return None
    for line in open(path):
        f = line.split()
        if f and f[0] == op and len(f) >= 7:
            return [float(x.rstrip('*')) for x in f[1:7]]
    return None
r = row(f"{tmp}/r.log", "read")
def buckets(path):
    d = {}
    for line in open(path):
        m = re.search(r'le="([^"]+)"\} ([0-9.eE+]+)', line)
        if m:
            le = float('inf') if m.group(1) == '+Inf' else float(m.group(1))
            d[le] = d.get(le, 0) + float(m.group(2))  # summed over namespaces
    return d
a, b = buckets(f"{tmp}/m1"), buckets(f"{tmp}/m2")
les = sorted(b)
total = b[les[-1]] - a.get(les[-1], 0) if les else 0
def q(p):
    for le in les:
        if total and b[le] - a.get(le, 0) >= p * total:
            return le * 1e6
    return float('nan')
w = row(f"{tmp}/w.log", "write") if name.startswith("writer") else None
# tcppair: "reader N ops/s p50 X us p99 Y us writer Z MB/s"
f = open(f"{tmp}/f.log").read().split()
fl = (float(f[f.index('p99') + 1]), float(f[f.index('writer') + 1])) if 'p99' in f else (float('nan'),) * 2
print(name, rnd, r[3] if r else 'nan', r[5] if r else 'nan', q(0.5), q(0.99), w[1] if w else 'nan',
      fl[0], fl[1] if name.startswith("writer") else 'nan')
PY
  rm -f "$tmp/w.log" "$tmp/f.log"
}

scenarios=()
for s in alone busy19 writer19 writer19-core0 writer0-core0; do
  [[ $s =~ $only ]] && scenarios+=("$s")
done
for round in $(seq "$rounds"); do
  for s in "${scenarios[@]}"; do
    measure "$s" "$round"
    echo "round $round: $(tail -1 "$tmp/results")" >&2
  done
done

python3 - "$tmp/results" "${scenarios[@]}" <<'PY'
import sys, statistics, math
rows = [l.split() for l in open(sys.argv[1])]
def med(name, col):
    v = [float(r[col]) for r in rows if r[0] == name and not math.isnan(float(r[col]))]
    return statistics.median(v) if v else float('nan')
alone, falone = med('alone', 3), med('alone', 7)
print(f"{'scenario':16} {'host p50':>9} {'host p99':>9} {'p99/alone':>9} {'target p50<=':>12} {'target p99<=':>12}"
      f" {'writer MiB/s':>12} {'floor p99':>9} {'p99/alone':>9} {'writer MB/s':>11}")
for s in sys.argv[2:]:
    p99, fp99 = med(s, 3), med(s, 7)
    print(f"{s:16} {med(s, 2):9.1f} {p99:9.1f} {p99 / alone:8.1f}x {med(s, 4):12.1f} {med(s, 5):12.1f}"
          f" {med(s, 6):12.0f} {fp99:9.1f} {fp99 / falone:8.1f}x {med(s, 8):11.0f}")
print("(us; host = the reader's perf, target = its read latency histogram's bucket bounds, floor = bench/tcppair.c in"
      " the same placement; medians of the rounds)")
PY
