# Issue 29's goal, measured in the lab: 4 KiB random reads at QD1 and QD32 against one `nvmf4j serve --ram 64M` on
# the host, three ways from the 6.12 guest, in one run: (a) fio on /dev/ublkb0 made by `nvmf4j mount --ublk` (Java
# in the guest, softiwarp), (b) `nvmf4j perf` in the guest (the library without the block layer), (c) fio on the
# guest kernel's own nvme-rdma device (kernel siw0); and (d) fio on a ublk RAM disk served by the same JVM code
# (UblkRamDisk, no NVMe), what the guest's block layer and ublk path allow by themselves. Prints job | ublk | perf |
# kernel | ram with ublk/perf, ublk/kernel and ram/perf, saved as JSON (sync dir and $WORK/results/). The guest is
# emulated (TCG, single-threaded for a JVM), so only the ratios mean anything; a passing run says every side ran
# without error, not how fast. Every side is warmed first (UB_WARM_SECONDS of 4 KiB random I/O at QD32, or perf's
# --ramp): a JVM in the guest compiles its data path for tens of seconds with C1 alone, and measured cold the Java
# sides gave a third of what they give warm (ublk QD1 54-115 IOPS cold, 161-282 warm; perf QD1 148-379 cold,
# 685-759 warm), so a cold run measured the JIT, not the I/O path.
# UB_AB_OPTS (host environment): JVM options for a second way to run the mount, compared in the same boot: the ublk
# side then runs four times, in the order ublk, ublkB (with the options), ublkB2, ublk2, each a fresh mount warmed
# first, e.g. `UB_AB_OPTS=-Dnvmf4j.ublk.watchSocket=false LAB_KERNEL=6.12 interop/run 39-ublk`. A B B A: in one
# boot each mount measured lower than the one before it whatever it ran (QD32 2,522, 2,452, 2,297, 1,998 IOPS
# alternating A B A B), so the first pair favours A as much as the second favours B, and their product does not.
ON_REQUEST=1   # a benchmark, not a correctness check: interop/run 39
GUEST_JAVA=1
LAB_KERNEL=6.12
CHECK_TIMEOUT=1500  # UB_AB_OPTS adds three mounts of about three minutes each
UB_JOBS="randread-4k-qd1:randread:4k:1 randread-4k-qd32:randread:4k:32"
UB_WARM_SECONDS=20

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local port rc=0 job ms=() javac= j keys=(ublk perf kernel ram) ab=()
  [ -n "${UB_AB_OPTS:-}" ] && { keys+=(ublkB ublkB2 ublk2)
    ab=(--note "ublkB, ublkB2: the same mount with $UB_AB_OPTS; run in the order ublk, ublkB, ublkB2, ublk2 (each a fresh mount, warmed)"
        --col "ublkB=B" --col "ublkB2=B again" --col "ublk2=ublk again" --ratio ublk/ublkB --ratio ublk2/ublkB2); }
  # (d) needs the test tree's UblkRamDisk, compiled here against the CLI jar as check 48 does
  for j in ${JAVA_HOME:+"$JAVA_HOME"} /usr/lib/jvm/temurin-25*; do [ -x "$j/bin/javac" ] && { javac=$j/bin/javac; break; }; done
  rm -rf "$SYNC/classes" && mkdir -p "$SYNC/classes"
  "$javac" -d "$SYNC/classes" -cp "$ROOT/cli/target/nvmf4j.jar" \
      "$ROOT/cli/src/test/java/io/nvmf4j/cli/ublk/UblkRamDisk.java" > "$SYNC/javac.log" 2>&1 ||
    { note "FAIL: javac UblkRamDisk"; cat "$SYNC/javac.log"; return 1; }
  port=$(free_port)
  cp "$ROOT/interop/checks/kernel-host-lib.sh" "$SYNC/"
  kh_start_serve "$port" --ram 64M --nqn "$KH_SUBNQN" || return 1
  signal target "$port $KH_SUBNQN $KH_HOSTNQN $KH_LAB_SECONDS $UB_WARM_SECONDS ${UB_AB_OPTS:-}"
  kh_await done $((CHECK_TIMEOUT - 30)) > /dev/null || rc=1
  kh_stop_serve || rc=1
  for job in $UB_JOBS; do
    job=${job%%:*}
    for j in "${keys[@]}"; do
      if [ "$j" = perf ]; then ms+=(--m "$job:perf:$SYNC/perf-$job.json"); else ms+=(--m "$job:$j:$SYNC/fio-$j-$job.json"); fi
    done
  done
  kh_lab_report "$CHECK" "4 KiB random reads from the 6.12 guest: nvmf4j mount --ublk vs nvmf4j perf vs the kernel's nvme-rdma" \
      --note "one nvmf4j serve --ram 64M on the host (10.0.2.2 from the guest), one run, the sides one after another, each warmed first by $UB_WARM_SECONDS s of 4 KiB random I/O at QD32 (perf: --ramp)" \
      --note "ublk: fio (libaio, direct) on /dev/ublkb0 of nvmf4j mount --ublk -i 1 (JVM in the guest, softiwarp)" \
      --note "perf: nvmf4j perf -i 1 in the guest (the same JVM stack without the block layer and ublk)" \
      --note "kernel: fio on the guest kernel's nvme-rdma device over kernel siw0 (nvme connect -i 1)" \
      --note "ram: fio on a ublk RAM disk of the same JVM (UblkRamDisk, no NVMe): what the guest's ublk path alone allows" \
      --col "ublk=fio on /dev/ublkb0" --col "perf=nvmf4j perf" --col "kernel=fio on nvme-rdma" \
      --col "ram=fio on ublk RAM" --ratio ublk/perf --ratio ublk/kernel --ratio ram/perf "${ab[@]}" "${ms[@]}" || rc=1
  return $rc
}

