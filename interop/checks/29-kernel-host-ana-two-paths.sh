# One nvmf4j subsystem through two ports is one subsystem with two paths for the Linux kernel host (native NVMe
# multipath): `nvme list-subsys` lists both controllers, `nvme ana-log` shows each path's ANA state as nvmf4j sets
# it (port 1 optimized, port 2 non-optimized). fio writes with crc32c verification through the multipath device
# while the host flips the ANA states with `nvmf4j rpc nvmf_subsystem_listener_set_ana_state` (port 1
# inaccessible, back to optimized, port 2 inaccessible, back): the kernel fails I/O over to the other path on
# the ANA status and the ANA change notice, and fio ends with zero errors; nobody is disconnected. Then a second
# fio run while port 1 is withdrawn from the subsystem (`nvmf_subsystem_remove_listener`: its controller is
# disconnected, its reconnects refused) and given back (`nvmf_subsystem_add_listener`): zero errors again, and the
# kernel's controller on port 1 is live again at the end.
CHECK_TIMEOUT=480

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local p1 p2 sock=$SYNC/nvmf4j.sock cfg=$SYNC/two-paths.json rc=0
  p1=$(free_port); p2=$(free_port)
  [ "$p1" != "$p2" ] || p2=$((p1 + 1))
  cp "$ROOT/interop/checks/kernel-host-lib.sh" "$SYNC/"
  cat > "$cfg" <<JSON
{ "ports": [
    { "portid": 1, "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "$p1" },
      "subsystems": [ "$KH_SUBNQN" ], "ana_groups": [ { "grpid": 1, "ana": { "state": "optimized" } } ] },
    { "portid": 2, "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "$p2" },
      "subsystems": [ "$KH_SUBNQN" ], "ana_groups": [ { "grpid": 1, "ana": { "state": "non-optimized" } } ] } ],
  "subsystems": [ { "nqn": "$KH_SUBNQN", "attr": { "allow_any_host": "0" }, "allowed_hosts": [ "$KH_HOSTNQN" ],
                    "namespaces": [] } ],
  "hosts": [ { "nqn": "$KH_HOSTNQN" } ],
  "nvmf4j": { "provider": "softiwarp",
              "ram_namespaces": [ { "subsystem": "$KH_SUBNQN", "nsid": 1, "size": "64M" } ] } }
JSON
  "$NVMF4J" serve --config "$cfg" --rpc-socket "$sock" >> "$SYNC/serve.log" 2>&1 &
  KH_PID=$!
  for i in $(seq 600); do grep -q "listening on.*:$p2" "$SYNC/serve.log" && break; sleep 0.2; done
  grep -q "listening on.*:$p2" "$SYNC/serve.log" || { note "serve did not come up"; cat "$SYNC/serve.log"; kill $KH_PID; return 1; }
  signal target "$p1 $p2 $KH_SUBNQN $KH_HOSTNQN"
  kh_await fio-running 300 > /dev/null || { kh_stop_serve; cat "$SYNC/serve.log"; return 1; }
  local step
  for step in "$p1 inaccessible" "$p1 optimized" "$p2 inaccessible" "$p2 non_optimized"; do
    set -- $step
    sleep 4
    note "port $1: ANA state $2"
    "$NVMF4J" rpc --socket "$sock" nvmf_subsystem_listener_set_ana_state --param nqn="$KH_SUBNQN" \
        --param traddr=127.0.0.1 --param trsvcid="$1" --param ana_state="$2" > /dev/null || rc=1
  done
  "$NVMF4J" rpc --socket "$sock" nvmf_subsystem_listener_set_ana_state --param nqn="$KH_SUBNQN" \
      --param traddr=127.0.0.1 --param trsvcid="$p1" --param ana_state=inaccessible > /dev/null || rc=1
  local n
  n=$("$NVMF4J" rpc --socket "$sock" nvmf_subsystem_get_controllers --param nqn="$KH_SUBNQN" | grep -c '"cntlid"')
  note "controllers connected after the flips: $n"
  [ "$n" = 2 ] || { note "FAIL: a path was dropped"; rc=1; }
  signal flipped
  kh_await fio2-running 200 > /dev/null || rc=1
  sleep 4
  note "withdraw $KH_SUBNQN from port 1 ($p1)"
  "$NVMF4J" rpc --socket "$sock" nvmf_subsystem_remove_listener --param nqn="$KH_SUBNQN" --param traddr=127.0.0.1 \
      --param trsvcid="$p1" > /dev/null || rc=1
  sleep 8
  note "export it through port 1 again"
  "$NVMF4J" rpc --socket "$sock" nvmf_subsystem_add_listener --param nqn="$KH_SUBNQN" --param traddr=127.0.0.1 \
      --param trsvcid="$p1" > /dev/null || rc=1
  signal readded
  kh_await done 300 > /dev/null || rc=1
  kh_stop_serve || rc=1
  grep -E 'WARN|ERROR' "$SYNC/serve.log" | head -20
  return $rc
}

