#!/usr/bin/env bash
# ibverbs benchmark in the QEMU lab (not a test, not part of CI): on the guest's rxe0 (kernel rxe, RoCEv2 on
# eth1), the Java Send/Receive ping-pong and RDMA Write bandwidth of the verbs bench (io.nvmf4j.cli.bench,
# --provider ibverbs) beside perftest's ib_send_lat and ib_write_bw on the same device in the same guest run,
# with ratios. The guest is emulated (TCG, single-threaded for the JVM): only the ratios mean anything.
#
#   bench/ibverbs-lab.sh [DEVICE]      DEVICE rxe0 (default) or siw0
#
# Env: WORK (lab dir, default interop/work), SECONDS_PER_FIGURE (2), WARMUP_SECONDS (0.5), FWD_PORT (unused forward, 24420),
#   JAVA_HOME (Java 25, found like bench/verbs.sh when unset). Builds the lab when missing (interop/lab.sh).
# Notes on what is compared: ib_send_lat prints half the round trip (t_typical = median one-way); the table
# doubles it to compare with the Java round trip. ib_write_bw runs 1000 x 64 KiB and 100 x 1 MiB, depth 8 (-t 8)
# like the Java figure's 8 outstanding writes. Both perftest tools connect through rdma_cm (-R), like nvmf4j.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
export WORK=${WORK:-$root/interop/work}
export FWD_PORT=${FWD_PORT:-24420}
device=${1:-rxe0}
case $device in rxe*) ip=10.0.3.15 ;; siw*) ip=10.0.2.15 ;; *) echo "device rxe0 or siw0" >&2; exit 2 ;; esac
secs=${SECONDS_PER_FIGURE:-2}
warmup=${WARMUP_SECONDS:-0.5}   # per figure
if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then
  for j in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-*; do [ -x "$j/bin/java" ] && { export JAVA_HOME=$j; break; }; done
fi
"$root/interop/lab.sh" built || { echo "bench: building the lab (interop/lab.sh build)" >&2; "$root/interop/lab.sh" build >&2; }
echo "bench: compiling common-verbs and the verbs bench (cli)" >&2
(cd "$root" && mvn -B -q -pl cli -am compile) >&2
b=$WORK/share/bench
rm -rf "$b" && mkdir -p "$b" && cp -r "$root/common-verbs/target/classes" "$b/"
mkdir -p "$b/classes/io/nvmf4j/cli/perf" && cp -r "$root/cli/target/classes/io/nvmf4j/cli/bench" "$b/classes/io/nvmf4j/cli/" && \
  cp "$root"/cli/target/classes/io/nvmf4j/cli/perf/LatencyHistogram*.class "$b/classes/io/nvmf4j/cli/perf/"
cat > "$b/guest.sh" <<GUEST
#!/bin/bash
ulimit -l unlimited
modprobe -a ib_uverbs rdma_ucm siw rdma_rxe
rdma link add siw0 type siw netdev eth0; rdma link add rxe0 type rxe netdev eth1
cd /lab/bench
lat() {  # lat SIZE: ib_send_lat t_typical (us, one-way median)
  timeout 120 ib_send_lat -R -d $device -s \$1 -n 1000 > srv-lat-\$1.log 2>&1 & local s=\$!; sleep 3
  timeout 120 ib_send_lat -R -d $device -s \$1 -n 1000 $ip > lat-\$1.log 2>&1; wait \$s
  awk '\$1 == '\$1' {print \$5}' lat-\$1.log | head -1
}
bw() {   # bw SIZE ITERATIONS: ib_write_bw BW average (MB/sec)
  timeout 150 ib_write_bw -R -d $device -s \$1 -n \$2 -t 8 > srv-bw-\$1.log 2>&1 & local s=\$!; sleep 3
  timeout 150 ib_write_bw -R -d $device -s \$1 -n \$2 -t 8 $ip > bw-\$1.log 2>&1; wait \$s
  awk '\$1 == '\$1' {print \$4}' bw-\$1.log | head -1
}
echo "perftest" >&2
echo "lat8=\$(lat 8) lat4k=\$(lat 4096) bw64k=\$(bw 65536 1000) bw1m=\$(bw 1048576 100)" > perftest.txt
echo "java" >&2
/opt/jdk/bin/java --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xss1m -Xms256m -Xmx256m \
  -Dnvmf4j.ibverbs.device=$device -Dnvmf4j.bench.address=$ip -cp /lab/bench/classes \
  io.nvmf4j.cli.bench.VerbsBench --provider ibverbs --seconds $secs --warmup $warmup --depth 8 > java.txt 2> java.err
echo "java rc=\$?" >&2
echo "lat \$(cat perftest.txt)" >&2
GUEST
echo "bench: booting the lab (single-threaded TCG), device $device at $ip" >&2
t0=$SECONDS
ACCELOPT=,thread=single timeout 1200 "$root/interop/lab.sh" run "bash /lab/bench/guest.sh" > "$b/console.log" 2>&1 || true
echo "bench: guest run took $((SECONDS - t0)) s (console: $b/console.log)" >&2
[ -s "$b/java.txt" ] || { echo "bench: no Java figures"; tail -30 "$b/console.log" "$b/java.err" 2>/dev/null; exit 1; }
cat "$b/java.txt"
python3 - "$b/perftest.txt" "$b/java.txt" "$device" <<'PY'
import sys, re
perf = dict(kv.split("=", 1) for kv in open(sys.argv[1]).read().split())
java = {}
for line in open(sys.argv[2]):
    name = line[:42].strip()
    rest = line[42:].split()
    if len(rest) >= 2 and rest[0] in ("us", "MB/s"):
        try: java[name] = float(rest[1])
        except ValueError: pass
def f(x):
    try: return float(x)
    except (TypeError, ValueError): return None
rows = [
    ("Send/Recv round trip 8 B, median (us)", java.get("Send/Recv round trip 8 B, median"), f(perf.get("lat8")), 2, True),
    ("Send/Recv round trip 4 KiB, median (us)", java.get("Send/Recv round trip 4 KiB, median"), f(perf.get("lat4k")), 2, True),
    ("RDMA Write 64 KiB, depth 8 (MB/s)", java.get("RDMA Write 64 KiB (TCP: stream)"), f(perf.get("bw64k")), 1, False),
    ("RDMA Write 1 MiB, depth 8 (MB/s)", java.get("RDMA Write 1 MiB (TCP: stream)"), f(perf.get("bw1m")), 1, False),
]
print()
print("ibverbs on %s in the QEMU guest (TCG, emulated: ratios only); perftest latency = 2 x ib_send_lat t_typical"
      % sys.argv[3])
fmt = "%-42s %12s %12s %8s"
print(fmt % ("figure", "nvmf4j", "perftest", "ratio"))
print("-" * 78)
for name, j, p, scale, lower in rows:
    p = p * scale if p is not None else None
    ratio = "%.2f" % (j / p) if j and p else "-"
    print(fmt % (name, "%.1f" % j if j else "failed", "%.1f" % p if p else "failed", ratio))
print("ratio = nvmf4j / perftest (latency: above 1 is slower; bandwidth: below 1 is slower)")
PY
