# Stopping the target with SIGTERM while the kernel host (nvme-rdma) writes, then starting it again: the daemon
# exits 0, the kernel host reconnects (reconnect delay 1 s), fio finishes its random writes and its verify pass
# reads every block it wrote back with a correct crc32c: no write the target acknowledged is lost. (Check 67 does
# the same over NVMe/TCP; both are kh_restart_*_part in kernel-host-lib.sh.)
CHECK_TIMEOUT=600

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  kh_restart_host_part
}

guest_part() {
  . /lab/checks/kernel-host-lib.sh
  kh_restart_guest_part
}
