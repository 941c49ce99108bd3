# ublk user recovery in the 6.12 guest (Java in the guest, softiwarp) against `nvmf4j serve --file` on the host:
# `nvmf4j mount --ublk` is killed with SIGKILL in the middle of I/O and `nvmf4j mount --ublk --recover ID` serves
# the same /dev/ublkbID again, twice:
# (1) under fio random writes with crc32c verify (rate-limited so that the kill lands in its write phase): fio ends
#     with no error and every block verifies, the writes the dead process had taken and not answered reissued;
# (2) under an ext4 that `mount --ublk --fs /mnt/ublk --mkfs` made and mounted, being written (a 12 MiB file copied
#     with fsync): the copy ends, the file reads back equal after drop_caches; the recovering mount, given the same
#     --fs, takes that mount over and unmounts it on SIGTERM; the host's e2fsck finds the image's ext4 clean.
# Between kill and recovery `nvmf4j ublk list` shows the device QUIESCED and says how to recover it; the kernel log
# has no I/O error. After (1) the recovered mount is killed again and `nvmf4j ublk del -n ID` removes the device it
# left; after (2) SIGTERM makes the mount exit 0 and remove its device.
GUEST_JAVA=1
LAB_KERNEL=6.12
CHECK_TIMEOUT=900

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local rc=0
  kh_serve_image 64 || return 1
  kh_await done 840 > /dev/null || rc=1
  kh_stop_serve || rc=1
  note "e2fsck -n -f on the served image (the guest's ext4, written across a SIGKILL and a recovery)"
  e2fsck -n -f "$KH_IMG" > "$SYNC/e2fsck.log" 2>&1 || { note "FAIL: e2fsck on the image"; cat "$SYNC/e2fsck.log"; rc=1; }
  tail -1 "$SYNC/e2fsck.log" | sed 's/^/  /'
  return $rc
}

guest_part() {
  . /lab/guest/java.sh
  . /lab/checks/ublk-lib.sh
  local rc=0 dev id fio_pid cp_pid
  ub_guest_target --provider softiwarp -t rdma || return 1
  dmesg -C
  ub_mount "$SYNC/mount1.log" || { signal done; return 1; }
  dev=$(grep -o '/dev/ublkb[0-9]*' "$SYNC/mount1.log" | head -1); id=${dev#/dev/ublkb}
  grep -q -- '--recover' "$SYNC/mount1.log" || { note "FAIL: the mount does not say how to recover"; rc=1; }

  # (1) fio verify spans the kill
  note "(1) fio randwrite verify=crc32c on $dev, 250 IOPS; SIGKILL to the mount after 4 s"
  fio --name=span --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
      --size=8M --rate_iops=250 --verify=crc32c --do_verify=1 --verify_fatal=1 --output="$SYNC/fio.txt" &
  fio_pid=$!
  sleep 4
  kill -0 $fio_pid 2>/dev/null || { note "FAIL: fio ended before the kill: nothing spans it"; rc=1; }
  ub_kill_and_recover "$id" 2 || rc=1
  wait $fio_pid || { note "FAIL: fio exited $? across the recovery"; rc=1; }
  grep -E '^ +(read|write):|err=|>=2000' "$SYNC/fio.txt" | sed 's/^ */  /'
  grep -q 'err= 0' "$SYNC/fio.txt" || { note "FAIL: fio reports an error"; tail -20 "$SYNC/fio.txt"; rc=1; }

  # a mount killed for good: ublk del removes what it left
  ub_kill_and_del "$id" || rc=1

  # (2) a file system being written spans the kill; the recovering mount takes it over and unmounts it at the end
  note "(2) mount --ublk --fs /mnt/ublk --mkfs, copy 12 MiB with fsync, SIGKILL to the mount during it"
  mkdir -p /mnt/ublk
  head -c 12M /dev/urandom > /tmp/ublk-file
  ub_mount "$SYNC/mount2.log" --fs /mnt/ublk --mkfs || { signal done; return 1; }
  dev=$(grep -o '/dev/ublkb[0-9]*' "$SYNC/mount2.log" | head -1); id=${dev#/dev/ublkb}
  findmnt -n -o SOURCE /mnt/ublk | grep -qx "$dev" || { note "FAIL: $dev is not mounted on /mnt/ublk"; rc=1; }
  dd if=/tmp/ublk-file of=/mnt/ublk/file bs=64k oflag=direct conv=fsync 2> "$SYNC/dd.log" &
  cp_pid=$!
  sleep 2
  kill -0 $cp_pid 2>/dev/null || { note "FAIL: the copy ended before the kill: nothing spans it"; rc=1; }
  ub_kill_and_recover "$id" 3 --fs /mnt/ublk || rc=1
  wait $cp_pid || { note "FAIL: the copy failed across the recovery"; cat "$SYNC/dd.log"; rc=1; }
  { echo 3 > /proc/sys/vm/drop_caches && cmp /tmp/ublk-file /mnt/ublk/file; } > "$SYNC/fs.log" 2>&1 ||
    { note "FAIL: the file does not read back equal"; cat "$SYNC/fs.log"; rc=1; }
  if dmesg | grep -E "ublkb|blk_update_request|Buffer I/O error" | grep -iE 'error|fail'; then
    note "FAIL: the kernel logged I/O errors"; rc=1
  fi
  ub_stop "$dev" || rc=1
  if findmnt /mnt/ublk > /dev/null; then note "FAIL: /mnt/ublk is still mounted after SIGTERM"; umount /mnt/ublk; rc=1; fi
  signal done
  return $rc
}
