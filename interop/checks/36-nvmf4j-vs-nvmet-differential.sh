# nvmf4j beside Linux nvmet, command for command (issue 20): the guest kernel host (nvme-rdma over siw0, nvme-cli
# 2.3) connects to the guest's own nvmet-rdma (a file namespace on tmpfs, buffered I/O, 4 KiB LBAs) and then to
# `nvmf4j serve --file ... --block-size 4096` on the host (reached as 10.0.2.2), and sends both the same probes:
# id-ctrl, id-ns, ns-descs, list-ns, fw-log, effects-log, error-log, smart-log, `get-log --log-id=N -b` for the
# pages nvmet answers and some it refuses, `get-feature -f N` for every FID, property reads, Identify of every CNS,
# admin and I/O opcodes nobody implements (admin-passthru / io-passthru), fabrics command types, and the same on
# each side's discovery controller. The host compares, per probe, the NVMe status (DNR, SCT, SC; the More bit is
# reported apart) and the fields that must agree (not serials, names, sizes, identifiers or the controller ID).
# A probe that differs fails the check unless INTENTIONAL (in the comparison below) lists it with its reason; the
# same list is in docs/CONFORMANCE.md. Prints how many probes, how many agree, and each listed difference.
CHECK_TIMEOUT=900

CT_IMG_DIR=/tmp/ct36

# ---- guest side ----

# ct_probe NAME CMD...: runs CMD, keeps stdout, stderr and the exit status under $CT_OUT/NAME.*
ct_probe() {
  local name=$1; shift
  timeout 30 "$@" < /dev/null > "$CT_OUT/$name.out" 2> "$CT_OUT/$name.err"
  echo $? > "$CT_OUT/$name.rc"
  echo "$*" > "$CT_OUT/$name.cmd"
}

