# Persistent reservations between two Linux hosts: the guest connects to one nvmf4j subsystem twice, with two host
# NQNs and two host identifiers (two controllers, as two cluster nodes), and drives them with nvme-cli's
# `resv-register`, `resv-acquire`, `resv-report` and `resv-release` on each controller's character device. Host 1
# registers (asking for Persist Through Power Loss) and takes a Write Exclusive reservation; host 2 registers,
# sees it in `resv-report --eds`, is refused the reservation and its writes end with Reservation Conflict while it
# still reads. nvmf4j is then restarted (SIGTERM, start again over the same --reservation-dir): the kernel
# reconnects both controllers and the reservation is still in force; host 1 releases it and host 2 writes.
CHECK_TIMEOUT=480

RS_HOST1=nqn.2014-08.org.nvmexpress:uuid:0a0a0a0a-1111-4111-8111-000000000001
RS_HOST2=nqn.2014-08.org.nvmexpress:uuid:0b0b0b0b-2222-4222-8222-000000000002
RS_ID1=0a0a0a0a-1111-4111-8111-000000000001
RS_ID2=0b0b0b0b-2222-4222-8222-000000000002

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local port img rc=0 resv=$SYNC/reservations
  port=$(free_port)
  img=$(kh_image 16)
  rm -rf "$resv"
  cp "$ROOT/interop/checks/kernel-host-lib.sh" "$SYNC/"
  set -- --file "$img" --nqn "$KH_SUBNQN" --allow-host "$RS_HOST1" --allow-host "$RS_HOST2" --reservation-dir "$resv"
  kh_start_serve "$port" "$@" || return 1
  signal target "$port $KH_SUBNQN"
  kh_await reserved 300 > /dev/null || { kh_stop_serve; cat "$SYNC/serve.log"; return 1; }
  kh_stop_serve || rc=1
  note "the reservation state nvmf4j persisted:"; cat "$resv"/*.resv || rc=1
  mv "$SYNC/serve.log" "$SYNC/serve.log.before-restart"   # kh_start_serve waits for a new "listening" line
  kh_start_serve "$port" "$@" || return 1
  signal restarted
  kh_await done 300 > /dev/null || rc=1
  kh_stop_serve || rc=1
  [ $rc = 0 ] || cat "$SYNC/serve.log"
  return $rc
}

# rs_ctrl HOSTNQN: the /dev/nvmeN of our subsystem connected with that host NQN.
rs_ctrl() {
  local c
  for c in /sys/class/nvme/nvme*; do
    [ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$RS_SUBNQN" ] && [ "$(cat "$c/hostnqn" 2>/dev/null)" = "$1" ] \
        && { echo "/dev/${c##*/}"; return 0; }
  done
  return 1
}

# rs_live CTRL SECONDS: waits until the controller is live (after a reconnect).
rs_live() {
  local s
  for i in $(seq $(($2 * 5))); do
    s=$(cat "/sys/class/nvme/${1#/dev/}/state" 2>/dev/null)
    [ "$s" = live ] && return 0
    sleep 0.2
  done
  note "FAIL: $1 is '$s', not live"; dmesg | tail -20
  return 1
}

# rs_io CTRL read|write: one 512-byte block at LBA 0 through the controller's character device (io-passthru, as
# a reservation test must name the path); prints nvme-cli's output, returns its status.
rs_io() {
  local ctrl=$1 op=$2 out rc
  if [ "$op" = write ]; then
    out=$(nvme io-passthru "$ctrl" --namespace-id=1 --opcode=1 --data-len=512 --write --input-file=/tmp/block \
        --cdw10=0 --cdw11=0 --cdw12=0 2>&1)
  else
    out=$(nvme io-passthru "$ctrl" --namespace-id=1 --opcode=2 --data-len=512 --read --cdw10=0 --cdw11=0 \
        --cdw12=0 2>&1 > /dev/null)
  fi
  rc=$?
  echo "$out" | tail -3
  return $rc
}

# rs_expect_conflict WHAT CMD...: CMD must fail with Reservation Conflict.
rs_expect_conflict() {
  local what=$1 out; shift
  out=$("$@" 2>&1)
  if [ $? != 0 ] && echo "$out" | grep -qi 'reservation.conflict'; then
    note "$what: Reservation Conflict, as it must"
    return 0
  fi
  note "FAIL: $what: expected Reservation Conflict, got: $out"
  return 1
}

# rs_report CTRL: resv-report --eds as JSON with the blanks removed.
rs_report() {
  nvme resv-report "$1" --namespace-id=1 --eds --output-format=json 2>&1 | tr -d ' \n\t'
}

