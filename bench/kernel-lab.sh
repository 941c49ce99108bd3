#!/usr/bin/env bash
# The kernel side by side (issue 8, item 3), in the project's QEMU lab: runs the two interop checks that put
# nvmf4j beside the Linux kernel, through interop/run (one guest boot), and prints both tables:
#   26-kernel-host-fio-nvmf4j-vs-nvmet   the guest kernel host's fio against nvmf4j serve and against nvmet-rdma
#   33-nvmf4j-perf-vs-fio-kernel-target  nvmf4j perf and the guest kernel host's fio against nvmet-rdma
# Same jobs everywhere (64 KiB sequential write QD8, 4 KiB random read QD16, libaio, direct, time-based).
# The guest is emulated (QEMU TCG, no KVM on these machines): the figures are for ratios only.
#
#   bench/kernel-lab.sh [--seconds S] [interop/run options, e.g. -v]
#
# --seconds S: measured seconds per job (default 8, at most 15: the checks' time limits allow no more).
# Needs what interop/run needs (root, QEMU, Java 25, Maven; the lab is built on first use, ~70 s).
# Env: WORK (lab dir, default interop/work), FWD_PORT, as interop/run. Tables and JSON: $WORK/results/.
set -uo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
export WORK=${WORK:-$root/interop/work}
checks=(26-kernel-host-fio-nvmf4j-vs-nvmet 33-nvmf4j-perf-vs-fio-kernel-target)
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds)
      [[ ${2:-} =~ ^[0-9]+$ ]] && [ "$2" -ge 1 ] && [ "$2" -le 15 ] ||
        { echo "bench/kernel-lab.sh: --seconds takes 1..15" >&2; exit 2; }
      export KH_LAB_SECONDS=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then
  for j in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-*; do [ -x "$j/bin/java" ] && { export JAVA_HOME=$j; break; }; done
fi
for c in "${checks[@]}"; do rm -f "$WORK/results/$c.txt" "$WORK/results/$c.json"; done
"$root/interop/run" "${args[@]}" "${checks[@]}"
rc=$?
echo
for c in "${checks[@]}"; do
  if [ -e "$WORK/results/$c.txt" ]; then
    echo "== $c"; cat "$WORK/results/$c.txt"; echo "   JSON: $WORK/results/$c.json"; echo
  else
    echo "== $c: no table (the check did not get that far; logs: $WORK/share/sync/$c/)"
  fi
done
exit $rc
