# Checks 22 and 23 over NVMe/TCP, against `nvmf4j serve --transport tcp --file --block-size 4096`: `blkdiscard` of
# a written range reads back as zeroes (the file namespace punches a hole), `nvme flush` succeeds, `nvme
# write-zeroes` zeroes a written range and leaves the data after it; then mkfs.ext4, mount, write files, umount,
# `nvme disconnect`, connect again, `fsck -n` finds it clean, mount again and every file's checksum is what was
# written.
CHECK_TIMEOUT=480

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local KH_TRANSPORT=tcp
  kh_serve_until_done 128 440 --block-size 4096
}

# discard_flush_zeroes DEV: check 22's steps, the LBAs from DEV's logical block size; 1 when one failed.
discard_flush_zeroes() {
  local dev=$1 rc=0 lbs
  lbs=$(blockdev --getss "$dev")
  note "logical block size $lbs"
  head -c $((2 << 20)) /dev/urandom > /tmp/r.bin
  dd if=/tmp/r.bin of="$dev" bs=64k oflag=direct status=none || { note "FAIL: write"; return 1; }
  # blkdiscard of the first MiB: must read back as zeroes (DLFEAT: deallocated blocks read 0)
  blkdiscard -o 0 -l $((1 << 20)) "$dev" || { note "FAIL: blkdiscard"; dmesg | tail; rc=1; }
  head -c $((1 << 20)) /dev/zero > /tmp/z1m
  tail -c $((1 << 20)) /tmp/r.bin > /tmp/r2
  dd if="$dev" bs=64k count=16 iflag=direct status=none | cmp - /tmp/z1m \
      || { note "FAIL: discarded range is not zero"; rc=1; }
  dd if="$dev" bs=64k skip=16 count=16 iflag=direct status=none | cmp - /tmp/r2 \
      || { note "FAIL: the range after the discard changed"; rc=1; }
  note "blkdiscard: ok"
  nvme flush "$dev" -n 1 || { note "FAIL: nvme flush"; rc=1; }
  note "nvme flush: ok"
  # write-zeroes of 128 KiB at 1 MiB (-c is 0's based): zero there, data after it intact
  nvme write-zeroes "$dev" -n 1 -s $(((1 << 20) / lbs)) -c $(((128 << 10) / lbs - 1)) \
      || { note "FAIL: nvme write-zeroes"; rc=1; }
  head -c $((128 << 10)) /dev/zero > /tmp/z128k
  tail -c $(((1 << 20) - (128 << 10))) /tmp/r.bin > /tmp/r3
  dd if="$dev" bs=64k skip=16 count=2 iflag=direct status=none | cmp - /tmp/z128k \
      || { note "FAIL: write-zeroes range is not zero"; rc=1; }
  dd if="$dev" bs=64k skip=18 count=14 iflag=direct status=none | cmp - /tmp/r3 \
      || { note "FAIL: data after write-zeroes changed"; rc=1; }
  note "nvme write-zeroes: ok"
  return $rc
}

# ext4_reconnect: check 23's steps on $KH_DEV (the caller's port, subnqn and hostnqn to connect again); 1 when one
# failed.
ext4_reconnect() {
  local rc=0 i frc
  mkfs.ext4 -q -F "$KH_DEV" || { note "FAIL: mkfs.ext4"; dmesg | tail; return 1; }
  mkdir -p /mnt/t && mount "$KH_DEV" /mnt/t || { note "FAIL: mount"; dmesg | tail; return 1; }
  for i in $(seq 1 20); do
    head -c $((i * 37 * 1024 + i)) /dev/urandom > /mnt/t/file$i
  done
  mkdir -p /mnt/t/dir && head -c $((5 << 20)) /dev/urandom > /mnt/t/dir/big
  (cd /mnt/t && find . -type f | sort | xargs sha256sum) > /tmp/sums
  umount /mnt/t || { note "FAIL: umount"; return 1; }
  nvme disconnect -n "$subnqn" || { note "FAIL: disconnect"; return 1; }
  note "disconnected; connecting again"
  kh_connect_tcp "$port" "$subnqn" "$hostnqn" || return 1
  fsck.ext4 -n -f "$KH_DEV" > /tmp/fsck.log 2>&1; frc=$?
  tail -3 /tmp/fsck.log
  [ $frc = 0 ] || { note "FAIL: fsck -n rc=$frc"; cat /tmp/fsck.log; rc=1; }
  mount "$KH_DEV" /mnt/t || { note "FAIL: mount again"; return 1; }
  (cd /mnt/t && sha256sum -c --quiet /tmp/sums) || { note "FAIL: checksums differ"; rc=1; }
  note "$(wc -l < /tmp/sums) files, checksums equal after disconnect/reconnect"
  umount /mnt/t
  return $rc
}

guest_part() {
  local port subnqn hostnqn rc=0
  . /lab/checks/kernel-host-lib.sh
  kh_guest_connect_tcp || return 1
  discard_flush_zeroes "$KH_DEV" || rc=1
  ext4_reconnect || rc=1
  nvme disconnect -n "$subnqn" || rc=1
  signal done
  return $rc
}
