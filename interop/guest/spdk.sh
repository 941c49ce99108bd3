# SPDK in the lab guest, for the checks 5*-spdk-* (interop/run spdk): sourced by their guest parts as
# /lab/guest/spdk.sh. The SPDK build is the host's directory $SPDK_DIR (bench/spdk-build.sh SRC OUT --guest:
# --with-rdma, --target-arch=x86-64-v2, examples), shared read-only like the JDK: interop/lab.sh gives it to QEMU
# as the 9p tag "spdk" when SPDK_DIR is set, and sp_setup mounts it at /opt/spdk. Nothing of SPDK is copied
# into the lab or the repository.

SP_DIR=/opt/spdk
SP_BIN=$SP_DIR/build/bin
SP_BDEVPERF=$SP_DIR/build/examples/bdevperf
# The host NQN the SPDK initiators send: spdk_nvme_perf and spdk_nvme_identify send an EMPTY one unless the
# transport ID names one ("hostnqn:" in -r), bdevperf and spdk_dd none unless bdev_nvme_attach_controller has
# "hostnqn" (checks 50-53 pass it; check 54 leaves it out, as a user would).
SP_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:5b0c2e1a-7d3f-4c6e-9a8b-1f2e3d4c5b6a
SP_HUGEPAGES=${SP_HUGEPAGES:-448}   # 2 MiB pages: 896 MiB of the guest's 2 GiB

# sp_setup: mounts the build, locked memory, hugepages, an empty OpenSSL config. 1 when the build is not there.
sp_setup() {
  if [ ! -x "$SP_BIN/nvmf_tgt" ]; then
    mkdir -p "$SP_DIR"
    grep -qw spdk /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag 2>/dev/null &&
      mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro,cache=loose spdk "$SP_DIR"
  fi
  [ -x "$SP_BIN/nvmf_tgt" ] || {
    note "no SPDK build in the guest: run with SPDK_DIR=<bench/spdk-build.sh OUT_DIR built with --guest> interop/run spdk"
    return 1; }
  ulimit -l unlimited   # SPDK registers its whole memory with the RDMA device
  # SPDK's TLS setup reads the default OpenSSL configuration, which fails in a minimal build; an empty one does not
  : > /tmp/openssl-empty.cnf
  export OPENSSL_CONF=/tmp/openssl-empty.cnf
  mountpoint -q /dev/hugepages || { mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages; }
  [ "$(cat /proc/sys/vm/nr_hugepages)" -ge "$SP_HUGEPAGES" ] || echo "$SP_HUGEPAGES" > /proc/sys/vm/nr_hugepages
  rm -f /dev/hugepages/spdk_pid* 2>/dev/null   # pages of SPDK apps an earlier check killed
  note "SPDK $(sp_version) at $SP_DIR; hugepages $(cat /proc/sys/vm/nr_hugepages) x 2 MiB, free $(awk '/HugePages_Free/{print $2}' /proc/meminfo)"
}

sp_version() {
  awk '$1 == "#define" && $2 == "SPDK_VERSION_MAJOR" {M = $3} $1 == "#define" && $2 == "SPDK_VERSION_MINOR" {m = $3}
       END {printf "v%s.%02d\n", M, m}' "$SP_DIR/include/spdk/version.h" 2>/dev/null
}

# sp_trid ADDR PORT SUBNQN [HOSTNQN]: the transport ID of spdk_nvme_perf / spdk_nvme_identify (-r).
sp_trid() {
  echo "trtype:RDMA adrfam:IPv4 traddr:$1 trsvcid:$2 subnqn:$3${4:+ hostnqn:$4}"
}

# sp_bdev_json FILE ADDR PORT SUBNQN [HOSTNQN]: an SPDK JSON config attaching the NVMe-oF controller "Nvme0"
# (its namespace 1 is the bdev Nvme0n1), for bdevperf and spdk_dd (--json). Connect gets 10 s instead of SPDK's
# 500 ms (an emulated guest on a loaded host; see sp_run).
sp_bdev_json() {
  local hn=""
  [ -n "${5:-}" ] && hn=", \"hostnqn\": \"$5\""
  cat > "$1" <<EOF
{"subsystems": [{"subsystem": "bdev", "config": [
  {"method": "bdev_nvme_attach_controller", "params": {"name": "Nvme0", "trtype": "RDMA", "adrfam": "IPv4",
   "traddr": "$2", "trsvcid": "$3", "subnqn": "$4"$hn, "fabrics_connect_timeout_us": 10000000}}]}]}
EOF
}

