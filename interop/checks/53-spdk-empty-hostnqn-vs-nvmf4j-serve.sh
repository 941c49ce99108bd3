# spdk_nvme_identify and spdk_nvme_perf as a user types them: `-r 'trtype:RDMA ... subnqn:NQN'` with no hostnqn:,
# so Connect carries an EMPTY host NQN (SPDK fills hostnqn only when the transport ID names one). The subsystem
# allows any host: like SPDK's nvmf_tgt and Linux nvmet (which only require the field to be NUL-terminated), nvmf4j
# must let such a host in. Checks 50-52 name a host NQN and do not depend on this.
ON_REQUEST=1   # needs an SPDK build: SPDK_DIR=<bench/spdk-build.sh OUT --guest> interop/run spdk
CHECK_TIMEOUT=420

host_part() {
  . "$ROOT/interop/checks/spdk-lib.sh"
  local rc=0
  spdk_serve_for_guest 64 || rc=1
  if grep -q 'rejected host' "$SYNC/serve.log"; then
    note "FAIL: nvmf4j refused the empty host NQN although the subsystem allows any host:"
    grep 'rejected host' "$SYNC/serve.log" | head -3; rc=1
  fi
  return $rc
}

guest_part() {
  . /lab/guest/spdk.sh
  local t port nqn rc=0 trid
  sp_setup || { signal done; return 1; }
  t=$(await target 200) || return 1
  read -r port nqn <<< "$t"
  trid=$(sp_trid "$HOST_FROM_GUEST" "$port" "$nqn")
  if sp_run 180 /tmp/identify.log "$SP_BIN/spdk_nvme_identify" -r "$trid" &&
     grep -qE "^Subsystem NQN: +$nqn\$" /tmp/identify.log; then
    note "identify with an empty host NQN: controller of $nqn"
  else
    note "FAIL: spdk_nvme_identify with an empty host NQN"; rc=1
  fi
  if SP_SHOW_LINES=12 sp_run 180 /tmp/perf.log "$SP_BIN/spdk_nvme_perf" -r "$trid" -q 16 -o 4096 -w randread -t 3 &&
     awk '/^ *Total *:/{ok = $3 > 0} END{exit !ok}' /tmp/perf.log && ! grep -qiE 'error|failed' /tmp/perf.log; then
    note "perf with an empty host NQN: $(grep -E '^ *Total *:' /tmp/perf.log | tr -s ' ')"
  else
    note "FAIL: spdk_nvme_perf with an empty host NQN"; rc=1
  fi
  signal done
  return $rc
}
