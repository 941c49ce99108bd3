# The guest kernel's NVMe-oF target (nvmet + nvmet-rdma) for the checks
# 2*-nvmf4j-host-vs-kernel-target*: sourced by their guest parts as /lab/guest/kernel-target.sh.
#
# kt_setup builds, through configfs, what nvmetcli would: a 64 MiB namespace on a loop device whose
# backing file is $KT_IMG (so a check can read what the kernel stored straight from the file), a
# subsystem $KT_NQN open to any host, and port 1: trtype rdma, adrfam ipv4, traddr $GUEST_IP (eth0,
# which siw0 is bound to), trsvcid 4420. The same steps as the shared lab's guest-tests.sh.
# The loop device uses buffered I/O on its backing file, so the file's page cache is what the kernel
# target read and wrote: a dd of $KT_IMG sees nvmf4j's writes at once, and what a check writes into
# $KT_IMG is what nvmet-rdma serves.

KT_NQN=nqn.2024-01.io.nvmf4j.lab:kernel-target
KT_CFG=/sys/kernel/config/nvmet
KT_IMG=/tmp/kernel-target-ns1.img
KT_BLOCK=512        # a loop device's logical block size: nvmet's LBA size for the namespace
KT_TRTYPE=${KT_TRTYPE:-rdma}  # tcp: port 1 is nvmet-tcp's (the host reaches it through QEMU's port forward)

# kt_setup [SIZE_MB]: the subsystem, namespace 1 and port 1 listening on $GUEST_IP:4420 over $KT_TRTYPE.
kt_setup() {
  local mb=${1:-64} sub port loop i
  kt_teardown 2>/dev/null
  modprobe -a nvmet "nvmet-$KT_TRTYPE" loop || return 1
  mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
  truncate -s "${mb}M" "$KT_IMG" || return 1
  loop=$(losetup -f --show "$KT_IMG") || return 1
  sub=$KT_CFG/subsystems/$KT_NQN port=$KT_CFG/ports/1
  mkdir "$sub" && echo 1 > "$sub/attr_allow_any_host" &&
    mkdir "$sub/namespaces/1" && echo -n "$loop" > "$sub/namespaces/1/device_path" &&
    echo 1 > "$sub/namespaces/1/enable" || { note "kt_setup: subsystem/namespace failed"; return 1; }
  mkdir "$port" && echo "$KT_TRTYPE" > "$port/addr_trtype" && echo ipv4 > "$port/addr_adrfam" &&
    echo "$GUEST_IP" > "$port/addr_traddr" && echo 4420 > "$port/addr_trsvcid" &&
    ln -s "$sub" "$port/subsystems/$KT_NQN" || { note "kt_setup: port failed"; return 1; }
  # nvmet-rdma's iw_cm listen is a kernel TCP socket on siw0's address (nvmet-tcp's its own): wait for it
  for i in $(seq 50); do
    ss -ltn 2>/dev/null | grep -q "$GUEST_IP:4420 " && break; sleep 0.2
  done
  note "kernel target: $KT_NQN, nsid 1 = $loop on $KT_IMG (${mb} MiB), $KT_TRTYPE $GUEST_IP:4420;" \
       "inline_data_size $(cat "$port/param_inline_data_size" 2>/dev/null || echo '?')," \
       "listener: $(ss -ltn 2>/dev/null | grep -c "$GUEST_IP:4420 ")"
  dmesg | grep -iE 'nvmet' | tail -3
}

# kt_switch_trtype TRTYPE: port 1 over TRTYPE from now on (nvmet takes a new addr_trtype only on a disabled port:
# the subsystem link is removed first, which disables it, and made again, which enables it over the new type).
kt_switch_trtype() {
  local port=$KT_CFG/ports/1 i
  [ "$(cat "$port/addr_trtype")" = "$1" ] && return 0
  modprobe "nvmet-$1" || return 1
  rm -f "$port/subsystems/$KT_NQN" && echo "$1" > "$port/addr_trtype" &&
    ln -s "$KT_CFG/subsystems/$KT_NQN" "$port/subsystems/$KT_NQN" || { note "kt_switch_trtype $1 failed"; return 1; }
  KT_TRTYPE=$1
  for i in $(seq 50); do
    ss -ltn 2>/dev/null | grep -q "$GUEST_IP:4420 " && break; sleep 0.2
  done
  note "kernel target: port 1 now $1 $GUEST_IP:4420"
}

