# DH-HMAC-CHAP, nvmf4j as host against the Linux kernel's nvmet-rdma over siw0 and nvmet-tcp (the port's trtype
# switched between rounds), the host's keys set in configfs (hosts/<nqn>/dhchap_key, dhchap_ctrl_key, dhchap_hash,
# dhchap_dhgroup; allowed_hosts link, allow_any_host 0): `nvmf4j perf --verify --dhchap-secret ...
# [--dhchap-ctrl-secret ...]` (admin and I/O queue authenticate) with sha256+null uni- (RDMA) and bidirectional
# (TCP), sha384+ffdhe2048 (RDMA) and sha512+ffdhe8192 (TCP) bidirectional; then `nvmf4j id-ctrl` with a wrong
# secret, without one and with a wrong controller secret must fail over RDMA, and with a wrong secret over TCP. The keys are made in the guest
# by nvme-cli's `nvme gen-dhchap-key` and used by nvmf4j (the other half of check 61's key exchange).
# Needs the 6.12 guest kernel (CONFIG_NVME_TARGET_AUTH): LAB_KERNEL=6.12 interop/run dhchap
LAB_KERNEL=6.12
CHECK_TIMEOUT=900
DH_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:0d4e8f4b-52c7-4a59-9a0e-3f8b1f8d2c51
DH_ROUNDS="hmac(sha256):null:0:rdma hmac(sha256):null:1:tcp hmac(sha384):ffdhe2048:1:rdma hmac(sha512):ffdhe8192:1:tcp"

guest_part() {
  . /lab/guest/kernel-target.sh
  local d0 rc=0 i=0 r h g bidi tr hid host=$KT_CFG/hosts/$DH_HOSTNQN sub
  d0=$(dmesg | wc -l)
  modprobe nvme-auth 2>/dev/null
  kt_setup 64 || { dmesg | tail -20; return 1; }
  sub=$KT_CFG/subsystems/$KT_NQN
  mkdir -p "$host" || return 1
  [ -e "$host/dhchap_key" ] || { note "FAIL: nvmet has no dhchap attributes (CONFIG_NVME_TARGET_AUTH?)"; return 1; }
  echo 0 > "$sub/attr_allow_any_host" && ln -s "$host" "$sub/allowed_hosts/$DH_HOSTNQN" || return 1
  local ctrl; ctrl=$(nvme gen-dhchap-key -m 0 -l 32) || return 1
  for r in $DH_ROUNDS; do
    IFS=: read -r h g bidi tr <<< "$r"
    kt_switch_trtype "$tr" || { rc=1; break; }
    case $h in *256*) hid=1 ;; *384*) hid=2 ;; *) hid=3 ;; esac
    local key; key=$(nvme gen-dhchap-key -m $hid -n "$DH_HOSTNQN") || return 1
    echo "$h" > "$host/dhchap_hash" && echo "$g" > "$host/dhchap_dhgroup" && echo "$key" > "$host/dhchap_key" || return 1
    if [ "$bidi" = 1 ]; then echo "$ctrl" > "$host/dhchap_ctrl_key"; else echo > "$host/dhchap_ctrl_key"; fi
    note "round $i: nvmet-$tr host $h $g $([ "$bidi" = 1 ] && echo bidirectional || echo unidirectional), keys from nvme gen-dhchap-key"
    signal "round-$i" "$tr $KT_NQN $DH_HOSTNQN $h $g $key $([ "$bidi" = 1 ] && echo "$ctrl" || echo -)"
    await "done-$i" 300 > /dev/null || { rc=1; break; }
    i=$((i + 1))
  done
  if [ $rc = 0 ]; then
    local wrong; wrong=$(nvme gen-dhchap-key -m 1 -n "$DH_HOSTNQN")
    for tr in rdma tcp; do
      kt_switch_trtype "$tr" || { rc=1; break; }
      signal "refusals-$tr" "$KT_NQN $DH_HOSTNQN $(cat "$host/dhchap_key") $ctrl $wrong"
      await "refusals-$tr-done" 300 > /dev/null || { rc=1; break; }
    done
  fi
  dmesg | tail -n +"$((d0 + 1))" | grep -iE 'auth|dhchap' | tail -12
  local n; n=$(dmesg | tail -n +"$((d0 + 1))" | grep -c "creating nvm controller .* for subsystem $KT_NQN")
  note "nvmet created $n NVM controller(s) for $KT_NQN"
  rm -f "$sub/allowed_hosts/$DH_HOSTNQN"; rmdir "$host" 2>/dev/null
  kt_teardown
  return $rc
}

