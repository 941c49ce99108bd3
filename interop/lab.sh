#!/bin/bash
# The nvmf4j interop lab: a QEMU (TCG) guest running Debian bookworm's stock kernel plus an
# out-of-tree siw.ko built from the matching linux-source package, so that the Linux kernel's
# own RDMA and NVMe-oF code (siw, rdma_rxe, nvme-rdma, nvmet-rdma, rdma-core's rping, nvme-cli)
# can be run against nvmf4j on the host.
# interop/run drives the checks; this script only builds and boots.
#
#   interop/lab.sh build      host packages, kernel, siw.ko, rootfs, initramfs (~70 s, ~600 MB)
#   interop/lab.sh fetch      only the downloads of a build (kernel packages, debootstrap's packages as a tarball),
#                             so that they can go on beside other work; a later build uses them (bin/test does this)
#   interop/lab.sh built      exit 0 when the lab is built and current, 1 otherwise
#   interop/lab.sh run CMD    boot the guest, run CMD (bash -c) inside it, power off
#   interop/lab.sh shell      boot the guest with an interactive shell on the console
#   interop/lab.sh tapdown    delete the tap devices created by NET=tap
#   interop/lab.sh clean      remove everything the build made (the work directory)
#
# LAB_KERNEL picks the guest kernel: 6.1 (default: bookworm's linux-image-amd64) or 6.12 (the newest
# linux-image-6.12.*+deb12-amd64 that bookworm's security suite carries, the same series as bookworm-backports';
# it has CONFIG_NVME_AUTH, NVME_HOST_AUTH and NVME_TARGET_AUTH, which 6.1 lacks). Each kernel has its own work
# directory (interop/work for 6.1, interop/work-6.12 for 6.12), so both stay built side by side; the rootfs is
# the same for both, so a build copies the other lab's when that one is built instead of running debootstrap.
# Everything built lives in $WORK (default interop/work/, git-ignored). In the guest, $WORK/share
# appears at /lab (read-write), the host JDK ($JDK) at /opt/jdk (read-only).
#
# Env knobs: WORK (dir), MEM (MiB, 2048), SMP (2), NET=user|tap, RESTRICT=on|off (slirp eth0;
#   off lets the guest reach the host's loopback as 10.0.2.2), FWD_PORT (host 127.0.0.1 port
#   forwarded to guest 10.0.2.15:4420, default 14420), HOSTFWD (extra ",hostfwd=..." for
#   NET=user), ACCEL (tcg; kvm does NOT work on kvm_pvm hosts), ACCELOPT (",thread=single" for
#   JVM work in the guest: multi-threaded TCG made JIT'd code crash in ~10-30% of runs), CPU
#   (-cpu model, default max), PRUNE (1), KEEP_DEBS (0), JDK (host JDK dir shared into the guest),
#   SPDK_DIR (an SPDK build from bench/spdk-build.sh --guest, shared read-only as the 9p tag "spdk"),
#   ROOTFS_FROM (built lab directories whose rootfs a build may copy; default interop/work and interop/work-6.12).
#
# Networking stays on the host's loopback: NET=user is QEMU user networking (slirp) with host
# forwards bound to 127.0.0.1. NET=tap creates tap devices with private addresses and therefore
# refuses to run outside a network namespace made for the lab (ip netns add lab; ip netns exec lab ...).
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
LAB_KERNEL=${LAB_KERNEL:-6.1}
case $LAB_KERNEL in
  6.1) WORK=${WORK:-$HERE/work} ;;
  6.12) WORK=${WORK:-$HERE/work-6.12} ;;
  *) echo "LAB_KERNEL must be 6.1 or 6.12, got $LAB_KERNEL" >&2; exit 2 ;;
