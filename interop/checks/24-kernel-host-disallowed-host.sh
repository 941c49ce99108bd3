# A host NQN that is not in the subsystem's allowed hosts is refused (Connect Invalid Host), and the daemon says
# so in its log; the allowed host still connects afterwards.
CHECK_TIMEOUT=300
OTHER_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:00000000-dead-beef-0000-000000000000

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local rc=0
  kh_serve_until_done 16 260 || rc=1
  grep -E "rejected host $OTHER_HOSTNQN|$OTHER_HOSTNQN.*not allowed|refused" "$SYNC/serve.log" \
      || { note "FAIL: the refusal is not in the log"; cat "$SYNC/serve.log"; rc=1; }
  return $rc
}

guest_part() {
  local port subnqn hostnqn rc=0
  local t; t=$(await target 200) || return 1
  read -r port subnqn hostnqn <<< "$t"
  . "$SYNC/kernel-host-lib.sh"
  modprobe nvme-rdma
  note "nvme connect with a host NQN that is not allowed"
  if timeout 90 nvme connect -t rdma -a "$HOST_FROM_GUEST" -s "$port" -n "$subnqn" --hostnqn="$OTHER_HOSTNQN" \
      > /tmp/c.log 2>&1; then
    note "FAIL: the disallowed host was connected"; nvme list; nvme disconnect -n "$subnqn"; rc=1
  else
    cat /tmp/c.log; dmesg | grep -iE 'nvme|connect' | tail -3
    note "refused as expected"
  fi
  kh_connect "$port" "$subnqn" "$hostnqn" || rc=1
  nvme disconnect -n "$subnqn" || rc=1
  signal done
  return $rc
}
