# Plain TCP through QEMU user networking, both ways, as the rping checks use it:
# host 127.0.0.1:$FWD_PORT -> guest 10.0.2.15:4420 (host forward), and guest -> 10.0.2.2:PORT,
# which is the host's 127.0.0.1:PORT. A random token each way proves the bytes crossed.
CHECK_TIMEOUT=90

guest_part() {
  local token reply
  # host -> guest: listen on 4420, answer with the token we received, reversed
  python3 - "$GUEST_IP" "$SYNC" > /tmp/fwd.log 2>&1 <<'PY' &
import os, socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 4420)); s.listen(1); s.settimeout(60)
open(os.path.join(sys.argv[2], "guest-listening"), "w").close()   # only now may the host connect
c, a = s.accept(); c.settimeout(30); data = c.recv(100).strip()
print("guest got %r from %s" % (data, a), flush=True); c.sendall(data[::-1] + b"\n"); c.close()
PY
  local py=$!
  wait $py || { cat /tmp/fwd.log; return 1; }
  cat /tmp/fwd.log
  # guest -> host
  local port; port=$(await host-port 60) || return 1
  token=guest-$RANDOM$RANDOM
  reply=$(python3 -c '
import socket, sys
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20)
c.sendall(sys.argv[3].encode() + b"\n"); print(c.recv(100).decode().strip())' "$HOST_FROM_GUEST" "$port" "$token") || return 1
  note "guest -> $HOST_FROM_GUEST:$port sent $token, reply $reply"
  [ "$reply" = "$(reverse "$token")" ]
}

host_part() {
  local token reply port
  await guest-listening 60 >/dev/null || return 1
  token=host-$RANDOM$RANDOM
  reply=$(python3 -c '
import socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
c.sendall(sys.argv[2].encode() + b"\n"); print(c.recv(100).decode().strip())' "$FWD_PORT" "$token") || return 1
  note "host -> 127.0.0.1:$FWD_PORT sent $token, reply $reply"
  [ "$reply" = "$(reverse "$token")" ] || { echo "reply is not the reversed token"; return 1; }
  port=$(free_port)
  python3 - "$port" > "$SYNC/host-listener.log" 2>&1 <<'PY' &
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); s.settimeout(60)
c, a = s.accept(); c.settimeout(30); data = c.recv(100).strip()
print("host got %r from %s" % (data, a), flush=True); c.sendall(data[::-1] + b"\n"); c.close()
PY
  local py=$!
  sleep 0.5; signal host-port "$port"
  wait $py; local rc=$?
  cat "$SYNC/host-listener.log"; return $rc
}
