# `nvmf4j mount --ublk -t tcp` in the 6.12 guest (Java in the guest, NVMe/TCP over eth0, one I/O queue) against
# `nvmf4j serve --transport tcp --file` (64 MiB image) on the host, reached as 10.0.2.2: the namespace becomes
# /dev/ublkbN with its size and block size; fio random writes with crc32c verify at 4 KiB and 128 KiB (QD16,
# O_DIRECT, over 4 and 16 MiB: beyond the port's in-capsule size, so R2T and H2CData) through it, mkfs.ext4, a
# file read back after drop_caches, fstrim (Deallocate over TCP), umount, fsck clean; SIGTERM to the mount: it
# exits 0 and the device is gone; then the host finds the guest's file system in the image (its ext4 superblock).
# Check 49 is the same over softiwarp.
GUEST_JAVA=1
LAB_KERNEL=6.12
CHECK_TIMEOUT=900

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local KH_TRANSPORT=tcp rc=0
  kh_serve_image 64 || return 1
  kh_await done 840 > /dev/null || rc=1
  kh_stop_serve || rc=1
  grep -q "TcpTransport: listening on" "$SYNC/serve.log" || { note "FAIL: serve did not listen over NVMe/TCP"; cat "$SYNC/serve.log"; rc=1; }
  kh_image_has_ext4 || rc=1
  return $rc
}

guest_part() {
  . /lab/guest/java.sh
  . /lab/checks/ublk-lib.sh
  local rc=0 dev
  ub_guest_target -t tcp || return 1
  note "nvmf4j mount --ublk ${UB_FLAGS[*]}"
  ub_mount "$SYNC/mount.log" || { signal done; return 1; }
  dev=$(grep -o '/dev/ublkb[0-9]*' "$SYNC/mount.log" | head -1)
  [ -b "$dev" ] || { note "FAIL: no block device in the mount's log"; kill $GJ_PID; signal done; return 1; }
  ub_image_checks "$dev" || rc=1
  signal done
  return $rc
}
