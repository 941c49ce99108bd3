# Stopping the target with SIGTERM while the kernel host writes, then starting it again: the daemon exits 0,
# the kernel host reconnects (reconnect delay 1 s), fio finishes its random writes and its verify pass reads
# every block it wrote back with a correct crc32c: no write the target acknowledged is lost.
CHECK_TIMEOUT=600

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local rc=0
  kh_serve_image 96 || return 1
  kh_await fio-running 300 > /dev/null || { kh_stop_serve; return 1; }
  sleep 3
  note "SIGTERM to nvmf4j serve while fio writes"
  kh_stop_serve || { note "FAIL: the daemon did not exit 0 on SIGTERM"; rc=1; }
  sleep 2
  note "starting nvmf4j serve again on the same port and image"
  kh_start_serve "$KH_PORT" --file "$KH_IMG" --nqn "$KH_SUBNQN" --allow-host "$KH_HOSTNQN" || return 1
  signal restarted
  kh_await done 500 > /dev/null || rc=1
  kh_stop_serve || rc=1
  grep -cE 'connected to' "$SYNC/serve.log" | sed 's/^/connect lines: /'
  return $rc
}

guest_part() {
  local port subnqn hostnqn rc=0
  . /lab/checks/kernel-host-lib.sh
  kh_guest_connect --reconnect-delay=1 --ctrl-loss-tmo=120 || return 1
  note "fio randwrite 48 MiB at 1500 IOPS, iodepth 32, crc32c headers, verify pass after"
  timeout 420 fio --name=restart --filename="$KH_DEV" --ioengine=libaio --direct=1 --rw=randwrite --bs=4k \
      --iodepth=32 --size=48M --rate_iops=1500 --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
      --output=/tmp/fio.log > /dev/null 2>&1 &
  local fpid=$!
  sleep 2
  signal fio-running
  await restarted 300 > /dev/null || rc=1
  wait $fpid; local frc=$?
  grep -E 'IOPS=|err=|verify|bad' /tmp/fio.log | head -8
  dmesg | grep -iE 'nvme.*(reconnect|Successfully|error|reset)' | tail -6
  [ $frc = 0 ] || { note "FAIL: fio rc=$frc"; tail -30 /tmp/fio.log; rc=1; }
  [ $rc = 0 ] && note "fio verified every block after the target restart"
  nvme disconnect -n "$subnqn" || rc=1
  signal done
  return $rc
}
