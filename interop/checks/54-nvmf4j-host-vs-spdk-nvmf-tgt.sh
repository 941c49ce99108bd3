# The nvmf4j initiator (softiwarp, on the host) against SPDK's nvmf_tgt in the guest: NVMe/RDMA on siw0, a 64 MiB
# malloc bdev in 512-byte blocks, reached as 127.0.0.1:$FWD_PORT -> 10.0.2.15:4420. nvmf_tgt runs with the siw
# settings (interop/guest/spdk.sh sp_tgt_json: one 128 KiB buffer per I/O since siw's max_sge_rd is 1).
#   nvmf4j perf --verify: random read/write at 4 KiB QD16 (in-capsule writes) and 128 KiB QD8 (keyed SGL: SPDK
#     RDMA-Reads the host's data and RDMA-Writes the reads), every read checked;
#   nvmf4j write / read: 1 block at LBA 7 and 2057 blocks (1 MiB + 4.5 KiB, above SPDK's 128 KiB MDTS: nvmf4j
#     splits it) at LBA 12345, read back and compared byte for byte.
ON_REQUEST=1   # needs an SPDK build: SPDK_DIR=<bench/spdk-build.sh OUT --guest> interop/run spdk
CHECK_TIMEOUT=480
NQN=nqn.2016-06.io.spdk:lab-cnode1

guest_part() {
  . /lab/guest/spdk.sh
  local tgt rc=0 i
  sp_setup || { signal target-ready fail; return 1; }
  sp_tgt_json /tmp/tgt.json "$NQN" 64
  note "nvmf_tgt -m 0x1 --json /tmp/tgt.json (RDMA $GUEST_IP:4420, Malloc0 64 MiB, $NQN)"
  "$SP_BIN/nvmf_tgt" -m 0x1 --json /tmp/tgt.json > "$SYNC/nvmf_tgt.log" 2>&1 &
  tgt=$!
  wait_for_line "$SYNC/nvmf_tgt.log" 'NVMe/RDMA Target Listening on' $tgt 900 || {
    note "FAIL: nvmf_tgt did not listen"; cat "$SYNC/nvmf_tgt.log"; kill $tgt 2>/dev/null; signal target-ready fail; return 1; }
  note "$(grep 'Listening on' "$SYNC/nvmf_tgt.log")"
  signal target-ready ok
  await host-done 420 > /dev/null || rc=1
  kill -TERM $tgt
  timeout 60 tail --pid=$tgt -f /dev/null
  wait $tgt; note "nvmf_tgt exited rc=$?"
  grep -iE 'error|fail' "$SYNC/nvmf_tgt.log" | head -20
  return $rc
}

host_part() {
  local rc=0
  [ "$(await target-ready 300)" = ok ] || { note "the guest's nvmf_tgt is not up"; return 1; }
  host_steps || rc=1
  signal host-done
  return $rc
}

host_steps() {
  local rc=0 w label bs qd size lba blocks name
  local A=(--provider softiwarp --traddr 127.0.0.1 --trsvcid "$FWD_PORT" --nqn "$NQN" --connect-timeout 30)
  for w in randrw-4k:4k:16:16m randrw-128k:128k:8:32m; do
    IFS=: read -r label bs qd size <<< "$w"
    note "nvmf4j perf ${A[*]} -w randrw -M 50 -o $bs -q $qd --verify --size $size -t 3"
    perf_verify "$label" timeout -k 5 150 "$NVMF4J" perf "${A[@]}" -w randrw -M 50 -o "$bs" -q "$qd" --verify \
        --size "$size" -t 3 --ramp 0.5 || rc=1
  done
  for w in 7:1:one-block.bin 12345:2057:2057-blocks.bin; do
    IFS=: read -r lba blocks name <<< "$w"
    head -c $((blocks * 512)) /dev/urandom > "$SYNC/$name"
    note "nvmf4j write/read ${A[*]} --start-block $lba --block-count $((blocks - 1))"
    "$NVMF4J" write "${A[@]}" --start-block "$lba" --block-count "$((blocks - 1))" -d "$SYNC/$name" > "$SYNC/$name.w.log" 2>&1 ||
      { cat "$SYNC/$name.w.log"; note "FAIL: write"; rc=1; continue; }
    "$NVMF4J" read "${A[@]}" --start-block "$lba" --block-count "$((blocks - 1))" -d "$SYNC/$name.back" > "$SYNC/$name.r.log" 2>&1 ||
      { cat "$SYNC/$name.r.log"; note "FAIL: read"; rc=1; continue; }
    if cmp "$SYNC/$name" "$SYNC/$name.back"; then
      note "$blocks blocks at LBA $lba written to SPDK's malloc bdev and read back: identical"
    else
      note "FAIL: the read back of LBA $lba differs from what was written"; rc=1
    fi
  done
  return $rc
}
