# The kernel side by side (issue 8, item 3), second half: against the guest kernel's nvmet-rdma (siw0, a 64 MiB
# RAM disk: brd), `nvmf4j perf` from the host beside fio from the guest kernel host (nvme-rdma over siw), with
# the same jobs (kernel-host-lib.sh, KH_LAB_JOBS: 64 KiB sequential write QD8, then 4 KiB random read QD16;
# time-based, 1 s ramp). fio runs twice: once over the path nvmf4j takes (the guest connects to 10.0.2.2:$FWD_PORT,
# QEMU user networking turns that around through the same host forward into the guest's :4420, so its traffic
# crosses slirp like nvmf4j's does, both ways) and once inside the guest (10.0.2.15:4420, the path check 32's
# reference uses). The paths still differ: nvmf4j perf is a native process on the host, the kernel host is
# emulated in the guest beside the target, and its slirp path is a hairpin (out of the guest and back in).
# Prints job | nvmf4j perf | fio via slirp | fio in guest | ratios, saves the JSON (sync dir and
# interop/work/results/). Passes when every run completed I/O, fio and perf reported no error and the kernel
# logged none: the guest is emulated (TCG), the figures are for ratios only and no speed is asserted.
ON_REQUEST=1   # a benchmark (ratios on an emulated machine), not a correctness check: bench/kernel-lab.sh runs it
CHECK_TIMEOUT=300

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local nqn spec job rw bs qd rc=0 ms=()
  cp "$ROOT/interop/checks/kernel-host-lib.sh" "$SYNC/"
  signal params "$FWD_PORT $KH_LAB_SECONDS"
  nqn=$(kh_await kernel-target-ready 60) || return 1
  for spec in $KH_LAB_JOBS; do
    IFS=: read -r job rw bs qd <<< "$spec"
    note "nvmf4j perf --traddr 127.0.0.1 --trsvcid $FWD_PORT -w $rw -o $bs -q $qd -t $KH_LAB_SECONDS --ramp 1 --size $KH_LAB_REGION"
    if ! timeout -k 5 $((KH_LAB_SECONDS + 50)) "$NVMF4J" perf --traddr 127.0.0.1 --trsvcid "$FWD_PORT" --nqn "$nqn" \
          --connect-timeout 20 -w "$rw" -o "$bs" -q "$qd" -t "$KH_LAB_SECONDS" --ramp 1 --size "$KH_LAB_REGION" \
          --label "$job" --json > "$SYNC/perf-$job.json" 2> "$SYNC/perf-$job.err"; then
      note "FAIL: nvmf4j perf $job"; tr '\r' '\n' < "$SYNC/perf-$job.err" | grep -v '^$' | tail -15; rc=1
    fi
    ms+=(--m "$job:perf:$SYNC/perf-$job.json" --m "$job:fio-slirp:$SYNC/fio-slirp-$job.json"
         --m "$job:fio-guest:$SYNC/fio-guest-$job.json")
  done
  signal perf-done
  kh_await done $((CHECK_TIMEOUT - 10 - SECONDS)) > /dev/null || rc=1
  kh_lab_report "$CHECK" "the guest kernel's nvmet-rdma (siw, brd RAM disk): nvmf4j perf from the host vs fio from the guest kernel host" \
      --note "same jobs, same run, same target; nvmf4j perf: host 127.0.0.1:$FWD_PORT -> QEMU user networking -> guest :4420" \
      --note "fio via slirp: guest -> 10.0.2.2:$FWD_PORT -> the same host forward -> guest :4420 (crosses slirp out and back in)" \
      --note "fio in guest: guest -> 10.0.2.15:4420, never leaves the guest; the kernel host is emulated, nvmf4j perf is native" \
      --col "perf=nvmf4j perf (host)" --col "fio-slirp=fio kernel host via slirp" \
      --col "fio-guest=fio kernel host in guest" --ratio perf/fio-slirp --ratio perf/fio-guest \
      "${ms[@]}" || rc=1
  return $rc
}

guest_part() {
  local t fwd spec job d0 rc=0 path addr port
  t=$(await params 60) || return 1
  read -r fwd KH_LAB_SECONDS <<< "$t"
  . /lab/guest/kernel-target.sh
  . "$SYNC/kernel-host-lib.sh"
  d0=$(dmesg | wc -l)
  kh_nvmet_ram_setup 64 || { kh_nvmet_ram_teardown; return 1; }
  signal kernel-target-ready "$KT_NQN"
  await perf-done $((CHECK_TIMEOUT - 90)) > /dev/null || rc=1
  kt_quiet_after_disconnect 20 || rc=1
  for path in slirp guest; do
    if [ $path = slirp ]; then addr=$HOST_FROM_GUEST port=$fwd; else addr=$GUEST_IP port=4420; fi
    if KH_ADDR=$addr kh_connect "$port" "$KT_NQN" "$KH_HOSTNQN"; then
      for spec in $KH_LAB_JOBS; do
        job=${spec%%:*}
        kh_fio "$job" "$path" "$KH_DEV" || rc=1
      done
      nvme disconnect -n "$KT_NQN" || rc=1
    else
      rc=1
    fi
  done
  kt_quiet_after_disconnect 20 || rc=1
  kt_dmesg_check "$d0" || rc=1
  kh_nvmet_ram_teardown
  signal done
  return $rc
}
