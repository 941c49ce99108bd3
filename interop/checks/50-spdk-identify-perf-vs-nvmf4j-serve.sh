# SPDK's initiator tools as a host against nvmf4j: spdk_nvme_identify and spdk_nvme_perf (NVMe/RDMA over the
# guest's siw0, SPDK v24.01 built by bench/spdk-build.sh --guest) against `nvmf4j serve --file` on the host. Both
# name a host NQN in the transport ID (hostnqn:), as check 53 does not.
#   identify: the controller's subsystem NQN and the namespace's size (64 MiB / 512 = 131072 LBAs) as served;
#   perf: 4 KiB random read/write QD16 (in-capsule writes), 128 KiB sequential read and write QD8 (keyed SGL:
#         nvmf4j RDMA-Writes and RDMA-Reads the guest's buffers), 3 s each, I/O completed and no error reported.
# spdk_nvme_perf does not verify data: checks 51 (bdevperf verify) and 52 (spdk_dd byte comparison) do.
ON_REQUEST=1   # needs an SPDK build: SPDK_DIR=<bench/spdk-build.sh OUT --guest> interop/run spdk
CHECK_TIMEOUT=480

host_part() {
  . "$ROOT/interop/checks/spdk-lib.sh"
  spdk_serve_for_guest 64
}

guest_part() {
  . /lab/guest/spdk.sh
  local t port nqn rc=0 w name pat bs qd
  sp_setup || { signal done; return 1; }
  t=$(await target 200) || return 1
  read -r port nqn <<< "$t"
  local trid; trid=$(sp_trid "$HOST_FROM_GUEST" "$port" "$nqn" "$SP_HOSTNQN")
  if SP_SHOW_LINES=12 sp_run 180 /tmp/identify.log "$SP_BIN/spdk_nvme_identify" -r "$trid"; then
    cp /tmp/identify.log "$SYNC/identify.txt"   # the whole report, for the record
    grep -E '\*ERROR\*|not supported|Invalid' /tmp/identify.log | sed 's/^/    identify said: /' | head -10
    grep -qE "^Subsystem NQN: +$nqn\$" /tmp/identify.log || { note "FAIL: identify shows no subsystem NQN $nqn"; rc=1; }
    grep -qE '^Size \(in LBAs\): +131072 ' /tmp/identify.log || { note "FAIL: identify: the namespace is not 131072 LBAs"; rc=1; }
    [ $rc = 0 ] && note "identify: subsystem $nqn, namespace of 131072 LBAs"
  else
    note "FAIL: spdk_nvme_identify rc=$?"; rc=1
  fi
  for w in randrw-4k:randrw:4096:16 read-128k:read:131072:8 write-128k:write:131072:8; do
    IFS=: read -r name pat bs qd <<< "$w"
    if SP_SHOW_LINES=12 sp_run 180 "/tmp/perf-$name.log" "$SP_BIN/spdk_nvme_perf" -r "$trid" -q "$qd" -o "$bs" \
         -w "$pat" $([ "$pat" = randrw ] && echo -M 50) -t 3; then
      if grep -qiE 'error|failed' "/tmp/perf-$name.log"; then note "FAIL: perf $name reported errors"; rc=1
      elif ! awk '/^ *Total *:/{ok = $3 > 0} END{exit !ok}' "/tmp/perf-$name.log"; then note "FAIL: perf $name: no I/O"; rc=1
      else note "perf $name: $(grep -E '^ *Total *:' "/tmp/perf-$name.log" | tr -s ' ')"; fi
    else
      note "FAIL: spdk_nvme_perf $name rc=$?"; rc=1
    fi
  done
  signal done
  return $rc
}
