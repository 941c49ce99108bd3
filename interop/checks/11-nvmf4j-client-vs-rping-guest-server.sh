# softiwarp as the initiator against Linux siw: `nvmf4j rping -c` on the host connects to
# 127.0.0.1:$FWD_PORT, forwarded by QEMU to the guest's `rping -s` on 10.0.2.15:4420 (kernel siw0).
# The guest's rping RDMA-Reads nvmf4j's buffer and RDMA-Writes it back into nvmf4j's sink.
# Data verified both ways: the guest's rping -v prints every ping it read, checked here against
# rping's pattern; nvmf4j -V compares what came back with what it sent.
CHECK_TIMEOUT=300
COUNT=10 SIZE=4096

guest_part() {
  local srv rc
  rping -s -a "$GUEST_IP" -p 4420 -S $SIZE -v > /tmp/srv.log 2> /tmp/srv.err &
  srv=$!
  for i in $(seq 50); do     # the siw listener is a kernel TCP socket: ss shows it
    ss -ltn 2>/dev/null | grep -q "$GUEST_IP:4420 " && break; sleep 0.2
  done
  ss -ltn | grep "$GUEST_IP:4420 " || note "(no listener seen by ss; going on)"
  signal guest-server-ready
  timeout 200 tail --pid=$srv -f /dev/null
  kill $srv 2>/dev/null; wait $srv; rc=$?
  note "guest rping server rc=$rc"
  [ $rc = 0 ] || { cut -c1-200 /tmp/srv.log /tmp/srv.err; dmesg | grep -iE 'siw|iw_cm' | tail -10; return 1; }
  rping_verify_log /tmp/srv.log "server ping data: " $COUNT $SIZE
}

host_part() {
  local rc
  await guest-server-ready 60 > /dev/null || return 1
  note "nvmf4j rping -c -a 127.0.0.1 -p $FWD_PORT -C $COUNT -S $SIZE -V"
  "$NVMF4J" rping -c -a 127.0.0.1 -p "$FWD_PORT" -C $COUNT -S $SIZE -V --timeout 120 > "$SYNC/nvmf4j.log" 2>&1; rc=$?
  note "nvmf4j rping -c exited rc=$rc"
  cat "$SYNC/nvmf4j.log"
  [ $rc = 0 ] && grep -q "$COUNT pings .*verified" "$SYNC/nvmf4j.log"
}
