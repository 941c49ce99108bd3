# Host-side helpers of the SPDK checks (5*-spdk-*.sh, on request: interop/run spdk): SPDK's initiator tools in the
# guest (interop/guest/spdk.sh) against `nvmf4j serve` (softiwarp) on the host's 127.0.0.1, which the guest reaches
# as 10.0.2.2 over siw0. Sourced by a check's host_part from $ROOT/interop/checks (the guest does not see it).
. "$ROOT/interop/checks/kernel-host-lib.sh"   # kh_start_serve, kh_stop_serve, kh_await, kh_image

SPDK_SUBNQN=nqn.2026-12.io.nvmf4j:lab-spdk

# spdk_serve_for_guest IMAGE_MIB [serve options...]: serve a zeroed image file on a free port, tell the guest
# "PORT SUBNQN", wait until the guest part says "done" (or ends), stop serve (it must exit 0). The image stays in
# $SYNC/disk.img for the caller to check.
spdk_serve_for_guest() {
  local mib=$1 port img rc=0; shift
  port=$(free_port)
  img=$(kh_image "$mib")
  kh_start_serve "$port" --file "$img" --nqn "$SPDK_SUBNQN" "$@" || return 1
  signal target "$port $SPDK_SUBNQN"
  kh_await done 400 > /dev/null || rc=1
  kh_stop_serve || rc=1
  grep -E 'connected|rejected|refused|error|WARN' "$SYNC/serve.log" | head -20
  return $rc
}
