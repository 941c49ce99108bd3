# Check 25 over NVMe/TCP: `nvmf4j serve --transport tcp` stopped with SIGTERM while the kernel's nvme-tcp host
# writes, then started again on the same port and image: the daemon exits 0, nvme-tcp's reconnect work connects
# again (reconnect delay 1 s), fio finishes its random writes and its verify pass reads every block back with a
# correct crc32c: no write the target acknowledged is lost.
CHECK_TIMEOUT=600
KH_TRANSPORT=tcp

host_part() {
  . "$ROOT/interop/checks/kernel-host-lib.sh"
  kh_restart_host_part
}

guest_part() {
  . /lab/checks/kernel-host-lib.sh
  kh_restart_guest_part
}
