# Power loss at every point: `nvmf4j serve` in the guest (softiwarp on :4420, block-device namespace, --block-size
# 4096) on a dm-log-writes device over two loop devices (data, log; tmpfs files), which logs every write as the
# device would hold it after a power cut (plain writes once a flush covers them, FUA writes when they complete,
# marks when asked). On the host, PowerLossWriter (cli test tree, run from the CLI jar as a source file) writes
# self-describing 4 KiB blocks at queue depth 16, a quarter with FUA, in 8 epochs; after each it waits for its
# writes, in odd epochs has the guest put mark pre-N in the log, sends a Flush, waits for it and has the guest put
# mark post-N (even epochs send the Flush right after the last acknowledgement). The target is then killed with
# SIGKILL, the log copied out and replayed on the host (log-writes-replay.py) entry by entry: at every crash point
# every block is whole (zeroes or one write of this run) and no block goes back to older data; every FUA write
# acknowledged before pre-N is there at pre-N; every write acknowledged before Flush N is there at that Flush's log
# entry and at post-N (or a later write to its block). The replay then runs again on three damaged copies of the
# same log (a write moved behind its flush, a FUA write moved behind the next flush, a torn block), each of which
# must fail.
# Two passes, one per backend mode of the target (--backend-io uring: FUA as RWF_DSYNC, Flush as fdatasync, on
# io_uring; threads: pwrite and fdatasync on workers), each with a fresh device and target.
# Environment (interop/run's): PLOG_BACKEND_IO, the passes (default "uring threads"); PLOG_EPOCHS / PLOG_WRITES,
# epochs and writes per epoch (8, 200).
GUEST_JAVA=1
CHECK_TIMEOUT=480
NQN=nqn.2026-12.io.nvmf4j:lab-power-loss
PLOG_DAMAGE="late-write lost-fua torn"

# pl_java: a Java 25 or later on the host (the writer runs as a source file against the CLI jar).
pl_java() {
  local j v
  for j in ${JAVA_HOME:+"$JAVA_HOME"} /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-* /usr/lib/jvm/java-25*; do
    [ -x "$j/bin/java" ] || continue
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$j/release" 2>/dev/null)
    [ "${v:-0}" -ge 25 ] && { echo "$j/bin/java"; return 0; }
  done
  return 1
}

# pl_write PASS: the writer against the guest's target, relaying its mark requests to the guest; 1 when it failed.
pl_write() {
  local pass=$1 java line n=0 rc=0 wout win
  java=$(pl_java) || { note "FAIL: no Java 25 on the host"; return 1; }
  local src=$ROOT/cli/src/test/java/io/nvmf4j/cli/powerloss/PowerLossWriter.java
  note "writer: ${PLOG_EPOCHS:-8} epochs x ${PLOG_WRITES:-200} writes of 4 KiB, QD16, 25% FUA -> 127.0.0.1:$FWD_PORT"
  coproc PLW { exec "$java" --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -cp "$ROOT/cli/target/nvmf4j.jar" \
      "$src" --traddr "127.0.0.1:$FWD_PORT" --nqn "$NQN" --record "$SYNC/record-$pass.txt" --epochs "${PLOG_EPOCHS:-8}" \
      --writes "${PLOG_WRITES:-200}" --qd 16 --fua 25 2> "$SYNC/writer-$pass.err"; }
  local wpid=$PLW_PID
  exec {wout}<&"${PLW[0]}" {win}>&"${PLW[1]}"
  while IFS= read -r line <&$wout; do
    case $line in
      "MARK "*)
        n=$((n + 1))
        signal "mark-$pass-$n" "${line#MARK }"
        await "marked-$pass-$n" 120 > /dev/null || { rc=1; kill $wpid 2>/dev/null; break; }
        echo ok >&$win ;;
      *) note "$line" ;;
    esac
  done
  exec {wout}<&- {win}>&-
  wait $wpid || rc=1
  [ $rc = 0 ] || { note "FAIL: the writer (pass $pass)"; tail -20 "$SYNC/writer-$pass.err"; }
  signal "writer-done-$pass" "$n"
  return $rc
}

# pl_replay PASS: the log replayed against the record (must pass), then each damaged copy (each must fail).
pl_replay() {
  local pass=$1 d rc=0 out
  local replay=$ROOT/interop/checks/log-writes-replay.py log=$SYNC/log-$pass.img rec=$SYNC/record-$pass.txt
  note "replay of the log ($(du -h --apparent-size "$log" | cut -f1), $(du -h "$log" | cut -f1) used) against the record"
  python3 "$replay" "$log" "$rec" --json "$SYNC/replay-$pass.json" || { note "FAIL: the replay found lost or torn writes"; rc=1; }
  for d in $PLOG_DAMAGE; do
    out=$(python3 "$replay" "$log" "$rec" --damage "$d" 2>&1)
    case $? in
      1) printf '%s\n' "$out" | head -3 | sed "s/^/  damage $d: /" ;;
      3) printf '%s\n' "$out" | sed "s/^/  damage $d: /"; note "FAIL: damage $d does not apply to this log"; rc=1 ;;
      *) printf '%s\n' "$out" | sed "s/^/  damage $d: /"; note "FAIL: the replay did not notice damage $d"; rc=1 ;;
    esac
  done
  return $rc
}

