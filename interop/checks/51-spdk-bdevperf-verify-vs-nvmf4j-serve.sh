# SPDK's bdevperf -w verify against nvmf4j: the bdev_nvme module attaches `nvmf4j serve --file` (NVMe/RDMA over
# the guest's siw0) as the bdev Nvme0n1; bdevperf writes every block of its range and reads it back compared, at
# 4 KiB QD16 (in-capsule writes) and 64 KiB QD8 (keyed SGL; bdevperf refuses verify above 64 KiB), 5 s each.
ON_REQUEST=1   # needs an SPDK build: SPDK_DIR=<bench/spdk-build.sh OUT --guest> interop/run spdk
CHECK_TIMEOUT=420

host_part() {
  . "$ROOT/interop/checks/spdk-lib.sh"
  spdk_serve_for_guest 64
}

guest_part() {
  . /lab/guest/spdk.sh
  local t port nqn rc=0 w bs qd
  sp_setup || { signal done; return 1; }
  t=$(await target 200) || return 1
  read -r port nqn <<< "$t"
  sp_bdev_json /tmp/bdev.json "$HOST_FROM_GUEST" "$port" "$nqn" "$SP_HOSTNQN"
  for w in 4096:16 65536:8; do
    IFS=: read -r bs qd <<< "$w"
    if SP_SHOW_LINES=15 sp_run 180 "/tmp/bdevperf-$bs.log" "$SP_BDEVPERF" --json /tmp/bdev.json -q "$qd" -o "$bs" \
         -w verify -t 5; then
      # " Total : <IOPS> <MiB/s> <Fail/s> <TO/s> ..." (bdevperf.c, performance_dump)
      if grep -q 'Buffer mismatch' "/tmp/bdevperf-$bs.log"; then note "FAIL: bdevperf verify $bs: data mismatch"; rc=1
      elif ! tr '\r' '\n' < "/tmp/bdevperf-$bs.log" | awk '/^ *Total *:/{ok = $3 > 0 && $5 == 0 && $6 == 0} END{exit !ok}'; then
        note "FAIL: bdevperf verify $bs: no I/O, or failed / timed-out I/O"; rc=1
      else
        note "bdevperf verify ${bs} B QD$qd: $(tr '\r' '\n' < "/tmp/bdevperf-$bs.log" | grep -E '^ *Total *:' | tr -s ' ')"
      fi
    else
      note "FAIL: bdevperf verify $bs rc=$?"; rc=1
    fi
  done
  signal done
  return $rc
}