host_part() {
  local i=0 t tr nqn hostnqn h g key ctrl rc=0 r
  for r in $DH_ROUNDS; do
    t=$(await "round-$i" 300) || return 1
    read -r tr nqn hostnqn h g key ctrl <<< "$t"
    local A=(--transport "$tr" --traddr 127.0.0.1 --trsvcid "$FWD_PORT" --nqn "$nqn" --hostnqn "$hostnqn"
             --connect-timeout 30 --dhchap-secret "$key")
    [ "$ctrl" != - ] && A+=(--dhchap-ctrl-secret "$ctrl")
    note "round $i: nvmf4j perf --transport $tr --verify, $h $g $([ "$ctrl" != - ] && echo bidirectional || echo unidirectional)"
    if timeout -k 5 240 "$NVMF4J" perf "${A[@]}" --verify --size 2m -w randrw -M 50 -o 4k -q 8 -t 3 --ramp 0.5 \
          --json > "$SYNC/perf-$i.json" 2> "$SYNC/perf-$i.err" \
        && python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); n=r["read"]["ios"]+r["write"]["ios"]; print("  %d ios (%d reads, %d writes), %.0f IOPS, verified %d blocks" % (n, r["read"]["ios"], r["write"]["ios"], r["total"]["iops"], r.get("verified_blocks",0))); sys.exit(0 if r["read"]["ios"]>0 and r["write"]["ios"]>0 and r.get("verified_blocks",0)>0 else 1)' "$SYNC/perf-$i.json"; then
      note "round $i: pass"
    else
      tr '\r' '\n' < "$SYNC/perf-$i.err" | grep -v '^$' | tail -8; note "round $i: FAIL"; rc=1
    fi
    signal "done-$i"
    i=$((i + 1))
  done
  local tr cases
  for tr in rdma tcp; do
    [ $rc = 0 ] || break
    t=$(await "refusals-$tr" 120) || return 1
    local right wrong
    read -r nqn hostnqn right ctrl wrong <<< "$t"
    local B=(--transport "$tr" --traddr 127.0.0.1 --trsvcid "$FWD_PORT" --nqn "$nqn" --hostnqn "$hostnqn")
    cases="wrong-key no-key wrong-ctrl-key"; [ "$tr" = tcp ] && cases=wrong-key
    for case in $cases; do
      local S=()
      case $case in
        wrong-key) S=(--dhchap-secret "$wrong") ;;
        no-key) S=() ;;
        wrong-ctrl-key) S=(--dhchap-secret "$right" --dhchap-ctrl-secret "$wrong") ;;
      esac
      if timeout -k 5 120 "$NVMF4J" id-ctrl "${B[@]}" "${S[@]}" > "$SYNC/$case-$tr.out" 2>&1; then
        note "FAIL: $case over $tr: id-ctrl succeeded"; rc=1
      else
        note "$case over $tr: refused: $(grep -v '^\s*at ' "$SYNC/$case-$tr.out" | tr '\n' ' ' | cut -c1-200)"
        if grep -q 'DHHC-1:' "$SYNC/$case-$tr.out"; then note "FAIL: a key in the message"; rc=1; fi
      fi
    done
    signal "refusals-$tr-done"
  done
  return $rc
}
