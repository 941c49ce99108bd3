# Host-side helpers of the kernel-host checks (NN-kernel-host-*.sh): the Linux kernel's NVMe-oF RDMA host
# (nvme-rdma over siw0 in the guest) against `nvmf4j serve` (softiwarp) on the host's 127.0.0.1, reached from
# the guest as 10.0.2.2. Sourced by a check's host_part from $ROOT/interop/checks (the guest does not see it).

KH_SUBNQN=nqn.2026-12.io.nvmf4j:lab-disk
KH_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:6c1e0f2a-0b7d-4e8a-9a55-3a1c2b4d5e6f

# kh_start_serve PORT ARGS...: starts nvmf4j serve in the background (pid in $KH_PID, log $SYNC/serve.log), waits
# for its "listening" line; 1 if it dies or does not come up.
kh_start_serve() {
  local port=$1; shift
  "$NVMF4J" serve --listen "127.0.0.1:$port" --provider softiwarp "$@" >> "$SYNC/serve.log" 2>&1 &
  KH_PID=$!
  for i in $(seq 600); do   # the JVM may take a while to start on a loaded machine
    grep -q 'listening on' "$SYNC/serve.log" && return 0
    kill -0 $KH_PID 2>/dev/null || break
    sleep 0.2
  done
  note "nvmf4j serve did not come up"; cat "$SYNC/serve.log"; kill $KH_PID 2>/dev/null
  return 1
}

# kh_await NAME SECONDS: like await, but gives up as soon as the guest part has ended without signalling NAME.
kh_await() {
  local name=$1 deadline=$((SECONDS + $2))
  while [ ! -e "$SYNC/$name" ]; do
    if [ -e "$SYNC/guest.rc" ] && [ ! -e "$SYNC/$name" ]; then
      echo "the guest part ended (rc=$(cat "$SYNC/guest.rc")) without signalling '$name'" >&2
      return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      echo "timed out after $2 s waiting for '$name' from the guest" >&2
      return 1
    fi
    sleep 0.2
  done
  cat "$SYNC/$name"
}

# kh_stop_serve: SIGTERM, then the daemon must exit 0 within 60 s.
kh_stop_serve() {
  local rc
  [ -n "${KH_PID:-}" ] || return 0
  kill -TERM $KH_PID 2>/dev/null
  for i in $(seq 300); do kill -0 $KH_PID 2>/dev/null || break; sleep 0.2; done
  if kill -0 $KH_PID 2>/dev/null; then
    note "nvmf4j serve still running 60 s after SIGTERM"; kill -KILL $KH_PID; wait $KH_PID; KH_PID=; return 1
  fi
  wait $KH_PID; rc=$?
  KH_PID=
  note "nvmf4j serve exited rc=$rc"
  return $rc
}

# kh_image SIZE_MIB: a zero-filled image file for a file namespace; prints its path.
kh_image() {
  local img=$SYNC/disk.img
  rm -f "$img"
  truncate -s "${1}M" "$img"
  echo "$img"
}

# ---- guest side (the host part copies this file into $SYNC, which the guest sees as /lab/sync/<check>) ----

# kh_connect PORT SUBNQN HOSTNQN [nvme connect options...]: connects; sets KH_CTRL (/dev/nvmeN) and KH_DEV (the
# namespace's block device, /dev/nvmeXn1). 1 on failure, with the kernel's last messages.
kh_connect() {
  local port=$1 subnqn=$2 hostnqn=$3; shift 3
  local before c
  before=$(ls /dev/nvme*n* 2>/dev/null | tr '\n' ' ')
  modprobe nvme-rdma
  note "nvme connect -t rdma -a $HOST_FROM_GUEST -s $port -n $subnqn $*"
  timeout 90 nvme connect -t rdma -a "$HOST_FROM_GUEST" -s "$port" -n "$subnqn" --hostnqn="$hostnqn" "$@" \
      || { note "nvme connect failed"; dmesg | tail -30; return 1; }
  KH_CTRL= KH_DEV=
  for i in $(seq 150); do
    for c in /sys/class/nvme/nvme*; do
      [ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$subnqn" ] && KH_CTRL=/dev/${c##*/}
    done
    for c in /dev/nvme*n*; do
      [[ $c =~ ^/dev/nvme[0-9]+n[0-9]+$ ]] || continue
      case " $before " in *" $c "*) ;; *) KH_DEV=$c ;; esac
    done
    [ -n "$KH_CTRL" ] && [ -b "$KH_DEV" ] && break
    sleep 0.2
  done
  [ -n "$KH_CTRL" ] && [ -b "$KH_DEV" ] || { note "no controller/namespace appeared"; nvme list; dmesg | tail -20; return 1; }
  note "connected: controller $KH_CTRL, namespace $KH_DEV"
}
