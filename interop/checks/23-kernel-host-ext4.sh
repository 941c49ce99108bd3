# A file system on an nvmf4j namespace: mkfs.ext4, mount, write files, umount, `nvme disconnect`, connect
# again, `fsck -n` finds it clean, mount again and every file's checksum is what was written.
CHECK_TIMEOUT=420

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  kh_serve_until_done 128 380 --block-size 4096
}

guest_part() {
  local port subnqn hostnqn rc=0
  . /lab/checks/kernel-host-lib.sh
  kh_guest_connect || return 1
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
  kh_connect "$port" "$subnqn" "$hostnqn" || return 1
  fsck.ext4 -n -f "$KH_DEV" > /tmp/fsck.log 2>&1; local frc=$?
  tail -3 /tmp/fsck.log
  [ $frc = 0 ] || { note "FAIL: fsck -n rc=$frc"; cat /tmp/fsck.log; rc=1; }
  mount "$KH_DEV" /mnt/t || { note "FAIL: mount again"; return 1; }
  (cd /mnt/t && sha256sum -c --quiet /tmp/sums) || { note "FAIL: checksums differ"; rc=1; }
  note "$(wc -l < /tmp/sums) files, checksums equal after disconnect/reconnect"
  umount /mnt/t
  nvme disconnect -n "$subnqn" || rc=1
  signal done
  return $rc
}
