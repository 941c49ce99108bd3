# Linux siw as the initiator against softiwarp on the host: the guest's rping client
# (rdma-core, kernel siw0) pings `nvmf4j rping -s` listening on the host's 127.0.0.1, reached from
# the guest as 10.0.2.2. Each ping: the client Sends its buffer's address/STag, nvmf4j RDMA-Reads
# it, Sends a go-ahead, the client Sends its sink, nvmf4j RDMA-Writes the data back and Sends.
# Data verified both ways: nvmf4j -V checks every ping it read against rping's pattern, the
# guest's rping -V compares what came back with what it sent, and its -v output is checked here.
CHECK_TIMEOUT=300
COUNT=10 SIZE=4096

host_part() {
  local port pid rc
  port=$(free_port)
  "$NVMF4J" rping -s -a 127.0.0.1 -p "$port" -C $COUNT -V --timeout 180 > "$SYNC/nvmf4j.log" 2>&1 &
  pid=$!
  for i in $(seq 600); do   # the JVM may take a while to start on a loaded machine
    grep -q 'listening' "$SYNC/nvmf4j.log" && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.2
  done
  grep -q 'listening' "$SYNC/nvmf4j.log" || { cat "$SYNC/nvmf4j.log"; kill $pid 2>/dev/null; return 1; }
  signal server-port "$port"
  wait $pid; rc=$?
  note "nvmf4j rping -s exited rc=$rc"
  cat "$SYNC/nvmf4j.log"
  [ $rc = 0 ] && grep -q "$COUNT pings .*verified" "$SYNC/nvmf4j.log"
}

guest_part() {
  local port rc
  port=$(await server-port 200) || return 1
  note "rping -c -a $HOST_FROM_GUEST -p $port -C $COUNT -S $SIZE -V -v"
  timeout 150 rping -c -a "$HOST_FROM_GUEST" -p "$port" -C $COUNT -S $SIZE -V -v > /tmp/cli.log 2> /tmp/cli.err; rc=$?
  note "guest rping client rc=$rc"
  [ $rc = 0 ] || { cut -c1-200 /tmp/cli.log /tmp/cli.err; dmesg | grep -iE 'siw|iw_cm' | tail -10; return 1; }
  rping_verify_log /tmp/cli.log "ping data: " $COUNT $SIZE
}
