# spdk_dd against nvmf4j, compared byte for byte on both sides: the guest's spdk_dd writes random files to the
# namespace Nvme0n1 (`nvmf4j serve --file` on the host, NVMe/RDMA over siw0) and reads them back into other files,
# compared with cmp in the guest; the host then finds the same bytes at the same offsets of its image file.
#   3 MiB in 4 KiB units at byte 1 MiB       (in-capsule writes, 4 KiB reads)
#   4 MiB in 128 KiB units at byte 8 MiB     (keyed SGL both ways)
ON_REQUEST=1   # needs an SPDK build: SPDK_DIR=<bench/spdk-build.sh OUT --guest> interop/run spdk
CHECK_TIMEOUT=420
FILES="a:4096:256:768 b:131072:64:32"   # NAME:BS:SEEK:COUNT (spdk_dd's units of BS)

host_part() {
  . "$ROOT/interop/checks/spdk-lib.sh"
  local rc=0 f name bs seek count
  spdk_serve_for_guest 64 || rc=1
  for f in $FILES; do
    IFS=: read -r name bs seek count <<< "$f"
    [ -s "$SYNC/$name.bin" ] || { note "FAIL: the guest wrote no $name.bin"; rc=1; continue; }
    if cmp <(dd if="$SYNC/disk.img" bs="$bs" skip="$seek" count="$count" status=none) "$SYNC/$name.bin"; then
      note "host image: $((bs * count)) bytes at byte $((bs * seek)) are what spdk_dd wrote ($name.bin)"
    else
      note "FAIL: the host's image at byte $((bs * seek)) differs from $name.bin"; rc=1
    fi
  done
  return $rc
}

guest_part() {
  . /lab/guest/spdk.sh
  local t port nqn rc=0 f name bs seek count
  sp_setup || { signal done; return 1; }
  t=$(await target 200) || return 1
  read -r port nqn <<< "$t"
  sp_bdev_json /tmp/bdev.json "$HOST_FROM_GUEST" "$port" "$nqn" "$SP_HOSTNQN"
  for f in $FILES; do
    IFS=: read -r name bs seek count <<< "$f"
    head -c $((bs * count)) /dev/urandom > /tmp/$name.bin
    : > /tmp/$name.back
    sp_run 180 /tmp/dd-w-$name.log "$SP_BIN/spdk_dd" --json /tmp/bdev.json --if=/tmp/$name.bin --ob=Nvme0n1 \
        --bs="$bs" --seek="$seek" || { note "FAIL: spdk_dd write $name rc=$?"; rc=1; continue; }
    sp_run 180 /tmp/dd-r-$name.log "$SP_BIN/spdk_dd" --json /tmp/bdev.json --ib=Nvme0n1 --of=/tmp/$name.back \
        --bs="$bs" --skip="$seek" --count="$count" || { note "FAIL: spdk_dd read $name rc=$?"; rc=1; continue; }
    if cmp /tmp/$name.bin /tmp/$name.back; then
      note "spdk_dd: $((bs * count)) bytes in $bs-byte units at byte $((bs * seek)) read back identical"
      cp /tmp/$name.bin "$SYNC/$name.bin"   # for the host's look at its image file
    else
      note "FAIL: spdk_dd read back of $name differs"; cmp -l /tmp/$name.bin /tmp/$name.back | head -5; rc=1
    fi
  done
  signal done
  return $rc
}
