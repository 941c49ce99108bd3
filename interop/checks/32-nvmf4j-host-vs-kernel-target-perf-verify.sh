# nvmf4j (softiwarp) as the host against the Linux kernel's nvmet-rdma over the guest's siw0:
# `nvmf4j perf --verify` with random 4 KiB and 128 KiB I/O, a few seconds each: first a mixed
# random read/write run (perf writes stamped patterns over the region, then every read is checked
# for its LBA and the generation last written there), then random reads only. 4 KiB writes travel
# in the capsule (nvmet-rdma's inline size is 4096), 128 KiB ones by keyed SGL (the kernel
# RDMA-Reads them); reads come back by the kernel's RDMA Writes. Depth 16 at 4 KiB, 8 at 128 KiB:
# deep enough to keep several commands in flight on the kernel's queue. Each run is one connect,
# I/O queue, disconnect; the guest checks that the kernel logged no error and that no queue pair is
# left, then runs the same workloads with its own kernel host (nvme-rdma + fio) against the same
# target as a yardstick ("reference:" lines). Under TCG the figures are for ratios only.
CHECK_TIMEOUT=175
# --verify prefills the region first: small regions keep that short under TCG
REGION_4K=2m REGION_128K=4m

guest_part() {
  . /lab/guest/kernel-target.sh
  local d0 rc=0
  d0=$(dmesg | wc -l)
  kt_setup 64 || { dmesg | tail -20; return 1; }
  kt_serve_host 160 "$d0" || rc=1
  local n; n=$(dmesg | tail -n +"$((d0 + 1))" | grep -c "creating nvm controller .* for subsystem $KT_NQN")
  note "nvmet created $n NVM controller(s) for $KT_NQN (one per perf run)"
  kt_kernel_host_reference
  kt_teardown
  return $rc
}

host_part() {
  kt_host_part host_steps
}

# perf_run LABEL REGION ARGS...: one `nvmf4j perf --verify --json` run; prints its figures, 1 on failure.
perf_run() {
  local label=$1 region=$2; shift 2
  local t=$SECONDS
  note "nvmf4j perf ${A[*]} --verify --size $region $* --label $label"
  if ! timeout -k 5 60 "$NVMF4J" perf "${A[@]}" --verify --size "$region" "$@" --label "$label" --json \
        > "$SYNC/$label.json" 2> "$SYNC/$label.err"; then
    tr '\r' '\n' < "$SYNC/$label.err" | grep -v '^$' | tail -15; cat "$SYNC/$label.json"
    note "perf $label failed after $((SECONDS - t)) s"
    return 1
  fi
  tr '\r' '\n' < "$SYNC/$label.err" | grep -E 'prefill|granted' | tail -2
  python3 - "$SYNC/$label.json" "$SYNC/figures.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rd, wr, tot = r["read"], r["write"], r["total"]
problems = []
if tot["iops"] <= 0: problems.append("no I/O completed")
if r["read_percent"] > 0 and rd["ios"] == 0: problems.append("no read completed")
if r["read_percent"] < 100 and wr["ios"] == 0: problems.append("no write completed")
if r["read_percent"] > 0 and r.get("verified_blocks", 0) <= 0: problems.append("no block verified")
def lat(o):
    l = o["latency_us"]
    return "avg %.0f p50 %.0f p99 %.0f max %.0f us" % (l["avg"], l["p50"], l["p99"], l["max"]) if o["ios"] else "-"
line = ("%-14s %-9s %6d B qd%-3d  %8.0f IOPS %7.2f MiB/s  read %d ios (%s)  write %d ios (%s)  verified %d blocks"
        % (r["label"], r["workload"], r["io_size"], r["queue_depth"], tot["iops"], tot["mib_per_s"],
           rd["ios"], lat(rd), wr["ios"], lat(wr), r.get("verified_blocks", 0)))
print(line)
open(sys.argv[2], "a").write(line + "\n")
for p in problems: print("perf check:", p)
sys.exit(1 if problems else 0)
PY
  local prc=$?
  note "perf $label took $((SECONDS - t)) s in all (JVM start, connect, prefill, ramp, run, disconnect)"
  return $prc
}

host_steps() {
  local nqn=$1 rc=0
  A=(--traddr 127.0.0.1 --trsvcid "$FWD_PORT" --nqn "$nqn" --connect-timeout 20)
  perf_run randrw-4k    $REGION_4K -w randrw -M 50 -o 4k   -q 16 -t 4 --ramp 0.5 || rc=1
  perf_run randread-4k  $REGION_4K -w randread     -o 4k   -q 16 -t 3 --ramp 0.5 || rc=1
  perf_run randrw-128k  $REGION_128K -w randrw -M 50 -o 128k -q 8  -t 4 --ramp 0.5 || rc=1
  perf_run randread-128k $REGION_128K -w randread    -o 128k -q 8  -t 3 --ramp 0.5 || rc=1
  note "figures (QEMU TCG guest: ratios only):"
  cat "$SYNC/figures.txt"
  return $rc
}
