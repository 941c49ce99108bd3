# Deallocate, Flush and Write Zeroes from the kernel host: `blkdiscard` of a written range reads back as zeroes
# (the file namespace punches a hole), `nvme flush` succeeds, `nvme write-zeroes` zeroes a written range.
CHECK_TIMEOUT=300

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  kh_serve_until_done 64 260
}

guest_part() {
  local port subnqn hostnqn rc=0
  . /lab/checks/kernel-host-lib.sh
  kh_guest_connect || return 1
  local dev=$KH_DEV
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
  # write-zeroes of 256 blocks (128 KiB) at LBA 2048 (1 MiB): zero there, data after it intact
  nvme write-zeroes "$dev" -n 1 -s 2048 -c 255 || { note "FAIL: nvme write-zeroes"; rc=1; }
  head -c $((128 << 10)) /dev/zero > /tmp/z128k
  tail -c $(((1 << 20) - (128 << 10))) /tmp/r.bin > /tmp/r3
  dd if="$dev" bs=64k skip=16 count=2 iflag=direct status=none | cmp - /tmp/z128k \
      || { note "FAIL: write-zeroes range is not zero"; rc=1; }
  dd if="$dev" bs=64k skip=18 count=14 iflag=direct status=none | cmp - /tmp/r3 \
      || { note "FAIL: data after write-zeroes changed"; rc=1; }
  note "nvme write-zeroes: ok"
  nvme disconnect -n "$subnqn" || rc=1
  signal done
  return $rc
}
