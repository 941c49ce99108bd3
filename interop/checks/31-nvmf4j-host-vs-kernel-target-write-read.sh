# nvmf4j (softiwarp) as the host against the Linux kernel's nvmet-rdma over the guest's siw0:
# `nvmf4j write` then `nvmf4j read` of files, compared byte for byte on the host, and checked by
# the peer: the guest reads the namespace's backing file at LBA x 512 and compares it with the
# very files nvmf4j wrote (shared over 9p). Three writes cover the kernel target's three paths:
#   1 block at LBA 7             in-capsule data (smaller than nvmet-rdma's 4096-byte inline size)
#   8 blocks at LBA 2051         in-capsule data of exactly the inline size
#   2057 blocks at LBA 12345     keyed SGL, the kernel RDMA-Reads our buffer; 1 MiB + 4.5 KiB is
#                                above the kernel's MDTS (1 MiB): the initiator must split it
# The other way round, the guest writes 129 random blocks straight into the backing file at LBA
# 100000 and nvmf4j must read exactly those bytes (the kernel RDMA-Writes into our buffer).
CHECK_TIMEOUT=170
GUEST_LBA=100000 GUEST_BLOCKS=129

guest_part() {
  . /lab/guest/kernel-target.sh
  local d0 rc=0 spec lba blocks file
  d0=$(dmesg | wc -l)
  kt_setup 64 || { dmesg | tail -20; return 1; }
  head -c $((GUEST_BLOCKS * KT_BLOCK)) /dev/urandom > "$SYNC/guest-pattern.bin"
  dd if="$SYNC/guest-pattern.bin" of="$KT_IMG" bs=$KT_BLOCK seek=$GUEST_LBA conv=notrunc status=none || return 1
  note "guest wrote $GUEST_BLOCKS random blocks at LBA $GUEST_LBA of $KT_IMG"
  signal kernel-target-ready "$KT_NQN"
  spec=$(await host-done 150) || { kt_teardown; return 1; }
  # the host's list: "LBA:BLOCKS:FILE ..." (files in this check's shared directory)
  for w in $spec; do
    IFS=: read -r lba blocks file <<< "$w"
    # (no <(...) here: the guest has no /dev/fd)
    dd if="$KT_IMG" of=/tmp/kt-stored.bin bs=$KT_BLOCK skip="$lba" count="$blocks" status=none
    if cmp /tmp/kt-stored.bin "$SYNC/$file"; then
      note "kernel stored $file at LBA $lba ($blocks blocks): identical to what nvmf4j wrote"
    else
      note "MISMATCH: $KT_IMG at LBA $lba ($blocks blocks) differs from $file"; rc=1
      cmp -l /tmp/kt-stored.bin "$SYNC/$file" | head -5
    fi
  done
  [ -n "$spec" ] || { note "the host reported no write"; rc=1; }
  # nothing else was touched: the blocks around the written ones are still zero
  local zero_ok=1
  for lba in 6 8 2050 2059 12344 14402; do
    [ "$(dd if="$KT_IMG" bs=$KT_BLOCK skip=$lba count=1 status=none | tr -d '\0' | wc -c)" = 0 ] ||
      { note "LBA $lba is not zero: a write went beyond its range"; zero_ok=0; rc=1; }
  done
  [ $zero_ok = 1 ] && note "the neighbouring blocks of every write are still zero"
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
  local nqn=$1 rc=0 lba blocks name t
  local A=(--transport rdma --traddr 127.0.0.1 --trsvcid "$FWD_PORT" --nqn "$nqn" --connect-timeout 20)
  for w in 7:1:host-1-block.bin 2051:8:host-8-blocks.bin 12345:2057:host-2057-blocks.bin; do
    IFS=: read -r lba blocks name <<< "$w"
    head -c $((blocks * 512)) /dev/urandom > "$SYNC/$name"
    note "nvmf4j write ${A[*]} --start-block $lba --block-count $((blocks - 1)) -d $name"
    t=$SECONDS
    "$NVMF4J" write "${A[@]}" --start-block "$lba" --block-count "$((blocks - 1))" -d "$SYNC/$name" > "$SYNC/$name.write.log" 2>&1 ||
      { cat "$SYNC/$name.write.log"; note "write failed"; rc=1; continue; }
    cat "$SYNC/$name.write.log"
    WRITTEN="$WRITTEN $w"
    "$NVMF4J" read "${A[@]}" --start-block "$lba" --block-count "$((blocks - 1))" -d "$SYNC/$name.back" > "$SYNC/$name.read.log" 2>&1 ||
      { cat "$SYNC/$name.read.log"; note "read failed"; rc=1; continue; }
    cat "$SYNC/$name.read.log"
    if cmp "$SYNC/$name" "$SYNC/$name.back"; then
      note "read back $blocks blocks at LBA $lba: identical ($((SECONDS - t)) s for write + read)"
    else
      note "MISMATCH: read back of LBA $lba differs from what was written"; rc=1
    fi
  done

  note "nvmf4j read ${A[*]} --start-block $GUEST_LBA --block-count $((GUEST_BLOCKS - 1)) (written by the guest)"
  "$NVMF4J" read "${A[@]}" --start-block $GUEST_LBA --block-count $((GUEST_BLOCKS - 1)) -d "$SYNC/guest-pattern.back" \
      > "$SYNC/guest-read.log" 2>&1 || { cat "$SYNC/guest-read.log"; note "read failed"; return 1; }
  cat "$SYNC/guest-read.log"
  if cmp "$SYNC/guest-pattern.bin" "$SYNC/guest-pattern.back"; then
    note "the guest's $GUEST_BLOCKS blocks at LBA $GUEST_LBA read by nvmf4j: identical"
  else
    note "MISMATCH: nvmf4j read of LBA $GUEST_LBA differs from what the guest stored"; rc=1
  fi
  return $rc
}