guest_part() {
  local p1 p2 subnqn hostnqn rc=0 dev c
  local t; t=$(await target 200) || return 1
  read -r p1 p2 subnqn hostnqn <<< "$t"
  modprobe nvme-rdma || return 1
  note "multipath: $(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null)"
  for p in $p1 $p2; do
    note "nvme connect -t rdma -a $HOST_FROM_GUEST -s $p -n $subnqn"
    timeout 90 nvme connect -t rdma -a "$HOST_FROM_GUEST" -s "$p" -n "$subnqn" --hostnqn="$hostnqn" \
        --reconnect-delay=2 || { note "FAIL: connect $p"; dmesg | tail -30; return 1; }
  done
  for i in $(seq 100); do
    dev=$(ls /dev/nvme*n1 2>/dev/null | grep -E '^/dev/nvme[0-9]+n1$' | head -1)
    [ -b "$dev" ] && break; sleep 0.2
  done
  nvme list-subsys | tee /tmp/subsys.log
  [ "$(grep -c ' rdma ' /tmp/subsys.log)" -ge 2 ] || { note "FAIL: list-subsys does not show two paths"; rc=1; }
  for c in /sys/class/nvme/nvme*; do
    [ "$(cat "$c/subsysnqn")" = "$subnqn" ] || continue
    note "${c##*/}: $(cat "$c/address"), ana-log:"
    nvme ana-log "/dev/${c##*/}" | tee -a /tmp/ana.log
  done
  grep -q 'optimized' /tmp/ana.log && grep -q 'non-optimized' /tmp/ana.log \
      || { note "FAIL: ana-log does not show optimized and non-optimized paths"; rc=1; }
  note "fio randwrite 4k iodepth=16 verify=crc32c on $dev (the multipath device) while ANA states flip"
  signal fio-running
  timeout 240 fio --name=ana --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
      --size=16M --time_based --runtime=24 --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
      --output=/tmp/fio.log > /dev/null 2>&1
  local frc=$?
  grep -E 'IOPS=|err=|verify|bad' /tmp/fio.log | head -6
  [ $frc = 0 ] || { note "FAIL: fio rc=$frc"; tail -30 /tmp/fio.log; rc=1; }
  await flipped 120 > /dev/null || rc=1
  sleep 2
  for c in /sys/class/nvme/nvme*; do
    [ "$(cat "$c/subsysnqn")" = "$subnqn" ] || continue
    note "${c##*/} after the flips: state $(cat "$c/state"), ana_state $(cat "$c"/nvme*c*n1/ana_state 2>/dev/null)"
  done
  dd if="$dev" of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null && note "still reads through the other path" \
      || { note "FAIL: no path serves reads"; rc=1; }
  note "fio again while port 1 is withdrawn and given back"
  signal fio2-running
  timeout 240 fio --name=ana2 --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
      --size=16M --time_based --runtime=20 --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
      --output=/tmp/fio2.log > /dev/null 2>&1
  frc=$?
  grep -E 'IOPS=|err=|verify|bad' /tmp/fio2.log | head -6
  [ $frc = 0 ] || { note "FAIL: fio (port withdrawn) rc=$frc"; tail -30 /tmp/fio2.log; rc=1; }
  await readded 120 > /dev/null || rc=1
  local live=0
  for i in $(seq 150); do
    live=0
    for c in /sys/class/nvme/nvme*; do
      [ "$(cat "$c/subsysnqn")" = "$subnqn" ] && [ "$(cat "$c/state")" = live ] && live=$((live + 1))
    done
    [ $live = 2 ] && break
    sleep 0.2
  done
  [ $live = 2 ] && note "both paths live again" || { note "FAIL: $live path(s) live after the port came back"; rc=1; }
  dmesg | grep -iE 'ana|nvme' | tail -15
  nvme disconnect -n "$subnqn" || rc=1
  signal done
  return $rc
}
