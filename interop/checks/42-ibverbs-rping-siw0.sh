# nvmf4j rping on the ibverbs provider against rdma-core's rping, both in the guest on siw0 (kernel siw, iWARP), both
# directions, 10 pings of 4 KiB verified each way (ib_rping in interop/guest/ibverbs.sh).
GUEST_JAVA=1
ON_REQUEST=1   # not in the default run (CI time; checks 40-41 run the verbs suite on the same devices): interop/run rping
CHECK_TIMEOUT=420
guest_part() { . /lab/guest/ibverbs.sh; ib_rping siw0 10 4096; }
