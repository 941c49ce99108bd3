# The Linux kernel as NVMe-oF host against nvmf4j: `nvme discover` and `nvme connect -t rdma` from the guest
# (nvme-rdma over siw0) to `nvmf4j serve --file` on the host; `nvme id-ctrl`, `nvme id-ns`, `nvme list`,
# `nvme smart-log`; 4 MiB of random data written with dd (O_DIRECT), read back and compared in the guest,
# and the same bytes found in the host's image file after `nvme disconnect` (sha256 on both sides).
CHECK_TIMEOUT=420

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local rc=0 sum
  kh_serve_image 64 || return 1
  sum=$(kh_await written-sha256 360) || rc=1
  kh_await disconnected 120 > /dev/null || rc=1
  kh_stop_serve || rc=1
  cat "$SYNC/serve.log"
  [ $rc = 0 ] || return 1
  local onhost
  onhost=$(head -c $((4 << 20)) "$KH_IMG" | sha256sum | cut -d' ' -f1)
  note "guest wrote sha256 $sum; host image holds $onhost"
  [ "$sum" = "$onhost" ] || { note "FAIL: the image file does not hold what the guest wrote"; return 1; }
  grep -q "connected to $KH_SUBNQN" "$SYNC/serve.log" || { note "FAIL: no connect line in the log"; return 1; }
}

guest_part() {
  local port subnqn hostnqn
  local t; t=$(await target 200) || return 1
  read -r port subnqn hostnqn <<< "$t"
  . "$SYNC/kernel-host-lib.sh"
  modprobe nvme-rdma || return 1
  note "nvme discover -t rdma -a $HOST_FROM_GUEST -s $port"
  timeout 60 nvme discover -t rdma -a "$HOST_FROM_GUEST" -s "$port" --hostnqn="$hostnqn" > /tmp/disc.log 2>&1
  local rc=$?; cat /tmp/disc.log
  [ $rc = 0 ] && grep -q "subnqn: *$subnqn" /tmp/disc.log || { note "FAIL: discover rc=$rc"; dmesg | tail -20; return 1; }
  kh_connect "$port" "$subnqn" "$hostnqn" || return 1
  local ctrl=$KH_CTRL dev=$KH_DEV
  nvme list || return 1
  nvme id-ctrl "$ctrl" > /tmp/idc.log || { note "FAIL: id-ctrl"; return 1; }
  grep -E '^(vid|sn|mn|fr|mdts|ioccsz|iorcsz|subnqn|sgls) ' /tmp/idc.log
  grep -q "^subnqn *: *$subnqn" /tmp/idc.log || { note "FAIL: id-ctrl subnqn"; return 1; }
  nvme id-ns "$dev" > /tmp/idn.log || { note "FAIL: id-ns"; return 1; }
  grep -E '^(nsze|ncap|nuse|nlbaf|flbas|lbaf  0)' /tmp/idn.log
  [ "$(awk '/^nsze/{print $3}' /tmp/idn.log)" = "0x20000" ] || { note "FAIL: nsze is not 64 MiB / 512"; return 1; }
  nvme smart-log "$dev" > /tmp/smart.log || { note "FAIL: smart-log"; return 1; }
  head -20 /tmp/smart.log
  head -c $((4 << 20)) /dev/urandom > /tmp/data.bin
  dd if=/tmp/data.bin of="$dev" bs=64k oflag=direct status=none || { note "FAIL: dd write"; dmesg | tail; return 1; }
  dd if="$dev" of=/tmp/back.bin bs=64k count=64 iflag=direct status=none || { note "FAIL: dd read"; return 1; }
  cmp /tmp/data.bin /tmp/back.bin || { note "FAIL: read back differs"; return 1; }
  note "dd: 4 MiB written and read back equal"
  nvme smart-log "$dev" | grep -iE 'data_units|host_(read|write)_commands'
  signal written-sha256 "$(sha256sum < /tmp/data.bin | cut -d' ' -f1)"
  nvme disconnect -n "$subnqn" || { note "FAIL: disconnect"; return 1; }
  signal disconnected
}
