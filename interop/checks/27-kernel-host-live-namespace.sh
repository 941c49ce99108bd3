# Live changes through the management socket reach the Linux kernel host without a reconnect: after
# `nvmf4j ctl add-namespace` the guest's /dev/nvmeXn2 appears (Namespace Attribute Changed AEN, Changed Namespace
# List log, nvme_scan_work()); after `ctl resize-namespace` `blockdev --getsize64` shows the new size; after
# `ctl remove-namespace` the block device goes, while namespace 1 keeps serving reads throughout.
CHECK_TIMEOUT=300

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local img2 sock rc=0
  img2=$SYNC/second.img
  rm -f "$img2"; truncate -s 16M "$img2"
  sock=$SYNC/nvmf4j.sock
  kh_serve_image 16 --rpc-socket "$sock" || return 1
  kh_await connected 200 > /dev/null || { kh_stop_serve; return 1; }
  "$NVMF4J" ctl --socket "$sock" add-namespace "$KH_SUBNQN" --path "$img2" || rc=1
  signal added
  kh_await seen 90 > /dev/null || rc=1
  "$NVMF4J" ctl --socket "$sock" resize-namespace "$KH_SUBNQN" 2 --size 32M || rc=1
  signal resized
  kh_await resize-seen 90 > /dev/null || rc=1
  "$NVMF4J" ctl --socket "$sock" remove-namespace "$KH_SUBNQN" 2 || rc=1
  signal removed
  kh_await done 120 > /dev/null || rc=1
  "$NVMF4J" ctl --socket "$sock" list || rc=1
  kh_stop_serve || rc=1
  return $rc
}

guest_part() {
  local port subnqn hostnqn ns2 size rc=0
  . /lab/checks/kernel-host-lib.sh
  kh_guest_connect || return 1
  ns2=${KH_DEV%n1}n2
  signal connected
  await added 90 > /dev/null || return 1
  for i in $(seq 150); do [ -b "$ns2" ] && break; sleep 0.2; done
  if [ -b "$ns2" ]; then
    note "$ns2 appeared without a reconnect: $(blockdev --getsize64 "$ns2") bytes"
  else
    note "FAIL: $ns2 did not appear"; nvme list; dmesg | tail -20; rc=1
  fi
  signal seen
  await resized 90 > /dev/null || return 1
  for i in $(seq 150); do
    size=$(blockdev --getsize64 "$ns2" 2>/dev/null)
    [ "$size" = 33554432 ] && break
    sleep 0.2
  done
  [ "$size" = 33554432 ] && note "blockdev --getsize64 $ns2: $size" \
      || { note "FAIL: $ns2 is $size bytes, not 33554432"; dmesg | tail -10; rc=1; }
  signal resize-seen
  await removed 90 > /dev/null || return 1
  for i in $(seq 150); do [ -b "$ns2" ] || break; sleep 0.2; done
  [ -b "$ns2" ] && { note "FAIL: $ns2 is still there"; rc=1; } || note "$ns2 is gone"
  dd if="$KH_DEV" of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null \
      && note "namespace 1 still reads" || { note "FAIL: namespace 1 no longer reads"; rc=1; }
  nvme disconnect -n "$subnqn" || rc=1
  signal done
  return $rc
}
