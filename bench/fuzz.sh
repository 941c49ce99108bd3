#!/usr/bin/env bash
# Long fuzz run (not a test): coverage-guided fuzzing with Jazzer (libFuzzer) of every parser that reads peer bytes,
# SECONDS_PER_TARGET seconds each (default 60), and a table per target: inputs run, inputs/s, corpus size, findings,
# and slow inputs (one input over libFuzzer's 10 s: listed, not counted; replay them alone, see bench/README.md).
# Exits 1 when any target has a finding (a crash/timeout/OOM input is written to bench/out/fuzz/<target>/: copy it
# into the target's corpus directory, src/test/resources/.../<Class>Inputs/<method>/, to keep it as a regression
# test that mvn verify replays).
#
#   bench/fuzz.sh [-j N] [-k N] [--list] [SECONDS_PER_TARGET] [TARGET...]
#
#   -j N     run N targets at a time (default 1; each JVM takes one core and up to 1 GiB)
#   -k N     keep going until N distinct findings per target (Jazzer --keep_going; default 1: stop at the first)
#   --list   print the targets and exit
#   TARGET   a name from --list, or a prefix of names (e.g. "verbs." for all softiwarp targets); default: all
#
# Env: JAVA_HOME (Java 25; found like bin/nvmf4j when unset), FUZZ_JAVA_OPTS (extra JVM flags, default
# -Xmx1g -XX:+UseParallelGC: targets that build pages of megabytes per input, such as the ANA log, run 3-6x faster
# than under G1, which allocates each as a humongous object),
# FUZZ_ARGS (extra libFuzzer flags, e.g. -seed=1). The corpus grows in bench/out/fuzz/<target>/corpus (git-ignored)
# and is reused by the next run; the committed corpus is read as a second, read-only corpus directory.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
out=$root/bench/out/fuzz

# name module class method max_len instrumented-packages (coverage feedback only from the code under test: the
# socket stack and test doubles around a target would only slow it down)
targets=(
  "protocol.capsule      protocol     io.nvmf4j.protocol.fuzz.ProtocolFuzzTest capsule 1088 io.nvmf4j.protocol.**"
  "protocol.connectData  protocol     io.nvmf4j.protocol.fuzz.ProtocolFuzzTest connectData 1100 io.nvmf4j.protocol.**"
  "protocol.rdmaCm       protocol     io.nvmf4j.protocol.fuzz.ProtocolFuzzTest rdmaCm 300 io.nvmf4j.protocol.**"
  "protocol.hostData     protocol     io.nvmf4j.protocol.fuzz.ProtocolFuzzTest hostData 8192 io.nvmf4j.protocol.**"
  "config.configText     config       io.nvmf4j.config.fuzz.ConfigFuzzTest configText 16384 io.nvmf4j.config.**"
  "target.fabrics        target       io.nvmf4j.target.fuzz.TargetFuzzTest fabrics 4096 io.nvmf4j.target.**:io.nvmf4j.protocol.**"
  "verbs.mpaFrames       common-verbs io.nvmf4j.verbs.softiwarp.fuzz.SoftiwarpFuzzTest mpaFrames 1024 io.nvmf4j.verbs.softiwarp.mpa.**"
  "verbs.mpaListener     common-verbs io.nvmf4j.verbs.softiwarp.fuzz.SoftiwarpFuzzTest mpaListener 1024 io.nvmf4j.verbs.softiwarp.*:io.nvmf4j.verbs.softiwarp.mpa.**"
  "verbs.receiver        common-verbs io.nvmf4j.verbs.softiwarp.fuzz.SoftiwarpFuzzTest receiver 4096 io.nvmf4j.verbs.softiwarp.*:io.nvmf4j.verbs.softiwarp.ddp.**:io.nvmf4j.verbs.softiwarp.rdmap.**"
  "initiator.hostParsing initiator    io.nvmf4j.initiator.fuzz.InitiatorFuzzTest hostParsing 16384 io.nvmf4j.initiator.*:io.nvmf4j.protocol.**"
  "initiator.identifyCtrl initiator    io.nvmf4j.initiator.fuzz.InitiatorParserFuzzTest identifyController 4200 io.nvmf4j.initiator.*:io.nvmf4j.protocol.**"
  "initiator.identifyNs  initiator    io.nvmf4j.initiator.fuzz.InitiatorParserFuzzTest identifyNamespace 4200 io.nvmf4j.initiator.*:io.nvmf4j.protocol.**"
  "initiator.discoveryLog initiator    io.nvmf4j.initiator.fuzz.InitiatorParserFuzzTest discoveryLog 8192 io.nvmf4j.initiator.*:io.nvmf4j.protocol.**"
  "initiator.anaLog      initiator    io.nvmf4j.initiator.fuzz.InitiatorParserFuzzTest anaLog 4200 io.nvmf4j.initiator.*:io.nvmf4j.protocol.**"
  "initiator.changedNs   initiator    io.nvmf4j.initiator.fuzz.InitiatorParserFuzzTest changedNamespaces 4200 io.nvmf4j.initiator.*:io.nvmf4j.protocol.**"
  "initiator.auth        initiator    io.nvmf4j.initiator.fuzz.InitiatorParserFuzzTest authMessages 1200 io.nvmf4j.initiator.*:io.nvmf4j.protocol.**"
  "initiator.tcpPdus     initiator    io.nvmf4j.initiator.fuzz.TcpHostPduFuzzTest pduStream 4400 io.nvmf4j.initiator.tcp.*:io.nvmf4j.protocol.**"
)