# sp_tgt_json FILE SUBNQN MALLOC_MB: nvmf_tgt's configuration: the RDMA transport with the siw settings (siw's
# max_sge_rd is 1, so an I/O buffer must be one piece: io_unit_size = max_io_size = 128 KiB; 511 such buffers
# with 32 cached per poll group fit the default pool), a malloc bdev of MALLOC_MB MiB in 512-byte blocks,
# the subsystem open to any host and listening on $GUEST_IP:4420 (siw0 on eth0). The same as rpc.py's
# nvmf_create_transport -t RDMA -u 131072 -i 131072 -n 511 -b 32, bdev_malloc_create, nvmf_create_subsystem -a,
# nvmf_subsystem_add_ns, nvmf_subsystem_add_listener (no Python in the guest needed).
sp_tgt_json() {
  cat > "$1" <<EOF
{"subsystems": [
 {"subsystem": "bdev", "config": [
   {"method": "bdev_malloc_create", "params": {"name": "Malloc0", "num_blocks": $(($3 * 2048)), "block_size": 512}}]},
 {"subsystem": "nvmf", "config": [
   {"method": "nvmf_create_transport", "params": {"trtype": "RDMA", "io_unit_size": 131072, "max_io_size": 131072,
     "num_shared_buffers": 511, "buf_cache_size": 32}},
   {"method": "nvmf_create_subsystem", "params": {"nqn": "$2", "allow_any_host": true,
     "serial_number": "SPDK00000000000001", "model_number": "SPDK bdev Controller"}},
   {"method": "nvmf_subsystem_add_ns", "params": {"nqn": "$2", "namespace": {"bdev_name": "Malloc0"}}},
   {"method": "nvmf_subsystem_add_listener", "params": {"nqn": "$2", "listen_address": {"trtype": "RDMA",
     "adrfam": "IPv4", "traddr": "$GUEST_IP", "trsvcid": "4420"}}}]}]}
EOF
}

# sp_run SECONDS LOG CMD...: an SPDK tool with a time limit, its output in LOG (and shown); its exit status.
# A run that failed while SETTING UP the connection is retried, up to SP_TRIES (3) runs in all, each retry
# noted: SPDK's initiator gives the RDMA CM 2 s to resolve an address or route (NVME_RDMA_TIME_OUT_IN_MS) and
# the Fabrics Connect command 500 ms (NVME_FABRIC_CONNECT_COMMAND_TIMEOUT, "Connect command failed, rc -125"),
# which the emulated guest on a loaded host misses now and then before any byte reaches the target. A Connect
# that the target answered with an error status ("completed with error: sct S, sc C") is an answer, never
# retried.
SP_SETUP_FAILURE='Connect command failed, rc -125|RDMA address resolution error|RDMA connect error|rdma_resolve_route|Expected RDMA_CM_EVENT'
sp_run() {
  local t=$1 log=$2 rc try=1; shift 2
  while :; do
    note "$(basename "$1") ${*:2}"
    timeout -k 5 "$t" "$@" > "$log" 2>&1
    rc=$?
    [ $rc = 124 ] && echo "(timed out after $t s)" >> "$log"
    sed 's/^/    /' "$log" | grep -v '^    *$' | tail -"${SP_SHOW_LINES:-40}"
    if [ $rc != 0 ] || grep -qE 'Failed to initialize SSD' "$log"; then
      if [ $try -lt "${SP_TRIES:-3}" ] && grep -qE "$SP_SETUP_FAILURE" "$log" && ! grep -q 'completed with error' "$log"; then
        try=$((try + 1))
        note "connection setup failed on the SPDK side (timeout in the emulated guest): run $try of ${SP_TRIES:-3}"
        sleep 2
        continue
      fi
    fi
    return $rc
  done
}
