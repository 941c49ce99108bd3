# DH-HMAC-CHAP, the Linux kernel as host against `nvmf4j serve --config` (an nvmetcli file whose host has
# hosts[].dhchap, served on an RDMA and a TCP port): `nvme connect -t rdma|tcp --dhchap-secret=...
# [--dhchap-ctrl-secret=...]` for every hash with the null, ffdhe2048 and ffdhe8192 groups, uni- and bidirectional
# alternating, RDMA and TCP alternating (the file's hash/dhgroup name the one the target accepts; SIGHUP applies
# each round's file), 1 MiB dd read back each time, fio crc32c verify on the last; then a wrong key, no key and a
# wrong controller key are refused by the kernel's connect over RDMA, and a wrong key over TCP, and logged by
# nvmf4j.
# The host keys are made by `nvmf4j gen-dhchap-key` and used by Linux (the other half of check 52's key exchange).
# Needs the 6.12 guest kernel (CONFIG_NVME_HOST_AUTH): LAB_KERNEL=6.12 interop/run dhchap
LAB_KERNEL=6.12
CHECK_TIMEOUT=900
DH_HASHES="hmac(sha256) hmac(sha384) hmac(sha512)"
DH_GROUPS="null ffdhe2048 ffdhe8192"
# the rounds over TCP, one per hash, each group once, both directions: sha256/ffdhe2048 bidirectional,
# sha384/ffdhe8192 bidirectional, sha512/null unidirectional
DH_TCP_ROUNDS="1 5 6"

# dh_config FILE PORT IMG HOSTNQN HASH GROUP KEY CTRLKEY: the nvmetcli file for one round (PORT is the RDMA
# port; the TCP port is DH_TCP_PORT)
dh_config() {
  cat > "$1" <<JSON
{
  "hosts": [
    {
      "dhchap": {
        "ctrl_key": "$8",
        "dhgroup": "$6",
        "hash": "$5",
        "key": "$7"
      },
      "nqn": "$4"
    }
  ],
  "ports": [
    {
      "addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "treq": "not specified", "trsvcid": "$2", "trtype": "rdma"},
      "portid": 1,
      "subsystems": ["$KH_SUBNQN"]
    },
    {
      "addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "treq": "not specified", "trsvcid": "$DH_TCP_PORT",
               "trtype": "tcp"},
      "portid": 2,
      "subsystems": ["$KH_SUBNQN"]
    }
  ],
  "subsystems": [
    {
      "allowed_hosts": ["$4"],
      "attr": {"allow_any_host": "0"},
      "namespaces": [{"device": {"path": "$3"}, "enable": 1, "nsid": 1}],
      "nqn": "$KH_SUBNQN"
    }
  ]
}
JSON
}

# dh_reload: SIGHUP to nvmf4j serve, then wait for its "reload: N change(s), M problem(s)" line (no problem). Where
# the daemon cannot handle SIGHUP (this run's parent ignored it: nohup) it said so at start, and `nvmf4j ctl
# reload` on its socket does the same.
dh_reload() {
  local n t; n=$(grep -c 'reload: [0-9]* change' "$SYNC/serve.log")
  if grep -q 'SIGHUP is ignored.*ctl reload' "$SYNC/serve.log"; then
    "$NVMF4J" ctl --socket "$SYNC/nvmf4j.sock" reload > /dev/null || { note "FAIL: nvmf4j ctl reload"; return 1; }
  else
    kill -HUP $KH_PID
  fi
  for t in $(seq 300); do
    [ "$(grep -c 'reload: [0-9]* change' "$SYNC/serve.log")" -gt "$n" ] && break; sleep 0.2
  done
  grep 'reload: [0-9]* change' "$SYNC/serve.log" | tail -1 | grep -q ' 0 problem' \
    || { note "FAIL: reload: $(grep 'reload:' "$SYNC/serve.log" | tail -3 | tr '\n' ' ')"; return 1; }
}

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local port img cfg rc=0 rn=0 h g hid key ctrl bidi
  port=$(free_port); img=$(kh_image 64); cfg=$SYNC/config.json
  DH_TCP_PORT=$(free_port)
  while [ "$DH_TCP_PORT" = "$port" ]; do DH_TCP_PORT=$(free_port); done
  cp "$ROOT/interop/checks/kernel-host-lib.sh" "$SYNC/"
  declare -A KEY
  for hid in 1 2 3; do   # one host key per hash, made by nvmf4j (transformed with the host NQN, as nvme-cli)
    KEY[$hid]=$("$NVMF4J" gen-dhchap-key -m $hid -n "$KH_HOSTNQN") || { note "gen-dhchap-key failed"; return 1; }
  done
  CTRL=$("$NVMF4J" gen-dhchap-key -m 0 -l 32) || return 1
  WRONG=$("$NVMF4J" gen-dhchap-key -m 1 -n "$KH_HOSTNQN") || return 1
  note "keys made by nvmf4j gen-dhchap-key: ${KEY[1]:0:10}... ${KEY[2]:0:10}... ${KEY[3]:0:10}... ctrl ${CTRL:0:10}..."
  for h in $DH_HASHES; do
    hid=$(( $(echo "$DH_HASHES" | tr ' ' '\n' | grep -n -F "$h" | cut -d: -f1) ))
    for g in $DH_GROUPS; do
      bidi=$((rn % 2)); ctrl=""; [ $bidi = 1 ] && ctrl=$CTRL
      local tr=rdma tp=$port
      case " $DH_TCP_ROUNDS " in *" $rn "*) tr=tcp; tp=$DH_TCP_PORT ;; esac
      dh_config "$cfg" "$port" "$img" "$KH_HOSTNQN" "$h" "$g" "${KEY[$hid]}" "$ctrl"
      if [ $rn = 0 ]; then
        kh_start_serve "$port" --config "$cfg" --rpc-socket "$SYNC/nvmf4j.sock" || return 1
      else
        dh_reload || { rc=1; break 2; }
      fi
      signal "round-$rn" "$tr $tp $KH_SUBNQN $KH_HOSTNQN $h $g ${KEY[$hid]} ${ctrl:--}"
      local r; r=$(kh_await "done-$rn" 240) || { rc=1; break 2; }
      note "round $rn: $tr $h $g $([ $bidi = 1 ] && echo bidirectional || echo unidirectional): $r"
      [ "$r" = ok ] || rc=1
      rn=$((rn + 1))
    done
  done
  if [ $rc = 0 ]; then   # refusals, with the sha256/null file and a controller key
    dh_config "$cfg" "$port" "$img" "$KH_HOSTNQN" "hmac(sha256)" null "${KEY[1]}" "$CTRL"
    dh_reload || rc=1
    signal refusals "$port $DH_TCP_PORT $KH_SUBNQN $KH_HOSTNQN ${KEY[1]} $CTRL $WRONG"
    local r; r=$(kh_await refusals-done 300) || rc=1
    note "refusals: $r"
    [ "$r" = ok ] || rc=1
  fi
  kh_stop_serve || rc=1
  note "nvmf4j serve's log about authentication:"
  grep -iE 'auth|dh-hmac|dhchap' "$SYNC/serve.log" | grep -v DHHC-1 | tail -20
  if grep -q 'DHHC-1:' "$SYNC/serve.log"; then note "FAIL: a key appears in nvmf4j's log"; rc=1; fi
  local refused; refused=$(grep -ciE 'authentication.*(fail|refus)|(fail|refus).*authentication' "$SYNC/serve.log")
  note "nvmf4j logged $refused authentication failure line(s)"
  [ "$refused" -ge 2 ] || { note "FAIL: the refusals are not logged"; rc=1; }
  return $rc
}