host_part() {
  local pass rc=0 t0
  local passes=${PLOG_BACKEND_IO:-uring threads}
  signal passes "$passes"
  for pass in $passes; do
    t0=$SECONDS
    [ "$(await "serve-ready-$pass" 420)" = up ] || return 1
    note "pass $pass: target up in the guest"
    pl_write "$pass" || rc=1
    await "log-ready-$pass" 300 > /dev/null || return 1
    [ $rc = 0 ] && { pl_replay "$pass" || rc=1; }
    note "pass $pass: $((SECONDS - t0)) s"
    [ $rc = 0 ] || break
  done
  return $rc
}

# pl_device: the dm-log-writes device plog over two loop devices on tmpfs files (data 4 MiB, log 64 MiB).
pl_device() {
  rm -f /tmp/plog-data.img /tmp/plog-log.img
  truncate -s 4M /tmp/plog-data.img && truncate -s 64M /tmp/plog-log.img || return 1
  PL_DATA=$(losetup -f --show /tmp/plog-data.img) && PL_LOG=$(losetup -f --show /tmp/plog-log.img) || return 1
  # no udev in the guest: dmsetup mknodes makes /dev/mapper/plog
  dmsetup create plog --table "0 $(blockdev --getsz "$PL_DATA") log-writes $PL_DATA $PL_LOG" && dmsetup mknodes plog
}

# pl_marks PASS: puts each mark the host asks for into the log, in order, until the writer is done.
pl_marks() {
  local pass=$1 n=0 f deadline=$((SECONDS + 400))
  while :; do
    f=$SYNC/mark-$pass-$((n + 1))
    while [ ! -e "$f" ] && [ ! -e "$SYNC/writer-done-$pass" ]; do
      kill -0 "$GJ_PID" 2>/dev/null || { note "FAIL: nvmf4j serve ended"; tail -20 "$SYNC/serve-$pass.log"; return 1; }
      [ $SECONDS -lt $deadline ] || { note "FAIL: no word from the writer"; return 1; }
      sleep 0.05
    done
    [ -e "$f" ] || break
    n=$((n + 1))
    dmsetup message plog 0 mark "$(cat "$f")" || return 1
    signal "marked-$pass-$n"
  done
  note "pass $pass: $n marks in the log"
}

guest_part() {
  . /lab/guest/java.sh
  local pass passes rc=0
  passes=$(await passes 60) || return 1
  modprobe -a loop dm-log-writes || { signal "serve-ready-${passes%% *}" failed; return 1; }
  for pass in $passes; do
    pl_device || { note "FAIL: the dm-log-writes device"; signal "serve-ready-$pass" failed; return 1; }
    note "pass $pass: nvmf4j serve --provider softiwarp --listen $GUEST_IP:4420 --file /dev/mapper/plog --block-size 4096 --backend-io $pass"
    gj_start "$SYNC/serve-$pass.log" serve --provider softiwarp --listen "$GUEST_IP:4420" --file /dev/mapper/plog \
        --block-size 4096 --nqn "$NQN" --poll-groups 1 --no-rpc --backend-io "$pass"
    if ! wait_for_line "$SYNC/serve-$pass.log" 'listening on' "$GJ_PID" 1500; then
      note "FAIL: serve did not come up"; cat "$SYNC/serve-$pass.log"; kill -9 "$GJ_PID"
      signal "serve-ready-$pass" failed; return 1
    fi
    signal "serve-ready-$pass" up
    pl_marks "$pass" || rc=1
    # the power cut: the target gets no chance to do anything more; dm-log-writes' destructor then logs what was
    # never flushed (nothing, when the writer's last Flush did its work) and a last mark
    kill -9 "$GJ_PID"; wait "$GJ_PID" 2>/dev/null
    grep -iE 'io_uring|backend|warn|error' "$SYNC/serve-$pass.log" | head -5
    dmsetup status plog
    dmsetup remove plog && losetup -d "$PL_DATA" "$PL_LOG" || rc=1
    cp --sparse=always /tmp/plog-log.img "$SYNC/log-$pass.img" || rc=1
    rm -f /tmp/plog-data.img /tmp/plog-log.img
    signal "log-ready-$pass"
    [ $rc = 0 ] || break
  done
  return $rc
}
