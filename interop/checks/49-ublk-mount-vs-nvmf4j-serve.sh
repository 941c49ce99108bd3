# `nvmf4j mount` with no MOUNTPOINT, in the 6.12 guest (Java in the guest, softiwarp), against `nvmf4j serve --file`
# on the host (64 MiB image, reached as 10.0.2.2): with ublk_drv loaded it gives block devices by itself and says
# so; the namespace becomes /dev/ublkbN, with the namespace's size and block size; fio random writes with crc32c
# verify at 4 KiB and 128 KiB (QD16, O_DIRECT, over 4 and 16 MiB) through it, mkfs.ext4, a file read back after
# drop_caches, fstrim (Deallocate on the target), umount, fsck clean; SIGTERM to the mount: it exits 0 and the device
# is gone; then the host finds the guest's file system in the image (its ext4 superblock magic).
# Then `mount --ublk --daemon --fs DIR` returns once the device and the file system on it are ready (the file
# written in the first part is there), and `nvmf4j umount DIR` stops it: DIR unmounted, the device gone (the same
# without --fs, stopped by `nvmf4j umount /dev/ublkbN`, is check 57, on request).
GUEST_JAVA=1
LAB_KERNEL=6.12
CHECK_TIMEOUT=1200

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local rc=0
  kh_serve_image 64 || return 1
  kh_await done 1140 > /dev/null || rc=1
  kh_stop_serve || rc=1
  kh_image_has_ext4 || rc=1
  return $rc
}

guest_part() {
  . /lab/guest/java.sh
  . /lab/checks/ublk-lib.sh
  local rc=0 dev
  ub_guest_target --provider softiwarp -t rdma || return 1
  # no MOUNTPOINT and no --ublk: with ublk_drv loaded, mount gives block devices by itself and says so
  note "nvmf4j mount ${UB_FLAGS[*]} (no MOUNTPOINT)"
  gj_start "$SYNC/mount.log" mount "${UB_FLAGS[@]}"
  if ! wait_for_line "$SYNC/mount.log" 'removes them' $GJ_PID 1500; then
    note "FAIL: no ublk device"; cat "$SYNC/mount.log"; kill $GJ_PID 2>/dev/null; signal done; return 1
  fi
  sed 's/^/  mount: /' "$SYNC/mount.log"
  grep -q 'block devices through ublk_drv' "$SYNC/mount.log" || { note "FAIL: mount did not say it chose ublk"; rc=1; }
  dev=$(grep -o '/dev/ublkb[0-9]*' "$SYNC/mount.log" | head -1)
  ub_image_checks "$dev" || rc=1
  ub_daemon_and_umount || rc=1
  signal done
  return $rc
}

# ub_daemon_and_umount (guest): mount --ublk --daemon --fs DIR, stopped by nvmf4j umount DIR.
ub_daemon_and_umount() {
  local dev rc=0 dir=/mnt/ublk-daemon
  mkdir -p "$dir"
  note "mount --ublk --daemon --fs $dir (the ext4 of the first part), then nvmf4j umount $dir"
  gj_nvmf4j mount --ublk "${UB_FLAGS[@]}" --daemon --fs "$dir" > "$SYNC/daemon.txt" 2>&1 ||
    { note "FAIL: mount --daemon --fs exited $?"; cat "$SYNC/daemon.txt"; return 1; }
  sed 's/^/  /' "$SYNC/daemon.txt"
  dev=$(grep -o '/dev/ublkb[0-9]*' "$SYNC/daemon.txt" | head -1)
  { [ -n "$dev" ] && [ -b "$dev" ]; } || { note "FAIL: no block device in the daemon's status line"; return 1; }
  mountpoint -q "$dir" || { note "FAIL: $dir is not mounted once mount --daemon returned"; rc=1; }
  cmp /tmp/ublk-file "$dir/file" || { note "FAIL: the first part's file is not on the file system"; rc=1; }
  gj_nvmf4j umount "$dir" > "$SYNC/umount.txt" 2>&1 || { note "FAIL: nvmf4j umount $dir"; rc=1; }
  sed 's/^/  /' "$SYNC/umount.txt"
  ! mountpoint -q "$dir" || { note "FAIL: $dir still mounted after nvmf4j umount"; umount "$dir"; rc=1; }
  [ ! -e "$dev" ] || { note "FAIL: $dev remains after nvmf4j umount $dir"; rc=1; }
  return $rc
}
