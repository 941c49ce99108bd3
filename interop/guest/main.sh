#!/bin/bash
# The guest side of interop/run: PID 1's command in the lab guest. Sets up what every check
# needs (siw0 on eth0: siw on lo does not work), then runs the guest part of each check listed
# in /lab/sync/checks.list, each when the host says "go", and reports its exit status.
. /lab/lib.sh
ulimit -l unlimited            # siw enforces RLIMIT_MEMLOCK on registrations, even for root
{
  modprobe -a ib_uverbs rdma_ucm siw && rdma link add siw0 type siw netdev eth0 &&
  # the boot for GUEST_JAVA=1 checks (interop/run) adds rxe0 on eth1: rdma_cm picks the device by the
  # netdev that owns the address, so siw and rxe need netdevs of their own
  if [ "${LAB_JAVA:-0}" = 1 ]; then modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth1; fi
} > /lab/sync/setup.log 2>&1
echo "setup rc=$? $(rdma link show 2>&1 | tr '\n' ' ')" | tee -a /lab/sync/setup.log
touch /lab/sync/guest-ready

while read -r name timeout; do
  export SYNC=/lab/sync/$name
  # the host says go when its own part is about to start (or "skip" / the run is over)
  while [ ! -e "$SYNC/go" ] && [ ! -e /lab/sync/finish ]; do sleep 0.2; done
  [ -e /lab/sync/finish ] && [ ! -e "$SYNC/go" ] && break
  echo "=== guest: $name"
  timeout -k 5 "$timeout" bash -c '. /lab/lib.sh; guest_part() { true; }; . "$1"; guest_part' \
      guest-part "/lab/checks/$name.sh" > "$SYNC/guest.log" 2>&1
  rc=$?
  [ $rc = 124 ] && echo "guest part timed out after $timeout s" >> "$SYNC/guest.log"
  SYNC=$SYNC signal guest.rc $rc
  sed "s/^/  $name| /" "$SYNC/guest.log" | head -40
done < /lab/sync/checks.list
# stay up until the host has collected everything
for i in $(seq 300); do [ -e /lab/sync/finish ] && break; sleep 0.2; done
echo "=== guest: done"
