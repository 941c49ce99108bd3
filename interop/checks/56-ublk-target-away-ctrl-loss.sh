# A ublk mount while its target goes away, as nvme-rdma behaves (6.12 guest, Java in the guest, softiwarp, against
# `nvmf4j serve --file` on the host): `nvmf4j mount --ublk -c 1 -l 30` (reconnect every second, controller loss
# after 30 s); (1) fio random writes with crc32c verify while the host stops serve with SIGTERM and starts it again
# on the same port and image 4 s later: the I/O waits, the mount reconnects, fio ends with err=0 and every block
# verifies; (2) serve stopped for good: a direct read waits, then fails with an I/O error once ctrl-loss-tmo has
# passed (not at once, not never), and SIGTERM still makes the mount exit 0 and remove its device.
ON_REQUEST=1   # 100 s of waiting out timeouts, beyond what .ci/run's 30 minutes leave: interop/run 56 (or ublk)
GUEST_JAVA=1
LAB_KERNEL=6.12
CHECK_TIMEOUT=600

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local rc=0
  kh_serve_image 64 || return 1
  kh_await fio-running 300 > /dev/null || { kh_stop_serve; return 1; }
  note "SIGTERM to nvmf4j serve while fio writes through the ublk device"
  kh_stop_serve || { note "FAIL: serve did not exit 0 on SIGTERM"; rc=1; }
  sleep 4
  note "serve again on the same port and image"
  kh_start_serve "$KH_PORT" --file "$KH_IMG" --nqn "$KH_SUBNQN" --allow-host "$KH_HOSTNQN" || return 1
  signal restarted
  kh_await stop-for-good 400 > /dev/null || rc=1
  note "SIGTERM to nvmf4j serve, for good"
  kh_stop_serve || rc=1
  signal stopped
  kh_await done 300 > /dev/null || rc=1
  return $rc
}

guest_part() {
  . /lab/guest/java.sh
  . /lab/checks/ublk-lib.sh
  local rc=0 dev fio_pid start end waited
  ub_guest_target --provider softiwarp -t rdma || return 1
  ub_mount "$SYNC/mount.log" -c 1 -l 30 || { signal done; return 1; }
  dev=$(grep -o '/dev/ublkb[0-9]*' "$SYNC/mount.log" | head -1)

  note "(1) fio randwrite verify=crc32c on $dev at 250 IOPS while the target restarts"
  fio --name=away --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
      --size=12M --rate_iops=250 --verify=crc32c --do_verify=1 --verify_fatal=1 --output="$SYNC/fio.txt" &
  fio_pid=$!
  sleep 2
  kill -0 $fio_pid 2>/dev/null || { note "FAIL: fio ended before the target went away"; rc=1; }
  signal fio-running
  await restarted 300 > /dev/null || rc=1
  wait $fio_pid || { note "FAIL: fio exited $? across the restart"; rc=1; }
  grep -E '^ +(read|write):|err=|>=2000' "$SYNC/fio.txt" | sed 's/^ */  /'
  grep -q 'err= 0' "$SYNC/fio.txt" || { note "FAIL: fio reports an error"; tail -20 "$SYNC/fio.txt"; rc=1; }

  note "(2) the target stops for good: a read waits out ctrl-loss-tmo (30 s), then fails"
  signal stop-for-good
  await stopped 300 > /dev/null || rc=1
  start=$SECONDS
  if timeout 120 dd if="$dev" of=/dev/null bs=4k count=1 skip=777 iflag=direct 2> "$SYNC/dd.log"; then
    note "FAIL: a read succeeded with the target gone"; rc=1
  fi
  end=$SECONDS; waited=$((end - start))
  sed 's/^/  dd: /' "$SYNC/dd.log"
  grep -q 'Input/output error' "$SYNC/dd.log" || { note "FAIL: the read did not end with EIO"; rc=1; }
  # the loss counts from the disconnect, some seconds before the read began: at least 15 s, well under 120
  [ "$waited" -ge 15 ] && [ "$waited" -lt 100 ] || { note "FAIL: the read failed after $waited s"; rc=1; }
  note "the read failed after $waited s"
  ub_stop "$dev" || rc=1
  grep WARNING "$SYNC/mount.log" | sed 's/^/  mount: /'
  signal done
  return $rc
}