# ct_nvm_probes CTRL DEV: the probe set against one NVM controller
ct_nvm_probes() {
  local c=$1 d=$2 lid len fid cns op ft
  ct_probe id-ctrl nvme id-ctrl "$c" -o json
  ct_probe id-ns nvme id-ns "$c" -n 1 -o json
  ct_probe id-ns-inactive nvme id-ns "$c" -n 2 -o json
  ct_probe id-ns-all nvme id-ns "$c" -n 0xffffffff -o json
  ct_probe ns-descs nvme ns-descs "$c" -n 1 -o json
  ct_probe ns-descs-9 nvme ns-descs "$c" -n 9 -o json
  ct_probe list-ns nvme list-ns "$c"
  ct_probe list-ns-all nvme list-ns "$c" --all
  ct_probe fw-log nvme fw-log "$c" -o json
  ct_probe effects-log nvme effects-log "$c" -o json
  ct_probe error-log nvme error-log "$c" -e 16 -o json
  ct_probe smart-log nvme smart-log "$c" -o json
  ct_probe smart-log-ns1 nvme smart-log "$c" -n 1 -o json
  ct_probe smart-log-ns9 nvme smart-log "$c" -n 9 -o json
  for lid in 0x00:512 0x01:4096 0x02:512 0x03:512 0x04:4096 0x05:4096 0x06:564 0x07:512 0x08:512 0x09:512 \
      0x0a:512 0x0b:512 0x0c:4096 0x0d:512 0x0e:512 0x0f:512 0x10:512 0x12:4096 0x13:512 0x70:1024 0x80:64 \
      0x81:512 0xc0:512; do
    ct_probe "get-log-${lid%%:*}" nvme get-log "$c" --log-id="${lid%%:*}" --log-len="${lid##*:}" -b
  done
  ct_probe get-log-0x03-len64 nvme get-log "$c" --log-id=0x03 --log-len=64 -b
  ct_probe get-log-0x02-len64 nvme get-log "$c" --log-id=0x02 --log-len=64 -b
  for fid in $(seq 1 23) 128 129 130 131 132 192; do
    ct_probe "get-feature-$(printf '0x%02x' "$fid")" nvme get-feature "$c" -f "$fid"
  done
  ct_probe get-feature-0x84-ns1 nvme get-feature "$c" -f 0x84 -n 1
  ct_probe get-feature-0x84-ns9 nvme get-feature "$c" -f 0x84 -n 9
  ct_probe get-feature-0x81-exhid nvme get-feature "$c" -f 0x81 --cdw11=1 --data-len=16
  ct_probe set-feature-0x01 nvme set-feature "$c" -f 0x01 -v 0
  ct_probe set-feature-0x02 nvme set-feature "$c" -f 0x02 -v 0
  ct_probe set-feature-0x0a nvme set-feature "$c" -f 0x0a -v 0
  ct_probe set-feature-0x81 nvme set-feature "$c" -f 0x81 -v 1 --data-len=16
  ct_probe set-feature-0x84-ns1-off nvme set-feature "$c" -f 0x84 -n 1 -v 0
  ct_probe set-feature-0x07-ffff nvme set-feature "$c" -f 0x07 -v 0xffffffff
  for o in 0x0 0x8 0x14 0x1c 0x4 0xc 0x10 0x20 0x24 0x28 0x38 0x3c; do
    ct_probe "get-property-$o" nvme get-property "$c" --offset="$o"
  done
  for cns in 0x00 0x01 0x02 0x03 0x04 0x05 0x06 0x07 0x08 0x09 0x0a 0x10 0x11 0x12 0x13 0x14 0x15 0x16 0x17 \
      0x1c 0x1f; do
    ct_probe "identify-cns-$cns" nvme admin-passthru "$c" --opcode=0x06 --namespace-id=1 --cdw10="$cns" \
        --data-len=4096 -r -b
  done
  ct_probe identify-cns-0x03-csi2 nvme admin-passthru "$c" --opcode=0x06 --namespace-id=1 --cdw10=0x03 \
      --cdw11=0x02000000 --data-len=4096 -r -b
  ct_probe identify-cns-0x05-csi2 nvme admin-passthru "$c" --opcode=0x06 --namespace-id=1 --cdw10=0x05 \
      --cdw11=0x02000000 --data-len=4096 -r -b
  ct_probe identify-cns-0x06-csi2 nvme admin-passthru "$c" --opcode=0x06 --namespace-id=1 --cdw10=0x06 \
      --cdw11=0x02000000 --data-len=4096 -r -b
  ct_probe identify-cns-0x02-nsid-fffffffe nvme admin-passthru "$c" --opcode=0x06 --namespace-id=0xfffffffe \
      --cdw10=0x02 --data-len=4096 -r -b
  ct_probe effects-log-csi2 nvme admin-passthru "$c" --opcode=0x02 --namespace-id=0xffffffff \
      --cdw10=0x03ff0005 --cdw14=0x02000000 --data-len=4096 -r -b
  ct_probe effects-log-csi1 nvme admin-passthru "$c" --opcode=0x02 --namespace-id=0xffffffff \
      --cdw10=0x03ff0005 --cdw14=0x01000000 --data-len=4096 -r -b
  ct_probe admin-abort nvme admin-passthru "$c" --opcode=0x08
  ct_probe admin-keep-alive nvme admin-passthru "$c" --opcode=0x18
  ct_probe admin-get-features-fid0 nvme admin-passthru "$c" --opcode=0x0a --cdw10=0
  for op in 0x00 0x01 0x03 0x04 0x05 0x07 0x0b 0x0d 0x0e 0x10 0x11 0x14 0x15 0x19 0x1a 0x1c 0x1d 0x1e 0x20 0x24 \
      0x7c 0x80 0x81 0x82 0x84 0x86 0xc0 0xc1 0xff; do
    ct_probe "admin-opcode-$op" nvme admin-passthru "$c" --opcode="$op"
  done
  for ft in 0x01 0x05 0x06 0x08 0x10 0x7f; do
    ct_probe "fabrics-fctype-$ft" nvme admin-passthru "$c" --opcode=0x7f --namespace-id="$ft"
  done
  ct_probe io-flush nvme io-passthru "$d" --opcode=0x00 --namespace-id=1
  ct_probe io-flush-ns9 nvme io-passthru "$d" --opcode=0x00 --namespace-id=9
  ct_probe io-read-beyond nvme io-passthru "$d" --opcode=0x02 --namespace-id=1 --cdw10=0xffffff00 --cdw11=0 \
      --data-len=4096 -r -b
  for op in 0x03 0x04 0x05 0x06 0x0c 0x0d 0x0e 0x10 0x11 0x12 0x15 0x19 0x7c 0x7d 0x80 0x81 0x82 0xfe; do
    ct_probe "io-opcode-$op" nvme io-passthru "$d" --opcode="$op" --namespace-id=1
  done
}

# ct_discovery_probes CTRL: the probe set against a persistent discovery controller
ct_discovery_probes() {
  local c=$1 fid cns op
  ct_probe disc-id-ctrl nvme id-ctrl "$c" -o json
  ct_probe disc-get-log-0x70-hdr nvme get-log "$c" --log-id=0x70 --log-len=16 -b
  ct_probe disc-get-log-0x70-lpo2 nvme admin-passthru "$c" --opcode=0x02 --cdw10=0x00030070 --cdw12=2 \
      --data-len=16 -r -b
  ct_probe disc-get-log-0x02 nvme get-log "$c" --log-id=0x02 --log-len=512 -b
  for cns in 0x00 0x02 0x03; do
    ct_probe "disc-identify-cns-$cns" nvme admin-passthru "$c" --opcode=0x06 --cdw10="$cns" --data-len=4096 -r -b
  done
  for fid in 0x01 0x06 0x07 0x0b 0x0f 0x81; do
    ct_probe "disc-get-feature-$fid" nvme get-feature "$c" -f "$fid"
  done
  ct_probe disc-set-feature-0x07 nvme set-feature "$c" -f 0x07 -v 0
  for op in 0x08 0x09 0x0a 0x18 0x80 0xc0; do
    ct_probe "disc-admin-opcode-$op" nvme admin-passthru "$c" --opcode="$op"
  done
}

