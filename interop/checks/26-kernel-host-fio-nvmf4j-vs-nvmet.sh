# The kernel side by side (issue 8, item 3), first half: the guest kernel's NVMe-oF host (nvme-rdma over siw0) runs
# the same fio jobs (kernel-host-lib.sh, KH_LAB_JOBS: 64 KiB sequential write QD8, then 4 KiB random read QD16;
# libaio, direct, time-based) against (a) `nvmf4j serve` with a 64 MiB RAM namespace on the host, reached as
# 10.0.2.2 through QEMU user networking, and (b) the guest kernel's own nvmet-rdma on siw0 with a 64 MiB RAM disk
# (brd), reached inside the guest. Both controllers are connected at once and the jobs alternate between them
# (a, b, a, b), so that a machine busy with other work weighs on both sides alike. Prints the table
# job | kernel host->nvmf4j | kernel host->nvmet-rdma | ratio, saves it as JSON (sync dir and
# interop/work/results/). Passes when every job ran on every side and fio reported no error: the guest is
# emulated (TCG), so the figures are for ratios only and no speed is asserted.
# The paths differ: (a) crosses QEMU user networking (slirp, MTU 1500) and runs the target natively on the host;
# (b) stays inside the emulated guest (its own address goes over lo, MTU 64 KiB), target and host both on its
# emulated CPUs. So (c), a third column: the same nvmet-rdma reached through slirp too (the guest connects to
# 10.0.2.2:$FWD_PORT, which QEMU forwards back into the guest's :4420; out through slirp and back in), after (b) is
# disconnected (one subsystem over two paths at once would be merged by nvme multipath).
ON_REQUEST=1   # a benchmark (ratios on an emulated machine), not a correctness check: bench/kernel-lab.sh runs it
CHECK_TIMEOUT=300

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local port rc=0 job spec ms=()
  port=$(free_port)
  cp "$ROOT/interop/checks/kernel-host-lib.sh" "$SYNC/"
  kh_start_serve "$port" --ram 64M --nqn "$KH_SUBNQN" || return 1
  signal target "$port $KH_SUBNQN $KH_HOSTNQN $KH_LAB_SECONDS $FWD_PORT"
  kh_await done $((CHECK_TIMEOUT - 20)) > /dev/null || rc=1
  kh_stop_serve || rc=1
  grep -E 'WARN|ERROR' "$SYNC/serve.log" | head -20
  for spec in $KH_LAB_JOBS; do
    job=${spec%%:*}
    ms+=(--m "$job:nvmf4j:$SYNC/fio-nvmf4j-$job.json" --m "$job:nvmet:$SYNC/fio-nvmet-$job.json"
         --m "$job:nvmet-slirp:$SYNC/fio-nvmet-slirp-$job.json")
  done
  kh_lab_report "$CHECK" "fio from the guest kernel host (nvme-rdma over siw): nvmf4j serve vs the kernel's nvmet-rdma" \
      --note "same fio jobs, same run, alternating; RAM namespaces of 64 MiB on both (nvmf4j --ram, nvmet on brd)" \
      --note "paths differ: kernel host->nvmf4j crosses QEMU user networking (MTU 1500) to the host, target native;" \
      --note "kernel host->nvmet-rdma stays inside the emulated guest (over lo), target emulated too;" \
      --note "kernel host->nvmet-rdma via slirp: guest -> 10.0.2.2:$FWD_PORT -> QEMU's forward -> guest :4420 (out and back in)" \
      --col "nvmf4j=kernel host->nvmf4j" --col "nvmet=kernel host->nvmet-rdma" \
      --col "nvmet-slirp=kernel host->nvmet-rdma via slirp" --ratio nvmf4j/nvmet --ratio nvmf4j/nvmet-slirp \
      "${ms[@]}" || rc=1
  return $rc
}

guest_part() {
  local t port subnqn hostnqn fwd dev_a dev_b spec job rc=0
  t=$(await target 90) || return 1
  read -r port subnqn hostnqn KH_LAB_SECONDS fwd <<< "$t"
  . /lab/guest/kernel-target.sh
  . "$SYNC/kernel-host-lib.sh"
  kh_nvmet_ram_setup 64 || { kh_nvmet_ram_teardown; signal done; return 1; }
  if kh_connect "$port" "$subnqn" "$hostnqn"; then
    dev_a=$KH_DEV
    if KH_ADDR=$GUEST_IP kh_connect 4420 "$KT_NQN" "$hostnqn"; then
      dev_b=$KH_DEV
      for spec in $KH_LAB_JOBS; do
        job=${spec%%:*}
        kh_fio "$job" nvmf4j "$dev_a" || rc=1
        kh_fio "$job" nvmet "$dev_b" || rc=1
      done
      nvme disconnect -n "$KT_NQN" || rc=1
    else
      rc=1
    fi
    nvme disconnect -n "$subnqn" || rc=1
    if KH_ADDR=$HOST_FROM_GUEST kh_connect "$fwd" "$KT_NQN" "$hostnqn"; then
      for spec in $KH_LAB_JOBS; do
        kh_fio "${spec%%:*}" nvmet-slirp "$KH_DEV" || rc=1
      done
      nvme disconnect -n "$KT_NQN" || rc=1
    else
      rc=1
    fi
  else
    rc=1
  fi
  kh_nvmet_ram_teardown
  signal done
  return $rc
}