guest_part() {
  local rn=0 t tr port subnqn hostnqn h g key ctrl rc=0
  modprobe nvme-rdma || return 1
  modprobe nvme-tcp || return 1
  while [ $rn -lt 9 ]; do
    t=$(await "round-$rn" 240) || return 1
    read -r tr port subnqn hostnqn h g key ctrl <<< "$t"
    . "$SYNC/kernel-host-lib.sh"
    local args=(--dhchap-secret="$key"); [ "$ctrl" != - ] && args+=(--dhchap-ctrl-secret="$ctrl")
    if kh_connect_over "$tr" "$port" "$subnqn" "$hostnqn" "${args[@]}"; then
      [ "$(cat "/sys/class/nvme/${KH_CTRL#/dev/}/transport")" = "$tr" ] || { note "FAIL: not over $tr"; rc=1; }
      local dev=$KH_DEV ok=ok
      head -c $((1 << 20)) /dev/urandom > /tmp/d.bin
      dd if=/tmp/d.bin of="$dev" bs=64k seek=$((rn * 16)) oflag=direct status=none &&
        dd if="$dev" of=/tmp/b.bin bs=64k skip=$((rn * 16)) count=16 iflag=direct status=none &&
        cmp -s /tmp/d.bin /tmp/b.bin || ok="dd-differs"
      if [ $rn = 8 ] && [ $ok = ok ]; then
        fio --name=verify --filename="$dev" --direct=1 --ioengine=libaio --rw=randwrite --bs=4k --size=8m \
            --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 --output=/tmp/fio.log > /dev/null 2>&1 \
            || ok="fio-failed"
        grep -E 'write:|read:|err=' /tmp/fio.log | head -4
      fi
      dmesg | grep -iE 'nvme.*(auth|dhchap)' | tail -2
      nvme disconnect -n "$subnqn" > /dev/null || ok="disconnect-failed"
      signal "done-$rn" "$ok"; [ $ok = ok ] || rc=1
    else
      signal "done-$rn" "connect-failed"; rc=1
    fi
    rn=$((rn + 1))
  done
  t=$(await refusals 120) || return 1
  local right ctrl wrong tcpport out=ok
  read -r port tcpport subnqn hostnqn right ctrl wrong <<< "$t"
  . "$SYNC/kernel-host-lib.sh"
  for case in wrong-key no-key wrong-ctrl-key wrong-key-over-tcp; do
    local args=() tr=rdma p=$port
    case $case in
      wrong-key) args=(--dhchap-secret="$wrong") ;;
      no-key) args=() ;;
      wrong-ctrl-key) args=(--dhchap-secret="$right" --dhchap-ctrl-secret="$wrong") ;;
      wrong-key-over-tcp) args=(--dhchap-secret="$wrong"); tr=tcp; p=$tcpport ;;
    esac
    if timeout 90 nvme connect -t $tr -a "$HOST_FROM_GUEST" -s "$p" -n "$subnqn" --hostnqn="$hostnqn" \
          "${args[@]}" > /tmp/c.log 2>&1; then
      note "FAIL: $case: the connect succeeded"; cat /tmp/c.log; nvme disconnect -n "$subnqn"; out=accepted-$case
    else
      note "$case: refused: $(tr '\n' ' ' < /tmp/c.log | cut -c1-160)"
      dmesg | grep -iE 'nvme' | tail -2
    fi
  done
  signal refusals-done "$out"
  [ $out = ok ] && [ $rc = 0 ]
}
