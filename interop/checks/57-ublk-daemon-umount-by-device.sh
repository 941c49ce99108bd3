# `nvmf4j mount --ublk --daemon` without --fs, in the 6.12 guest (Java in the guest, softiwarp) against
# `nvmf4j serve --file` on the host: the command returns once the background mount's device is ready (it has no
# directory to announce itself under, so the parent waits for the name it passed down), its status line names the
# device, and `nvmf4j umount /dev/ublkbN` stops the background process: the device is gone. On request, for CI time
# (check 49 stops an --fs mount by its directory, the same umount path).
GUEST_JAVA=1
LAB_KERNEL=6.12
ON_REQUEST=1   # not in the default run (CI time): interop/run ublk-daemon
CHECK_TIMEOUT=600

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local rc=0
  kh_serve_image 64 || return 1
  kh_await done 540 > /dev/null || rc=1
  kh_stop_serve || rc=1
  return $rc
}

guest_part() {
  . /lab/guest/java.sh
  . /lab/checks/ublk-lib.sh
  local rc=0 dev
  ub_guest_target --provider softiwarp -t rdma || return 1
  note "mount --ublk --daemon (no --fs), then nvmf4j umount DEVICE"
  if ! gj_nvmf4j mount --ublk "${UB_FLAGS[@]}" --daemon > "$SYNC/daemon.txt" 2>&1; then
    note "FAIL: mount --daemon exited $?"; cat "$SYNC/daemon.txt"; signal done; return 1
  fi
  sed 's/^/  /' "$SYNC/daemon.txt"
  dev=$(grep -o '/dev/ublkb[0-9]*' "$SYNC/daemon.txt" | head -1)
  if [ -z "$dev" ] || [ ! -b "$dev" ]; then
    note "FAIL: no block device in the daemon's status line"; signal done; return 1
  fi
  [ "$(blockdev --getsize64 "$dev")" = 67108864 ] || { note "FAIL: $dev is not 64 MiB"; rc=1; }
  gj_nvmf4j umount "$dev" > "$SYNC/umount.txt" 2>&1 || { note "FAIL: nvmf4j umount $dev"; rc=1; }
  sed 's/^/  /' "$SYNC/umount.txt"
  [ ! -e "$dev" ] || { note "FAIL: $dev remains after nvmf4j umount $dev"; rc=1; }
  signal done
  return $rc
}
