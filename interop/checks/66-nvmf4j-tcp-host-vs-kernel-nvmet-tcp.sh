# nvmf4j as NVMe/TCP host against the Linux kernel's nvmet-tcp in the guest (port 1 on 10.0.2.15:4420, reached from
# the host through QEMU's forward of 127.0.0.1:$FWD_PORT): `nvmf4j discover -t tcp` lists the subsystem with trtype
# tcp; `nvmf4j identify`; `nvmf4j write` then `read` of 1 block (in-capsule data), 40 blocks (beyond the kernel's
# in-capsule size: R2T and H2CData) and 2057 blocks (above its MDTS: split), each compared on the host and checked
# by the guest in the namespace's backing file; the guest's own random blocks read by nvmf4j (C2HData). The write
# and read of 40 blocks run again with header and data digests on.
CHECK_TIMEOUT=240
GUEST_LBA=100000 GUEST_BLOCKS=129

guest_part() {
  KT_TRTYPE=tcp
  . /lab/guest/kernel-target.sh
  local d0 rc=0 spec lba blocks file
  d0=$(dmesg | wc -l)
  kt_setup 64 || { dmesg | tail -20; return 1; }
  head -c $((GUEST_BLOCKS * KT_BLOCK)) /dev/urandom > "$SYNC/guest-pattern.bin"
  dd if="$SYNC/guest-pattern.bin" of="$KT_IMG" bs=$KT_BLOCK seek=$GUEST_LBA conv=notrunc status=none || return 1
  note "guest wrote $GUEST_BLOCKS random blocks at LBA $GUEST_LBA of $KT_IMG"
  signal kernel-target-ready "$KT_NQN"
  spec=$(await host-done 220) || { kt_teardown; return 1; }
  for w in $spec; do
    IFS=: read -r lba blocks file <<< "$w"
    dd if="$KT_IMG" of=/tmp/kt-stored.bin bs=$KT_BLOCK skip="$lba" count="$blocks" status=none
    if cmp /tmp/kt-stored.bin "$SYNC/$file"; then
      note "nvmet-tcp stored $file at LBA $lba ($blocks blocks): identical to what nvmf4j wrote"
    else
      note "MISMATCH: $KT_IMG at LBA $lba ($blocks blocks) differs from $file"; rc=1
    fi
  done
  [ -n "$spec" ] || { note "the host reported no write"; rc=1; }
  dmesg | tail -n +"$((d0 + 1))" | grep -q "creating nvm controller .* for subsystem $KT_NQN" ||
    { note "nvmet never created an NVM controller for $KT_NQN"; rc=1; }
  kt_quiet_after_disconnect 20 || rc=1
  kt_dmesg_check "$d0" || rc=1
  kt_teardown
  return $rc
}

host_part() {
  local nqn rc
  nqn=$(await kernel-target-ready 90) || return 1
  host_steps "$nqn"; rc=$?
  signal host-done "$WRITTEN"
  return $rc
}

WRITTEN=
host_steps() {
  local nqn=$1 rc=0 lba blocks name digests
  local A=(-t tcp -a 127.0.0.1 -s "$FWD_PORT" --connect-timeout 20)
  # write and read take nvme-cli's -s/-c/-t for themselves: the connect options are long-only there
  local L=(--transport tcp --traddr 127.0.0.1 --trsvcid "$FWD_PORT" --connect-timeout 20)

  note "nvmf4j discover ${A[*]}"
  "$NVMF4J" discover "${A[@]}" > "$SYNC/discover.txt" 2>&1 || { cat "$SYNC/discover.txt"; note "FAIL: discover"; return 1; }
  cat "$SYNC/discover.txt"
  grep -q "$nqn" "$SYNC/discover.txt" || { note "FAIL: $nqn is not in the discovery log"; rc=1; }
  grep -qi "trtype: *tcp" "$SYNC/discover.txt" || { note "FAIL: the discovery log shows no tcp entry"; rc=1; }

  note "nvmf4j identify ${A[*]} -n $nqn"
  "$NVMF4J" identify "${A[@]}" -n "$nqn" > "$SYNC/identify.txt" 2>&1 || { cat "$SYNC/identify.txt"; note "FAIL: identify"; return 1; }
  head -30 "$SYNC/identify.txt"

  for w in 7:1:host-1-block.bin:- 2051:40:host-40-blocks.bin:- 12345:2057:host-2057-blocks.bin:- \
           30001:40:host-40-blocks-digests.bin:digests; do
    IFS=: read -r lba blocks name digests <<< "$w"
    local D=()
    [ "$digests" = digests ] && D=(--hdr-digest --data-digest)
    head -c $((blocks * 512)) /dev/urandom > "$SYNC/$name"
    note "nvmf4j write ${L[*]} ${D[*]} --start-block $lba --block-count $((blocks - 1)) -d $name"
    "$NVMF4J" write "${L[@]}" "${D[@]}" --nqn "$nqn" --start-block "$lba" --block-count "$((blocks - 1))" -d "$SYNC/$name" \
        > "$SYNC/$name.write.log" 2>&1 || { cat "$SYNC/$name.write.log"; note "FAIL: write"; rc=1; continue; }
    cat "$SYNC/$name.write.log"
    WRITTEN="$WRITTEN $lba:$blocks:$name"
    "$NVMF4J" read "${L[@]}" "${D[@]}" --nqn "$nqn" --start-block "$lba" --block-count "$((blocks - 1))" -d "$SYNC/$name.back" \
        > "$SYNC/$name.read.log" 2>&1 || { cat "$SYNC/$name.read.log"; note "FAIL: read"; rc=1; continue; }
    if cmp "$SYNC/$name" "$SYNC/$name.back"; then
      note "read back $blocks blocks at LBA $lba${D[*]:+ with digests}: identical"
    else
      note "MISMATCH: read back of LBA $lba differs from what was written"; rc=1
    fi
  done

  note "nvmf4j read ${L[*]} --start-block $GUEST_LBA --block-count $((GUEST_BLOCKS - 1)) (written by the guest)"
  "$NVMF4J" read "${L[@]}" --nqn "$nqn" --start-block $GUEST_LBA --block-count $((GUEST_BLOCKS - 1)) \
      -d "$SYNC/guest-pattern.back" > "$SYNC/guest-read.log" 2>&1 || { cat "$SYNC/guest-read.log"; note "FAIL: read"; return 1; }
  if cmp "$SYNC/guest-pattern.bin" "$SYNC/guest-pattern.back"; then
    note "the guest's $GUEST_BLOCKS blocks at LBA $GUEST_LBA read by nvmf4j over tcp: identical"
  else
    note "MISMATCH: nvmf4j read of LBA $GUEST_LBA differs from what the guest stored"; rc=1
  fi
  return $rc
}
