package io.nvmf4j.target.rdma;

/**
 * How the helpers of an {@link RdmaQueue} end its connection and give back the requests of a closing queue, without
 * a reference to the queue and its other parts: the queue implements it and hands itself to each helper as this.
 * Its {@code toString} names the queue in the helpers' log lines. Called on the poll group's thread only.
 */
interface QueueCloser {

    /** Starts the end of the queue (nvmet_rdma_queue_disconnect()); idempotent. */
    void beginTeardown(String reason);

    /** Ends the connection of a peer that broke a rule or a limit: logged once per connection and counted. */
    void reject(RejectReason reason, String detail);

    /** Gives a request back: its buffer to the pool, its context to the free list, its share to the queue. */
    void release(RdmaRequest r);
}
