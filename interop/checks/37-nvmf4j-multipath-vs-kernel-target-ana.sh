# nvmf4j (softiwarp) multipath against the Linux kernel's nvmet-rdma over the guest's siw0: one nvmet
# subsystem behind two nvmet ports (10.0.2.15:4420 and :4421, forwarded from 127.0.0.1:$FWD_PORT and
# 127.0.0.1:$FWD_PORT2), ANA group 1 optimized on port 1 and non-optimized on port 2 (configfs
# ports/N/ana_groups/1/ana_state). `nvmf4j perf --verify` runs over both paths (--traddr with the two
# addresses) while the guest makes port 1 inaccessible and then optimized again: nvmet fails I/O on port 1
# with Asymmetric Access Inaccessible (302h) and sends the ANA change notice; the run must end with no
# error, every read verified, and I/O on both paths.
# interop/run forwards 127.0.0.1:$FWD_PORT2 (14421, or a free port) to the guest's :4421 for it:
#   interop/run 37
CHECK_TIMEOUT=200

guest_part() {
  . /lab/guest/kernel-target.sh
  local d0 rc=0 port2=$KT_CFG/ports/2
  d0=$(dmesg | wc -l)
  kt_setup 64 || { dmesg | tail -20; return 1; }
  mkdir "$port2" && echo rdma > "$port2/addr_trtype" && echo ipv4 > "$port2/addr_adrfam" &&
    echo "$GUEST_IP" > "$port2/addr_traddr" && echo 4421 > "$port2/addr_trsvcid" &&
    echo non-optimized > "$port2/ana_groups/1/ana_state" &&
    ln -s "$KT_CFG/subsystems/$KT_NQN" "$port2/subsystems/$KT_NQN" || { note "port 2 failed"; rc=1; }
  note "ANA: port 1 $(cat "$KT_CFG/ports/1/ana_groups/1/ana_state"), port 2 $(cat "$port2/ana_groups/1/ana_state")"
  signal kernel-target-ready "$KT_NQN"
  if await perf-running 120 > /dev/null; then
    sleep 3
    echo inaccessible > "$KT_CFG/ports/1/ana_groups/1/ana_state"; note "port 1 inaccessible"
    sleep 4
    echo optimized > "$KT_CFG/ports/1/ana_groups/1/ana_state"; note "port 1 optimized"
  else
    rc=1
  fi
  await host-done 150 > /dev/null || rc=1
  kt_quiet_after_disconnect 20 || rc=1
  [ -L "$port2/subsystems/$KT_NQN" ] && rm -f "$port2/subsystems/$KT_NQN"
  [ -d "$port2" ] && rmdir "$port2"
  kt_dmesg_check "$d0" || rc=1
  kt_teardown
  return $rc
}

host_part() {
  local nqn rc=0 fwd2=${FWD_PORT2:-14421}
  nqn=$(await kernel-target-ready 90) || return 1
  local A=(--traddr "127.0.0.1:$FWD_PORT,127.0.0.1:$fwd2" --nqn "$nqn" --connect-timeout 20)
  note "nvmf4j perf ${A[*]} --verify --size 4m -w randrw -M 50 -o 4k -q 16 -t 14 --ramp 0 --json"
  timeout -k 5 90 "$NVMF4J" perf "${A[@]}" --verify --size 4m -w randrw -M 50 -o 4k -q 16 -t 14 --ramp 0 -v \
      --json > "$SYNC/perf.json" 2> "$SYNC/perf.err" &
  local pid=$!
  # the guest flips once perf is past its prefill
  for _ in $(seq 600); do grep -q 'perf \[  1/' "$SYNC/perf.err" 2>/dev/null && break; sleep 0.1; done
  signal perf-running
  wait $pid || rc=1
  tr '\r' '\n' < "$SYNC/perf.err" | grep -E 'paths to|ANA group|ANA status|per path|failed|error' | head -20
  python3 - "$SYNC/perf.json" "$SYNC/perf.err" <<'PY' || rc=1
import json, re, sys
r = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
problems = []
if r["read"]["ios"] == 0 or r["write"]["ios"] == 0: problems.append("no reads or no writes")
if r.get("verified_blocks", 0) <= 0: problems.append("no block verified")
m = re.search(r"I/Os per path \[(\d+), (\d+)\]", err)
if not m or int(m.group(1)) == 0 or int(m.group(2)) == 0: problems.append("not both paths used")
if "inaccessible" not in err: problems.append("the inaccessible state was never seen")
print("perf: %.0f IOPS, %d verified blocks, per path %s" % (r["total"]["iops"], r.get("verified_blocks", 0),
      m.group(0) if m else "?"))
for p in problems: print("check:", p)
sys.exit(1 if problems else 0)
PY
  signal host-done
  return $rc
}
