# Guest helpers of the ublk checks (48, 49, 55, 56, 57, 68): source /lab/checks/ublk-lib.sh in a guest part, after
# /lab/guest/java.sh (the mount helpers start the CLI JVM through it).

# ub_guest_target TRANSPORT_FLAGS... (guest): loads ublk_drv, waits for the host part's "target" line (port,
# subsystem NQN, host NQN) and sets UB_FLAGS to the mount's flags for it: TRANSPORT_FLAGS (e.g. --provider softiwarp
# -t rdma, or -t tcp), the host as seen from the guest, one I/O queue. 1 when either step fails (said, and "done"
# signalled when the module is missing, as the host part waits for it).
ub_guest_target() {
  local t port subnqn hostnqn
  modprobe ublk_drv || { note "FAIL: modprobe ublk_drv"; signal done; return 1; }
  t=$(await target 300) || return 1
  read -r port subnqn hostnqn <<< "$t"
  UB_FLAGS=("$@" -a "$HOST_FROM_GUEST" -s "$port" -n "$subnqn" -q "$hostnqn" -i 1)
}

# ub_image_checks DEV (guest): the checks of a device on the host part's 64 MiB image (kh_serve_image 64): its
# geometry (64 MiB, 512-byte blocks), fio verify over 4 MiB at 4 KiB (the mount's 4 KiB writes run at a few hundred
# IOPS under TCG) and 16 MiB at 128 KiB, the file system steps, then SIGTERM to the mount (ub_stop).
ub_image_checks() {
  local rc=0
  ub_expect_geometry "$1" 67108864 512 || rc=1
  ub_verify_and_fs "$1" 4M 16M || rc=1
  ub_stop "$1" || rc=1
  return $rc
}

# ub_verify_and_fs DEV [SIZE] [SIZE_128K] (guest): fio random writes with crc32c verify at 4 KiB over the first SIZE
# (32M) of DEV and at 128 KiB over the first SIZE_128K (SIZE) (QD16, O_DIRECT), then mkfs.ext4, an 8 MiB file
# written and read back after drop_caches, fstrim, umount, fsck clean. Logs in $SYNC (fio-4k.txt, fio-128k.txt,
# fs.log); 1 when a step fails.
ub_verify_and_fs() {
  local dev=$1 size=${2:-32M} size128=${3:-${2:-32M}} bs sz rc=0
  for bs in 4k 128k; do
    sz=$size; [ $bs = 128k ] && sz=$size128
    note "fio randwrite bs=$bs iodepth=16 verify=crc32c over $sz of $dev"
    timeout 300 fio --name="v$bs" --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite --bs=$bs \
        --iodepth=16 --size="$sz" --verify=crc32c --do_verify=1 --verify_fatal=1 --output="$SYNC/fio-$bs.txt" ||
      { note "FAIL: fio $bs"; tail -20 "$SYNC/fio-$bs.txt"; rc=1; }
    grep -E '^ +(read|write):' "$SYNC/fio-$bs.txt" | sed 's/^ */  /'
  done
  [ $rc = 0 ] || return 1
  note "mkfs.ext4, a file, fstrim, umount, fsck"
  mkdir -p /mnt/ublk
  { mkfs.ext4 -q -F "$dev" && mount "$dev" /mnt/ublk && head -c 8M /dev/urandom > /tmp/ublk-file &&
    cp /tmp/ublk-file /mnt/ublk/file && sync && echo 3 > /proc/sys/vm/drop_caches &&
    cmp /tmp/ublk-file /mnt/ublk/file && fstrim -v /mnt/ublk && umount /mnt/ublk &&
    fsck.ext4 -n -f "$dev"; } > "$SYNC/fs.log" 2>&1 || { note "FAIL: the file system steps"; cat "$SYNC/fs.log"; rc=1; }
  grep -E 'trimmed' "$SYNC/fs.log" | sed 's/^/  /'
  umount /mnt/ublk 2>/dev/null
  return $rc
}