# ub_side KEY [JVM OPTION]... (guest): `nvmf4j mount --ublk` with the options, warmed, then the jobs as fio side
# KEY; its log is $SYNC/mount.log (KEY ublk) or mount-KEY.log, and the queues' counters at its end (where requests
# ended, how often the queue thread slept) are noted. 1 if any of it failed.
ub_side() {
  local key=$1 log=$SYNC/mount.log dev spec rc=0; shift
  [ "$key" = ublk ] || log=$SYNC/mount-$key.log
  GJ_EXTRA_OPTS="-Dnvmf4j.ublk.counters=true $*" gj_start "$log" mount --ublk --provider softiwarp -t rdma \
      -a "$HOST_FROM_GUEST" -s "$port" -n "$subnqn" -q "$hostnqn" -i 1
  if wait_for_line "$log" 'removes them' $GJ_PID 1500; then
    dev=$(grep -o '/dev/ublkb[0-9]*' "$log" | head -1)
    KH_LAB_SECONDS=$warm kh_fio warm "$key" "$dev" || rc=1
    for spec in $UB_JOBS; do kh_fio "${spec%%:*}" "$key" "$dev" || rc=1; done
  else
    note "FAIL: no ublk device ($key)"; cat "$log"; rc=1
  fi
  kill -TERM $GJ_PID 2>/dev/null
  for _ in $(seq 300); do kill -0 $GJ_PID 2>/dev/null || break; sleep 0.2; done
  grep ' queue [0-9]*: served' "$log" | while read -r l; do note "mount $key: $l"; done
  return $rc
}

guest_part() {
  . /lab/guest/java.sh
  local t port subnqn hostnqn spec job rw bs qd dev rc=0 ab
  t=$(await target 300) || return 1
  read -r port subnqn hostnqn KH_LAB_SECONDS warm ab <<< "$t"
  . "$SYNC/kernel-host-lib.sh"
  KH_LAB_JOBS="$UB_JOBS warm:randrw:4k:32"
  modprobe ublk_drv || { note "FAIL: modprobe ublk_drv"; signal done; return 1; }
  # (a) the ublk device (and, with UB_AB_OPTS, the other way alternating with it)
  ub_side ublk || rc=1
  if [ -n "$ab" ]; then
    # shellcheck disable=SC2086 # the options are words
    { ub_side ublkB $ab && ub_side ublkB2 $ab && ub_side ublk2; } || rc=1
  fi
  # (b) nvmf4j perf in the same guest
  for spec in $UB_JOBS; do
    IFS=: read -r job rw bs qd <<< "$spec"
    note "nvmf4j perf -w $rw -o $bs -q $qd -t $KH_LAB_SECONDS"
    timeout -k 5 300 bash -c '. /lab/guest/java.sh; gj_nvmf4j "$@"' gj perf --provider softiwarp \
        --traddr "$HOST_FROM_GUEST" --trsvcid "$port" --nqn "$subnqn" --nr-io-queues 1 --connect-timeout 60 -w "$rw" -o "$bs" \
        -q "$qd" -t "$KH_LAB_SECONDS" --ramp "$warm" --label "$job" --json > "$SYNC/perf-$job.json" \
        2> "$SYNC/perf-$job.err" || { note "FAIL: nvmf4j perf $job"; tail -15 "$SYNC/perf-$job.err"; rc=1; }
  done
  # (c) the kernel's nvme-rdma
  if kh_connect "$port" "$subnqn" "$hostnqn" -i 1; then
    KH_LAB_SECONDS=$warm kh_fio warm kernel "$KH_DEV" || rc=1
    for spec in $UB_JOBS; do kh_fio "${spec%%:*}" kernel "$KH_DEV" || rc=1; done
    nvme disconnect -n "$subnqn" || rc=1
  else
    rc=1
  fi
  # (d) the ublk path alone: a RAM disk served by the same ublk queue code, no initiator behind it
  rm -f /tmp/ublk-ctl && mkfifo /tmp/ublk-ctl
  "$GJ_JAVA" "${GJ_OPTS[@]}" -cp "$GJ_JAR:$SYNC/classes" io.nvmf4j.cli.ublk.UblkRamDisk --size-mib 64 --depth 128 \
      < /tmp/ublk-ctl > "$SYNC/ublk-ram.log" 2>&1 &
  local ram_pid=$!
  exec 3> /tmp/ublk-ctl
  if wait_for_line "$SYNC/ublk-ram.log" '^READY ' $ram_pid 1500; then
    dev=$(sed -n 's/^READY //p' "$SYNC/ublk-ram.log")
    KH_LAB_SECONDS=$warm kh_fio warm ram "$dev" || rc=1
    for spec in $UB_JOBS; do kh_fio "${spec%%:*}" ram "$dev" || rc=1; done
  else
    note "FAIL: no ublk RAM disk"; cat "$SYNC/ublk-ram.log"; rc=1
  fi
  echo stop >&3
  exec 3>&-
  wait $ram_pid || { note "FAIL: UblkRamDisk exited $?"; rc=1; }
  signal done
  return $rc
}
