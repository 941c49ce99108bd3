# nvmf4j as the host on the ibverbs provider against the Linux kernel's nvmet-rdma, both in the guest on rxe0
# (kernel rxe, RoCEv2, eth1): `nvmf4j perf --provider ibverbs --verify` with random 4 KiB (in-capsule writes)
# and 128 KiB (keyed SGL: the kernel RDMA-Reads the host's data and RDMA-Writes reads into it) mixed
# read/write, every read checked for its LBA and the generation last written there. Small regions and short
# runs for TCG; the guest checks that the kernel logged no error and that no queue pair is left.
GUEST_JAVA=1
ON_REQUEST=1   # not in the default run (CI time): interop/run ibverbs cross
CHECK_TIMEOUT=420
DEVICE=rxe0

guest_part() {
  . /lab/guest/java.sh
  . /lab/guest/kernel-target.sh
  local ip d0 rc=0 w label rw bs qd size
  ip=$(gj_device_ip $DEVICE)
  export GJ_EXTRA_OPTS="-Dnvmf4j.ibverbs.device=$DEVICE"
  d0=$(dmesg | wc -l)
  GUEST_IP=$ip kt_setup 64 || { dmesg | tail -20; return 1; }
  for w in randrw-4k:randrw:4k:16:2m randrw-128k:randrw:128k:8:4m; do
    IFS=: read -r label rw bs qd size <<< "$w"
    note "nvmf4j perf --provider ibverbs --traddr $ip --trsvcid 4420 --nqn $KT_NQN -w $rw -M 50 -o $bs -q $qd --verify --size $size -t 3"
    perf_verify "$label" timeout -k 5 150 bash -c '. /lab/guest/java.sh; gj_nvmf4j "$@"' gj perf --provider ibverbs \
        --traddr "$ip" --trsvcid 4420 --nqn "$KT_NQN" --connect-timeout 30 -w "$rw" -M 50 -o "$bs" -q "$qd" --verify \
        --size "$size" -t 3 --ramp 0.5 || rc=1
  done
  kt_quiet_after_disconnect 20 || rc=1
  kt_dmesg_check "$d0" || rc=1
  kt_teardown
  return $rc
}
