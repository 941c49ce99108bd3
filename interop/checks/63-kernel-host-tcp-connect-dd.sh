# The Linux kernel as NVMe/TCP host against nvmf4j: `modprobe nvme-tcp`, `nvme discover -t tcp` (the subsystem's
# entry must say trtype tcp) and `nvme connect -t tcp` from the guest (nvme-tcp over eth0) to `nvmf4j serve
# --transport tcp --file` on the host; `nvme id-ctrl`, `nvme id-ns`; 4 MiB of random data written with dd
# (O_DIRECT), read back and compared in the guest, and the same bytes found in the host's image file after
# `nvme disconnect` (sha256 on both sides).
CHECK_TIMEOUT=420

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local KH_TRANSPORT=tcp rc=0 sum
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
}

guest_part() {
  local port subnqn hostnqn
  local t; t=$(await target 200) || return 1
  read -r port subnqn hostnqn <<< "$t"
  . /lab/checks/kernel-host-lib.sh
  modprobe nvme-tcp || { note "FAIL: modprobe nvme-tcp"; return 1; }
  note "nvme discover -t tcp -a $HOST_FROM_GUEST -s $port"
  timeout 60 nvme discover -t tcp -a "$HOST_FROM_GUEST" -s "$port" --hostnqn="$hostnqn" > /tmp/disc.log 2>&1
  local rc=$?; cat /tmp/disc.log
  [ $rc = 0 ] && grep -q "subnqn: *$subnqn" /tmp/disc.log || { note "FAIL: discover rc=$rc"; dmesg | tail -20; return 1; }
  # the trtype of the entry that names our subsystem (nvme-cli prints trtype first in each entry)
  local trtype
  trtype=$(awk -v nqn="$subnqn" '/^=+Discovery Log Entry/ {t = ""} /^trtype:/ {t = $2}
                                 /^subnqn:/ && $2 == nqn {print t; exit}' /tmp/disc.log)
  [ "$trtype" = tcp ] || { note "FAIL: the discovery log entry of $subnqn says trtype '$trtype', not tcp"; return 1; }
  note "discovery log: $subnqn over trtype tcp"
  kh_connect_tcp "$port" "$subnqn" "$hostnqn" || return 1
  local ctrl=$KH_CTRL dev=$KH_DEV
  [ "$(cat "/sys/class/nvme/${ctrl#/dev/}/transport")" = tcp ] \
      || { note "FAIL: $ctrl's transport is $(cat "/sys/class/nvme/${ctrl#/dev/}/transport"), not tcp"; return 1; }
  nvme list || return 1
  nvme id-ctrl "$ctrl" > /tmp/idc.log || { note "FAIL: id-ctrl"; return 1; }
  grep -E '^(vid|sn|mn|fr|mdts|ioccsz|iorcsz|subnqn|sgls) ' /tmp/idc.log
  grep -q "^subnqn *: *$subnqn" /tmp/idc.log || { note "FAIL: id-ctrl subnqn"; return 1; }
  nvme id-ns "$dev" > /tmp/idn.log || { note "FAIL: id-ns"; return 1; }
  grep -E '^(nsze|ncap|nuse|nlbaf|flbas|lbaf  0)' /tmp/idn.log
  [ "$(awk '/^nsze/{print $3}' /tmp/idn.log)" = "0x20000" ] || { note "FAIL: nsze is not 64 MiB / 512"; return 1; }
  head -c $((4 << 20)) /dev/urandom > /tmp/data.bin
  dd if=/tmp/data.bin of="$dev" bs=64k oflag=direct status=none || { note "FAIL: dd write"; dmesg | tail; return 1; }
  dd if="$dev" of=/tmp/back.bin bs=64k count=64 iflag=direct status=none || { note "FAIL: dd read"; return 1; }
  cmp /tmp/data.bin /tmp/back.bin || { note "FAIL: read back differs"; return 1; }
  note "dd: 4 MiB written and read back equal"
  signal written-sha256 "$(sha256sum < /tmp/data.bin | cut -d' ' -f1)"
  nvme disconnect -n "$subnqn" || { note "FAIL: disconnect"; return 1; }
  signal disconnected
}
