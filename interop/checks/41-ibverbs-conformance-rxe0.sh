# The verbs conformance suite on the ibverbs provider over the guest kernel's rxe0 (kernel rxe, RoCEv2, on eth1), with Java 25 in
# the guest (ib_conformance in interop/guest/ibverbs.sh). CONFORMANCE_TESTS=REGEX (interop/run's environment)
# runs only the test methods whose names match it.
GUEST_JAVA=1
ON_REQUEST=1   # not in the default run (CI time; check 40 runs the same suite on siw0): interop/run conformance
CHECK_TIMEOUT=600
host_part() { . "$ROOT/interop/checks/ibverbs-lib.sh"; ib_stage_conformance && signal staged; }
guest_part() { . /lab/guest/ibverbs.sh; ib_conformance rxe0; }
