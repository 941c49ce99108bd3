# The ublk server against the guest kernel's ublk_drv (Linux 6.12): UblkRamDisk (cli test tree, compiled here
# against the CLI jar) runs in the guest and makes /dev/ublkbN over 64 MiB of RAM, one queue of 64 tags: ADD_DEV,
# SET_PARAMS, FETCH_REQ per tag, START_DEV. In the guest: the size and block sizes the device reports, fio random
# writes with crc32c verify at 4 KiB and 128 KiB (QD16, O_DIRECT), mkfs.ext4, a file written and read back through
# the file system, fstrim (discard through the device), umount, fsck clean; then "stop": STOP_DEV and DEL_DEV, and
# both device nodes are gone.
GUEST_JAVA=1
LAB_KERNEL=6.12
CHECK_TIMEOUT=900

host_part() {
  local javac= j
  for j in ${JAVA_HOME:+"$JAVA_HOME"} /usr/lib/jvm/temurin-25*; do [ -x "$j/bin/javac" ] && { javac=$j/bin/javac; break; }; done
  [ -n "$javac" ] || { note "FAIL: no javac 25 on the host"; return 1; }
  rm -rf "$SYNC/classes" && mkdir -p "$SYNC/classes"
  "$javac" -d "$SYNC/classes" -cp "$ROOT/cli/target/nvmf4j.jar" \
      "$ROOT/cli/src/test/java/io/nvmf4j/cli/ublk/UblkRamDisk.java" > "$SYNC/javac.log" 2>&1 ||
    { note "FAIL: javac UblkRamDisk"; cat "$SYNC/javac.log"; signal staged failed; return 1; }
  signal staged ok
}

guest_part() {
  . /lab/guest/java.sh
  . /lab/checks/ublk-lib.sh
  local rc=0 pid dev id
  modprobe ublk_drv || { note "FAIL: modprobe ublk_drv"; return 1; }
  [ "$(await staged 300)" = ok ] || { note "FAIL: the host did not stage UblkRamDisk"; return 1; }
  rm -f /tmp/ublk-ctl && mkfifo /tmp/ublk-ctl
  "$GJ_JAVA" "${GJ_OPTS[@]}" -cp "$GJ_JAR:$SYNC/classes" io.nvmf4j.cli.ublk.UblkRamDisk --size-mib 64 \
      < /tmp/ublk-ctl > "$SYNC/ublk.log" 2>&1 &
  pid=$!
  exec 3> /tmp/ublk-ctl
  if ! wait_for_line "$SYNC/ublk.log" '^READY ' $pid 1500; then
    note "FAIL: no ublk device"; cat "$SYNC/ublk.log"; exec 3>&-; kill $pid 2>/dev/null; return 1
  fi
  dev=$(sed -n 's/^READY //p' "$SYNC/ublk.log"); id=${dev#/dev/ublkb}
  note "device $dev"
  ub_expect_geometry "$dev" 67108864 512 || rc=1
  [ "$(blockdev --getpbsz "$dev")" = 4096 ] || { note "FAIL: physical block size $(blockdev --getpbsz "$dev")"; rc=1; }
  ub_verify_and_fs "$dev" || rc=1
  echo stop >&3
  exec 3>&-
  wait $pid || { note "FAIL: UblkRamDisk exited $?"; rc=1; }
  cat "$SYNC/ublk.log" | sed 's/^/  ublk: /'
  grep -q '^STOPPED' "$SYNC/ublk.log" || { note "FAIL: no STOPPED line"; rc=1; }
  [ ! -e "$dev" ] || { note "FAIL: $dev still exists"; rc=1; }
  [ ! -e "/dev/ublkc$id" ] || { note "FAIL: /dev/ublkc$id still exists"; rc=1; }
  return $rc
}
