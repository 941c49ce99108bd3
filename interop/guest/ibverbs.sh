# Guest side of the ibverbs checks (40-43): the conformance suite and rping interop on one device, so the siw0
# and rxe0 checks are one line each. Sourced by their guest parts as /lab/guest/ibverbs.sh; the host side is
# interop/checks/ibverbs-lib.sh.
. /lab/guest/java.sh

# ib_conformance DEVICE: the provider-independent verbs conformance suite (common-verbs tests, package
# io.nvmf4j.verbs.conformance) on the ibverbs provider over DEVICE, every bench listening and connecting on the
# address of DEVICE's netdev. Both ends of each connection are in one JVM; the data moves through the kernel's
# device. Tests a device cannot do are skipped with the verified reason (ProviderUnderTest). Passes when the
# launcher reports no failure; every failure and skip is printed with its message. When the host staged
# $SYNC/java/select (interop/run with CONFORMANCE_TESTS=REGEX), only methods matching it run.
ib_conformance() {
  local device=$1 ip rc select=(--select-package io.nvmf4j.verbs.conformance)
  await staged 300 > /dev/null || return 1
  ip=$(gj_device_ip "$device")
  [ -s "$SYNC/java/select" ] && select+=(--include-methodname ".*($(cat "$SYNC/java/select")).*")
  note "conformance suite on ibverbs/$device at $ip ${select[*]:2}"
  GJ_EXTRA_OPTS="-Dnvmf4j.conformance.provider=ibverbs -Dnvmf4j.conformance.device=$device -Dnvmf4j.conformance.address=$ip -Dnvmf4j.conformance.timeoutScale=3" \
    gj_junit "$SYNC/java/classes:$SYNC/java/test-classes" "${select[@]}" > "$SYNC/junit.log" 2>&1; rc=$?
  grep -E 'tests (found|successful|skipped|aborted|failed)|Test run finished' "$SYNC/junit.log"
  note "JUnit console launcher rc=$rc (the whole tree: $CHECK/junit.log)"
  python3 /lab/guest/junit-tree-check.py "$SYNC/junit.log" "$device" || rc=1
  [ $rc = 0 ] || dmesg | grep -iE 'siw|rxe|iw_cm|rdma' | tail -10
  return $rc
}

# ib_rping DEVICE COUNT SIZE: nvmf4j rping on the ibverbs provider against rdma-core's rping on DEVICE, both
# directions: first `nvmf4j rping -c --provider ibverbs` against `rping -s`, then `rping -c` against
# `nvmf4j rping -s --provider ibverbs`. Each ping: the client Sends its buffer's address/key, the server
# RDMA-Reads it, the client Sends its sink, the server RDMA-Writes the data back. Data verified both ways:
# nvmf4j -V checks every ping it read against rping's pattern and what came back; rping -v output is checked
# against rping's pattern here, and rping -V compares what came back.
ib_rping() {
  local device=$1 count=$2 size=$3 ip srv js rc jrc fails=0; ip=$(gj_device_ip "$device")
  export GJ_EXTRA_OPTS="-Dnvmf4j.ibverbs.device=$device"   # the device whose netdev owns $ip

  note "1) rping -s -a $ip -p 4421 -S $size -v  <-  nvmf4j rping -c --provider ibverbs -C $count -S $size -V"
  rping -s -a "$ip" -p 4421 -S "$size" -v > /tmp/srv.log 2> /tmp/srv.err &
  srv=$!
  sleep 1
  timeout 200 bash -c '. /lab/guest/java.sh; gj_nvmf4j "$@"' gj rping -c -a "$ip" -p 4421 -C "$count" -S "$size" -V \
      --provider ibverbs --timeout 120 > "$SYNC/nvmf4j-client.log" 2>&1; rc=$?
  cat "$SYNC/nvmf4j-client.log"
  note "nvmf4j rping -c rc=$rc"
  timeout 30 tail --pid=$srv -f /dev/null; kill $srv 2>/dev/null; wait $srv; note "rping -s rc=$?"
  if [ $rc = 0 ] && grep -q "$count pings .*verified" "$SYNC/nvmf4j-client.log" &&
     rping_verify_log /tmp/srv.log "server ping data: " "$count" "$size"; then
    note "1) passed"
  else
    cut -c1-200 /tmp/srv.log /tmp/srv.err | tail -5; fails=$((fails + 1))
  fi

  note "2) nvmf4j rping -s --provider ibverbs -a $ip -p 4422 -V  <-  rping -c -C $count -S $size -V -v"
  bash -c '. /lab/guest/java.sh; gj_nvmf4j "$@"' gj rping -s -a "$ip" -p 4422 -C "$count" -V --provider ibverbs \
      --timeout 180 > "$SYNC/nvmf4j-server.log" 2>&1 &
  js=$!
  wait_for_line "$SYNC/nvmf4j-server.log" 'listening' $js 600
  timeout 150 rping -c -a "$ip" -p 4422 -C "$count" -S "$size" -V -v > /tmp/cli.log 2> /tmp/cli.err; rc=$?
  note "rping -c rc=$rc"
  timeout 60 tail --pid=$js -f /dev/null; kill $js 2>/dev/null; wait $js; jrc=$?
  cat "$SYNC/nvmf4j-server.log"
  note "nvmf4j rping -s rc=$jrc"
  if [ $rc = 0 ] && [ $jrc = 0 ] && grep -q "$count pings .*verified" "$SYNC/nvmf4j-server.log" &&
     rping_verify_log /tmp/cli.log "ping data: " "$count" "$size"; then
    note "2) passed"
  else
    cut -c1-200 /tmp/cli.log /tmp/cli.err | tail -5; fails=$((fails + 1))
  fi
  [ $fails = 0 ] || dmesg | grep -iE 'siw|rxe|iw_cm' | tail -10
  [ $fails = 0 ]
}