# ub_expect_geometry DEV BYTES LOGICAL_BLOCK (guest): DEV has BYTES bytes and that logical block size; 1 (said in
# the log) when not.
ub_expect_geometry() {
  local size lbs rc=0
  size=$(blockdev --getsize64 "$1"); lbs=$(blockdev --getss "$1")
  [ "$size" = "$2" ] || { note "FAIL: $1 has $size bytes, not $2"; rc=1; }
  [ "$lbs" = "$3" ] || { note "FAIL: $1's logical block size is $lbs, not $3"; rc=1; }
  return $rc
}

# ub_mount LOG [ARGS...] (guest): `nvmf4j mount --ublk` with the array UB_FLAGS and ARGS, log LOG, in the
# background (GJ_PID); waits for its ready line and prints the log. 1 (the JVM killed) when no device comes.
ub_mount() {
  local log=$1; shift
  gj_start "$log" mount --ublk "${UB_FLAGS[@]}" "$@"
  if ! wait_for_line "$log" 'removes them' $GJ_PID 1500; then
    note "FAIL: mount --ublk $* gave no device"; cat "$log"; kill $GJ_PID 2>/dev/null; return 1
  fi
  sed 's/^/  mount: /' "$log"
}

# ub_stop DEV (guest): SIGTERM to the mount (GJ_PID): it exits 0 within 60 s and DEV is gone.
ub_stop() {
  kill -TERM $GJ_PID
  for _ in $(seq 300); do kill -0 $GJ_PID 2>/dev/null || break; sleep 0.2; done
  if kill -0 $GJ_PID 2>/dev/null; then
    note "FAIL: the mount still runs 60 s after SIGTERM"; kill -KILL $GJ_PID; return 1
  fi
  wait $GJ_PID || { note "FAIL: the mount exited $? after SIGTERM"; return 1; }
  [ ! -e "$1" ] || { note "FAIL: $1 still exists after the mount ended"; return 1; }
}

# ub_kill_and_recover ID N [ARGS...] (guest): SIGKILL to the mount (GJ_PID), `nvmf4j ublk list` shows device ID
# QUIESCED with how to recover it, then `mount --ublk --recover ID ARGS` (log mount-recover-N.log) serves it again.
ub_kill_and_recover() {
  local rc=0 id=$1 n=$2
  shift 2
  kill -KILL $GJ_PID; wait $GJ_PID 2>/dev/null
  note "killed the mount; nvmf4j ublk list:"
  for _ in $(seq 100); do
    gj_nvmf4j ublk list > "$SYNC/ublk-list-$n.txt" 2>&1
    grep -q "^dev id $id: .*QUIESCED" "$SYNC/ublk-list-$n.txt" && break
    sleep 0.2
  done
  sed 's/^/  /' "$SYNC/ublk-list-$n.txt"
  grep -q "^dev id $id: .*QUIESCED.*--recover $id" "$SYNC/ublk-list-$n.txt" ||
    { note "FAIL: ublk list does not show device $id QUIESCED with how to recover it"; rc=1; }
  note "nvmf4j mount --ublk --recover $id $*"
  ub_mount "$SYNC/mount-recover-$n.log" --recover "$id" "$@" || return 1
  grep -q "/dev/ublkb$id recovered" "$SYNC/mount-recover-$n.log" || { note "FAIL: no recovery line"; rc=1; }
  return $rc
}

# ub_kill_and_del ID (guest): SIGKILL to the mount (GJ_PID); its device stays behind (QUIESCED, its I/O held for a
# recovery) until `nvmf4j ublk del -n ID` removes it: both nodes go.
ub_kill_and_del() {
  local id=$1 rc=0
  note "SIGKILL to the mount, then nvmf4j ublk del -n $id"
  kill -KILL $GJ_PID; wait $GJ_PID 2>/dev/null
  [ -e "/dev/ublkb$id" ] || { note "FAIL: /dev/ublkb$id went with its server: nothing for ublk del to remove"; rc=1; }
  gj_nvmf4j ublk del -n "$id" > "$SYNC/ublk-del.txt" 2>&1 || { note "FAIL: ublk del -n $id"; rc=1; }
  sed 's/^/  /' "$SYNC/ublk-del.txt"
  [ ! -e "/dev/ublkc$id" ] && [ ! -e "/dev/ublkb$id" ] || { note "FAIL: device $id's nodes remain after ublk del"; rc=1; }
  return $rc
}