# kt_teardown: undo kt_setup (the link first: nvmet refuses to remove a port in use).
kt_teardown() {
  local sub=$KT_CFG/subsystems/$KT_NQN port=$KT_CFG/ports/1 loop
  [ -L "$port/subsystems/$KT_NQN" ] && rm -f "$port/subsystems/$KT_NQN"
  [ -d "$port" ] && rmdir "$port"
  if [ -d "$sub" ]; then
    [ -d "$sub/namespaces/1" ] && { echo 0 > "$sub/namespaces/1/enable"; rmdir "$sub/namespaces/1"; }
    rmdir "$sub"
  fi
  for loop in $(losetup -j "$KT_IMG" 2>/dev/null | cut -d: -f1); do losetup -d "$loop"; done
  rm -f "$KT_IMG"
}

# kt_established: the TCP connections (siw queue pairs) to the target's port still up.
kt_established() {
  ss -tnH state established "( sport = :4420 )" 2>/dev/null | grep -c .
}

# kt_quiet_after_disconnect SECONDS: 0 when no connection to :4420 is left within SECONDS (the host
# disconnected every queue), 1 with what is left otherwise.
kt_quiet_after_disconnect() {
  local deadline=$((SECONDS + $1)) n
  while :; do
    n=$(kt_established)
    [ "$n" = 0 ] && { note "no connection left on :4420 (host disconnected)"; return 0; }
    [ $SECONDS -ge $deadline ] && break
    sleep 0.5
  done
  note "still $n connection(s) on :4420 after $1 s:"; ss -tn state established "( sport = :4420 )"
  return 1
}

# kt_dmesg_check SINCE_LINE: the kernel's nvmet/siw lines after line SINCE_LINE of dmesg; 1 when
# any of them reports an error the host caused (a failed command, a fatal queue error, a
# terminate, a keep-alive expiry).
# Not counted: "nvmet_rdma: post_recv cmd failed" followed by "sending cmd response failed". nvmet-rdma
# logs that pair (nvmet_rdma_queue_response) when it answers a command on a queue whose host has already
# disconnected: a host keeps an Asynchronous Event Request outstanding until it leaves, and nvmet completes
# it while tearing the admin queue down (nvmet_sq_destroy -> nvmet_async_events_failall); when siw has the
# queue pair in neither RTS nor ERROR at that moment (CLOSING, or IDLE after siw_qp_llp_close), siw_post_send
# and siw_post_receive refuse the work. It happens after every command of the host was answered, and any host
# that keeps an AER outstanding (the guest kernel's own nvme-rdma does too) can meet it: seen once in four CI
# runs (about 30 nvmf4j sessions each), 0 times in loops of 120 sessions of either host.
KT_TEARDOWN_NOISE='nvmet_rdma: (post_recv cmd failed|sending cmd response failed)'
kt_dmesg_check() {
  local since=$1 lines
  lines=$(dmesg | tail -n +"$((since + 1))" | grep -iE 'nvmet|siw|iw_cm')
  printf '%s\n' "$lines" | sed 's/^/  dmesg| /'
  if printf '%s\n' "$lines" | grep -qE "$KT_TEARDOWN_NOISE"; then
    note "nvmet answered a command on a queue already disconnected (teardown, not counted; see kt_dmesg_check)"
  fi
  local bad
  bad=$(printf '%s\n' "$lines" | grep -iE 'error|fail|terminat|keep-alive|keep alive|invalid|timed out' \
       | grep -viE 'creating (nvm|discovery) controller' | grep -vE "$KT_TEARDOWN_NOISE")
  if [ -n "$bad" ]; then
    # quoted in the last line too: a CI summary keeps a failed check's last lines, not the dmesg above them
    note "the kernel logged errors while nvmf4j was connected: $(printf '%s\n' "$bad" | head -3 | tr '\n' '|')"
    return 1
  fi
  return 0
}

