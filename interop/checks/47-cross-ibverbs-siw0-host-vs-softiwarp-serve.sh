# Cross-provider, the other way: `nvmf4j serve --provider softiwarp` on the host's 127.0.0.1 against the nvmf4j
# initiator on ibverbs over the guest's siw0 (kernel siw through libibverbs), which reaches the host as
# 10.0.2.2. `nvmf4j perf --provider ibverbs --verify` random read/write at 4 KiB and 128 KiB, every read
# checked; then `nvmf4j write`/`read` of 256 KiB from the guest, compared in the guest and found by the host in
# its image file.
GUEST_JAVA=1
ON_REQUEST=1   # not in the default run (CI time): interop/run ibverbs cross
CHECK_TIMEOUT=420
DEVICE=siw0 NQN=nqn.2026-12.io.nvmf4j:lab-cross-back

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local port img rc=0
  port=$(free_port)
  img=$(kh_image 64)
  KH_PID=
  "$NVMF4J" serve --listen "127.0.0.1:$port" --provider softiwarp --file "$img" --nqn "$NQN" >> "$SYNC/serve.log" 2>&1 &
  KH_PID=$!
  wait_for_line "$SYNC/serve.log" 'listening on' $KH_PID 600 || { cat "$SYNC/serve.log"; kill $KH_PID; return 1; }
  signal target "$port"
  kh_await guest-done 380 > /dev/null || rc=1
  kh_stop_serve || rc=1
  tail -20 "$SYNC/serve.log"
  [ $rc = 0 ] || return 1
  if cmp <(dd if="$img" bs=4096 skip=4096 count=64 status=none) "$SYNC/pattern.bin"; then
    note "the host's image holds the 256 KiB the guest wrote"
  else
    note "FAIL: the host's image does not hold what the guest wrote"; return 1
  fi
}

guest_part() {
  . /lab/guest/java.sh
  local port rc=0 w label bs qd size secs
  port=$(await target 200) || return 1
  export GJ_EXTRA_OPTS="-Dnvmf4j.ibverbs.device=$DEVICE"
  A=(--provider ibverbs --traddr "$HOST_FROM_GUEST" --trsvcid "$port" --nqn "$NQN" --connect-timeout 30)
  # 128 KiB writes from the guest's siw through QEMU's user networking crawl under TCG (the first run saw 2 reads
  # and no write complete in 3 s): a longer run for them
  for w in randrw-4k:4k:16:2m:3 randrw-128k:128k:8:4m:10; do
    IFS=: read -r label bs qd size secs <<< "$w"
    note "nvmf4j perf ${A[*]} -w randrw -M 50 -o $bs -q $qd --verify --size $size -t $secs"
    perf_verify "$label" timeout -k 5 150 bash -c '. /lab/guest/java.sh; gj_nvmf4j "$@"' gj perf "${A[@]}" -w randrw \
        -M 50 -o "$bs" -q "$qd" --verify --size "$size" -t "$secs" --ramp 0.5 || rc=1
  done
  head -c $((256 << 10)) /dev/urandom > /tmp/pattern.bin
  note "nvmf4j write/read 256 KiB at LBA 32768"
  if timeout 150 bash -c '. /lab/guest/java.sh; gj_nvmf4j "$@"' gj write "${A[@]}" --start-block 32768 \
        --block-count 511 -d /tmp/pattern.bin > "$SYNC/write.log" 2>&1 &&
     timeout 150 bash -c '. /lab/guest/java.sh; gj_nvmf4j "$@"' gj read "${A[@]}" --start-block 32768 \
        --block-count 511 -d /tmp/back.bin > "$SYNC/read.log" 2>&1 && cmp /tmp/pattern.bin /tmp/back.bin; then
    cp /tmp/pattern.bin "$SYNC/pattern.bin"; note "written and read back equal"
  else
    cat "$SYNC/write.log" "$SYNC/read.log" | tail -20; note "FAIL: write/read"; rc=1
  fi
  signal guest-done
  return $rc
}
