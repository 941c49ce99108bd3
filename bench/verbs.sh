#!/usr/bin/env bash
# Verbs benchmark (not a test): prints, from one run on 127.0.0.1, a provider's (default softiwarp)
# Send/Receive round trip (8 B and 4 KiB, median and p99) and RDMA Write / RDMA Read bandwidth
# (64 KiB and 1 MiB), each beside the same figure for plain TCP sockets measured in the same run
# (a Java ping-pong and a Java stream), the ratio, and the C reference tcprr.c (bench/tcprr.c,
# compiled here) for the TCP figures; plus heap bytes allocated per operation and GCs in each
# measured window (steady state should allocate nothing).
#
#   bench/verbs.sh [--provider NAME] [--seconds S] [--warmup S] [--depth N]
#
# Env: JAVA_HOME (Java 25; found like bin/nvmf4j when unset), BENCH_JAVA_OPTS (extra JVM flags).
# Output of the build and the C reference: bench/out/ (git-ignored).
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
out=$root/bench/out
mkdir -p "$out"
seconds=3
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[i]}" = --seconds ] && seconds=${args[i+1]}; done

if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then
  for j in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-*; do [ -x "$j/bin/java" ] && { export JAVA_HOME=$j; break; }; done
fi
echo "bench: JAVA_HOME=$JAVA_HOME; building the cli jar (the verbs bench lives in cli)" >&2
(cd "$root" && mvn -B -q -DskipTests -pl cli -am package) > "$out/build.log" 2>&1 \
  || { grep -E 'ERROR' "$out/build.log" | head -20 >&2; exit 1; }
jar=$root/cli/target/nvmf4j.jar

# C reference: raw TCP on loopback, two processes, blocking reads (bench/tcprr.c)
refs=()
if command -v gcc >/dev/null && gcc -O2 -o "$out/tcprr" "$root/bench/tcprr.c" 2>"$out/tcprr-build.log"; then
  echo "bench: C reference tcprr, ${seconds} s per figure" >&2
  c_rr() { "$out/tcprr" rr "$1" "$1" 1 "$seconds" | tee -a "$out/tcprr.log" | sed -n 's/.*median \([0-9.]*\) us.*/\1/p'; }
  c_stream() { "$out/tcprr" stream "$1" "$seconds" | tee -a "$out/tcprr.log" | sed -n 's/.*: \([0-9.]*\) MB\/s.*/\1/p'; }
  : > "$out/tcprr.log"
  refs+=(--ref "rtt8=$(c_rr 8)" --ref "rtt4k=$(c_rr 4096)")
  refs+=(--ref "stream64k=$(c_stream 65536)" --ref "stream1m=$(c_stream 1048576)")
else
  echo "bench: no gcc (or tcprr.c did not build): no C reference column" >&2
fi

# shellcheck disable=SC2086
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xms256m -Xmx256m ${BENCH_JAVA_OPTS:-} \
  -cp "$jar" io.nvmf4j.cli.bench.VerbsBench "${refs[@]}" "$@"