jobs=1
keep_going=1
seconds=60
selected=()
while [ $# -gt 0 ]; do
  case $1 in
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    -k) keep_going=$2; shift 2 ;;
    --list) for t in "${targets[@]}"; do read -r n m c f _ <<<"$t"; echo "$n  ($m: $c#$f)"; done; exit 0 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) if [[ $1 =~ ^[0-9]+$ ]] && [ -z "${seen_seconds:-}" ] && [ ${#selected[@]} -eq 0 ]; then
         seconds=$1; seen_seconds=1
       else
         selected+=("$1")
       fi
       shift ;;
  esac
done

run=()
for t in "${targets[@]}"; do
  read -r n _ <<<"$t"
  if [ ${#selected[@]} -eq 0 ]; then run+=("$t"); continue; fi
  for s in "${selected[@]}"; do [[ $n == "$s"* ]] && { run+=("$t"); break; }; done
done
[ ${#run[@]} -gt 0 ] || { echo "fuzz: no target matches ${selected[*]} (see --list)" >&2; exit 2; }

if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then
  for j in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-*; do [ -x "$j/bin/java" ] && { export JAVA_HOME=$j; break; }; done
fi
mkdir -p "$out"

# Build the test classes of the modules needed and write each one's test class path (no install: the reactor's
# modules are taken from their target/ directories).
modules=$(for t in "${run[@]}"; do read -r _ m _ <<<"$t"; echo "$m"; done | sort -u | paste -sd, -)
echo "fuzz: JAVA_HOME=$JAVA_HOME; building $modules (test classes)" >&2
offline=-o
for attempt in 1 2; do
  if (cd "$root" && mvn -B -q $offline -pl "$modules" -am test-compile dependency:build-classpath \
        -Dmdep.includeScope=test -Dmdep.outputFile=target/fuzz.classpath) > "$out/build.log" 2>&1; then
    break
  fi
  [ $attempt = 2 ] && { grep -E 'ERROR' "$out/build.log" | head -20 >&2; exit 1; }
  offline=   # first run on this machine: let Maven fetch Jazzer and the dependency plugin
done
# the parent POM wrote one too, into its basedir's target/: that is the module named "target", not a build dir
rm -f "$root/target/fuzz.classpath"

classpath() { # module -> its classes, test classes, and those of the reactor modules it depends on, then jars
  local m=$1 cp="$root/$m/target/test-classes:$root/$m/target/classes" entry dep
  for entry in $(tr ':' ' ' < "$root/$m/target/fuzz.classpath"); do
    case $entry in
      */io/nvmf4j/nvmf4j-*) dep=$(basename "$(dirname "$(dirname "$entry")")"); dep=${dep#nvmf4j-}
                            cp="$cp:$root/$dep/target/classes" ;;
      *) cp="$cp:$entry" ;;
    esac
  done
  echo "$cp"
}

fuzz_one() { # name module class method max_len instrumented
  local n=$1 m=$2 c=$3 f=$4 len=$5 includes=$6 dir=$out/$1
  local seeds=$root/$m/src/test/resources/$(dirname "${c//.//}")/$(basename "${c//.//}")Inputs/$f
  rm -rf "$dir/findings"; mkdir -p "$dir/corpus" "$dir/findings"
  set +e
  # shellcheck disable=SC2086
  # (fewer malloc arenas: targets that open and close connections per input otherwise grow RSS by fragmentation)
  MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} "$JAVA_HOME/bin/java" ${FUZZ_JAVA_OPTS:--Xmx1g -XX:+UseParallelGC} --enable-native-access=ALL-UNNAMED -XX:+EnableDynamicAgentLoading \
      -cp "$(classpath "$m")" com.code_intelligence.jazzer.Jazzer \
      --target_class="$c" --target_method="$f" --instrumentation_includes="$includes" \
      --disabled_hooks=com.code_intelligence.jazzer.sanitizers.ServerSideRequestForgery --keep_going="$keep_going" \
      -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 -max_len="$len" -print_final_stats=1 \
      -artifact_prefix="$dir/findings/" ${FUZZ_ARGS:-} "$dir/corpus" "$seeds" > "$dir/log" 2>&1
  local rc=$?
  set -e
  # libFuzzer's own count and fuzzing time (JVM start and corpus loading not included)
  local inputs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  local secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$dir/log" | tail -1)
  # crash-, timeout- and oom- inputs are findings; slow-unit- inputs (libFuzzer: one input took over 10 s) are
  # listed apart: on a loaded machine they are mostly a starved JVM, so replay them alone before calling them a bug
  local findings=$(find "$dir/findings" -type f ! -name 'slow-unit-*' | wc -l)
  local slow=$(find "$dir/findings" -type f -name 'slow-unit-*' | wc -l)
  [ $rc -ne 0 ] && [ "$findings" -eq 0 ] && findings=1   # a crash of the harness itself counts
  printf '%s %s %s %s %s %s\n' "$n" "${inputs:-0}" "${secs:-0}" "$findings" "$slow" \
      "$(find "$dir/corpus" -type f | wc -l)" > "$dir/result"
}

echo "fuzz: ${#run[@]} target(s), $seconds s each, $jobs at a time; logs in bench/out/fuzz/<target>/log" >&2
active=0
for t in "${run[@]}"; do
  read -r n m c f len includes <<<"$t"
  rm -f "$out/$n/result"
  fuzz_one "$n" "$m" "$c" "$f" "$len" "$includes" &
  active=$((active + 1))
  if [ "$active" -ge "$jobs" ]; then wait -n || true; active=$((active - 1)); fi
done
wait || true

status=0
printf '%-24s %14s %10s %12s %8s %9s %6s\n' target inputs seconds inputs/s corpus findings slow
for t in "${run[@]}"; do
  read -r n _ <<<"$t"
  if [ ! -f "$out/$n/result" ]; then printf '%-24s %s\n' "$n" "did not run"; status=1; continue; fi
  read -r _ inputs secs findings slow corpus < "$out/$n/result"
  printf '%-24s %14s %10s %12s %8s %9s %6s\n' "$n" "$inputs" "$secs" \
      "$(awk -v i="$inputs" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? i / s : 0) }')" "$corpus" "$findings" "$slow"
  if [ "$findings" -ne 0 ]; then
    status=1
    grep -m1 -E '^== Java Exception|^==[0-9]+== ERROR|Java Assertion' -A4 "$out/$n/log" | sed 's/^/    /' || true
    find "$out/$n/findings" -type f ! -name 'slow-unit-*' | sed 's/^/    input: /'
  fi
  if [ "$slow" -ne 0 ]; then
    find "$out/$n/findings" -type f -name 'slow-unit-*' | sed 's/^/    slow (replay it alone): /'
  fi
done
exit $status
