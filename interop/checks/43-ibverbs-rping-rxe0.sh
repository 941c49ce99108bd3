# nvmf4j rping on the ibverbs provider against rdma-core's rping, both in the guest on rxe0 (kernel rxe, RoCEv2), both
# directions, 10 pings of 4 KiB verified each way (ib_rping in interop/guest/ibverbs.sh).
GUEST_JAVA=1
CHECK_TIMEOUT=420
guest_part() { . /lab/guest/ibverbs.sh; ib_rping rxe0 10 4096; }
