# The lab itself for DH-HMAC-CHAP: the guest kernel's host against the guest kernel's nvmet-rdma (both over siw0),
# the host's keys in configfs (sha256, ffdhe2048, bidirectional, keys from nvme gen-dhchap-key); `nvme connect
# --dhchap-secret --dhchap-ctrl-secret`, 1 MiB dd read back, disconnect. If this fails,
# the 6.12 guest or its nvme-cli is broken, not nvmf4j. Needs the 6.12 guest kernel: LAB_KERNEL=6.12 interop/run dhchap
LAB_KERNEL=6.12
CHECK_TIMEOUT=300

guest_part() {
  . /lab/guest/kernel-target.sh
  local h=nqn.2014-08.org.nvmexpress:uuid:9b3f0e61-7c2a-4f5d-8e11-2a6c4d0b7e93 host sub key ctrl wrong dev rc=0 c
  modprobe -a nvme-rdma nvme-auth 2>/dev/null
  kt_setup 64 || return 1
  host=$KT_CFG/hosts/$h sub=$KT_CFG/subsystems/$KT_NQN
  mkdir -p "$host" && [ -e "$host/dhchap_key" ] || { note "FAIL: no dhchap attributes in nvmet"; return 1; }
  key=$(nvme gen-dhchap-key -m 1 -n "$h") && ctrl=$(nvme gen-dhchap-key -m 2 -n "$KT_NQN") || return 1
  echo "hmac(sha256)" > "$host/dhchap_hash"; echo ffdhe2048 > "$host/dhchap_dhgroup"
  echo "$key" > "$host/dhchap_key"; echo "$ctrl" > "$host/dhchap_ctrl_key"
  echo 0 > "$sub/attr_allow_any_host"; ln -s "$host" "$sub/allowed_hosts/$h"
  note "nvmet host: $(cat "$host/dhchap_hash") $(cat "$host/dhchap_dhgroup"), key ${key:0:10}..., ctrl key ${ctrl:0:10}..."
  note "nvme version: $(nvme version | head -1)"
  if timeout 90 nvme connect -t rdma -a "$GUEST_IP" -s 4420 -n "$KT_NQN" --hostnqn="$h" \
        --dhchap-secret="$key" --dhchap-ctrl-secret="$ctrl"; then
    for i in $(seq 100); do
      for c in /sys/class/nvme/nvme*; do
        [ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$KT_NQN" ] && dev=$(ls -d /dev/${c##*/}n* 2>/dev/null | head -1)
      done
      [ -n "$dev" ] && [ -b "$dev" ] && break; sleep 0.2
    done
    note "connected with DH-HMAC-CHAP: $dev"
    dmesg | grep -iE 'qid 0.*authenticat|dhchap' | tail -3
    head -c $((1 << 20)) /dev/urandom > /tmp/d.bin
    dd if=/tmp/d.bin of="$dev" bs=64k oflag=direct status=none && dd if="$dev" of=/tmp/b.bin bs=64k count=16 \
      iflag=direct status=none && cmp /tmp/d.bin /tmp/b.bin && note "dd 1 MiB read back equal" || rc=1
    nvme disconnect -n "$KT_NQN" || rc=1
  else
    note "FAIL: authenticated connect refused"; dmesg | tail -15; rc=1
  fi
  # No wrong-key attempt here: right after the disconnect above, a refused connect of the guest's host to its own
  # nvmet over siw once hung in the kernel (nvme connect in D state, 2026-12-03); refusals are checked against
  # nvmf4j on both sides by checks 61 and 62.
  rm -f "$sub/allowed_hosts/$h"; rmdir "$host"
  kt_teardown
  return $rc
}
