# Cross-provider: the nvmf4j initiator on softiwarp (pure Java iWARP, on the host) against `nvmf4j serve
# --provider ibverbs` on the guest's siw0 (kernel siw through libibverbs), reached as 127.0.0.1:$FWD_PORT ->
# 10.0.2.15:4420. `nvmf4j perf --verify` random read/write at 4 KiB (in-capsule) and 128 KiB (keyed SGL:
# the Java target on siw0 RDMA-Reads the host's data, one Read per buffer as siw's max_sge_rd = 1 requires),
# every read checked; then the served image is compared with what the host wrote by `nvmf4j write`/`read`.
GUEST_JAVA=1
ON_REQUEST=1   # not in the default run (CI time): interop/run ibverbs cross
CHECK_TIMEOUT=420
DEVICE=siw0 NQN=nqn.2026-12.io.nvmf4j:lab-cross

guest_part() {
  . /lab/guest/java.sh
  local img=/tmp/cross-disk.img js rc=0
  gj_serve_image $DEVICE $img $NQN || return 1
  js=$GJ_PID
  signal target-ready
  await host-done 360 > /dev/null || rc=1
  kill -TERM $js; timeout 60 tail --pid=$js -f /dev/null; wait $js; note "nvmf4j serve exited rc=$?"
  tail -20 "$SYNC/serve.log"
  if [ -s "$SYNC/pattern.bin" ]; then
    if dd if=$img of=/tmp/image-part.bin bs=4096 skip=4096 count=64 status=none && cmp /tmp/image-part.bin "$SYNC/pattern.bin"; then
      note "the served image holds the 256 KiB the host wrote"
    else
      note "FAIL: the served image does not hold what the host wrote"; rc=1
    fi
  else
    rc=1
  fi
  return $rc
}

host_part() {
  local rc=0 w label bs qd size
  await target-ready 300 > /dev/null || return 1
  A=(--provider softiwarp --traddr 127.0.0.1 --trsvcid "$FWD_PORT" --nqn "$NQN" --connect-timeout 30)
  for w in randrw-4k:4k:16:2m randrw-128k:128k:8:4m; do
    IFS=: read -r label bs qd size <<< "$w"
    note "nvmf4j perf ${A[*]} -w randrw -M 50 -o $bs -q $qd --verify --size $size -t 3"
    perf_verify "$label" timeout -k 5 120 "$NVMF4J" perf "${A[@]}" -w randrw -M 50 -o "$bs" -q "$qd" --verify \
        --size "$size" -t 3 --ramp 0.5 || rc=1
  done
  head -c $((256 << 10)) /dev/urandom > "$SYNC/pattern.tmp"
  nvmf4j_write_read "${A[@]}" || rc=1
  signal host-done
  return $rc
}

# nvmf4j_write_read FABRIC-OPTIONS...: 256 KiB written at byte offset 16 MiB (LBA 32768, 512-byte blocks), read back and compared here;
# the pattern is left in $SYNC/pattern.bin for the guest to find in the image.
nvmf4j_write_read() {
  note "nvmf4j write/read 256 KiB at offset 16 MiB"
  timeout 120 "$NVMF4J" write "$@" --start-block 32768 --block-count 511 -d "$SYNC/pattern.tmp" > "$SYNC/write.log" 2>&1 ||
    { cat "$SYNC/write.log"; return 1; }
  timeout 120 "$NVMF4J" read "$@" --start-block 32768 --block-count 511 -d "$SYNC/back.bin" \
      > "$SYNC/read.log" 2>&1 || { cat "$SYNC/read.log"; return 1; }
  cmp "$SYNC/pattern.tmp" "$SYNC/back.bin" || { note "FAIL: read back differs"; return 1; }
  mv "$SYNC/pattern.tmp" "$SYNC/pattern.bin"
  note "written and read back equal"
}
