# nvmf4j rping on the ibverbs provider against rdma-core's rping, both in the guest on rxe0 (kernel rxe,
# RoCEv2): first `nvmf4j rping -c --provider ibverbs` against `rping -s`, then `rping -c` against
# `nvmf4j rping -s --provider ibverbs`. Each ping: the client Sends its buffer's address/key, the server
# RDMA-Reads it, the client Sends its sink, the server RDMA-Writes the data back. Data verified both ways:
# nvmf4j -V checks every ping it read against rping's pattern and what came back; rping -v output is checked
# against rping's pattern here, and rping -V compares what came back.
GUEST_JAVA=1
CHECK_TIMEOUT=420
DEVICE=rxe0 COUNT=10 SIZE=4096

guest_part() {
  . /lab/guest/java.sh
  local ip srv js rc fails=0; ip=$(gj_device_ip $DEVICE)
  export GJ_EXTRA_OPTS="-Dnvmf4j.ibverbs.device=$DEVICE"   # the device whose netdev owns $ip

  note "1) rping -s -a $ip -p 4421 -S $SIZE -v  <-  nvmf4j rping -c --provider ibverbs -C $COUNT -S $SIZE -V"
  rping -s -a "$ip" -p 4421 -S $SIZE -v > /tmp/srv.log 2> /tmp/srv.err &
  srv=$!
  sleep 1
  timeout 200 bash -c '. /lab/guest/java.sh; gj_nvmf4j "$@"' gj rping -c -a "$ip" -p 4421 -C $COUNT -S $SIZE -V \
      --provider ibverbs --timeout 120 > "$SYNC/nvmf4j-client.log" 2>&1; rc=$?
  cat "$SYNC/nvmf4j-client.log"
  note "nvmf4j rping -c rc=$rc"
  timeout 30 tail --pid=$srv -f /dev/null; kill $srv 2>/dev/null; wait $srv; note "rping -s rc=$?"
  if [ $rc = 0 ] && grep -q "$COUNT pings .*verified" "$SYNC/nvmf4j-client.log" &&
     rping_verify_log /tmp/srv.log "server ping data: " $COUNT $SIZE; then
    note "1) passed"
  else
    cut -c1-200 /tmp/srv.log /tmp/srv.err | tail -5; fails=$((fails + 1))
  fi

  note "2) nvmf4j rping -s --provider ibverbs -a $ip -p 4422 -V  <-  rping -c -C $COUNT -S $SIZE -V -v"
  bash -c '. /lab/guest/java.sh; gj_nvmf4j "$@"' gj rping -s -a "$ip" -p 4422 -C $COUNT -V --provider ibverbs \
      --timeout 180 > "$SYNC/nvmf4j-server.log" 2>&1 &
  js=$!
  for i in $(seq 600); do
    grep -q 'listening' "$SYNC/nvmf4j-server.log" && break
    kill -0 $js 2>/dev/null || break
    sleep 0.2
  done
  timeout 150 rping -c -a "$ip" -p 4422 -C $COUNT -S $SIZE -V -v > /tmp/cli.log 2> /tmp/cli.err; rc=$?
  note "rping -c rc=$rc"
  timeout 60 tail --pid=$js -f /dev/null; kill $js 2>/dev/null; wait $js; local jrc=$?
  cat "$SYNC/nvmf4j-server.log"
  note "nvmf4j rping -s rc=$jrc"
  if [ $rc = 0 ] && [ $jrc = 0 ] && grep -q "$COUNT pings .*verified" "$SYNC/nvmf4j-server.log" &&
     rping_verify_log /tmp/cli.log "ping data: " $COUNT $SIZE; then
    note "2) passed"
  else
    cut -c1-200 /tmp/cli.log /tmp/cli.err | tail -5; fails=$((fails + 1))
  fi
  [ $fails = 0 ] || dmesg | grep -iE 'siw|rxe|iw_cm' | tail -10
  [ $fails = 0 ]
}