# kt_local_connect: the guest kernel's own host (nvme-rdma) connected to this target at $GUEST_IP:4420; sets
# KT_HOST_DEV (namespace 1's block device) and KT_HOST_CTRL (its controller). 1 when the connect fails or no
# namespace device appears within 20 s.
kt_local_connect() {
  local i
  nvme connect -t rdma -a "$GUEST_IP" -s 4420 -n "$KT_NQN" > /tmp/connect.log 2>&1 ||
    { cat /tmp/connect.log; note "nvme connect failed"; return 1; }
  KT_HOST_DEV=
  for i in $(seq 100); do
    KT_HOST_DEV=$(ls /dev/nvme*n1 2>/dev/null | head -1); [ -n "$KT_HOST_DEV" ] && break; sleep 0.2
  done
  [ -n "$KT_HOST_DEV" ] || { note "no namespace device appeared after nvme connect"; return 1; }
  KT_HOST_CTRL=${KT_HOST_DEV%n1}
}

# kt_local_disconnect: the guest kernel host disconnected again, its queue pairs given up to 20 s to close.
kt_local_disconnect() {
  nvme disconnect -n "$KT_NQN" > /dev/null 2>&1
  kt_quiet_after_disconnect 20 > /dev/null || true
}

# kt_serve_host SECONDS SINCE_LINE: the kernel target handed to the host part of a check whose initiator is nvmf4j
# on the host: "kernel-target-ready" signalled with $KT_NQN, up to SECONDS waited for the host's "host-done", then
# no queue pair may be left (kt_quiet_after_disconnect) and no error logged since dmesg line SINCE_LINE
# (kt_dmesg_check). 1 if any of that fails; the target stays up for the caller's own checks and kt_teardown.
kt_serve_host() {
  local rc=0
  signal kernel-target-ready "$KT_NQN"
  await host-done "$1" > /dev/null || rc=1
  kt_quiet_after_disconnect 20 || rc=1
  kt_dmesg_check "$2" || rc=1
  return $rc
}

# kt_kernel_host_reference: the same workloads as nvmf4j perf, run by the guest kernel's own host
# (nvme-rdma over siw0 to this target, fio with libaio, direct) at the same moment on the same
# loaded machine: the yardstick for nvmf4j's figures (TCG: only ratios mean anything). Prints one
# line per workload; never fails the check (a reference, not a verdict).
kt_kernel_host_reference() {
  local dev i line
  modprobe -a nvme-fabrics nvme-rdma || { note "reference: cannot load nvme-rdma"; return 0; }
  nvme connect -t rdma -a "$GUEST_IP" -s 4420 -n "$KT_NQN" > /tmp/kt-connect.log 2>&1 ||
    { note "reference: nvme connect failed: $(head -c 200 /tmp/kt-connect.log)"; return 0; }
  for i in $(seq 50); do dev=$(ls /dev/nvme*n1 2>/dev/null | head -1); [ -n "$dev" ] && break; sleep 0.2; done
  if [ -n "$dev" ]; then
    for w in randrw:4k:16 randread:4k:16 randrw:128k:8 randread:128k:8; do
      IFS=: read -r rw bs qd <<< "$w"
      line=$(fio --name=ref --filename="$dev" --rw="$rw" --rwmixread=50 --bs="$bs" --iodepth="$qd" \
               --ioengine=libaio --direct=1 --size=8m --runtime=3 --time_based --output-format=terse \
               --terse-version=3 2>/dev/null | awk -F';' '{printf "%.0f IOPS (read %.0f, write %.0f), read clat avg %.0f us, write clat avg %.0f us", $8+$49, $8, $49, $16, $57}')
      note "reference: kernel host in the guest, fio $rw $bs qd$qd: $line"
    done
  else
    note "reference: no namespace device appeared"
  fi
  nvme disconnect -n "$KT_NQN" > /dev/null 2>&1
}
