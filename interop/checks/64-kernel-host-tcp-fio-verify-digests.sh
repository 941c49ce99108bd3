# fio against nvmf4j from the kernel's NVMe/TCP host, as check 21 over RDMA: random writes with crc32c
# verification headers, then a read pass that checks every block, at queue depth 32: 4 KiB blocks without digests,
# then 4 KiB and 128 KiB blocks with `nvme connect --hdr-digest --data-digest --disable-sqflow` (CRC32C on every
# PDU header and data, and SQ flow control off; larger blocks without digests are checks 63 and 65's). The guest
# connects through two relays on the host (kh_icreq_relay), one per run, that record each connection's ICReq and
# ICResp: the digest bits must be 0 in the first run and both set in the second (the kernel shows no digest
# setting in sysfs); the kernel must log no digest error. The relays also note a C2HData with the SUCCESS flag:
# none in the first run (flow control on), some in the second, where nvme-tcp completes those reads without a
# response capsule.
CHECK_TIMEOUT=900

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local KH_TRANSPORT=tcp rc=0 plain digests plain_pid digests_pid
  kh_serve_image 128 || return 1
  plain=$(free_port) digests=$(free_port)
  kh_icreq_relay "$plain" "$KH_PORT" "$SYNC/relay-plain.log" || { kh_stop_serve; return 1; }
  plain_pid=$KH_RELAY_PID
  kh_icreq_relay "$digests" "$KH_PORT" "$SYNC/relay-digests.log" || { kill "$plain_pid"; kh_stop_serve; return 1; }
  digests_pid=$KH_RELAY_PID
  signal relays "$plain $digests"
  kh_await done 860 > /dev/null || rc=1
  kill "$plain_pid" "$digests_pid" 2>/dev/null
  kh_stop_serve || rc=1
  grep -E 'WARN|ERROR' "$SYNC/serve.log" | head -20
  note "without digests:"
  kh_relay_digests "$SYNC/relay-plain.log" 0 || rc=1
  note "with --hdr-digest --data-digest --disable-sqflow:"
  kh_relay_digests "$SYNC/relay-digests.log" 3 || rc=1
  if grep -q c2hdata-success "$SYNC/relay-plain.log"; then
    note "FAIL: a C2HData with SUCCESS while SQ flow control was on"; rc=1
  fi
  grep -q c2hdata-success "$SYNC/relay-digests.log" \
    && note "reads ended by C2HData SUCCESS with SQ flow control off" \
    || { note "FAIL: no C2HData with SUCCESS with SQ flow control off"; rc=1; }
  return $rc
}

# fio_verify LABEL JOBS...: check 21's fio runs (JOBS: BS:SIZE) on $KH_DEV; 1 on the first failure.
fio_verify() {
  local label=$1 bs frc; shift
  for bs in "$@"; do
    local size=${bs#*:}; bs=${bs%:*}   # 16 MiB of 4 KiB writes: a few thousand commands, half the lab time
    note "$label: fio randwrite bs=$bs iodepth=32 size=$size verify=crc32c, then verify"
    timeout 240 fio --name="w$bs" --filename="$KH_DEV" --ioengine=libaio --direct=1 --rw=randwrite --bs=$bs \
        --iodepth=32 --size="$size" --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
        --output="/tmp/fio-$label-$bs.log" > /dev/null 2>&1
    frc=$?
    grep -E 'IOPS=|err=|verify|bad' "/tmp/fio-$label-$bs.log" | head -8
    [ $frc = 0 ] || { note "FAIL: $label fio bs=$bs rc=$frc"; tail -30 "/tmp/fio-$label-$bs.log"; dmesg | tail -20; return 1; }
  done
}

guest_part() {
  local port subnqn hostnqn rc=0 t plain digests seen
  . /lab/checks/kernel-host-lib.sh
  t=$(await target 200) || return 1
  read -r port subnqn hostnqn <<< "$t"
  t=$(await relays 60) || return 1
  read -r plain digests <<< "$t"
  seen=$(dmesg | wc -l)
  if kh_connect_tcp "$plain" "$subnqn" "$hostnqn"; then
    fio_verify plain 4k:16M || rc=1   # R2T'd writes without digests: checks 63 (dd 64 KiB) and 65 (ext4)
    nvme disconnect -n "$subnqn" || rc=1
  else
    rc=1
  fi
  if [ $rc = 0 ] && kh_connect_tcp "$digests" "$subnqn" "$hostnqn" --hdr-digest --data-digest --disable-sqflow; then
    fio_verify digests 4k:16M 128k:32M || rc=1
    nvme disconnect -n "$subnqn" || rc=1
  else
    rc=1
  fi
  # nvme-tcp logs a header or data digest mismatch (nvme_tcp_verify_hdgst(), nvme_tcp_ddgst_final()) as an error
  if dmesg | tail -n +$((seen + 1)) | grep -i 'digest'; then
    note "FAIL: the kernel logged digest messages"; rc=1
  fi
  signal done
  return $rc
}
