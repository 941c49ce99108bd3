# The Linux kernel as NVMe-oF host against `nvmf4j serve --provider ibverbs`, both in the guest on rxe0
# (kernel rxe, RoCEv2, eth1): `nvme discover`, `nvme connect -t rdma`, `id-ctrl`; fio random writes with
# crc32c verify and a verifying read pass at 4 KiB (in-capsule) and 128 KiB (keyed SGL: the target RDMA-Reads
# the kernel's data, RDMA-Writes reads back and answers with Send with Invalidate of the kernel's
# fast-registered key), 8 MiB each for TCG; 1 MiB dd whose bytes must be in the served image file afterwards.
GUEST_JAVA=1
ON_REQUEST=1   # not in the default run (CI time): interop/run ibverbs cross
CHECK_TIMEOUT=480
DEVICE=rxe0 NQN=nqn.2026-12.io.nvmf4j:lab-ibverbs

guest_part() {
  . /lab/guest/java.sh
  local ip img=/tmp/ibverbs-disk.img js rc=0 dev= c bs qd
  ip=$(gj_device_ip $DEVICE)
  gj_serve_image $DEVICE $img $NQN || return 1
  js=$GJ_PID
  modprobe -a nvme-fabrics nvme-rdma
  timeout 90 nvme discover -t rdma -a "$ip" -s 4420 > /tmp/disc.log 2>&1 || rc=1
  cat /tmp/disc.log
  grep -q "subnqn: *$NQN" /tmp/disc.log || { note "FAIL: discover"; rc=1; }
  if [ $rc = 0 ] && timeout 120 nvme connect -t rdma -a "$ip" -s 4420 -n $NQN; then
    for i in $(seq 150); do
      for c in /sys/class/nvme/nvme*; do
        [ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && dev=/dev/${c##*/}n1
      done
      [ -n "$dev" ] && [ -b "$dev" ] && break; sleep 0.2
    done
    if [ -b "$dev" ]; then
      nvme id-ctrl "${dev%n1}" | grep -E '^(mn|mdts|ioccsz|sgls|subnqn) '
      for w in 4k:16 128k:8; do
        IFS=: read -r bs qd <<< "$w"
        note "fio randwrite bs=$bs iodepth=$qd size=8m verify=crc32c (a verifying read pass after the writes)"
        timeout 200 fio --name="w$bs" --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite --bs="$bs" \
            --iodepth="$qd" --size=8m --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
            --output=/tmp/fio-$bs.log > /dev/null 2>&1 || { note "FAIL: fio bs=$bs"; tail -30 /tmp/fio-$bs.log; rc=1; }
        grep -E 'IOPS=|err=|verify|bad' /tmp/fio-$bs.log | head -6
      done
      head -c $((1 << 20)) /dev/urandom > /tmp/data.bin
      dd if=/tmp/data.bin of="$dev" bs=64k seek=256 oflag=direct status=none || { note "FAIL: dd"; rc=1; }
    else
      note "FAIL: no namespace appeared"; rc=1
    fi
    nvme disconnect -n $NQN || rc=1
  else
    note "FAIL: connect"; rc=1
  fi
  kill -TERM $js; timeout 60 tail --pid=$js -f /dev/null; wait $js; note "nvmf4j serve exited rc=$?"
  tail -30 "$SYNC/serve.log"
  if [ $rc = 0 ]; then
    if dd if=$img of=/tmp/image-part.bin bs=64k skip=256 count=16 status=none && cmp /tmp/image-part.bin /tmp/data.bin; then
      note "the served image holds the 1 MiB the kernel wrote"
    else
      note "FAIL: the image does not hold what the kernel wrote"; rc=1
    fi
  fi
  [ $rc = 0 ] || dmesg | grep -iE 'nvme|rxe' | tail -20
  return $rc
}
