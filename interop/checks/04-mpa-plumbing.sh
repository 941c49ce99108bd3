# The rping checks' paths, shown with a few hand-made MPA bytes (RFC 5044 / RFC 6581) and no nvmf4j:
# (1) the guest's rping client reaches a plain TCP listener on the host's 127.0.0.1 (as 10.0.2.2)
#     and its siw opens with an MPA v2 request; (2) an MPA v2 request sent by the host to
#     127.0.0.1:$FWD_PORT reaches the guest's `rping -s` on 4420 and siw answers with an MPA v2 reply.
CHECK_TIMEOUT=120

guest_part() {
  local port srv
  port=$(await host-port 60) || return 1
  # (1) rping's connect gets no MPA reply (the host just reads and closes): it fails, as expected
  timeout 30 rping -c -a "$HOST_FROM_GUEST" -p "$port" -C 1 > /tmp/mpa-cli.log 2>&1
  note "rping -c against the MPA recorder: rc=$? $(head -c 120 /tmp/mpa-cli.log | tr '\n' ' ')"
  await host-recorded 60 > /dev/null || return 1
  # (2) a real rping server for the host's MPA request
  rping -s -a "$GUEST_IP" -p 4420 > /tmp/mpa-srv.log 2>&1 &
  srv=$!
  for i in $(seq 50); do ss -ltn | grep -q "$GUEST_IP:4420 " && break; sleep 0.2; done
  signal guest-server-ready
  await host-done 60 > /dev/null
  kill -9 $srv 2>/dev/null; timeout 10 tail --pid=$srv -f /dev/null
  dmesg | grep -iE 'siw|iw_cm' | tail -3
  return 0
}

host_part() {
  local port
  port=$(free_port)
  python3 - "$port" "$SYNC" > "$SYNC/recorder.log" 2>&1 <<'PY' &
import socket, sys, os
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); s.settimeout(60)
open(os.path.join(sys.argv[2], ".ready"), "w").close()
c, a = s.accept(); c.settimeout(20); data = b""
while len(data) < 20 or len(data) < 20 + int.from_bytes(data[18:20], "big"):
    d = c.recv(256)
    if not d: break
    data += d
c.close()
print("from %s: key=%r flags=0x%02x rev=%d pd_len=%d pd=%s" % (a, data[:16], data[16], data[17],
      int.from_bytes(data[18:20], "big"), data[20:].hex()))
ok = data[:16] == b"MPA ID Req Frame" and data[17] == 2 and data[16] & 0x10
sys.exit(0 if ok else 1)
PY
  local rec=$!
  for i in $(seq 50); do [ -e "$SYNC/.ready" ] && break; sleep 0.1; done
  signal host-port "$port"
  wait $rec; local rc1=$?
  note "(1) guest siw -> host 127.0.0.1:$port: $(cat "$SYNC/recorder.log")"
  signal host-recorded
  await guest-server-ready 60 > /dev/null || return 1
  python3 - "$FWD_PORT" > "$SYNC/probe.log" 2>&1 <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
# MPA v2 request: key, flags 0x10 (enhanced connection setup; no CRC, no markers), revision 2,
# private data = the RFC 6581 IRD/ORD words, IRD = ORD = 1, as the guest's own siw sends them. Not
# the peer-to-peer bit: siw would then wait for an RTR this probe cannot send, and closing at that
# point hit "kernel BUG at drivers/infiniband/core/iwcm.c:969" in the 6.1 guest.
pd = (1).to_bytes(2, "big") + (1).to_bytes(2, "big")
s.sendall(b"MPA ID Req Frame" + bytes([0x10, 2]) + len(pd).to_bytes(2, "big") + pd)
data = b""
while len(data) < 20 or len(data) < 20 + int.from_bytes(data[18:20], "big"):
    d = s.recv(256)
    if not d: break
    data += d
s.close()
print("key=%r flags=0x%02x rev=%d pd_len=%d pd=%s" % (data[:16], data[16] if len(data) > 16 else -1,
      data[17] if len(data) > 17 else -1, int.from_bytes(data[18:20], "big"), data[20:].hex()))
sys.exit(0 if data[:16] == b"MPA ID Rep Frame" and data[17] == 2 and not data[16] & 0x20 else 1)
PY
  local rc2=$?
  note "(2) host -> 127.0.0.1:$FWD_PORT -> guest rping -s: $(cat "$SYNC/probe.log")"
  signal host-done
  [ $rc1 = 0 ] && [ $rc2 = 0 ]
}
