# fio against nvmf4j from the kernel host: random writes with crc32c verification headers, then a read pass
# that checks every block, at queue depth 32, with 4 KiB and with 128 KiB blocks (RDMA Read of the host's data
# for writes, RDMA Write + Send for reads, in-capsule data for small writes).
CHECK_TIMEOUT=600

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local rc=0
  kh_serve_until_done 128 560 || rc=1
  grep -E 'WARN|ERROR' "$SYNC/serve.log" | head -20
  return $rc
}

guest_part() {
  local port subnqn hostnqn rc=0
  . /lab/checks/kernel-host-lib.sh
  kh_guest_connect || return 1
  for bs in 4k 128k; do
    note "fio randwrite bs=$bs iodepth=32 verify=crc32c, then verify"
    timeout 240 fio --name="w$bs" --filename="$KH_DEV" --ioengine=libaio --direct=1 --rw=randwrite --bs=$bs \
        --iodepth=32 --size=32M --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
        --output=/tmp/fio-$bs.log > /dev/null 2>&1
    local frc=$?
    grep -E 'IOPS=|err=|verify|bad' /tmp/fio-$bs.log | head -8
    [ $frc = 0 ] || { note "FAIL: fio bs=$bs rc=$frc"; tail -30 /tmp/fio-$bs.log; dmesg | tail -20; rc=1; break; }
  done
  nvme disconnect -n "$subnqn" || rc=1
  signal done
  return $rc
}