guest_part() {
  local port rc=0 c1 c2 rep
  local t; t=$(await target 200) || return 1
  read -r port RS_SUBNQN <<< "$t"
  modprobe nvme-rdma || return 1
  head -c 512 /dev/urandom > /tmp/block
  note "nvme connect (host 1: $RS_HOST1, hostid $RS_ID1)"
  timeout 90 nvme connect -t rdma -a "$HOST_FROM_GUEST" -s "$port" -n "$RS_SUBNQN" --hostnqn="$RS_HOST1" \
      --hostid="$RS_ID1" --reconnect-delay=2 --ctrl-loss-tmo=240 || { note "FAIL: connect 1"; dmesg | tail -30; return 1; }
  # host 2 through the kernel's own interface: nvme-cli 2.3 takes a second connection to the same port and
  # subsystem for "already connected" whatever the host NQN; the kernel tells the two apart by host NQN and id
  local opts="transport=rdma,traddr=$HOST_FROM_GUEST,trsvcid=$port,nqn=$RS_SUBNQN,hostnqn=$RS_HOST2"
  opts+=",hostid=$RS_ID2,reconnect_delay=2,ctrl_loss_tmo=240"
  note "host 2 ($RS_HOST2, hostid $RS_ID2): $opts > /dev/nvme-fabrics"
  local answer
  { exec 3<>/dev/nvme-fabrics && printf '%s' "$opts" >&3 && read -r answer <&3; } \
      || { exec 3>&-; note "FAIL: connect 2"; dmesg | tail -30; return 1; }
  exec 3>&-
  note "kernel: $answer"
  c1=$(rs_ctrl "$RS_HOST1") && c2=$(rs_ctrl "$RS_HOST2") || { note "FAIL: controllers not found"; nvme list-subsys; return 1; }
  note "host 1 is $c1 ($(cat /sys/class/nvme/${c1#/dev/}/hostid)), host 2 is $c2 ($(cat /sys/class/nvme/${c2#/dev/}/hostid))"
  nvme list-subsys

  note "host 1: resv-register key 161, persist through power loss; acquire Write Exclusive"
  nvme resv-register "$c1" --namespace-id=1 --nrkey=161 --rrega=0 --cptpl=3 || { note "FAIL: register 1"; rc=1; }
  nvme resv-acquire "$c1" --namespace-id=1 --crkey=161 --rtype=1 --racqa=0 || { note "FAIL: acquire 1"; rc=1; }
  note "host 2: resv-register key 178"
  nvme resv-register "$c2" --namespace-id=1 --nrkey=178 --rrega=0 || { note "FAIL: register 2"; rc=1; }
  rep=$(rs_report "$c2"); note "host 2 resv-report: $rep"
  echo "$rep" | grep -q '"rtype":1' && echo "$rep" | grep -q '"regctl":2' \
      || { note "FAIL: the report does not show a Write Exclusive reservation with 2 registrants"; rc=1; }
  rs_expect_conflict "host 2 resv-acquire" nvme resv-acquire "$c2" --namespace-id=1 --crkey=178 --rtype=1 --racqa=0 || rc=1
  rs_expect_conflict "host 2 write" rs_io "$c2" write || rc=1
  rs_io "$c2" read > /dev/null && note "host 2 reads (Write Exclusive)" || { note "FAIL: host 2 cannot read"; rc=1; }
  rs_io "$c1" write > /dev/null && note "host 1, the holder, writes" || { note "FAIL: host 1 cannot write"; rc=1; }
  signal reserved

  await restarted 200 > /dev/null || return 1
  note "nvmf4j restarted; waiting for the kernel to reconnect"
  rs_live "$c1" 120 && rs_live "$c2" 120 || rc=1
  rep=$(rs_report "$c2"); note "host 2 resv-report after the restart: $rep"
  echo "$rep" | grep -q '"rtype":1' || { note "FAIL: the reservation did not survive the restart"; rc=1; }
  rs_expect_conflict "host 2 write after the restart" rs_io "$c2" write || rc=1

  note "host 1: resv-release"
  nvme resv-release "$c1" --namespace-id=1 --crkey=161 --rtype=1 --rrela=0 || { note "FAIL: release"; rc=1; }
  rs_io "$c2" write > /dev/null && note "host 2 writes once released" || { note "FAIL: host 2 still cannot write"; rc=1; }
  nvme resv-register "$c1" --namespace-id=1 --crkey=161 --rrega=1 || { note "FAIL: unregister 1"; rc=1; }
  nvme resv-register "$c2" --namespace-id=1 --crkey=178 --rrega=1 || { note "FAIL: unregister 2"; rc=1; }
  rep=$(rs_report "$c2"); note "resv-report at the end: $rep"
  nvme disconnect -n "$RS_SUBNQN" || rc=1
  signal done
  return $rc
}
