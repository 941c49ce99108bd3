#!/usr/bin/env bash
# JMH microbenchmarks of the hot paths (bench/jmh, a Maven module outside the default build, profile -Pjmh):
#   CapsuleBenchmark          SQE/CQE encode and decode with a keyed SGL (protocol)
#   FpduFramingBenchmark      MPA/DDP/RDMAP framing of a Send and an RDMA Write, 64 B and 4 KiB, CRC32C off/on,
#                             and the receive-side check (common-verbs softiwarp)
#   CompletionQueueBenchmark  SoftiwarpCompletionQueue: empty poll, push+poll, batch, producer vs polling consumer
#
#   bench/jmh.sh                 short defaults (1 fork, 2 x 1 s warm-up, 3 x 1 s measured: ~2 minutes)
#   bench/jmh.sh Fpdu -p crc=true   any JMH arguments instead (a benchmark regex, -wi, -i, -f, -prof gc ...)
#
# Not run by CI. Results also in bench/out/jmh-<date>.txt. Env: JAVA_HOME (Java 25, found like bin/nvmf4j).
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
out=$root/bench/out
mkdir -p "$out"
if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then
  for j in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-*; do [ -x "$j/bin/java" ] && { export JAVA_HOME=$j; break; }; done
fi
echo "jmh: JAVA_HOME=$JAVA_HOME; building bench/jmh (mvn -Pjmh -pl bench/jmh -am package)" >&2
(cd "$root" && mvn -B -q -Pjmh -pl bench/jmh -am package -DskipTests) > "$out/jmh-build.log" 2>&1 \
  || { grep -E 'ERROR' "$out/jmh-build.log" | head -20 >&2; exit 1; }
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(-f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc)
log=$out/jmh-$(date +%Y%m%d-%H%M%S).txt
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar "$root/bench/jmh/target/benchmarks.jar" "${args[@]}" \
  2>&1 | tee "$log"
echo "jmh: output in $log" >&2
