# The provider-independent verbs conformance suite (common-verbs tests, io.nvmf4j.verbs.conformance) on the
# ibverbs provider over the guest kernel's siw0 (iWARP), with Java 25 in the guest: every bench listens and
# connects on 10.0.2.15 (eth0), nvmf4j.conformance.provider/device/address. Both ends of each connection are in
# one JVM; the data moves through the kernel's device. Tests a device cannot do are skipped with the
# reason; the check passes when every failure is on ibverbs-known-failures.txt (printed with its reason).
GUEST_JAVA=1
CHECK_TIMEOUT=600
DEVICE=siw0

host_part() {
  . "$ROOT/interop/checks/ibverbs-lib.sh"
  ib_stage_tests || return 1
  cp "$ROOT/interop/checks/ibverbs-known-failures.txt" "$SYNC/java/"
  signal staged
}

guest_part() {
  . /lab/guest/java.sh
  await staged 300 > /dev/null || return 1
  local ip rc; ip=$(gj_device_ip $DEVICE)
  note "conformance suite on ibverbs/$DEVICE at $ip"
  GJ_EXTRA_OPTS="-Dnvmf4j.conformance.provider=ibverbs -Dnvmf4j.conformance.device=$DEVICE -Dnvmf4j.conformance.address=$ip" \
    gj_junit "$SYNC/java/classes:$SYNC/java/test-classes" --select-package io.nvmf4j.verbs.conformance \
    > "$SYNC/junit.log" 2>&1; rc=$?
  grep -E 'tests (found|successful|skipped|aborted|failed)|Test run finished' "$SYNC/junit.log"
  note "JUnit console launcher rc=$rc (the whole tree: $CHECK/junit.log)"
  # every failure must be a known one (interop/checks/ibverbs-known-failures.txt), each printed with its reason
  python3 /lab/guest/junit-tree-check.py "$SYNC/junit.log" "$SYNC/java/ibverbs-known-failures.txt" $DEVICE
}
