#!/usr/bin/env bash
# Builds SPDK from a source tree the user prepared (bench/README.md "SPDK": v24.01 with its submodules dpdk,
# isa-l and isa-l-crypto), for bench/spdk.sh (host, NVMe/TCP) and the lab's SPDK checks (guest, NVMe/RDMA).
#
#   bench/spdk-build.sh SRC_DIR OUT_DIR [--rdma] [--guest] [--examples] [-j N]
#
# SPDK builds inside its own tree, so SRC_DIR is copied to OUT_DIR first (SRC_DIR stays untouched and can
# feed several builds). This script never downloads anything and never writes into the nvmf4j repository: keep
# SRC_DIR and OUT_DIR outside it (SPDK sources and binaries are never committed).
#
#   --rdma      --with-rdma (NVMe/RDMA through librdmacm/libibverbs; needed for the lab's siw0)
#   --guest     for the QEMU lab guest: implies --rdma and --examples, and --target-arch=x86-64-v2 (the TCG guest
#               CPU has AVX2 but not AVX-512; a native build of this host would die there on SIGILL)
#   --examples  also build SPDK's examples (bdevperf lives there: build/examples/bdevperf)
#   --no-send-with-inval  (implied by --guest) build nvmf_tgt without Send with Invalidate, for kernel siw: see below
#   -j N        make jobs (default: the CPU count)
#
# Needs the Debian packages below (checked, not installed: the script tells the apt-get line to run).
set -euo pipefail

die() { echo "spdk-build: $*" >&2; exit 1; }
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

SRC="" OUT="" RDMA=0 GUEST=0 EXAMPLES=0 NO_SEND_INV=0 JOBS=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --rdma) RDMA=1 ;;
    --guest) GUEST=1; RDMA=1; EXAMPLES=1; NO_SEND_INV=1 ;;
    --no-send-with-inval) NO_SEND_INV=1 ;;
    --examples) EXAMPLES=1 ;;
    -j) JOBS="$2"; shift ;;
    -h|--help) usage ;;
    -*) die "unknown option $1" ;;
    *) if [ -z "$SRC" ]; then SRC="$1"; elif [ -z "$OUT" ]; then OUT="$1"; else usage; fi ;;
  esac
  shift
done
[ -n "$SRC" ] && [ -n "$OUT" ] || usage
SRC=$(realpath "$SRC")
[ -x "$SRC/configure" ] && [ -f "$SRC/include/spdk/version.h" ] || die "$SRC is not an SPDK source tree"
for sub in dpdk/meson.build isa-l/Makefile.am isa-l-crypto/Makefile.am; do
  [ -e "$SRC/$sub" ] || die "$SRC/$sub is missing: the submodules dpdk, isa-l and isa-l-crypto must be checked out (bench/README.md \"SPDK\")"
done

REPO=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
case "$OUT/" in "$REPO"/*) die "OUT_DIR $OUT is inside the nvmf4j repository: SPDK builds are never committed, build outside it" ;; esac
[ "$OUT" != "$SRC" ] || die "OUT_DIR must differ from SRC_DIR (the source tree is copied, then built)"

# The packages SPDK v24.01's configure and its bundled DPDK/isa-l builds need (pkgdep.sh's minimal set).
PKGS="gcc make libaio-dev libnuma-dev python3-pyelftools meson libcunit1-dev nasm autoconf automake libtool libssl-dev uuid-dev libncurses-dev ninja-build pkg-config"
[ "$RDMA" = 1 ] && PKGS="$PKGS librdmacm-dev libibverbs-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] || die "missing packages:$missing
  run: apt-get install -y$missing"

echo "spdk-build: copying $SRC to $OUT" >&2
# Copy the tree (a rerun into the same OUT_DIR reconfigures, and configure makes DPDK build anew: as long as the
# first build).
cp -a "$SRC/." "$OUT/"
cd "$OUT"

args=(--disable-tests --disable-unit-tests --without-vhost --without-virtio --without-crypto --without-fuse
      --without-nvme-cuse --without-ocf --without-xnvme --without-vfio-user --without-uring --without-usdt
      --without-idxd)
[ "$EXAMPLES" = 1 ] || args+=(--disable-examples)
[ "$RDMA" = 1 ] && args+=(--with-rdma)
[ "$GUEST" = 1 ] && args+=(--target-arch=x86-64-v2)

# SPDK's configure runs openssl checks that fail on some distributions' default OpenSSL config (providers it
# cannot load in a minimal build); an empty config file sidesteps that.
export OPENSSL_CONF="$OUT/.openssl-empty.cnf"
: > "$OPENSSL_CONF"

start=$(date +%s)
echo "spdk-build: ./configure ${args[*]}" >&2
./configure "${args[@]}" > "$OUT/.spdk-configure.log" 2>&1 || { tail -30 "$OUT/.spdk-configure.log" >&2; die "configure failed (log: $OUT/.spdk-configure.log)"; }
if [ "$NO_SEND_INV" = 1 ]; then
  # SPDK's NVMe-oF RDMA target answers a command whose keyed SGL asks for invalidation (subtype Fh) with Send with
  # Invalidate, putting the key in wr.invalidate_rkey (lib/nvmf/rdma.c, nvmf_rdma_request_parse_sgl). rdma-core's
  # user-space siw provider (providers/siw/siw.c, push_send_wqe) copies wr.rdma.rkey into the work queue element
  # for every opcode and never reads invalidate_rkey, so over siw the Send names a wrong STag and the host
  # (nvmf4j as the kernel's siw would) refuses it: REM_INV_REQ_ERR and a Terminate "STag cannot be invalidated".
  # Without the option the target answers with a plain Send and the host invalidates the key itself.
  sed -i 's/^CONFIG_RDMA_SEND_WITH_INVAL?=y/CONFIG_RDMA_SEND_WITH_INVAL?=n/' mk/config.mk
  grep -q '^CONFIG_RDMA_SEND_WITH_INVAL?=n' mk/config.mk || die "could not turn CONFIG_RDMA_SEND_WITH_INVAL off in mk/config.mk"
  echo "spdk-build: CONFIG_RDMA_SEND_WITH_INVAL=n (siw: see the comment in $0)" >&2
fi
echo "spdk-build: make -j$JOBS (several minutes; log: $OUT/.spdk-make.log)" >&2
make -j"$JOBS" > "$OUT/.spdk-make.log" 2>&1 || { tail -40 "$OUT/.spdk-make.log" >&2; die "make failed (log: $OUT/.spdk-make.log)"; }
end=$(date +%s)

echo "spdk-build: built in $((end - start)) s: $OUT"
for b in build/bin/nvmf_tgt build/bin/spdk_nvme_perf build/bin/spdk_nvme_identify build/bin/spdk_dd \
         build/examples/bdevperf scripts/rpc.py; do
  if [ -x "$OUT/$b" ]; then echo "  $OUT/$b"; fi
done
for b in build/bin/nvmf_tgt build/bin/spdk_nvme_perf; do
  [ -x "$OUT/$b" ] || die "$b was not built"
done
if [ "$EXAMPLES" = 1 ] && [ ! -x "$OUT/build/examples/bdevperf" ]; then die "build/examples/bdevperf was not built"; fi
