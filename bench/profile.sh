#!/usr/bin/env bash
# A native CPU profile (Linux perf, JIT frames named) of nvmf4j serve and nvmf4j perf under one workload: where
# the CPU of an I/O goes, kernel and copy stubs included, which JFR's execution samples cannot show (they put half
# of the target's QD32 samples on postReceive, which perf shows at 0.1 %; see bench/README.md).
#
#   bench/profile.sh [-q 32] [-o 4k] [-w randread] [-P 1] [--seconds 12] [--file PATH] [--out DIR]
#                    [--target-cpu 0] [--host-cpu 1]
#
# serve --ram 1G (or --file PATH: the file backend, its io_uring and the kernel's file-system path) on core 0, perf
# on core 1 (as bench/spdk.sh's pinned side; for a file, put serve on the core that takes the disk's interrupts,
# as bench/disk.sh does, with --target-cpu and --host-cpu); both JVMs run with
# -XX:+PreserveFramePointer (call graphs through JIT code) and -XX:+DumpPerfMapAtExit (/tmp/perf-PID.map, the
# names of JIT code); `perf record -g` samples each process for the middle of the run. Prints the top symbols
# of each side (self time) and the perf figures; the recordings stay in DIR (default bench/out/profile-DATE) for
# `perf report -i DIR/serve.data`. Needs perf (Debian: linux-perf) and root or kernel.perf_event_paranoid <= 1.
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
QD=32 SIZE=4k RW=randread QUEUES=1 SECONDS_=12 OUT= NAMESPACE=(--ram 1G) TARGET_CPU=0 HOST_CPU=1
while [ $# -gt 0 ]; do
  case $1 in
    -q) QD=$2; shift 2 ;;
    -o) SIZE=$2; shift 2 ;;
    -w) RW=$2; shift 2 ;;
    -P) QUEUES=$2; shift 2 ;;
    --seconds) SECONDS_=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --file) NAMESPACE=(--file "$2"); shift 2 ;;
    --target-cpu) TARGET_CPU=$2; shift 2 ;;
    --host-cpu) HOST_CPU=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "profile.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
command -v perf > /dev/null || { echo "profile.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
[ "$SECONDS_" -ge 6 ] || { echo "profile.sh: --seconds must be at least 6" >&2; exit 2; }
OUT=${OUT:-$ROOT/bench/out/profile-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
NVMF4J=$ROOT/bin/nvmf4j
"$NVMF4J" --version > /dev/null   # builds the jar once, before two JVMs would race to
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
NQN=nqn.2026-12.io.nvmf4j:profile
OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer"
NVMF4J_JAVA_OPTS="$OPTS" setsid taskset -c "$TARGET_CPU" "$NVMF4J" serve "${NAMESPACE[@]}" --nqn "$NQN" --provider softiwarp \
  --listen "127.0.0.1:$PORT" > "$OUT/serve.log" 2>&1 &
SERVE=$!
trap 'kill -TERM $SERVE 2> /dev/null || true' EXIT
for _ in $(seq 600); do grep -q "listening on" "$OUT/serve.log" && break; sleep 0.2; done
grep -q "listening on" "$OUT/serve.log" || { echo "profile.sh: serve did not start; see $OUT/serve.log" >&2; exit 1; }
# the warm-up of bench/spdk.sh: every block of the RAM namespace written once
"$NVMF4J" perf --traddr 127.0.0.1 --trsvcid "$PORT" --nqn "$NQN" --provider softiwarp -q 8 -o 128k -w write -t 4 \
  > /dev/null 2>&1
NVMF4J_JAVA_OPTS="$OPTS" taskset -c "$HOST_CPU" "$NVMF4J" perf --traddr 127.0.0.1 --trsvcid "$PORT" --nqn "$NQN" \
  --provider softiwarp -q "$QD" -o "$SIZE" -w "$RW" -P "$QUEUES" -t "$SECONDS_" -a 2 --cpu-of "$SERVE" \
  > "$OUT/perf.out" 2>&1 &
PERF=$!
sleep 4
perf record -F 1999 -g -p "$SERVE" -o "$OUT/serve.data" -- sleep $((SECONDS_ - 4)) 2> "$OUT/record-serve.log" &
perf record -F 1999 -g -p "$PERF" -o "$OUT/perf.data" -- sleep $((SECONDS_ - 4)) 2> "$OUT/record-perf.log"
wait "$PERF" || true
kill -TERM "$SERVE"; wait "$SERVE" 2> /dev/null || true   # a normal exit writes serve's /tmp/perf-PID.map
trap - EXIT
for side in serve perf; do
  echo "== $side: top symbols, self time (perf report -i $OUT/$side.data --no-children)"
  perf report -i "$OUT/$side.data" --no-children --sort dso,symbol --stdio -g none 2> /dev/null \
    | grep -E '^ +[0-9]' | head -25 | cut -c1-160
done
echo "== perf"
grep -vE '^perf \[' "$OUT/perf.out" | tail -5