esac
MEM=${MEM:-2048}
SMP=${SMP:-2}
NET=${NET:-user}
ACCEL=${ACCEL:-tcg}
FWD_PORT=${FWD_PORT:-14420}
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
SUITE=bookworm
# Bump when the build recipe changes: `built` then reports the old build as stale.
# 2: dmsetup in the rootfs (check 38's dm-log-writes device)
BUILD_VERSION=2
# the Debian mirror this host's apt already uses (first "URIs:" of a deb822 source, else sources.list)
apt_mirror() {
  cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
    | awk '/^URIs:/{print $2} $1=="deb"{print $2}' | grep -v security | head -1 || true
}
MIRROR=${MIRROR:-$(apt_mirror)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
GUEST_PKGS=kmod,iproute2,rdma-core,ibverbs-providers,ibverbs-utils,rdmacm-utils,perftest,nvme-cli,fio,procps,iputils-ping,netcat-openbsd,python3-minimal,util-linux,e2fsprogs,dmsetup
TAPDEV=labtap TAPNET=192.168.77 TAPNET2=192.168.78

log() { printf '[lab %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

# ---------------------------------------------------------------- build ---
host_pkgs() {
  log "host packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  # pahole, libelf1, libssl3, zlib1g: what linux-kbuild-6.12 depends on, which nothing installs since
  # its package is unpacked, not installed (without pahole the 6.12 siw.ko build stops: "pahole: not found")
  apt-get install -y -q --no-install-recommends qemu-system-x86 qemu-utils \
      debootstrap busybox-static kmod cpio xz-utils make gcc binutils \
      iproute2 python3 pahole libelf1 libssl3 zlib1g >/dev/null
}

kernel_abi() {  # 6.1.0-57-amd64 (from the linux-image-amd64 metapackage) or 6.12.118+deb12-amd64 (the newest)
  if [ "$LAB_KERNEL" != 6.1 ]; then
    apt-cache search --names-only "^linux-image-${LAB_KERNEL//./\\.}\\.[0-9]+\\+deb12-amd64\$" \
      | awk '{sub("linux-image-","",$1); print $1}' | sort -V | tail -1
    return
  fi
  apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{sub("linux-image-","",$2); print $2; exit}'
}

# kernel_debs: sets KABI, KVER, KSER and downloads into debs/ the packages the kernel build needs that are not there
# yet: the image, linux-source and, for 6.12, the headers that get_kernel unpacks. Each is downloaded into
# debs/partial/ and moved into debs/ only when complete, so that a fetch stopped half way leaves nothing a build
# would take for a whole package.
kernel_debs() {
  KABI=$(kernel_abi)
  [ -n "$KABI" ] || { log "cannot find the kernel ABI from linux-image-amd64 (apt-get update?)"; exit 1; }
  KVER=$(apt-cache show --no-all-versions "linux-image-$KABI" | awk '/^Version:/{print $2; exit}')
  KSER=$LAB_KERNEL                       # 6.1 or 6.12: linux-source-$KSER
  log "kernel linux-image-$KABI $KVER (series $KSER)"
  local want=("linux-image-$KABI" "linux-source-$KSER") base=${KABI%-amd64} d
  [ "$LAB_KERNEL" = 6.1 ] || want+=("linux-headers-$KABI" "linux-headers-$base-common" "linux-kbuild-$base")
  mkdir -p debs/partial
  for d in "${want[@]}"; do
    [ -e "debs/${d}_$KVER"_*.deb ] && continue
    (cd debs/partial && apt-get download -q "$d=$KVER" 2>&1 | grep -v unsandboxed || true)
    mv debs/partial/"${d}_$KVER"_*.deb debs/ 2>/dev/null || { log "could not download $d=$KVER"; exit 1; }
  done
  rmdir debs/partial 2>/dev/null || true
}

get_kernel() {
  kernel_debs
  mkdir -p boot
  dpkg-deb --fsys-tarfile debs/linux-image-"$KABI"_*.deb | tar -x -C "$WORK" "./boot/vmlinuz-$KABI" "./boot/config-$KABI"
  # headers for building siw.ko out of tree (Debian does not enable CONFIG_RDMA_SIW)
  if [ "$LAB_KERNEL" = 6.1 ]; then
    apt-get install -y -q --no-install-recommends "linux-headers-$KABI=$KVER" >/dev/null
    KDIR=/usr/src/linux-headers-$KABI
    return
  fi
  # 6.12's linux-headers package depends on its linux-image: unpack the headers here instead of installing a
  # kernel on this machine (its Makefile names the common headers by absolute path; the rest is relative)
  local base=${KABI%-amd64} d
  rm -rf kheaders && mkdir -p kheaders
  for d in debs/linux-headers-"$KABI"_*.deb debs/linux-headers-"$base"-common_*.deb debs/linux-kbuild-"$base"_*.deb; do
    dpkg-deb -x "$d" kheaders
  done
  KDIR=$WORK/kheaders/usr/src/linux-headers-$KABI
  sed -i "s#^include /usr/src/#include $WORK/kheaders/usr/src/#" "$KDIR/Makefile"
}

build_siw() {
  log "building siw.ko out of tree"
  rm -rf siw-build && mkdir -p siw-build
  # only drivers/infiniband/sw/siw/ of linux-source's tar.xz: read until the archive has gone past that directory
  # (tar writes a directory's entries together), not through the whole ~1 GB; dpkg-deb then complains of the
  # broken pipe, so its stderr goes, and the files are checked instead
  dpkg-deb --fsys-tarfile debs/linux-source-"$KSER"_*.deb 2>/dev/null | tar -xO "./usr/src/linux-source-$KSER.tar.xz" \
    | python3 -c '
import sys, tarfile
dest, prefix = sys.argv[1], sys.argv[2]
n = 0
safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
with tarfile.open(fileobj=sys.stdin.buffer, mode="r|xz") as src:
    for m in src:
        if m.name.startswith(prefix) and m.isfile():
            m.name = m.name[len(prefix):]
            src.extract(m, dest, **safe)
            n += 1
        elif n:
            break
if not n:
    sys.exit("no " + prefix + " in linux-source")
print("siw sources: %d files" % n)
sys.stdout.flush()
sys.stdin.close()
' siw-build "linux-source-$KSER/drivers/infiniband/sw/siw/" || { [ -s siw-build/Makefile ] && [ -s siw-build/siw_main.c ]; }
  make -s -C "$KDIR" M="$WORK/siw-build" CONFIG_RDMA_SIW=m modules 2>&1 | grep -v -e 'Skipping BTF' || true
  test -s siw-build/siw.ko
}

# rootfs_source: prints a built lab directory of another kernel whose rootfs this build can copy instead of running
# debootstrap (the rootfs is the same for every kernel: only usr/lib/modules differs); 1 when there is none.
# ROOTFS_FROM names one (a lab directory); by default the other kernels' default directories are tried.
rootfs_source() {
  local d
  for d in ${ROOTFS_FROM:-$HERE/work $HERE/work-6.12}; do
    [ "$(readlink -f "$d")" != "$(readlink -f "$WORK")" ] || continue
    WORK=$d built && [ -x "$d/rootfs/usr/sbin/nvme" ] && [ -x "$d/rootfs/usr/sbin/dmsetup" ] \
      && { echo "$d"; return 0; }
  done
  return 1
}

# rootfs_tarball: prints a tarball of debootstrap's packages (`lab.sh fetch` makes one) in this lab directory or in
# one of the ROOTFS_FROM directories; 1 when there is none. The packages are the same for every kernel.
rootfs_tarball() {
  local d
  for d in "$WORK" ${ROOTFS_FROM:-$HERE/work $HERE/work-6.12}; do
    [ -s "$d/debootstrap.tgz" ] && { echo "$d/debootstrap.tgz"; return 0; }
  done
  return 1
}

DEBOOTSTRAP_ARGS=(--variant=minbase --include="$GUEST_PKGS")

build_rootfs() {
  local src tarball
  # a rootfs from an older recipe lacks the newest of GUEST_PKGS (dmsetup): made again
  if [ ! -x rootfs/usr/sbin/nvme ] || [ ! -x rootfs/usr/bin/rping ] || [ ! -x rootfs/usr/sbin/dmsetup ]; then
    rm -rf rootfs rootfs.copy
    if src=$(rootfs_source); then
      # the same debootstrap, already done by the other kernel's lab: copy it, without that kernel's modules
      log "rootfs: copy of $src/rootfs (the same $SUITE rootfs; its kernel modules left out)"
      mkdir rootfs.copy
      tar -C "$src/rootfs" --numeric-owner --exclude=./usr/lib/modules -cf - . | tar -C rootfs.copy --numeric-owner -xpf -
      mv rootfs.copy rootfs
    elif tarball=$(rootfs_tarball); then
      log "debootstrap $SUITE (minbase + RDMA/NVMe tools) from the packages fetched into $tarball"
      debootstrap "${DEBOOTSTRAP_ARGS[@]}" --unpack-tarball="$tarball" "$SUITE" rootfs "$MIRROR" > debootstrap.log 2>&1 \
        || { tail -20 debootstrap.log; exit 1; }
      rm -f rootfs/var/cache/apt/archives/*.deb
    else
      log "debootstrap $SUITE (minbase + RDMA/NVMe tools) from $MIRROR"
      debootstrap "${DEBOOTSTRAP_ARGS[@]}" "$SUITE" rootfs "$MIRROR" > debootstrap.log 2>&1 \
        || { tail -20 debootstrap.log; exit 1; }
      rm -f rootfs/var/cache/apt/archives/*.deb
    fi
  fi
  log "kernel modules -> rootfs"
  rm -rf "rootfs/usr/lib/modules/$KABI"
  dpkg-deb --fsys-tarfile debs/linux-image-"$KABI"_*.deb | tar -x -C rootfs/usr "./lib/modules/$KABI"
  if [ "${PRUNE:-1}" = 1 ]; then  # drop ~190 MB of module dirs a headless VM never loads
    (cd "rootfs/usr/lib/modules/$KABI/kernel" && rm -rf sound drivers/gpu drivers/media drivers/net/wireless \
       drivers/iio drivers/staging drivers/bluetooth drivers/usb drivers/hid drivers/input net/wireless \
       net/mac80211 net/bluetooth)
  fi
  mkdir -p "rootfs/usr/lib/modules/$KABI/updates"
  strip --strip-debug -o "rootfs/usr/lib/modules/$KABI/updates/siw.ko" siw-build/siw.ko
  depmod -b rootfs "$KABI"
  echo lab > rootfs/etc/hostname
  printf '127.0.0.1 localhost\n127.0.1.1 lab\n' > rootfs/etc/hosts
  mkdir -p rootfs/lab rootfs/opt/jdk
  install -m 755 /dev/stdin rootfs/sbin/lab-init <<'EOF'
#!/bin/bash
# PID 1 in the guest (after the initramfs switch_root). Runs lab.cmd, powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin HOME=/root TERM=dumb
mount -t proc proc /proc; mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm; mount -t devpts devpts /dev/pts; mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /tmp
modprobe configfs; mount -t configfs configfs /sys/kernel/config
hostname lab; ip link set lo up
arg() { tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -1; }
modprobe -q virtio_net   # no udev in the guest: nothing autoloads modules
for nic in $(arg lab.net | tr ',' ' '); do   # lab.net=eth0:10.0.2.15/24,eth1:10.0.3.15/24
  ip link set "${nic%%:*}" up && ip addr add "${nic#*:}" dev "${nic%%:*}"
done
GW=$(arg lab.gw); [ -n "$GW" ] && ip route add default via "$GW"
CMD=$(arg lab.cmd)
grep -qw lab /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag 2>/dev/null && \
  mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 lab /lab
grep -qw jdk /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag 2>/dev/null && \
  mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro,cache=loose jdk /opt/jdk
echo "LAB-BOOTED uptime=$(cut -d' ' -f1 /proc/uptime)s kernel=$(uname -r)"
if [ "$CMD" = shell ]; then
  setsid bash -c 'exec bash -i </dev/ttyS0 >/dev/ttyS0 2>&1'
else
  bash -c "$(echo "$CMD" | base64 -d)"; echo "LAB-EXIT rc=$?"
fi
sync; echo 1 > /proc/sys/kernel/sysrq; echo o > /proc/sysrq-trigger; sleep 10
EOF
}

build_initramfs() {
  log "initramfs (busybox + virtio/9p/overlay modules)"
  local d=initramfs.d m
  rm -rf $d && mkdir -p $d/{bin,dev,proc,sys,mod,lower,upper,newroot}
  cp /bin/busybox $d/bin/
  for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci \
           netfs fscache 9pnet 9pnet_virtio 9p overlay; do
    f=$(find "rootfs/usr/lib/modules/$KABI/kernel" -name "$m.ko*" | head -1)
    [ -n "$f" ] || continue          # fscache is part of netfs since 6.4
    case $f in                       # 6.12 ships xz-compressed modules: busybox's insmod gets plain ones
      *.xz) xz -dc "$f" > $d/mod/$m.ko ;;
      *) cp "$f" $d/mod/$m.ko ;;
    esac
    echo "$m" >> $d/mod/order
  done
  cat > $d/init <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
for m in $(cat /mod/order); do insmod /mod/$m.ko || echo "initramfs: insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro,cache=loose rootfs /lower || exec sh
mount -t tmpfs -o size=75% tmpfs /upper && mkdir -p /upper/u /upper/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /newroot || exec sh
mount --move /dev /newroot/dev; umount /proc /sys
exec switch_root /newroot /sbin/lab-init
EOF
  chmod +x $d/init
  (cd $d && find . | cpio -o -H newc --quiet | gzip -1) > boot/initramfs.gz
  rm -rf $d
}

build() {
  local t0=$SECONDS
  mkdir -p "$WORK" && cd "$WORK"
  rm -f stamp
  host_pkgs; get_kernel; build_siw; build_rootfs; build_initramfs
  mkdir -p share
  [ "${KEEP_DEBS:-0}" = 1 ] || rm -rf debs kheaders debootstrap.tgz  # 300 MB; the debs re-download in ~5 s
  echo "$KABI" > kabi
  echo "$BUILD_VERSION" > stamp
  log "build done in $((SECONDS - t0))s; artifacts: $(du -sh "$WORK" | cut -f1) in $WORK"
}

# fetch: what build would download, and nothing else, so that it can run beside other work (bin/test runs it beside
# mvn verify): the kernel packages (~5 s) and, when neither this lab nor another (ROOTFS_FROM) has a rootfs or a
# fetched tarball, debootstrap's packages (its download and check take ~75 s of its ~100 s). Needs root (apt-get).
fetch() {
  local t0=$SECONDS
  mkdir -p "$WORK" && cd "$WORK"
  if built; then log "fetch: the lab is built; nothing to fetch"; return 0; fi
  apt-get update -q >/dev/null
  kernel_debs
  if [ ! -x rootfs/usr/sbin/dmsetup ] && ! rootfs_source >/dev/null && ! rootfs_tarball >/dev/null; then
    log "fetch: debootstrap $SUITE packages from $MIRROR into $WORK/debootstrap.tgz"
    rm -rf debootstrap.fetch && mkdir debootstrap.fetch
    debootstrap "${DEBOOTSTRAP_ARGS[@]}" --make-tarball="$WORK/debootstrap.fetch/debootstrap.tgz" "$SUITE" \
        debootstrap.fetch/root "$MIRROR" > debootstrap-fetch.log 2>&1 || { tail -20 debootstrap-fetch.log; exit 1; }
    mv debootstrap.fetch/debootstrap.tgz debootstrap.tgz && rm -rf debootstrap.fetch
  fi
  log "fetch done in $((SECONDS - t0))s"
}

built() {
  [ -s "$WORK/boot/initramfs.gz" ] && [ -s "$WORK/kabi" ] && [ -x "$WORK/rootfs/usr/bin/rping" ] \
    && [ -s "$WORK/rootfs/usr/lib/modules/$(cat "$WORK/kabi")/updates/siw.ko" ] \
    && [ "$(cat "$WORK/stamp" 2>/dev/null)" = "$BUILD_VERSION" ]
}

# ----------------------------------------------------------------- run ---
tap_up() {  # tap_up <dev> <host-ip>: private /24 on the host side, nothing routed/NATed
  # taps carry private addresses: only inside a network namespace made for the lab, never on the host's own stack
  if [ -z "$(ip netns identify $$ 2>/dev/null)" ]; then
    echo "NET=tap runs only inside a network namespace you made: ip netns add lab; ip netns exec lab $0 ..." >&2
    exit 2
  fi
  ip link show "$1" >/dev/null 2>&1 && return
  ip tuntap add dev "$1" mode tap
  ip addr add "$2/24" dev "$1"
  ip link set "$1" up
}

boot() {  # boot <cmd-string|shell>
  cd "$WORK"
  KABI=$(cat kabi)
  local cmd=$1 netargs net gw
  # two NICs: eth0 (for siw0) and eth1 (for rxe0); rdma_cm picks the RDMA device
  # by the netdev that owns the IP, so siw and rxe must not share a netdev.
  if [ "$NET" = tap ]; then
    tap_up ${TAPDEV}0 ${TAPNET}.1; tap_up ${TAPDEV}1 ${TAPNET2}.1
    netargs=(-netdev tap,id=n0,ifname=${TAPDEV}0,script=no,downscript=no
             -netdev tap,id=n1,ifname=${TAPDEV}1,script=no,downscript=no)
    net=eth0:${TAPNET}.2/24,eth1:${TAPNET2}.2/24 gw=""
  else  # slirp; restrict=on: guest cannot open connections out; host->guest via hostfwd on 127.0.0.1
    netargs=(-netdev "user,id=n0,net=10.0.2.0/24,restrict=${RESTRICT:-on},hostfwd=tcp:127.0.0.1:$FWD_PORT-10.0.2.15:4420${HOSTFWD:-}"
             -netdev "user,id=n1,net=10.0.3.0/24,restrict=on")
    net=eth0:10.0.2.15/24,eth1:10.0.3.15/24 gw=10.0.2.2
  fi
  [ "$cmd" = shell ] || cmd=$(printf '%s' "$cmd" | base64 -w0)
  local jdkargs=()
  [ -d "$JDK" ] && jdkargs=(-virtfs "local,path=$JDK,mount_tag=jdk,security_model=none,readonly=on")
  # an SPDK build for the checks 5*-spdk-* (guest/spdk.sh mounts the tag "spdk" at /opt/spdk), read-only
  [ -n "${SPDK_DIR:-}" ] && [ -d "$SPDK_DIR" ] &&
    jdkargs+=(-virtfs "local,path=$(readlink -f "$SPDK_DIR"),mount_tag=spdk,security_model=none,readonly=on")
  mkdir -p share
  exec qemu-system-x86_64 -nodefaults -no-user-config -accel "$ACCEL${ACCELOPT:-}" -cpu "${CPU:-max}" -smp "$SMP" -m "$MEM" \
    -display none -serial stdio -monitor none -no-reboot \
    -kernel "boot/vmlinuz-$KABI" -initrd boot/initramfs.gz \
    -append "console=ttyS0 quiet panic=-1 mitigations=off lab.net=$net lab.gw=$gw lab.cmd=$cmd" \
    -virtfs "local,path=$WORK/rootfs,mount_tag=rootfs,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$WORK/share,mount_tag=lab,security_model=none,multidevs=remap" \
    "${jdkargs[@]}" "${netargs[@]}" -device virtio-net-pci,netdev=n0,romfile= \
    -device virtio-net-pci,netdev=n1,romfile= \
    -device virtio-rng-pci
}

case "${1:-}" in
  build)   build ;;
  fetch)   fetch ;;
  built)   built ;;
  run)     shift; boot "$*" ;;
  shell)   boot shell ;;
  tapdown) for t in ${TAPDEV}0 ${TAPDEV}1; do ip link del $t 2>/dev/null || true; done ;;
  clean)   for t in ${TAPDEV}0 ${TAPDEV}1; do ip link del $t 2>/dev/null || true; done
           rm -rf "$WORK" ;;
  *) sed -n '2,36p' "$0"; exit 1 ;;
esac
