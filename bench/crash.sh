#!/usr/bin/env bash
# kill -9 durability: nvmf4j serve --file killed with SIGKILL while a host keeps 32 writes in flight, N times;
# every write the host saw acknowledged must be in the file, whole (cli KillNineDurabilityTest, which mvn verify
# runs with 3 trials).
#
#   bench/crash.sh [TRIALS]        (default 100; about 3 s a trial)
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
cd "$root"
trials=${1:-100}
if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then
  for j in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-*; do
    [ -x "$j/bin/java" ] && { export JAVA_HOME=$j; break; }
  done
fi
mvn -B -q -pl cli -am test-compile surefire:test@default-test -Dtest=KillNineDurabilityTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Dnvmf4j.crashTrials="$trials" 2>&1 | grep -E 'FAIL|ERROR\]' || true
report=cli/target/surefire-reports/TEST-io.nvmf4j.cli.serve.KillNineDurabilityTest.xml
grep -h 'kill -9 durability' cli/target/surefire-reports/io.nvmf4j.cli.serve.KillNineDurabilityTest-output.txt \
  2>/dev/null | tail -1
[ -f "$report" ] && grep -q 'failures="0"' "$report" && grep -q 'errors="0"' "$report" \
  && echo "crash: $trials trials passed" && exit 0
echo "crash: failed (see $report)" >&2
exit 1
