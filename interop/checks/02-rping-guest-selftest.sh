# Kernel siw against itself: rping server and client both in the guest on 10.0.2.15 (siw0),
# 10 pings of 4 KiB with -V, and the server's view of each ping checked against rping's pattern.
# If this fails, the lab (not nvmf4j) is broken.
CHECK_TIMEOUT=120

guest_part() {
  local count=10 size=4096 port=7174 try rc
  rping -s -a "$GUEST_IP" -p $port -S $size -v > /tmp/srv.log 2> /tmp/srv.err &
  local srv=$!
  for try in $(seq 50); do     # the siw listener is a kernel TCP socket: ss shows it
    ss -ltn 2>/dev/null | grep -q "$GUEST_IP:$port " && break; sleep 0.2
  done
  note "listener: $(ss -ltn | grep "$GUEST_IP:$port " || echo 'not seen by ss')"
  for try in 1 2 3 4 5 6 7 8 9 10; do    # the listener needs a moment; a refused connect ends rping at once
    sleep 0.5
    timeout 60 rping -c -a "$GUEST_IP" -p $port -C $count -S $size -V -v > /tmp/cli.log 2> /tmp/cli.err; rc=$?
    grep -q 'ping data' /tmp/cli.log && break
    note "client try $try: rc=$rc $(head -c 200 /tmp/cli.err)"
  done
  timeout 30 tail --pid=$srv -f /dev/null; wait $srv; local src=$?
  note "client rc=$rc server rc=$src"
  if [ $rc != 0 ] || [ $src != 0 ]; then
    echo "-- client:"; cut -c1-200 /tmp/cli.log /tmp/cli.err; echo "-- server:"; cut -c1-200 /tmp/srv.log /tmp/srv.err; return 1
  fi
  rping_verify_log /tmp/cli.log "ping data: " $count $size && \
  rping_verify_log /tmp/srv.log "server ping data: " $count $size
}