# ct_side NAME ADDR PORT SUBNQN: connect, probe, disconnect; then the same on that address's discovery controller
ct_side() {
  local side=$1 addr=$2 port=$3 subnqn=$4 rc=0 c
  CT_OUT=$SYNC/$side; mkdir -p "$CT_OUT"
  # KATO 60 s: the refused probes come in runs of 20 s, and a refused command is no keep-alive traffic for
  # either target (nvmet_req_init() sets reset_tbkas only for a command that parsed), while the host, which
  # counts every completion (TBKAS), sends no Keep Alive meanwhile: with the default 5 s both would drop it
  KH_ADDR=$addr kh_connect "$port" "$subnqn" "$KH_HOSTNQN" --keep-alive-tmo=60 || return 1
  ct_nvm_probes "$KH_CTRL" "$KH_DEV"
  nvme disconnect -n "$subnqn" > /dev/null || rc=1
  note "$side: $(ls "$CT_OUT" | grep -c '\.rc$') NVM probes"
  timeout 60 nvme connect -t rdma -a "$addr" -s "$port" -n nqn.2014-08.org.nvmexpress.discovery \
      --hostnqn="$KH_HOSTNQN" --keep-alive-tmo=60 > /dev/null 2>&1 || { note "$side: discovery connect failed"; return 1; }
  c=
  for i in $(seq 100); do
    for x in /sys/class/nvme/nvme*; do
      [ "$(cat "$x/subsysnqn" 2>/dev/null)" = nqn.2014-08.org.nvmexpress.discovery ] && c=/dev/${x##*/}
    done
    [ -n "$c" ] && [ -c "$c" ] && break
    sleep 0.2
  done
  if [ -n "$c" ]; then ct_discovery_probes "$c"; else note "$side: no discovery controller device"; rc=1; fi
  nvme disconnect -n nqn.2014-08.org.nvmexpress.discovery > /dev/null || rc=1
  note "$side: $(ls "$CT_OUT" | grep -c '\.rc$') probes in all"
  return $rc
}

guest_part() {
  local t port subnqn rc=0 ns
  t=$(await target 300) || return 1
  read -r port subnqn <<< "$t"
  . "$SYNC/kernel-host-lib.sh"
  . /lab/guest/kernel-target.sh
  modprobe nvme-rdma
  nvme version
  # nvmet with a file namespace (io-cmd-file.c) like nvmf4j's --file: tmpfs, buffered I/O (tmpfs has no O_DIRECT),
  # LBA size min(i_blkbits, 12) = 4 KiB
  kt_setup 64 || return 1
  mkdir -p "$CT_IMG_DIR" && mount -t tmpfs -o size=80m tmpfs "$CT_IMG_DIR" && truncate -s 64M "$CT_IMG_DIR/ns1.img"
  ns=$KT_CFG/subsystems/$KT_NQN/namespaces/1
  { echo 0 > "$ns/enable" && echo -n "$CT_IMG_DIR/ns1.img" > "$ns/device_path" && echo 1 > "$ns/buffered_io" &&
    echo 1 > "$ns/enable"; } || { note "cannot move the nvmet namespace to a file"; return 1; }
  note "nvmet namespace 1: $(cat "$ns/device_path"), buffered_io $(cat "$ns/buffered_io")"
  ct_side nvmet "$GUEST_IP" 4420 "$KT_NQN" || rc=1
  kt_quiet_after_disconnect 20 > /dev/null || true
  kt_teardown
  umount "$CT_IMG_DIR" 2>/dev/null
  ct_side nvmf4j "$HOST_FROM_GUEST" "$port" "$subnqn" || rc=1
  signal done "$rc"
  return $rc
}

# ---- host side ----

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  local port img rc=0
  port=$(free_port)
  img=$(kh_image 64)
  cp "$ROOT/interop/checks/kernel-host-lib.sh" "$SYNC/"
  kh_start_serve "$port" --file "$img" --block-size 4096 --nqn "$KH_SUBNQN" || return 1
  signal target "$port $KH_SUBNQN"
  kh_await done 860 > /dev/null || rc=1
  kh_stop_serve || rc=1
  [ -d "$SYNC/nvmet" ] && [ -d "$SYNC/nvmf4j" ] || { note "the guest left no probe results"; return 1; }
  python3 "$ROOT/interop/checks/nvmet-differential.py" "$SYNC" || rc=1
  return $rc
}
